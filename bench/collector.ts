// npm run bench:collector — benchmark 1: the collector's throughput against a prober built on
// the official SDK client, over the same local fleet of real SDK MCP servers, at equal concurrency.
//
// The fleet (bench/fleet-server.ts) runs in a child process, so the CPU figures below are the
// prober's alone (process.cpuUsage() of this process; the fleet's from /proc/<pid>/stat).
//
// Probers, each over the same N endpoints, each one probe in flight per host (host:port), the hosts
// sharing `concurrency` slots in FIFO order (the scheduler of collector/schedule.ts):
//   collector  runCollector() end to end: roster from the fleet's registry, then the probe stage with
//              every row validated and appended to a fresh archive (objects fsynced, rows fdatasync'd
//              every 256), exactly as the daily job. probes/s = probed / summary.probe_ms; CPU is
//              counted from the first progress callback (roster done) to the end of the run; latency
//              is each row's latency_ms (initialize → tools/list answer; the session DELETE after it is
//              not in latency_ms but does hold the slot).
//   sdk        @modelcontextprotocol/sdk Client + StreamableHTTPClientTransport: connect (initialize +
//              notifications/initialized; the transport then also opens its GET stream), listTools,
//              close. Latency = start → listTools result (close not included), to match latency_ms.
//   probe      (optional) collector/probe.ts probe() alone under the same scheduler: no roster, no
//              archive writes — shows what the store costs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { checked, command as defineCommand, exitCodes, script, usage as usageError } from '../collector/cli-kit/index.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHttpContext, type HttpContext } from '../collector/http.ts';
import { DEFAULT_PROBE_LIMITS, probe } from '../collector/probe.ts';
import { runCollector } from '../collector/run.ts';
import { hostQueues } from '../collector/schedule.ts';

const HELP = `usage: npm run bench:collector -- [options]

Collector throughput vs a prober built on the official SDK client (benchmark 1).
A fleet of real SDK MCP servers runs in a child process on loopback (127.0.1.x); both probers
probe every endpoint once per run, one probe in flight per host, at equal concurrency.

Options
  --endpoints LIST     fleet sizes, comma-separated            (default 1000,5000)
  --concurrency LIST   concurrency levels                      (default 8,32,64)
  --repeat N           runs per (size, concurrency, prober); medians are reported (default 3, max 20)
  --probers LIST       any of collector,sdk,probe              (default collector,sdk)
  --hosts N            loopback listeners the fleet is spread over (default 250)
  --timeout-ms MS      per-request deadline (collector) / per-request timeout (sdk) (default 10000)
  --warmup N           untimed probes per prober before measuring each size (default 300)
  --max-minutes M      stop starting new runs after M minutes and print what was measured (default 40)
  --lists KIND         sdk-valid: the real tool lists the SDK client's schema accepts (default);
                       all: every real list (most are then rejected by Client.listTools after the answer)
  --help               this text

Goals: collector >= 3x the SDK loop's probes/s at equal concurrency; client CPU <= 1 ms/probe.

${exitCodes({ 0: 'measured', 2: 'bad usage' })}`;

const COMMAND = defineCommand({
  name: 'bench:collector',
  help: HELP,
  options: {
    endpoints: { type: 'string', default: '1000,5000' },
    concurrency: { type: 'string', default: '8,32,64' },
    repeat: { type: 'string', default: '3' },
    probers: { type: 'string', default: 'collector,sdk' },
    hosts: { type: 'string', default: '250' },
    'timeout-ms': { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '300' },
    'max-minutes': { type: 'string', default: '40' },
    lists: { type: 'string', default: 'sdk-valid' },
  },
});
const { values } = script(COMMAND);

type ProberName = 'collector' | 'sdk' | 'probe';
const ints = (s: string, what: string, lo: number, hi: number) =>
  s.split(',').map((x) => {
    const v = Number(x.trim());
    if (!Number.isInteger(v) || v < lo || v > hi) usage(`${what}: ${x} is not an integer in ${lo}..${hi}`);
    return v;
  });
function usage(msg: string): never {
  return checked(COMMAND, () => {
    throw usageError(`${msg} (see --help)`);
  });
}
const SIZES = ints(values.endpoints!, '--endpoints', 1, 50_000);
const CONCURRENCY = ints(values.concurrency!, '--concurrency', 1, 1024);
const [REPEAT] = ints(values.repeat!, '--repeat', 1, 20) as [number];
const [HOSTS] = ints(values.hosts!, '--hosts', 1, 5000) as [number];
const [TIMEOUT_MS] = ints(values['timeout-ms']!, '--timeout-ms', 100, 120_000) as [number];
const [WARMUP] = ints(values.warmup!, '--warmup', 0, 50_000) as [number];
const [MAX_MINUTES] = ints(values['max-minutes']!, '--max-minutes', 1, 24 * 60) as [number];
const PROBERS = values.probers!.split(',').map((p) => p.trim()) as ProberName[];
if (values.lists !== 'sdk-valid' && values.lists !== 'all') usage('--lists must be sdk-valid or all');
for (const p of PROBERS) if (!['collector', 'sdk', 'probe'].includes(p)) usage(`--probers: unknown prober ${p}`);

