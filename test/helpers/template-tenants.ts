// A world of one hosted documentation template and its near misses, collected by the real collector
// (runCollector) from real SDK servers on loopback hosts, one run per simulated day: the archive the
// contract-family tests read (src/lib families.ts). Its own file: sandbox/world.ts is over its budget.
//   - six tenants of one template (`search_<tenant>`, "Search the <Tenant> docs", one host) that all
//     take the platform's next release on day TEMPLATE.releaseDay; one of them (soylent) then adds a
//     tool of its own on day TEMPLATE.leavesOnDay and so leaves the family;
//   - two unrelated servers serving the same one `echo` tool on two hosts (127.0.0.1 and 127.0.0.2);
//   - two tenants of the same host whose contracts really differ (each has its own extra tool), which
//     change on days 6 and 8.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCollector } from '../../collector/run.ts';
import { startMcpHost, type ToolDef } from '../../sandbox/mcp-host.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry } from '../../sandbox/registry-server.ts';

export const TEMPLATE = {
  tenants: ['acme', 'globex', 'hooli', 'initech', 'soylent', 'umbrella'],
  leaver: 'soylent',
  releaseDay: 4,
  leavesOnDay: 7,
  echo: ['io.github.alpha/echo-one', 'io.github.beta/echo-two'],
  different: { 'io.github.stark/docs': { tool: 'armory', changesOn: 6 }, 'io.github.wayne/docs': { tool: 'batcave', changesOn: 8 } } as Record<string, { tool: string; changesOn: number }>,
  days: 10,
  firstDay: '2026-01-01',
} as const;

export const tenantName = (t: string) => `io.github.${t}/docs`;
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** The template's tools as it writes them for one tenant; `release` adds the platform's next release. */
export function docsTools(tenant: string, release: boolean): ToolDef[] {
  return [
    { name: `search_${tenant}`, description: `Search the ${cap(tenant)} docs`, inputSchema: { type: 'object', properties: { query: { type: 'string', description: `What to find in the ${cap(tenant)} pages` }, ...(release ? { limit: { type: 'integer', minimum: 1 } } : {}) }, required: ['query'] } },
    { name: 'get_page', title: `${cap(tenant)} page`, description: 'Reads one page by its path.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  ];
}

function entry(name: string, url: string): RegistryEntry {
  return {
    server: { name, version: '1.0.0', description: 'A contract-family fixture', remotes: [{ type: 'streamable-http', url }] },
    _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true, publishedAt: '2025-12-01T00:00:00Z', updatedAt: '2025-12-01T00:00:00Z' } },
  };
}

/** Collect TEMPLATE.days runs of the template world into a new temporary folder; returns it. */
export async function collectTemplateArchive(): Promise<string> {
  const data = await mkdtemp(path.join(tmpdir(), 'mcps-families-'));
  let day = 0;
  const platform = await startMcpHost({ host: '127.0.0.1' });
  const other = await startMcpHost({ host: '127.0.0.2' });
  const entries: RegistryEntry[] = [];
  for (const t of TEMPLATE.tenants) {
    const tools = () => [...docsTools(t, day >= TEMPLATE.releaseDay), ...(t === TEMPLATE.leaver && day >= TEMPLATE.leavesOnDay ? [{ name: `${t}_recipes`, description: 'Lists the recipes.', inputSchema: { type: 'object', properties: {} } }] : [])];
    entries.push(entry(tenantName(t), platform.mount(`/t/${t}/mcp`, { kind: 'mcp', tools, json: true })));
  }
  const echo: ToolDef[] = [{ name: 'echo', description: 'Echoes its input.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }];
  entries.push(entry(TEMPLATE.echo[0], platform.mount('/echo-one/mcp', { kind: 'mcp', tools: echo, json: true })));
  // The second host's own address (McpHost.origin always names 127.0.0.1).
  entries.push(entry(TEMPLATE.echo[1], other.mount('/echo-two/mcp', { kind: 'mcp', tools: echo, json: true }).replace('127.0.0.1', '127.0.0.2')));
  for (const [name, { tool, changesOn }] of Object.entries(TEMPLATE.different)) {
    const t = name.split('.')[2]!.split('/')[0]!;
    const tools = () => [...docsTools(t, false), { name: tool, description: day >= changesOn ? 'Opens it, read-only.' : 'Opens it.', inputSchema: { type: 'object', properties: {} } }];
    entries.push(entry(name, platform.mount(`/t/${t}/mcp`, { kind: 'mcp', tools, json: true })));
  }
  const registry = await startRegistry({ entries });
  try {
    for (day = 0; day < TEMPLATE.days; day++) {
      const now = new Date(Date.parse(`${TEMPLATE.firstDay}T03:15:00Z`) + day * 86_400_000);
      await runCollector({ registry: registry.url, data, now, allowPrivate: true, concurrency: 8, timeoutMs: 3000, methodology: 'v1', optout: null, scheduleLimits: { retryAfterCapMs: 200, backoffBaseMs: 20 }, signer: null, remote: null });
    }
  } finally {
    await registry.close();
    await platform.close();
    await other.close();
  }
  return data;
}
