// The tool-name and endpoint indexes under /api/ (the shard rule and the shapes are
// src/lib name-index.ts): fed one server at a time by writeServerFiles (server-files.ts), which already
// holds each server's latest tools, then written as every shard of each index plus their JSON Schemas.
//   /api/tool-names/<shard>.json    tool name → every server whose latest successful answer lists it
//   /api/endpoints/<shard>.json     endpoint URL → the servers the archive probes there
//   /api/schema/tool-names.json, /api/schema/endpoints.json   their JSON Schemas
// Entries are arrays of records, never objects keyed by server text: a tool named `__proto__` is a
// key like any other.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { zodToJsonSchema } from 'zod-to-json-schema';
import {
  allShards,
  byCodeUnits,
  ENDPOINT_INDEX_DIR,
  ENDPOINT_INDEX_SCHEMA_PATH,
  EndpointIndexShard,
  endpointIndexPath,
  nameIndexShard,
  SHARD_RULE,
  TOOL_INDEX_DIR,
  TOOL_INDEX_SCHEMA_PATH,
  ToolIndexShard,
  toolIndexPath,
  type ServedToolHashes,
  type Tool,
} from '../lib/index.ts';
import type { ServerView } from '../loader/views.ts';
import { descriptorPath } from './descriptor.ts';
import type { Publication } from './publication.ts';

type ToolRef = ToolIndexShard['tools'][number]['servers'][number];
type EndpointRef = EndpointIndexShard['endpoints'][number]['servers'][number];

export class NameIndexes {
  private readonly tools = new Map<string, ToolRef[]>();
  private readonly endpoints = new Map<string, EndpointRef[]>();
  constructor(private readonly pub: Pick<Publication, 'permalink' | 'simulated'>) {}

  /** One server: its endpoint, and the tools of its latest successful answer (when they could be read). */
  add(s: ServerView, tools: Tool[] | string | null, hashes: ServedToolHashes | string | null): void {
    const descriptor_url = this.pub.permalink(descriptorPath(s.slug));
    if (s.endpoint !== null) push(this.endpoints, s.endpoint, { name: s.name, status: s.status, descriptor_url });
    const cur = s.current;
    if (!cur || !Array.isArray(tools)) return;
    const defs = typeof hashes === 'object' && hashes !== null && hashes.definitions?.length === tools.length ? hashes.definitions : null;
    const seen = new Set<string>();
    for (const [i, t] of tools.entries()) {
      if (typeof t.name !== 'string' || seen.has(t.name)) continue;
      seen.add(t.name);
      push(this.tools, t.name, { name: s.name, status: s.status, descriptor_url, definition_sha256: defs?.[i]?.hash ?? null, set_sha256: cur.setHash, first_seen: s.head?.firstSeen ?? null });
    }
  }

  /** Every shard of both indexes and their schemas; returns the files written. */
  async write(outDir: string): Promise<number> {
    // No date inside: a shard changes only when a server in it does (DESIGN "A site whose daily work is the day's changes").
    const head = (shard: string) => ({ version: 2 as const, shard, shard_rule: SHARD_RULE, methodology: 'v1' as const, ...(this.pub.simulated ? { simulated: true as const } : {}) });
    const toolShards = bucket(this.tools);
    const endpointShards = bucket(this.endpoints);
    await mkdir(path.join(outDir, ...TOOL_INDEX_DIR.split('/').filter(Boolean)), { recursive: true });
    await mkdir(path.join(outDir, ...ENDPOINT_INDEX_DIR.split('/').filter(Boolean)), { recursive: true });
    let files = 0;
    for (const shard of allShards()) {
      const t: ToolIndexShard = { ...head(shard), kind: 'tool-names', tools: (toolShards.get(shard) ?? []).map(([tool, servers]) => ({ tool, servers: sortRefs(servers) })) };
      const e: EndpointIndexShard = { ...head(shard), kind: 'endpoints', endpoints: (endpointShards.get(shard) ?? []).map(([endpoint, servers]) => ({ endpoint, servers: sortRefs(servers) })) };
      await writeFile(path.join(outDir, ...toolIndexPath(shard).split('/').filter(Boolean)), JSON.stringify(t));
      await writeFile(path.join(outDir, ...endpointIndexPath(shard).split('/').filter(Boolean)), JSON.stringify(e));
      files += 2;
    }
    await mkdir(path.join(outDir, 'api', 'schema'), { recursive: true });
    for (const [p, schema, title] of [
      [TOOL_INDEX_SCHEMA_PATH, ToolIndexShard, 'mcp-schema tool-name index shard'],
      [ENDPOINT_INDEX_SCHEMA_PATH, EndpointIndexShard, 'mcp-schema endpoint index shard'],
    ] as const) {
      const json = { $id: this.pub.permalink(p), title, ...(zodToJsonSchema(schema, { $refStrategy: 'none', target: 'jsonSchema7' }) as Record<string, unknown>) };
      await writeFile(path.join(outDir, ...p.split('/').filter(Boolean)), JSON.stringify(json, null, 2));
      files++;
    }
    return files;
  }
}

function push<T>(m: Map<string, T[]>, key: string, v: T): void {
  const list = m.get(key);
  if (list) list.push(v);
  else m.set(key, [v]);
}

/** Keys by shard, each shard's keys sorted by code units. */
function bucket<T>(m: Map<string, T[]>): Map<string, [string, T[]][]> {
  const out = new Map<string, [string, T[]][]>();
  for (const key of [...m.keys()].sort(byCodeUnits)) push(out, nameIndexShard(key), [key, m.get(key)!] as [string, T[]]);
  return out;
}

function sortRefs<T extends { name: string }>(refs: T[]): T[] {
  return [...refs].sort((x, y) => byCodeUnits(x.name, y.name));
}
