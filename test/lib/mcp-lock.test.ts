// mcp-lock.json v1 read and written (src/lib mcp-lock.ts): the shape, one entry per name, each entry's
// set hash held to its own lines, re-pinning that keeps a hand-set fail_on, and the small helpers.
import { describe, expect, it } from 'vitest';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { emptyLock, lockEntryProblem, lockFailOn, lockText, lockWith, MCP_LOCK_SCHEMA_PATH, McpLock, McpLockError, parseSetLine, readLock, stableDays, type McpLockServer } from '../../src/lib/mcp-lock.ts';
import { setHashOfLines } from '../../src/lib/tool-definition-hash.ts';

const h = (c: string) => c.repeat(64);
function entry(name: string, tools: [string, string][], extra: Partial<McpLockServer> = {}): McpLockServer {
  const lines = tools.map(([n, x]) => ({ name: n, definition_sha256: x }));
  return {
    name,
    endpoint: 'https://example.com/mcp',
    set_sha256: setHashOfLines(lines.map((l) => ({ name: l.name, hash: l.definition_sha256 }))),
    tools: lines,
    pinned: { at: '2026-12-01T00:00:00.000Z', from: 'archive', archive: 'https://a.example/', descriptor_url: null, set_url: null, observed_at: null, first_seen: null, last_seen: null, stable_days: null },
    ...extra,
  };
}