const FLEET_SCRIPT = fileURLToPath(new URL('./fleet-server.ts', import.meta.url));
const CLK_TCK = 100; // Linux USER_HZ: /proc/<pid>/stat counts CPU in 1/100 s
const benchStart = performance.now();
const overBudget = () => performance.now() - benchStart > MAX_MINUTES * 60_000;

// ---------------------------------------------------------------------------------------------
// Fleet process

interface Fleet {
  child: ChildProcess;
  pid: number;
  registryUrl: string;
  endpoints: string[];
  hosts: number;
  kinds: Record<string, number>;
  lists: { count: number; of: number; meanBytes: number };
}

async function startFleet(n: number): Promise<Fleet> {
  const child = spawn(process.execPath, ['--import', 'tsx', FLEET_SCRIPT, '--endpoints', String(n), '--hosts', String(HOSTS), '--lists', values.lists!], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fleet exited early (code ${code})`)));
  });
  const info = JSON.parse(first) as Omit<Fleet, 'child'>;
  return { child, ...info };
}

async function stopFleet(f: Fleet): Promise<void> {
  const exited = new Promise<void>((resolve) => f.child.once('exit', () => resolve()));
  f.child.stdin!.end();
  const timer = setTimeout(() => f.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** CPU time (user + system) of another process, ms. */
function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  return ((Number(fields[11]) + Number(fields[12])) / CLK_TCK) * 1000;
}

function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Probers. Each returns per-probe latencies (ms), ok count, wall ms of the probe stage, client CPU ms.

interface Measure {
  probes: number;
  ok: number;
  wallMs: number;
  cpuMs: number;
  fleetCpuMs: number;
  latencies: number[];
  notes: Set<string>;
}

const RUN_CLOCK = new Date('2025-12-15T06:00:00Z');

async function runCollectorOnce(fleet: Fleet, concurrency: number, limit: number | null): Promise<Measure> {
  const data = mkdtempSync(join(tmpdir(), 'mcp-schema-bench-'));
  try {
    let cpu0: number | null = null;
    let fleet0 = 0;
    const summary = await runCollector({
      registry: fleet.registryUrl,
      data,
      concurrency,
      timeoutMs: TIMEOUT_MS,
      now: RUN_CLOCK,
      // The v1 probe alone: the figures in bench/README.md are v1's (during the bridge a run probes
      // each target twice, v2 then v1; see content/methodology/v2.mdx "Scheduling").
      methodology: 'v1',
      allowPrivate: true,
      optout: null,
      limit,
      onProgress: () => {
        if (cpu0 === null) {
          cpu0 = ownCpuMs(); // first call: roster fetched and parsed, probing about to start
          fleet0 = procCpuMs(fleet.pid);
        }
      },
    });
    const cpuMs = ownCpuMs() - cpu0!;
    const fleetCpuMs = procCpuMs(fleet.pid) - fleet0;
    const rows = readFileSync(join(data, 'observations', `${RUN_CLOCK.toISOString().slice(0, 10)}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { outcome: string; latency_ms: number | null; error_class: string | null; detail: string | null });
    const notes = new Set<string>();
    for (const r of rows) if (r.outcome !== 'ok') notes.add(`${r.error_class}: ${r.detail}`);
    return {
      probes: summary.probed,
      ok: rows.filter((r) => r.outcome === 'ok').length,
      wallMs: summary.probe_ms,
      cpuMs,
      fleetCpuMs,
      latencies: rows.map((r) => r.latency_ms ?? 0),
      notes,
    };
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

async function runLoopOnce(
  fleet: Fleet,
  endpoints: string[],
  concurrency: number,
  one: (url: string) => Promise<{ ok: boolean; latencyMs: number; note?: string }>,
  setup: { before?: () => void; after?: () => Promise<void> } = {},
): Promise<Measure> {
  const latencies: number[] = [];
  const notes = new Set<string>();
  let ok = 0;
  const fleet0 = procCpuMs(fleet.pid);
  const cpu0 = ownCpuMs();
  const t0 = performance.now();
  setup.before?.();
  const probeOne = async (url: string) => {
    const r = await one(url);
    latencies.push(r.latencyMs);
    if (r.ok) ok++;
    else if (r.note) notes.add(r.note);
  };
  await hostQueues(
    endpoints.map((url) => ({ host: new URL(url).host, run: () => probeOne(url).then(() => ({ kind: 'ok' as const })), skip: () => {} })),
    { concurrency, perHostDivisor: 500, perHostMax: 1, unresponsiveAfter: 0, unresponsiveSpanMs: 0, deadline: null, retryAfterCapMs: 0, backoffBaseMs: 0 },
  );
  const wallMs = performance.now() - t0;
  await setup.after?.(); // in the CPU window, as runCollector closes its Agent inside its own
  return { probes: endpoints.length, ok, wallMs, cpuMs: ownCpuMs() - cpu0, fleetCpuMs: procCpuMs(fleet.pid) - fleet0, latencies, notes };
}

async function sdkProbe(url: string): Promise<{ ok: boolean; latencyMs: number; note?: string }> {
  const started = performance.now();
  const client = new Client({ name: 'mcp-schema-bench', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  try {
    await client.connect(transport, { timeout: TIMEOUT_MS });
    const list = await client.listTools(undefined, { timeout: TIMEOUT_MS });
    const latencyMs = Math.round(performance.now() - started);
    return { ok: Array.isArray(list.tools), latencyMs };
  } catch (e) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), note: `sdk: ${(e as Error).message}`.slice(0, 200) };
  } finally {
    await client.close().catch(() => {});
  }
}

