// The world for `npm run bench:scale`, in its own process so the collector's CPU is measured alone:
// a registry-scale day on loopback, every time divided by one factor `f`. Raw node:http hosts
// (sandbox/counting-hosts.ts), not the SDK fleet: 26,000 real SDK servers would cap this machine's
// two cores long before the collector (bench/README.md, "Collector throughput") and the schedule is
// what is measured here.
//
// Hosts (distinct address:port on 127.20.x.y, one port): the real listings' shape (fixtures: one
// gateway with 47% of the endpoints, one host with 2.7%, a tail of single-endpoint hosts):
//   gateway  45% of the endpoints
//   stuck    1,000 endpoints; answers its first 50 requests, then never again (accepts, hangs)
//   burst    700 endpoints; answers 429 with Retry-After to everything in bursts (60 s of every 600 s)
//   mid      5 hosts × 100 endpoints
//   tail     the rest, 90% on hosts of one endpoint, 10% on hosts of two
// Every endpoint: 2% hang on initialize (drawn per endpoint, seeded); 40% are stateful (session,
// then a DELETE); the others answer at once after a latency drawn per request from a log-normal
// with median 300 ms and 99th percentile 5 s, divided by f. Tool lists: the real ones of fixtures/
// round-robin (a steady day writes few new objects).
//
// Protocol: one JSON line on stdout when listening ({ pid, registryUrl, hosts: [{ host, kind,
// targets }] }); then, for each line "stats" on stdin, one JSON line of per-host counts. Ends when
// stdin closes.
import { createInterface } from 'node:readline';
import { checked, command, exitCodes, integer, refused, script } from '../collector/cli-kit/index.ts';
import { loadRealToolLists } from '../sandbox/fixtures.ts';
import { hang, mcpResponder, startCountingHosts, type Responder } from '../sandbox/counting-hosts.ts';
import { rng } from '../sandbox/prng.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry } from '../sandbox/registry-server.ts';

export type HostKind = 'gateway' | 'stuck' | 'burst' | 'mid' | 'tail';

export interface WorldInfo {
  pid: number;
  registryUrl: string;
  hosts: { host: string; kind: HostKind; targets: number }[];
  factor: number;
  /** Real-world Retry-After of the burst host, s (it sends ceil(this / f)). */
  retryAfterS: number;
}

export interface HostStats {
  host: string;
  requests: number;
  connections: number;
  /** Live peak (may count a request the client had abandoned beside its successor), and over answered requests only. */
  peak: number;
  peakAnswered: number;
  endpointPeak: number;
  endpointPeakAnswered: number;
  /** burst host: 429s sent, and initialize requests that arrived while a Retry-After it sent was running. */
  throttled?: number;
  insideRetryAfter?: number;
  /** stuck host: requests after it stopped answering. */
  afterStuck?: number;
}

/** Log-normal with median 300 ms and p99 5 s: sigma = ln(5 / 0.3) / z(0.99). */
export const LATENCY = { medianMs: 300, p99Ms: 5_000, sigma: Math.log(5_000 / 300) / 2.3263478740408408 } as const;

export function layout(n: number): { kind: HostKind; targets: number }[] {
  const out: { kind: HostKind; targets: number }[] = [];
  const gateway = Math.round(n * 0.45);
  out.push({ kind: 'gateway', targets: gateway });
  const stuck = Math.min(1_000, Math.round(n * 0.04));
  out.push({ kind: 'stuck', targets: stuck });
  const burst = Math.min(700, Math.round(n * 0.027));
  out.push({ kind: 'burst', targets: burst });
  const mid = Math.min(100, Math.round(n * 0.004));
  for (let i = 0; i < 5; i++) out.push({ kind: 'mid', targets: mid });
  let left = n - gateway - stuck - burst - 5 * mid;
  for (let i = 0; left > 0; i++) {
    const t = i % 10 === 9 && left >= 2 ? 2 : 1;
    out.push({ kind: 'tail', targets: t });
    left -= t;
  }
  return out;
}

if (process.argv[1] && /scale-world\.ts$/.test(process.argv[1])) await main();