describe('readLock', () => {
  it('reads back what lockText writes', () => {
    const lock = lockWith(emptyLock('https://a.example/api/schema/mcp-lock.v1.json'), [entry('b', [['t', h('1')]]), entry('a', [])]);
    expect(lock.servers.map((s) => s.name)).toEqual(['a', 'b']);
    expect(readLock(lockText(lock))).toEqual(lock);
    expect(lockText(lock).endsWith('}\n')).toBe(true);
  });

  it('refuses, in one sentence naming the entry: not JSON, another version, a wrong shape, a repeated name, a hash that is not its lines', () => {
    const good = lockWith(emptyLock(), [entry('a', [['t', h('1')]])]);
    const bad = (v: unknown) => () => readLock(JSON.stringify(v));
    expect(() => readLock('nope')).toThrow(McpLockError);
    expect(bad({ ...good, lock_version: 2 })).toThrow(/lock_version is 2/);
    expect(bad({ ...good, extra: 1 })).toThrow(/does not have the mcp-lock v1 shape: the file: Unrecognized key/);
    expect(bad({ ...good, servers: [{ ...good.servers[0], fail_on: 'LOUD' }] })).toThrow(/servers\.0\.fail_on/);
    expect(bad({ ...good, servers: [good.servers[0], good.servers[0]] })).toThrow(/names "a" twice \(servers\.1\)/);
    expect(bad({ ...good, servers: [{ ...good.servers[0], tools: [{ name: 't', definition_sha256: h('2') }] }] })).toThrow(/^servers\.0: its set_sha256 is not the set hash of its tools/);
  });

  it('refuses text that is not JSON with an McpLockError named so, saying it is not JSON', () => {
    let caught: unknown;
    try {
      readLock('{"lock_version": 1,');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(McpLockError);
    expect((caught as Error).name).toBe('McpLockError');
    expect((caught as Error).message).toMatch(/^The lockfile is not JSON \(.+\)\.$/);
  });

  it('refuses JSON that is not an object (null, a number, a string, an array) as a wrong shape, not a crash', () => {
    for (const text of ['null', '1', '"mcp-lock"', '[]']) {
      expect(() => readLock(text), text).toThrow(McpLockError);
      expect(() => readLock(text), text).toThrow(/^The lockfile does not have the mcp-lock v1 shape: the file: /);
    }
  });

  it('refuses an object without lock_version as a wrong shape at lock_version, and names another version', () => {
    expect(() => readLock('{"servers": []}')).toThrow(/^The lockfile does not have the mcp-lock v1 shape: lock_version: /);
    expect(() => readLock('{"lock_version": "1", "servers": []}')).toThrow("The lockfile's lock_version is \"1\"; this reader knows version 1.");
    expect(readLock('{"lock_version": 1, "servers": []}')).toEqual(emptyLock());
  });

  it('refuses a hash that is not exactly 64 lowercase hex digits, with the path and the rule (the near misses: one character before, after, upper case)', () => {
    const good = lockWith(emptyLock(), [entry('a', [['t', h('1')]])]);
    const s0 = good.servers[0]!;
    const bad = (v: unknown) => () => readLock(JSON.stringify({ ...good, servers: [v] }));
    for (const x of [`0${s0.set_sha256}`, `${s0.set_sha256}0`, s0.set_sha256.slice(1), s0.set_sha256.toUpperCase()]) {
      if (x === s0.set_sha256) continue;
      expect(bad({ ...s0, set_sha256: x }), x).toThrow('The lockfile does not have the mcp-lock v1 shape: servers.0.set_sha256: must be 64 lowercase hex digits.');
    }
    for (const x of [`0${h('1')}`, `${h('1')}0`, h('A')]) {
      expect(bad({ ...s0, tools: [{ name: 't', definition_sha256: x }] }), x).toThrow('The lockfile does not have the mcp-lock v1 shape: servers.0.tools.0.definition_sha256: must be 64 lowercase hex digits.');
    }
  });

  it('takes instants with an offset as well as Z, and names of any length from one character; refuses an empty name', () => {
    const e = entry('io.github.owner/server', [], {
      pinned: { at: '2026-12-01T09:00:00+01:00', from: 'archive', archive: 'https://a.example/', descriptor_url: null, set_url: null, observed_at: '2026-11-30T23:00:00-05:00', first_seen: '2026-11-01T03:15:01Z', last_seen: '2026-12-06T03:15:00Z', stable_days: 34 },
    });
    const lock = lockWith(emptyLock(), [e]);
    expect(readLock(lockText(lock))).toEqual(lock);
    expect(() => readLock(lockText({ ...lock, servers: [{ ...e, pinned: { ...e.pinned, at: '2026-12-01 09:00' } }] }))).toThrow(/servers\.0\.pinned\.at/);
    expect(() => readLock(lockText({ ...lock, servers: [{ ...e, name: '' }] }))).toThrow(/servers\.0\.name/);
  });

  it('names a repeated name cut to its first 200 characters', () => {
    const long = 'n'.repeat(300);
    const lock = lockWith(emptyLock(), [entry(long, [])]);
    expect(() => readLock(JSON.stringify({ ...lock, servers: [lock.servers[0], lock.servers[0]] }))).toThrow(`The lockfile names "${'n'.repeat(200)}" twice (servers.1): one entry per server.`);
  });
});

describe('emptyLock and the published schema', () => {
  it('emptyLock writes $schema only when given one', () => {
    expect(emptyLock()).toEqual({ lock_version: 1, servers: [] });
    expect(Object.keys(emptyLock())).not.toContain('$schema');
    expect(emptyLock('https://a.example/api/schema/mcp-lock.v1.json')).toEqual({ $schema: 'https://a.example/api/schema/mcp-lock.v1.json', lock_version: 1, servers: [] });
  });

  it('is published at /api/schema/mcp-lock.v1.json and describes the format and each of its fields', () => {
    expect(MCP_LOCK_SCHEMA_PATH).toBe('/api/schema/mcp-lock.v1.json');
    const j = zodToJsonSchema(McpLock, { $refStrategy: 'none', target: 'jsonSchema7' }) as Record<string, any>;
    expect(j.description).toMatch(/^mcp-lock\.json: the remote MCP servers a product calls/);
    const top = j.properties;
    expect(top.$schema.description).toMatch(/JSON Schema of this format/);
    expect(top.lock_version.description).toMatch(/removes or renames a field gets a new number/);
    expect(top.archive.description).toMatch(/archive to check against when none is named/);
    expect(top.fail_on.description).toMatch(/default fail-on level for every server \(ERR when absent\)/);
    expect(top.servers.description).toMatch(/sorted by name, one entry per name/);
    const server = top.servers.items.properties;
    expect(server.name.description).toMatch(/registry name/);
    expect(server.endpoint.description).toMatch(/streamable-http endpoint/);
    expect(server.set_sha256.description).toMatch(/set hash of the pinned listing/);
    expect(server.tools.description).toMatch(/definition hash, sorted by name/);
    expect(server.fail_on.description).toMatch(/else the lock's, else ERR/);
    const tool = server.tools.items.properties;
    expect(tool.name.description).toMatch(/tool name exactly as served/);
    expect(tool.definition_sha256.description).toMatch(/RFC 8785/);
    const pinned = server.pinned.properties;
    expect(pinned.at.description).toMatch(/entry was written/);
    expect(pinned.from.description).toMatch(/never from one live answer/);
    expect(pinned.archive.description).toMatch(/a base URL or a folder/);
    expect(pinned.descriptor_url.description).toMatch(/descriptor/);
    expect(pinned.set_url.description).toMatch(/set file/);
    expect(pinned.observed_at.description).toMatch(/observed the pinned answer/);
    expect(pinned.first_seen.description).toMatch(/first time/);
    expect(pinned.last_seen.description).toMatch(/last time/);
    expect(pinned.stable_days.description).toMatch(/Whole days from first_seen to last_seen/);
  });
});

describe('lockEntryProblem', () => {
  it('is null when the lines make the hash, whatever their order; a sentence otherwise', () => {
    const e = entry('a', [['x', h('1')], ['y', h('2')]]);
    expect(lockEntryProblem(e)).toBeNull();
    expect(lockEntryProblem({ ...e, tools: [...e.tools].reverse() })).toBeNull();
    expect(lockEntryProblem({ ...e, tools: e.tools.slice(1) })).toMatch(/^its set_sha256 is not the set hash of its tools \(they hash to [0-9a-f]{64}\)/);
  });
});

describe('lockWith', () => {
  it("replaces an entry of the same name, keeping its fail_on unless the new one sets one, and keeps the others", () => {
    const lock = lockWith(emptyLock(), [entry('a', [], { fail_on: 'WARN' }), entry('b', [])]);
    const again = lockWith(lock, [entry('a', [['t', h('3')]])]);
    expect(again.servers.map((s) => [s.name, s.fail_on, s.tools.length])).toEqual([['a', 'WARN', 1], ['b', undefined, 0]]);
    expect(lockWith(lock, [entry('a', [], { fail_on: 'INFO' })]).servers[0]!.fail_on).toBe('INFO');
  });
});

describe('helpers', () => {
  it('stableDays counts whole days, null when missing or reversed', () => {
    expect(stableDays('2026-11-01T00:00:00Z', '2026-11-01T23:59:59Z')).toBe(0);
    expect(stableDays('2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z')).toBe(1);
    expect(stableDays(null, '2026-11-02T00:00:00Z')).toBeNull();
    expect(stableDays('2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z')).toBeNull();
    expect(stableDays('2026-11-02T00:00:00Z', '2026-11-02T00:00:00Z')).toBe(0);
    expect(stableDays('2026-11-02T00:00:00Z', null)).toBeNull();
  });
  it('parseSetLine takes the last 64 hex digits as the hash', () => {
    expect(parseSetLine(`a:b:${h('c')}`)).toEqual({ name: 'a:b', hash: h('c') });
    expect(parseSetLine(`:${h('0')}`)).toEqual({ name: '', hash: h('0') });
    expect(parseSetLine(`a:${h('C')}`)).toBeNull();
    expect(parseSetLine(`a${h('0')}`)).toBeNull();
    expect(parseSetLine(`a b\tc:${h('d')}`)).toEqual({ name: 'a b\tc', hash: h('d') });
    expect(parseSetLine(`a:${h('0')}0`)).toBeNull();
    expect(parseSetLine(`a:${h('0')}\n`)).toBeNull();
  });
  it('lockFailOn: the entry, the lock, the fallback', () => {
    expect(lockFailOn({ fail_on: 'WARN' }, { fail_on: 'INFO' })).toBe('INFO');
    expect(lockFailOn({ fail_on: 'WARN' }, {})).toBe('WARN');
    expect(lockFailOn({}, {})).toBe('ERR');
    expect(lockFailOn({}, {}, 'INFO')).toBe('INFO');
  });
});
