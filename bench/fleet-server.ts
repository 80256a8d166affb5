// The fleet for `npm run bench:collector`, in its own process so the prober's CPU can be measured
// alone. N real SDK MCP endpoints (sandbox/mcp-host.ts: low-level `Server` + StreamableHTTPServerTransport,
// real tool lists from fixtures/ served verbatim), each on its own path, spread round-robin over
// `hosts` loopback listeners (127.0.1.1, 127.0.1.2, ...), plus a registry (official list API) on
// 127.0.0.1 that lists exactly those N endpoints. Loopback only.
//
// Protocol with the parent: one JSON line on stdout once listening:
//   {"pid", "registryUrl", "endpoints": [url...], "kinds": {"stateless-sse": n, ...}}
// then it serves until stdin closes or SIGTERM/SIGINT.
//
// Usage: node --import tsx bench/fleet-server.ts --endpoints 1000 [--hosts 250] [--seed bench] [--lists sdk-valid|all]
import { checked, command, exitCodes, integer, oneOf, script } from '../collector/cli-kit/index.ts';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadRealToolLists } from '../sandbox/fixtures.ts';
import { startListeners } from '../sandbox/fleet.ts';
import { createMcpHandler } from '../sandbox/mcp-host.ts';
import { unit } from '../sandbox/prng.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry } from '../sandbox/registry-server.ts';

const COMMAND = command({
  name: 'fleet-server',
  help: `usage: tsx bench/fleet-server.ts [--endpoints N] [--hosts N] [--seed S] [--lists sdk-valid|all]

The benchmark's fleet in its own process (bench/collector.ts starts it): a registry and N endpoints
over loopback hosts, serving real tool lists; prints its URLs as one JSON line.

${exitCodes({ 0: 'stopped', 2: 'bad usage' })}`,
  options: {
    endpoints: { type: 'string', default: '1000' },
    hosts: { type: 'string', default: '250' },
    seed: { type: 'string', default: 'bench' },
    lists: { type: 'string', default: 'sdk-valid' },
  },
});
const { values } = script(COMMAND);
const n = checked(COMMAND, () => integer('endpoints', values.endpoints, { min: 1, max: 100_000 })!);
const hosts = Math.min(checked(COMMAND, () => integer('hosts', values.hosts, { min: 1, max: 250 * 250 })!), n);
checked(COMMAND, () => oneOf('lists', values.lists, ['sdk-valid', 'all']));

/** Same rates as the local world (sandbox/README.md): 40% stateful, 30% JSON answers, independently drawn. */
function endpointKind(seed: string, i: number): { stateful: boolean; json: boolean } {
  return { stateful: unit(`${seed}|e${i}|stateful`) < 0.4, json: unit(`${seed}|e${i}|json`) < 0.3 };
}

// Real tool lists (fixtures/tools/real). By default only those the SDK client's own schema accepts
// (`--lists sdk-valid`): most mcp-proxy-era lists carry `annotations: null` or `description: null`,
// which Client.listTools() rejects after the answer arrived, so the SDK loop would not do the same
// work as the collector. `--lists all` serves every real list (and shows those rejections).
const allLists = loadRealToolLists();
const lists = values.lists === 'all' ? allLists : allLists.filter((l) => ListToolsResultSchema.safeParse({ tools: l.tools }).success);
const handler = createMcpHandler();
// 127.0.1.1 .. 127.0.1.250, then 127.0.2.1 ...: all of 127/8 routes to lo on Linux. Listeners as the
// world's fleet opens them (sandbox/fleet.ts startListeners: one per address, one handler, 5 s keep-alive).
const listeners = await startListeners(
  handler.handle,
  Array.from({ length: hosts }, (_, h) => `127.0.${1 + Math.floor(h / 250)}.${1 + (h % 250)}`),
);
const hostports = listeners.hostports;

const endpoints: string[] = [];
const entries: RegistryEntry[] = [];
const kinds: Record<string, number> = {};
const width = String(n - 1).length;
for (let i = 0; i < n; i++) {
  const path = `/e${i}/mcp`;
  const { stateful, json } = endpointKind(values.seed!, i);
  const list = lists[i % lists.length]!;
  handler.mount(path, { kind: 'mcp', tools: list.tools, stateful, json, name: `bench-e${i}`, version: '1.0.0' });
  const key = `${stateful ? 'stateful' : 'stateless'}-${json ? 'json' : 'sse'}`;
  kinds[key] = (kinds[key] ?? 0) + 1;
  const url = `http://${hostports[i % hosts]}${path}`;
  endpoints.push(url);
  entries.push({
    server: { name: `io.bench/e${String(i).padStart(width, '0')}`, version: '1.0.0', description: `bench endpoint ${i} (${list.source})`, remotes: [{ type: 'streamable-http', url }] },
    _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true, publishedAt: '2025-12-01T00:00:00Z', updatedAt: '2025-12-01T00:00:00Z' } },
  });
}
const registry = await startRegistry({ entries });

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await handler.close();
  await listeners.close();
  await registry.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
process.stdin.on('end', () => void shutdown());
process.stdin.on('close', () => void shutdown());
process.stdin.resume();

const listBytes = lists.map((l) => JSON.stringify(l.tools).length);
process.stdout.write(
  JSON.stringify({ pid: process.pid, registryUrl: registry.url, hosts: hostports.length, endpoints, kinds, lists: { count: lists.length, of: allLists.length, meanBytes: Math.round(listBytes.reduce((a, b) => a + b, 0) / lists.length) } }) + '\n',
);
