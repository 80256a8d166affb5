// npm run bench:scale — a registry-scale day, time-scaled, on the local world
// (bench/scale-world.ts, in a child process). The real collector (runCollector, in this process)
// probes it with every time divided by the factor f: request timeout 20 s / f, deadline 5 h / f,
// Retry-After cap 120 s / f, back-off base 2 s / f; the world's latencies and its Retry-After are
// divided by f too. The projected real-world wall time is the measured probe stage × f.
//
// The unscaled part: the collector's own CPU time does not shrink with f, so in the scaled run it
// weighs f times more than it would at real speed. Two projections are printed: measured × f (an
// upper bound: it scales the CPU time too), and (measured − collector CPU) × f + collector CPU (as if
// the collector's CPU had been on the critical path all along, then added back once at real speed).
// On a shared machine both also scale whatever time other processes took from this one (the load
// average is printed). A third figure has no machine in it: the same schedule functions replayed in
// virtual time over the same world (bench/scale-replay.ts), every answer exactly when the world's
// draw says; it is what the schedule itself costs.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { checked, command, exitCodes, script, usage as usageError } from '../collector/cli-kit/index.ts';
import { DEFAULTS, runCollector, SCHEDULE_DEFAULTS } from '../collector/run.ts';
import { hostQueues, lpt, perHostLimit } from '../collector/schedule.ts';
import { replay } from './scale-replay.ts';
import type { HostStats, WorldInfo } from './scale-world.ts';

const HELP = `usage: npm run bench:scale -- [options]

A registry-scale day, time-scaled: 26,000 endpoints shaped like the real listings (a
gateway with 45%, a 1,000-endpoint host that stops answering, a host answering 429 in bursts, a
long tail), log-normal latencies (median 300 ms, p99 5 s), 2% hanging endpoints, 20 s timeout —
every time divided by --factor. Prints the projected real-world wall time and what the servers saw.

Options
  --endpoints N        endpoints (default 26000)
  --factor F           time scale (default 10: a 33-minute day in about 4 minutes; at 30 the run
                       needs three times the CPU per second and a shared machine's load shows in it)
  --scheduler S        lpt (the collector's, default) or one-per-host (the schedule before the LPT scheduler:
                       one probe per host, FIFO, no back-off, no unresponsive rule, no deadline)
  --concurrency N      global concurrency (default: the collector's, ${DEFAULTS.concurrency}; one-per-host: 16, as before)
  --methodology M      v1 (default: the figures in bench/README.md), v2, or v1,v2 (a bridge day: each
                       target probed by v2 then v1 in one job)
  --seed S             world seed (default scale)
  --keep               keep the archive folder (printed)
  --help               this text

Goals: projected ≤ 60 min; no host above its in-flight bound (counted by the servers);
every target exactly one row; a stuck host costs minutes, not hours.

${exitCodes({ 0: 'measured (the goals are reported, not enforced)', 2: 'bad usage' })}`;

const COMMAND = command({
  name: 'bench:scale',
  help: HELP,
  options: {
    endpoints: { type: 'string', default: '26000' },
    factor: { type: 'string', default: '10' },
    scheduler: { type: 'string', default: 'lpt' },
    concurrency: { type: 'string' },
    seed: { type: 'string', default: 'scale' },
    methodology: { type: 'string', default: 'v1' },
    keep: { type: 'boolean', default: false },
  },
});
const { values } = script(COMMAND);
const n = Number(values.endpoints);
const f = Number(values.factor);
const onePerHost = values.scheduler === 'one-per-host';
if (!Number.isInteger(n) || n < 100 || n > 100_000) usage('--endpoints must be 100..100000');
if (!(f >= 1 && f <= 1000)) usage('--factor must be 1..1000');
if (!onePerHost && values.scheduler !== 'lpt') usage('--scheduler must be lpt or one-per-host');
const methodology = values.methodology as 'v1' | 'v2' | 'v1,v2';
if (!['v1', 'v2', 'v1,v2'].includes(methodology)) usage('--methodology must be v1, v2 or v1,v2');
const concurrency = values.concurrency ? Number(values.concurrency) : onePerHost ? 16 : DEFAULTS.concurrency;
const CLK_TCK = 100;
const WORLD = fileURLToPath(new URL('./scale-world.ts', import.meta.url));

const tStart = performance.now();
const virtual = await replay({
  endpoints: n,
  seed: values.seed!,
  scheduler: onePerHost ? 'one-per-host' : 'lpt',
  concurrency,
  perHostDivisor: DEFAULTS.perHostDivisor,
  perHostMax: onePerHost ? 1 : DEFAULTS.perHostMax,
  unresponsiveAfter: onePerHost ? 0 : DEFAULTS.unresponsiveAfter,
  timeoutMs: DEFAULTS.timeoutMs,
  deadlineMs: onePerHost ? null : DEFAULTS.deadlineMs,
  retryAfterCapMs: SCHEDULE_DEFAULTS.retryAfterCapMs,
  backoffBaseMs: SCHEDULE_DEFAULTS.backoffBaseMs,
});
const child = spawn(process.execPath, ['--import', 'tsx', WORLD, '--endpoints', String(n), '--factor', String(f), '--seed', values.seed!], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: child.stdout! });
const next = () =>
  new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`world exited (code ${code})`)));
  });