async function runProber(p: ProberName, fleet: Fleet, endpoints: string[], concurrency: number): Promise<Measure> {
  if (p === 'collector') return runCollectorOnce(fleet, concurrency, endpoints.length === fleet.endpoints.length ? null : endpoints.length);
  if (p === 'sdk') return runLoopOnce(fleet, endpoints, concurrency, sdkProbe);
  const limits = { ...DEFAULT_PROBE_LIMITS, timeoutMs: TIMEOUT_MS };
  let http: HttpContext | null = null;
  return runLoopOnce(
    fleet,
    endpoints,
    concurrency,
    async (url) => {
      const r = await probe(http!, url, limits);
      return { ok: r.ok, latencyMs: r.latencyMs, note: r.ok ? undefined : `probe: ${r.error.errorClass}: ${r.error.payload.detail}` };
    },
    { before: () => (http = createHttpContext({ allowPrivate: true, timeoutMs: TIMEOUT_MS })), after: () => http!.dispatcher.close() },
  );
}

// ---------------------------------------------------------------------------------------------
// Statistics and output

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1)); // nearest rank
  return sorted[i]!;
}
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

interface Summary {
  n: number;
  concurrency: number;
  prober: ProberName;
  runs: number;
  probesPerS: number[];
  p50: number[];
  p95: number[];
  cpuPerProbe: number[];
  fleetCpuPerProbe: number[];
  ok: number;
  total: number;
  notes: Set<string>;
}

