// The name indexes of the static API: a reader who knows only a tool name or an endpoint
// URL hashes it, fetches one shard and looks it up there. The shard rule is checked here against an
// independent SHA-256 (node:crypto over the key's UTF-8 bytes), and the shard files' shape against
// the zod schema and the JSON Schema published from it.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { zodToJsonSchema } from 'zod-to-json-schema';
import {
  allShards,
  ENDPOINT_INDEX_DIR,
  ENDPOINT_INDEX_SCHEMA_PATH,
  EndpointIndexShard,
  endpointIndexPath,
  NAME_INDEX_SHARD_DIGITS,
  NAME_INDEX_SHARDS,
  nameIndexShard,
  SHARD_RULE,
  TOOL_INDEX_DIR,
  TOOL_INDEX_SCHEMA_PATH,
  ToolIndexShard,
  toolIndexPath,
} from '../../src/lib/name-index.ts';

const sha = (key: string) => createHash('sha256').update(Buffer.from(key, 'utf8')).digest('hex');

describe('nameIndexShard(key)', () => {
  it('is the first two hex digits of the SHA-256 of the key (published values: "" → e3, "abc" → ba)', () => {
    expect(sha('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(nameIndexShard('')).toBe('e3');
    expect(sha('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(nameIndexShard('abc')).toBe('ba');
  });

  it('hashes the UTF-8 bytes of names and URLs alike', () => {
    for (const key of ['search_issues', 'https://api.example.com/mcp', 'café', '工具', '🔧 fix']) {
      expect(nameIndexShard(key)).toBe(sha(key).slice(0, 2));
    }
  });

  it('names a shard that exists', () => {
    const shards = new Set(allShards());
    for (const key of ['a', 'b', 'get_me', 'https://x.example']) expect(shards.has(nameIndexShard(key))).toBe(true);
  });
});

describe('allShards()', () => {
  it('lists 256 two-digit lowercase shards "00" … "ff" in order, each once', () => {
    expect(NAME_INDEX_SHARD_DIGITS).toBe(2);
    expect(NAME_INDEX_SHARDS).toBe(256);
    const s = allShards();
    expect(s).toHaveLength(256);
    expect(s[0]).toBe('00');
    expect(s[10]).toBe('0a');
    expect(s[15]).toBe('0f');
    expect(s[16]).toBe('10');
    expect(s[255]).toBe('ff');
    expect(new Set(s).size).toBe(256);
    expect(s.every((x) => /^[0-9a-f]{2}$/.test(x))).toBe(true);
    expect([...s].sort()).toEqual(s);
  });
});

describe('paths', () => {
  it('puts a shard file under its index folder', () => {
    expect(TOOL_INDEX_DIR).toBe('/api/tool-names');
    expect(ENDPOINT_INDEX_DIR).toBe('/api/endpoints');
    expect(toolIndexPath('3f')).toBe('/api/tool-names/3f.json');
    expect(endpointIndexPath('3f')).toBe('/api/endpoints/3f.json');
    expect(TOOL_INDEX_SCHEMA_PATH).toBe('/api/schema/tool-names.json');
    expect(ENDPOINT_INDEX_SCHEMA_PATH).toBe('/api/schema/endpoints.json');
  });

  it('states the shard rule a reader follows', () => {
    expect(SHARD_RULE).toBe("the first 2 hex digits of the SHA-256 of the key's UTF-8 bytes");
  });
});

const head = { version: 2, shard: 'ba', shard_rule: SHARD_RULE, methodology: 'v1' } as const;
const ref = { name: 'io.github.x/y', status: 'ok', descriptor_url: '/api/servers/io-github-x-y.json' };
const toolShard = () => ({
  ...head,
  kind: 'tool-names',
  tools: [{ tool: 'search', servers: [{ ...ref, definition_sha256: 'a'.repeat(64), set_sha256: 'b'.repeat(64), first_seen: '2026-12-01T00:00:00Z' }] }],
});
const endpointShard = () => ({ ...head, kind: 'endpoints', endpoints: [{ endpoint: 'https://x.example/mcp', servers: [ref] }] });

describe('ToolIndexShard', () => {
  it('accepts a shard as the writer makes it, an empty one and one of an empty archive', () => {
    expect(ToolIndexShard.safeParse(toolShard()).success).toBe(true);
    expect(ToolIndexShard.safeParse({ ...toolShard(), tools: [] }).success).toBe(true);
  });

  it('accepts null hashes (an answer with no canonical form), no first sighting and the simulated flag', () => {
    const t = toolShard();
    t.tools[0]!.servers[0] = { ...t.tools[0]!.servers[0]!, definition_sha256: null as never, set_sha256: null as never, first_seen: null as never };
    expect(ToolIndexShard.safeParse(t).success).toBe(true);
    expect(ToolIndexShard.safeParse({ ...toolShard(), simulated: true }).success).toBe(true);
  });

  it.each([
    ['another version', { version: 1 }],
    ['an uppercase shard', { shard: 'BA' }],
    ['an empty shard', { shard: '' }],
    ['a shard with a non-hex digit', { shard: 'bg' }],
    ['a shard with a trailing non-hex character', { shard: 'ba/' }],
    ['a shard with a leading non-hex character', { shard: '/ba' }],
    ['methodology v2', { methodology: 'v2' }],
    ['simulated false (the flag is present only when true)', { simulated: false }],
    ['the endpoints kind', { kind: 'endpoints' }],
    ['an unknown member', { extra: 1 }],
    ['no shard rule', { shard_rule: undefined }],
    ['a date of the latest run (format 1; it made every shard change daily)', { generated_at: '2026-12-01T00:00:00Z' }],
  ])('refuses %s', (_about, change) => {
    expect(ToolIndexShard.safeParse({ ...toolShard(), ...change }).success).toBe(false);
  });

  it('refuses unknown members in a tool entry and in a server reference', () => {
    const a = toolShard();
    (a.tools[0] as Record<string, unknown>).extra = 1;
    expect(ToolIndexShard.safeParse(a).success).toBe(false);
    const b = toolShard();
    (b.tools[0]!.servers[0] as Record<string, unknown>).extra = 1;
    expect(ToolIndexShard.safeParse(b).success).toBe(false);
  });

  it('requires every member of a server reference', () => {
    for (const k of ['name', 'status', 'descriptor_url', 'definition_sha256', 'set_sha256', 'first_seen']) {
      const t = toolShard();
      delete (t.tools[0]!.servers[0] as Record<string, unknown>)[k];
      expect(ToolIndexShard.safeParse(t).success, k).toBe(false);
    }
  });
});

describe('EndpointIndexShard', () => {
  it('accepts a shard as the writer makes it', () => {
    expect(EndpointIndexShard.safeParse(endpointShard()).success).toBe(true);
    expect(EndpointIndexShard.safeParse({ ...endpointShard(), endpoints: [], simulated: true }).success).toBe(true);
    expect(EndpointIndexShard.safeParse({ ...endpointShard(), generated_at: null }).success).toBe(false);
  });

  it('refuses the tool-names kind, unknown members, and tool fields in a server reference', () => {
    expect(EndpointIndexShard.safeParse({ ...endpointShard(), kind: 'tool-names' }).success).toBe(false);
    expect(EndpointIndexShard.safeParse({ ...endpointShard(), extra: 1 }).success).toBe(false);
    expect(EndpointIndexShard.safeParse({ ...endpointShard(), shard: 'BA' }).success).toBe(false);
    const e = endpointShard();
    (e.endpoints[0] as Record<string, unknown>).extra = 1;
    expect(EndpointIndexShard.safeParse(e).success).toBe(false);
    const s = endpointShard();
    (s.endpoints[0]!.servers[0] as Record<string, unknown>).set_sha256 = null;
    expect(EndpointIndexShard.safeParse(s).success).toBe(false);
  });
});

// The JSON Schemas published at /api/schema/*.json document every field a reader meets.
const schemaOf = (s: typeof ToolIndexShard | typeof EndpointIndexShard) => zodToJsonSchema(s, { $refStrategy: 'none', target: 'jsonSchema7' }) as Record<string, any>;

describe('the published JSON Schemas', () => {
  it('describe the tool-name shard and each of its documented fields', () => {
    const j = schemaOf(ToolIndexShard);
    expect(j.description).toBe('One shard of the tool-name index: /api/tool-names/<shard>.json.');
    expect(j.additionalProperties).toBe(false);
    expect(j.properties.shard_rule.description).toMatch(/SHA-256 of its UTF-8 bytes/);
    expect(j.properties.version.description).toMatch(/removes or renames a field gets a new number/);
    expect(j.properties).not.toHaveProperty('generated_at');
    expect(j.properties.simulated.description).toMatch(/simulated build/);
    expect(j.properties.tools.description).toMatch(/sorted by UTF-16 code units/);
    const tool = j.properties.tools.items;
    expect(tool.properties.tool.description).toMatch(/tool name as served/);
    const server = tool.properties.servers.items;
    expect(server.properties.name.description).toMatch(/registry name/);
    expect(server.properties.status.description).toMatch(/latest run/);
    expect(server.properties.descriptor_url.description).toMatch(/\/api\/servers\/<slug>\.json/);
    expect(server.properties.definition_sha256.description).toMatch(/tool definition hash \(version 1\)/);
    expect(server.properties.set_sha256.description).toMatch(/set hash/);
    expect(server.properties.first_seen.description).toMatch(/first saw that server serve its current contract/);
    expect(j.required).toEqual(expect.arrayContaining(['version', 'shard', 'shard_rule', 'methodology', 'kind', 'tools']));
    expect(j.required).not.toContain('simulated');
  });

  it('describe the endpoint shard and its fields', () => {
    const j = schemaOf(EndpointIndexShard);
    expect(j.description).toBe('One shard of the endpoint index: /api/endpoints/<shard>.json.');
    expect(j.properties.endpoints.description).toMatch(/Endpoint URLs whose key falls in this shard/);
    const entry = j.properties.endpoints.items;
    expect(entry.properties.endpoint.description).toMatch(/first streamable-http remote/);
    expect(entry.properties.servers.items.properties.status.description).toMatch(/latest run/);
    expect(entry.properties.servers.items.additionalProperties).toBe(false);
  });
});