const tw = performance.now();
const world = JSON.parse(await next()) as WorldInfo;
const worldStartS = (performance.now() - tw) / 1000;
const kindOf = new Map(world.hosts.map((h) => [h.host, h]));

const data = mkdtempSync(join(tmpdir(), 'mcps-bench-scale-'));
const timeoutMs = Math.round(DEFAULTS.timeoutMs / f);
const perHostMax = onePerHost ? 1 : DEFAULTS.perHostMax;
let cpu0: NodeJS.CpuUsage | null = null;
let world0 = 0;
let load0 = loadavg()[0]!;
const summary = await runCollector({
  registry: world.registryUrl,
  data,
  allowPrivate: true,
  optout: null,
  now: new Date('2026-06-01T03:15:00Z'),
  // v1 alone by default, as the first figures in bench/README.md were measured; v1,v2 is a bridge day
  // (each target probed by v2 then v1 in one job).
  methodology,
  concurrency,
  timeoutMs,
  perHostMax,
  deadlineMs: onePerHost ? null : DEFAULTS.deadlineMs / f,
  unresponsiveAfter: onePerHost ? 0 : DEFAULTS.unresponsiveAfter,
  schedule: onePerHost ? hostQueues : lpt,
  scheduleLimits: { retryAfterCapMs: SCHEDULE_DEFAULTS.retryAfterCapMs / f, backoffBaseMs: SCHEDULE_DEFAULTS.backoffBaseMs / f },
  probeLimits: { sseGraceMs: Math.max(10, 1000 / f) },
  onProgress: () => {
    // The first progress call comes when the roster is done: the probe stage's CPU starts here.
    if (cpu0) return;
    cpu0 = process.cpuUsage();
    world0 = procCpuMs(world.pid);
    load0 = loadavg()[0]!;
  },
});
const cpu = process.cpuUsage(cpu0 ?? undefined);
const collectorCpuS = (cpu.user + cpu.system) / 1e6;
const worldCpuS = (procCpuMs(world.pid) - world0) / 1000;
child.stdin!.write('stats\n');
const stats = JSON.parse(await next()) as HostStats[];
child.stdin!.end();
const load1 = loadavg()[0]!;

// ---- figures ----------------------------------------------------------------------------------
const run = summary.run;
const wallS = summary.probe_ms / 1000;
const probed = summary.probed;
const upperMin = (wallS * f) / 60;
const correctedMin = ((wallS - collectorCpuS) * f + collectorCpuS) / 60;
const boundOf = (host: string) => (onePerHost ? 1 : perHostLimit(kindOf.get(host)!.targets, DEFAULTS.perHostDivisor, DEFAULTS.perHostMax));
const over = stats.filter((s) => s.peakAnswered > boundOf(s.host));
const overAll = stats.filter((s) => s.peak > boundOf(s.host));
const endpointOver = stats.filter((s) => s.endpointPeakAnswered > 1);
const endpointOverAll = stats.filter((s) => s.endpointPeak > 1);
const of = (kind: string) => stats.filter((s) => kindOf.get(s.host)!.kind === kind);
const slow = run.scheduling?.slowest_hosts ?? [];
const wallOf = (host: string) => slow.find((x) => x.host === host)?.wall_ms ?? null;
const rps = (s: HostStats) => s.requests / wallS / f; // real-world requests per second
const tail = of('tail').map(rps).sort((a, b) => a - b);
const gateway = of('gateway')[0]!;
const stuck = of('stuck')[0]!;
const burst = of('burst')[0]!;
const fmt = (x: number, d = 1) => x.toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d });
const rows = readRows();
const rowsOk = run.targets === n && rows.length === n && new Set(rows.map((r) => r.target)).size === n;
// When the stuck host's remaining targets were written off (their not_attempted rows), from the start of the probe stage.
const stuckCut = rows.filter((r) => r.endpoint?.includes(`//${stuck.host}/`) && r.not_attempted_reason === 'host_unresponsive').map((r) => Date.parse(r.observed_at));
const probeStartMs = Date.parse('2026-06-01T03:15:00Z') + summary.roster_ms;
const vslow = [...virtual.report.hosts].sort((a, b) => b.wallMs - a.wallMs);
const vKind = (host: string) => world.hosts[Number(host.slice(1))]?.kind ?? host;