const results: Summary[] = [];
const fmt = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const spread = (xs: number[], d = 1) => (xs.length > 1 ? ` (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})` : '');

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < 3 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join(' | ')} |`;
  return [line(head), `|${w.map((x, i) => (i < 3 ? `:${'-'.repeat(x + 1)}` : `${'-'.repeat(x + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

const cpu = cpus();
const machine = `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, node ${process.version}`;
const command = `npm run bench:collector${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
console.log(`machine: ${machine}`);
console.log(`command: ${command}`);
console.log(`load average at start: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (other work on this machine makes figures noisy: medians of ${REPEAT} runs)`);

let stopped = false;
for (const n of SIZES) {
  if (overBudget()) {
    stopped = true;
    break;
  }
  const fleet = await startFleet(n);
  try {
    console.log(`\nfleet: ${n} endpoints on ${fleet.hosts} loopback hosts, pid ${fleet.pid}; ${Object.entries(fleet.kinds).map(([k, v]) => `${k} ${v}`).join(', ')}; ${fleet.lists.count} of ${fleet.lists.of} real tool lists (${values.lists}), mean ${fleet.lists.meanBytes} bytes`);
    // Warm-up: JIT, connection pools and the fleet's own code paths, untimed.
    if (WARMUP > 0) for (const p of PROBERS) await runProber(p, fleet, fleet.endpoints.slice(0, Math.min(WARMUP, n)), 8);
    for (const c of CONCURRENCY) {
      const byProber = new Map<ProberName, Summary>(PROBERS.map((p) => [p, { n, concurrency: c, prober: p, runs: 0, probesPerS: [], p50: [], p95: [], cpuPerProbe: [], fleetCpuPerProbe: [], ok: 0, total: 0, notes: new Set() }]));
      for (let r = 0; r < REPEAT && !stopped; r++) {
        // Alternate the order so drift in the machine's other load does not favour one prober.
        const order = r % 2 === 0 ? PROBERS : [...PROBERS].reverse();
        for (const p of order) {
          if (overBudget()) {
            stopped = true;
            break;
          }
          const m = await runProber(p, fleet, fleet.endpoints, c);
          const s = byProber.get(p)!;
          const lat = [...m.latencies].sort((a, b) => a - b);
          s.runs++;
          s.probesPerS.push((m.probes / m.wallMs) * 1000);
          s.p50.push(quantile(lat, 0.5));
          s.p95.push(quantile(lat, 0.95));
          s.cpuPerProbe.push(m.cpuMs / m.probes);
          s.fleetCpuPerProbe.push(m.fleetCpuMs / m.probes);
          s.ok += m.ok;
          s.total += m.probes;
          for (const x of m.notes) if (s.notes.size < 5) s.notes.add(x);
          console.log(
            `  N=${n} c=${c} ${p.padEnd(9)} run ${r + 1}: ${fmt((m.probes / m.wallMs) * 1000)} probes/s, p50 ${quantile(lat, 0.5)} ms, p95 ${quantile(lat, 0.95)} ms, ` +
              `client CPU ${fmt(m.cpuMs / m.probes, 2)} ms/probe, fleet CPU ${fmt(m.fleetCpuMs / m.probes, 2)} ms/probe, ok ${m.ok}/${m.probes}`,
          );
        }
      }
      for (const s of byProber.values()) if (s.runs > 0) results.push(s);
    }
  } finally {
    await stopFleet(fleet);
  }
}

console.log(`\n## Collector throughput vs SDK-client prober\n`);
console.log(`machine: ${machine}`);
console.log(`command: ${command}`);
console.log(`medians of ${REPEAT} run(s) each (range in brackets); latency = per-probe initialize → tools/list answer; CPU = prober process user+system per probe`);
if (stopped) console.log(`(stopped after --max-minutes ${MAX_MINUTES}: some runs are missing)`);
console.log(
  '\n' +
    table(
      ['N', 'conc', 'prober', 'probes/s', 'p50 ms', 'p95 ms', 'client CPU ms/probe', 'fleet CPU ms/probe', 'ok'],
      results.map((s) => [
        String(s.n),
        String(s.concurrency),
        s.prober,
        fmt(median(s.probesPerS), 0) + spread(s.probesPerS, 0),
        fmt(median(s.p50), 0),
        fmt(median(s.p95), 0),
        fmt(median(s.cpuPerProbe), 2) + spread(s.cpuPerProbe, 2),
        fmt(median(s.fleetCpuPerProbe), 2),
        `${s.ok}/${s.total}`,
      ]),
    ),
);

const pairs = results.filter((s) => s.prober === 'collector').map((c) => ({ c, s: results.find((x) => x.prober === 'sdk' && x.n === c.n && x.concurrency === c.concurrency) })).filter((x) => x.s);
if (pairs.length > 0) {
  console.log(
    '\n' +
      table(
        ['N', 'conc', 'vs', 'probes/s collector ÷ sdk', 'collector CPU ms/probe', 'sdk CPU ms/probe', 'CPU sdk ÷ collector', 'goal ≥3× probes/s', 'goal ≤1 ms CPU'],
        pairs.map(({ c, s }) => {
          const ratio = median(c.probesPerS) / median(s!.probesPerS);
          const cc = median(c.cpuPerProbe);
          const sc = median(s!.cpuPerProbe);
          return [String(c.n), String(c.concurrency), 'sdk', `${fmt(ratio, 2)}×`, fmt(cc, 2), fmt(sc, 2), `${fmt(sc / cc, 1)}×`, ratio >= 3 ? 'met' : 'missed', cc <= 1 ? 'met' : 'missed'];
        }),
      ),
  );
}
if (pairs.length > 0) {
  console.log(
    `\n"CPU sdk ÷ collector" is the ratio of probes/s each prober could reach if its own CPU were the only limit; the measured\n` +
      `probes/s ratio is lower whenever the fleet's CPU (the SDK servers, "fleet CPU ms/probe") is the bottleneck: both processes\n` +
      `share this machine's ${cpu.length} cores.`,
  );
}
const failures = results.filter((s) => s.notes.size > 0);
for (const s of failures) console.log(`\nnot ok (N=${s.n} c=${s.concurrency} ${s.prober}): ${[...s.notes].join(' | ')}`);
console.log(`\ntotal bench time ${fmt((performance.now() - benchStart) / 1000, 0)} s`);