async function main(): Promise<void> {
  const COMMAND = command({
    name: 'scale-world',
    help: `usage: tsx bench/scale-world.ts [--endpoints N] [--factor F] [--seed S]

The world of npm run bench:scale in its own process (the protocol is this file's header comment).

${exitCodes({ 0: 'stdin closed', 2: 'bad usage' })}`,
    options: { endpoints: { type: 'string', default: '26000' }, factor: { type: 'string', default: '30' }, seed: { type: 'string', default: 'scale' } },
  });
  const { values } = script(COMMAND);
  const n = checked(COMMAND, () => integer('endpoints', values.endpoints, { min: 1, max: 100_000 })!);
  const f = checked(COMMAND, () => {
    const v = Number(values.factor);
    if (!(v >= 1 && v <= 1000)) throw refused('factor', 'a number from 1 to 1000', values.factor);
    return v;
  });
  const seed = values.seed!;
  const plan = layout(n);
  const addresses = plan.map((_, i) => `127.20.${Math.floor(i / 250)}.${1 + (i % 250)}`);
  const world = await startCountingHosts(addresses, { spans: true });
  const lists = loadRealToolLists();
  const draw = rng(`${seed}|latency`);
  // Box–Muller, one normal per call (the second is dropped: simplicity over a few ns).
  const latency = () => {
    const u = 1 - draw.next();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * draw.next());
    return (LATENCY.medianMs * Math.exp(LATENCY.sigma * z)) / f;
  };
  const retryAfterS = 60;
  const extra = new Map<string, { throttled: number; insideRetryAfter: number; afterStuck: number; stuckAt: number | null; embargoUntil: number }>();
  const entries: RegistryEntry[] = [];
  const t0 = performance.now();
  let k = 0;
  plan.forEach((p, h) => {
    const host = world.hosts[h]!;
    const x = { throttled: 0, insideRetryAfter: 0, afterStuck: 0, stuckAt: null as number | null, embargoUntil: 0 };
    extra.set(host.host, x);
    for (let j = 0; j < p.targets; j++, k++) {
      const r = rng(`${seed}|e${k}`);
      const hangs = r.chance(0.02);
      const inner = hangs ? hang : mcpResponder({ tools: lists[k % lists.length]!.tools, stateful: r.chance(0.4), delayMs: latency });
      let respond: Responder = inner;
      if (p.kind === 'stuck') {
        respond = (req, res, body, at) => {
          if (at.seq > 50) {
            x.stuckAt ??= performance.now();
            x.afterStuck++;
            return;
          }
          inner(req, res, body, at);
        };
      } else if (p.kind === 'burst') {
        const period = 600_000 / f;
        const burst = 60_000 / f;
        const sendS = Math.max(1, Math.ceil(retryAfterS / f));
        respond = (req, res, body, at) => {
          const now = performance.now();
          const isInit = body.includes('"initialize"');
          if (isInit && now < x.embargoUntil) x.insideRetryAfter++;
          if ((now - t0) % period < burst) {
            x.throttled++;
            x.embargoUntil = Math.max(x.embargoUntil, now + sendS * 1000);
            res.writeHead(429, { 'retry-after': String(sendS), 'content-type': 'text/plain' }).end('rate limited');
            return;
          }
          inner(req, res, body, at);
        };
      }
      const path = `/m${j}/mcp`;
      host.mount(path, respond);
      entries.push({
        server: { name: `io.scale.${p.kind}${h}/m${String(j).padStart(5, '0')}`, version: '1.0.0', description: 'bench:scale endpoint', remotes: [{ type: 'streamable-http', url: `${host.origin}${path}` }] },
        _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true, publishedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' } },
      });
    }
  });
  const registry = await startRegistry({ entries });
  const info: WorldInfo = { pid: process.pid, registryUrl: registry.url, hosts: plan.map((p, i) => ({ host: world.hosts[i]!.host, kind: p.kind, targets: p.targets })), factor: f, retryAfterS };
  process.stdout.write(JSON.stringify(info) + '\n');
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() !== 'stats') return;
    const stats: HostStats[] = world.hosts.map((h) => {
      const x = extra.get(h.host)!;
      const p = h.peaks();
      return { host: h.host, requests: h.counts.requests, connections: h.connections, peak: p.all, peakAnswered: p.answered, endpointPeak: p.endpointAll, endpointPeakAnswered: p.endpointAnswered, throttled: x.throttled, insideRetryAfter: x.insideRetryAfter, afterStuck: x.afterStuck };
    });
    process.stdout.write(JSON.stringify(stats) + '\n');
  });
  lines.on('close', async () => {
    await registry.close();
    await world.close();
    process.exit(0);
  });
}