const out = [
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, node ${process.version}; load average ${fmt(load0)} → ${fmt(load1)}`,
  `command: npm run bench:scale -- --endpoints ${n} --factor ${f} --scheduler ${onePerHost ? 'one-per-host' : 'lpt'} --concurrency ${concurrency} --methodology ${methodology} --seed ${values.seed}`,
  `world: ${world.hosts.length.toLocaleString('en')} hosts (gateway ${gateway && kindOf.get(gateway.host)!.targets}, stuck ${kindOf.get(stuck.host)!.targets}, burst-429 ${kindOf.get(burst.host)!.targets}, 5 × ${kindOf.get(of('mid')[0]!.host)!.targets}, ${of('tail').length.toLocaleString('en')} tail hosts), started in ${fmt(worldStartS)} s`,
  `schedule: ${onePerHost ? 'one probe per host (hostQueues), no deadline' : `lpt, per host clamp(ceil(n/${DEFAULTS.perHostDivisor}),1,${DEFAULTS.perHostMax}), K ${DEFAULTS.unresponsiveAfter}, deadline ${DEFAULTS.deadlineMs / 3_600_000} h`}; timeout ${DEFAULTS.timeoutMs / 1000} s (${timeoutMs} ms scaled)`,
  '',
  `roster (not scaled: the local registry): ${fmt(summary.roster_ms / 1000)} s`,
  `probe stage: ${fmt(wallS)} s measured for ${probed.toLocaleString('en')} targets → projected ${fmt(upperMin)} min (measured × ${f}); ${fmt(correctedMin)} min with the collector's CPU added unscaled`,
  `schedule replayed in virtual time (no machine in it): ${fmt(virtual.wallMs / 60_000)} min; slowest hosts ${vslow.slice(0, 3).map((h) => `${vKind(h.host)} ${fmt(h.wallMs / 60_000)} min`).join(', ')}; not attempted ${Object.entries(virtual.skipped).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
  `CPU: collector ${fmt(collectorCpuS)} s (${fmt((collectorCpuS * 1000) / Math.max(1, probed), 2)} ms per target), world ${fmt(worldCpuS)} s — ${fmt(((collectorCpuS + worldCpuS) / wallS) * 100, 0)}% of one core over the stage`,
  `in flight per host, counted by the servers over answered requests: ${over.length === 0 ? 'no host above its bound' : `${over.length} hosts ABOVE their bound`}; gateway peak ${gateway.peakAnswered} (bound ${boundOf(gateway.host)}), stuck ${stuck.peakAnswered} (bound ${boundOf(stuck.host)}), burst ${burst.peakAnswered} (bound ${boundOf(burst.host)}), tail max ${Math.max(...of('tail').map((s) => s.peakAnswered))} (bound 1); per endpoint: ${endpointOver.length === 0 ? 'never above 1' : `${endpointOver.length} hosts had an endpoint above 1`}`,
  `  counting also requests the client had abandoned (timed out; they end at the server only when it sees the socket close, sometimes after the next request arrived): ${overAll.length} hosts above their bound, ${endpointOverAll.length} with an endpoint above 1; gateway ${gateway.peak}`,
  `requests per second per host (real-world time): gateway ${fmt(rps(gateway), 2)}, stuck ${fmt(rps(stuck), 2)}, burst ${fmt(rps(burst), 2)}, tail median ${fmt(tail[Math.floor(tail.length / 2)] ?? 0, 3)}`,
  `stuck host: ${stuck.afterStuck} requests after it stopped answering; ${stuckCut.length > 0 ? `its other ${stuckCut.length} targets written off ${fmt(((Math.min(...stuckCut) - probeStartMs) / 1000) * f / 60)} min into the probe stage (projected)` : 'never written off'}`,
  `burst host: ${burst.throttled} answers 429 (Retry-After ${Math.max(1, Math.ceil(world.retryAfterS / f))} s scaled = ${Math.max(1, Math.ceil(world.retryAfterS / f)) * f} s real); ${burst.insideRetryAfter} probes started inside a Retry-After it had sent; ${slow.find((x) => x.host === burst.host)?.backoffs ?? '?'} back-offs`,
  `rows: ${run.targets.toLocaleString('en')} for ${n.toLocaleString('en')} targets, ${rowsOk ? 'exactly one each' : 'NOT one each'}; coverage ${fmt(run.coverage * 100)}%${run.degraded ? ' (degraded)' : ''}`,
  `outcomes: ${Object.entries(run.outcomes).filter(([, v]) => (v ?? 0) > 0).map(([k, v]) => `${k} ${v}`).join(', ')}; error classes: ${Object.entries(run.error_classes).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(', ')}; not attempted: ${Object.entries(run.scheduling?.not_attempted ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')}`,
  `slowest hosts (projected min): ${slow.slice(0, 5).map((x) => `${kindOf.get(x.host)?.kind ?? x.host} ${fmt(((x.wall_ms / 1000) * f) / 60)}`).join(', ')}`,
  `bench wall: ${fmt((performance.now() - tStart) / 1000)} s`,
];
console.log(out.join('\n'));
if (values.keep) console.log(`archive: ${data}`);
else rmSync(data, { recursive: true, force: true });

function readRows(): { target: string; endpoint: string | null; observed_at: string; not_attempted_reason?: string | null }[] {
  // The v1 rows when v1 ran (alone or in a bridge), else v2's: the same fields either way.
  return readFileSync(join(data, methodology === 'v2' ? 'observations-v2' : 'observations', '2026-06-01.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
}

function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLK_TCK) * 1000;
}

function usage(msg: string): never {
  return checked(COMMAND, () => {
    throw usageError(`${msg} (see --help)`);
  });
}
