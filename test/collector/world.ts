// A small local world for collector tests: the sandbox registry serving the REAL listing
// (fixtures/registry/real) with every remote rewritten to loopback servers, and real SDK MCP servers
// (sandbox/mcp-host.ts) serving REAL tool lists, spread over several loopback addresses so the
// collector's one-request-per-host rule does not serialise the whole world.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRealListing, loadRealToolLists } from '../../sandbox/fixtures.ts';
import { startMcpHost, type Behaviour, type McpHost } from '../../sandbox/mcp-host.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry, type RegistryServer } from '../../sandbox/registry-server.ts';

export interface World {
  registry: RegistryServer;
  hosts: McpHost[];
  /** name -> endpoint URL (for names whose latest entry has a streamable-http remote) */
  endpoints: Map<string, string>;
  entries: RegistryEntry[];
  close(): Promise<void>;
}

export function tmpData(prefix = 'mcps-collector-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Real tool lists, round-robin. */
const TOOL_LISTS = loadRealToolLists();
export function realTools(i: number) {
  return TOOL_LISTS[i % TOOL_LISTS.length]!.tools;
}

/** The four SDK shapes: stateful/stateless × JSON/SSE. */
export function sdkBehaviour(i: number): Behaviour {
  return { kind: 'mcp', tools: realTools(i), stateful: i % 2 === 0, json: Math.floor(i / 2) % 2 === 0 };
}

/**
 * Start a world over the first `names` server names of the real listing (all their versions).
 * `behave(i, name)` gives the behaviour of the i-th name that has a streamable-http remote.
 */
export async function startWorld(
  opts: {
    /** Keep the first n names of the listing ... */
    names?: number;
    /** ... or as many names as it takes to have n endpoints. */
    endpoints?: number;
    hostCount?: number;
    behave?: (i: number, name: string) => Behaviour;
    /** Replace the i-th endpoint URL (e.g. an https:// URL at a plain-http server, or a closed port). */
    urlFor?: (i: number, url: string, host: McpHost) => string;
    date?: '2025-10-20' | '2025-12-12';
  } = {},
): Promise<World> {
  const listing = loadRealListing(opts.date ?? '2025-12-12');
  const allNames = [...new Set(listing.map((e) => e.server.name))];
  const isLatestWithEndpoint = (name: string) =>
    listing.some((x) => x.server.name === name && x._meta?.[OFFICIAL_META]?.isLatest === true && ((x.server.remotes ?? []) as Array<{ type: string }>).some((r) => r.type === 'streamable-http'));
  let take = opts.names ?? allNames.length;
  if (opts.endpoints !== undefined) {
    let n = 0;
    take = allNames.findIndex((name) => isLatestWithEndpoint(name) && ++n === opts.endpoints) + 1;
  }
  const keep = new Set(allNames.slice(0, take));
  const hostCount = opts.hostCount ?? 8;
  const hosts: McpHost[] = [];
  for (let h = 0; h < hostCount; h++) hosts.push(await startMcpHost({ host: `127.0.0.${h + 1}` }));
  const endpoints = new Map<string, string>();
  const behave = opts.behave ?? ((i: number) => sdkBehaviour(i));
  let i = 0;
  const urlOf = new Map<string, string>();
  for (const e of listing) {
    const name = e.server.name;
    if (!keep.has(name) || urlOf.has(name)) continue;
    const latest = listing.find((x) => x.server.name === name && x._meta?.[OFFICIAL_META]?.isLatest === true);
    const remotes = (latest?.server.remotes ?? []) as Array<{ type: string; url: string }>;
    if (!remotes.some((r) => r.type === 'streamable-http')) continue;
    const h = i % hostCount;
    const path = `/s/${i}/mcp`;
    hosts[h]!.mount(path, behave(i, name));
    const local = `http://127.0.0.${h + 1}:${hosts[h]!.port}${path}`;
    const url = opts.urlFor ? opts.urlFor(i, local, hosts[h]!) : local;
    urlOf.set(name, url);
    endpoints.set(name, url);
    i++;
  }
  const entries: RegistryEntry[] = listing
    .filter((e) => keep.has(e.server.name))
    .map((e) => {
      const url = urlOf.get(e.server.name);
      const remotes = e.server.remotes as Array<{ type: string; url: string }> | undefined;
      if (!remotes) return e;
      // Every remote points at loopback: sse ones at a path nobody serves (never contacted anyway).
      const rewritten = remotes.map((r) => ({ ...r, url: r.type === 'streamable-http' && url ? url : 'http://127.0.0.1:9/unused' }));
      return { ...e, server: { ...e.server, remotes: rewritten } };
    });
  const registry = await startRegistry({ entries });
  return {
    registry,
    hosts,
    endpoints,
    entries,
    async close() {
      await registry.close();
      for (const h of hosts) await h.close();
    },
  };
}
