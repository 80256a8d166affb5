// The collector as a function: roster → targets → probe → rows, for methodology v1, v2 or both.
// cli.ts, the demo world, benchmarks and tests all call runCollector(); it never exits the process.
// This module only wires the stages: todays-roster.ts (roster and targets), targets.ts (retirement,
// opt-outs, eligibility), schedule.ts (which probe runs when, and which targets are not attempted),
// collector/series/ (each recorded series as one object: its rows, probe, host signal, day files and
// run row; the run loops over the series it records and never names one) and store.ts.
//
// Series (methodology v2, "The bridge"): `methodology` picks v1, v2 or both; `auto` (the default)
// records both until runs.jsonl holds the bridge's days (src/lib/bridge.ts seriesToRecord), then v2
// alone. With both, each target is ONE scheduler job that runs each series' probe in the registry's
// order, v2 then v1 (one request at a time per endpoint still holds), and every target gets one row in
// each series — a not_attempted row in each when the job is skipped. Each series writes its own run
// row, same run_id.
//
// Resuming: the run's identity is its clock (--now). A restart after a crash with the same clock
// reuses the roster file that attempt wrote and, per series, skips every target that already has a
// row for the run_id, so there is never a duplicate row. A run whose series are all in runs.jsonl is
// refused; one with a run row for some of them only records the others. The run's manifest goes on the
// hash chain once, after its last run row (it covers every series' rows).
import type { ObjectStore } from '../src/archive/object-store.ts';
import { appendRunManifests } from '../src/archive/chain.ts';
import type { AnyRun, ChainSigner, MethodologyChoice, NotAttemptedReason, RosterTarget, RunScheduling, RunSeries } from '../src/lib/index.ts';
import { BRIDGE_DAYS, clip, ERROR_CLASSES, seriesToRecord, sha256Hex } from '../src/lib/index.ts';
import { CliError, EXIT } from './cli-error.ts';
import { createHttpContext } from './http.ts';
import type { ProbeLimits } from './probe.ts';
import type { RosterLimits } from './roster.ts';
import { jobSignal } from './host-signal.ts';
import type { RowContext } from './rows.ts';
import type { ProbeV2Limits } from './probe-v2/index.ts';
import { runRowOrder, seriesFor } from './series/registry.ts';
import type { ProbeEnv, RecordedSeries, SeriesRow } from './series/series.ts';
import { lpt, perHostLimit, type HostSignal, type Schedule, type ScheduleReport } from './schedule.ts';
import { Store } from './store.ts';
import { eligibleCount, isOptedOut, readOptOut, retiredTargets } from './targets.ts';
import { previousRoster, rosterHistory, rosterLimitsFor, todaysRoster } from './todays-roster.ts';
import { DEFAULT_REGISTRY } from './version.ts';

export interface CollectorOptions {
  /** List endpoint of the registry (default: the official one). Trusted: not address-checked. */
  registry?: string;
  /** Archive directory (default `data`). */
  data?: string;
  /** Probe only the first n targets in roster order; the run is marked partial. */
  limit?: number | null;
  /** Probes in flight over all hosts. */
  concurrency?: number;
  /** Per host at most clamp(ceil(targets on the host / perHostDivisor), 1, perHostMax) probes in flight. */
  perHostDivisor?: number;
  perHostMax?: number;
  /** ms after this process starts: targets not started by then get not_attempted (run_deadline); null: none. */
  deadlineMs?: number | null;
  /** K: consecutive timeouts/connection failures that make a host unresponsive (0: never). */
  unresponsiveAfter?: number;
  /** Overall deadline per request, ms. */
  timeoutMs?: number;
  /** The run's clock (run_id, day, observed_at base). Default: now. */
  now?: Date;
  /** Permit loopback/private endpoint addresses (local worlds only). */
  allowPrivate?: boolean;
  /** Opt-out file (names or hosts); null for none. */
  optout?: string | null;
  onProgress?: (p: Progress) => void;
  /** Which series the run records (default `auto`: both until the bridge is complete, then v2). */
  methodology?: MethodologyChoice;
  /** Bridge days `auto` waits for (default BRIDGE_DAYS, 14); smaller only in local worlds. */
  bridgeDays?: number;
  /** Bounds, for tests and local worlds. */
  probeLimits?: Partial<Omit<ProbeLimits, 'timeoutMs'>>;
  probeV2Limits?: Partial<Omit<ProbeV2Limits, 'timeoutMs'>>;
  rosterLimits?: Partial<Omit<RosterLimits, 'timeoutMs'>>;
  /** Which probe runs when (default `lpt`, schedule.ts). */
  schedule?: Schedule;
  /** Schedule bounds in ms, for tests and scaled benchmarks (defaults: SCHEDULE_DEFAULTS). */
  scheduleLimits?: Partial<typeof SCHEDULE_DEFAULTS>;
  /** Signs the run's chain manifest (cli.ts reads MCP_SCHEMA_SIGNING_KEY); null or absent: unsigned. */
  signer?: ChainSigner | null;
  /** The bucket objects and page manifests go to (src/archive/store-config.ts; null: data/ alone). */
  remote?: ObjectStore | null;
  /** The series this collector can record (default RECORDED_SERIES, collector/series/registry.ts); tests pass their own. */
  series?: readonly RecordedSeries[];
}

/**
 * unresponsiveSpanMs: null means one request timeout (--timeout). retryAfterCapMs: the longest
 * Retry-After honoured (a host asking for an hour gets two minutes, then a probe at half its limit).
 */
export const SCHEDULE_DEFAULTS = { unresponsiveSpanMs: null as number | null, retryAfterCapMs: 120_000, backoffBaseMs: 2_000 };

export interface Progress {
  done: number;
  total: number;
  ok: number;
  errors: Partial<Record<(typeof ERROR_CLASSES)[number], number>>;
}

export interface CollectorSummary {
  /** The run row of the first series recorded (v1 when it was recorded, else v2). */
  run: AnyRun;
  /** Every run row this process wrote, v1 first. */
  runs: AnyRun[];
  /** The series recorded (in this process). */
  series: RunSeries[];
  data: string;
  /** Rows found from an earlier attempt of the same run (resume), over all series. */
  resumed_rows: number;
  /** Targets probed by this process. */
  probed: number;
  duration_ms: number;
  /** Time spent fetching (or reloading) the roster, and probing. */
  roster_ms: number;
  probe_ms: number;
  /** Rows written by this process per second of wall time. */
  targets_per_s: number;
}

/**
 * concurrency 64: the registry's largest host (a gateway with ~45% of the endpoints) runs at its cap of
 * 16 probes and is the day's critical path (~30 min in bench:scale); 48 more slots finish the long
 * tail of small hosts before it (bench/README.md "Registry-scale day").
 * deadlineMs 5 h: the GitHub Actions job stops at 6 h (collect.yml timeout-minutes 360); the hour left
 * covers the random start delay (≤ 15 min), setup, probes in flight at the deadline, compact, verify
 * and the commit.
 * unresponsiveAfter 10: see the changelog's scheduling note — a host whose endpoints hang independently
 * at rate p is wrongly cut with probability ≈ (n − 10)·p^10 (n = 12,000, p = 0.2: 0.1%), and a dead
 * host costs about two request timeouts at its limit, a few minutes at most.
 */
export const DEFAULTS = {
  registry: DEFAULT_REGISTRY,
  data: 'data',
  concurrency: 64,
  timeoutMs: 20_000,
  perHostDivisor: 500,
  perHostMax: 16,
  deadlineMs: 5 * 3600_000,
  unresponsiveAfter: 10,
  methodology: 'auto',
  bridgeDays: BRIDGE_DAYS,
} as const satisfies Partial<CollectorOptions>;

/** `2026-11-30T03:15:00.123Z` → `2026-11-30T031500Z`. */
export function runIdOf(clock: Date): string {
  const iso = clock.toISOString();
  return `${iso.slice(0, 10)}T${iso.slice(11, 19).replace(/:/g, '')}Z`;
}


/** One series' rows of this run: earlier attempts' and this process's, and who already has one. */
interface SeriesRows {
  series: RecordedSeries;
  earlier: SeriesRow[];
  rows: SeriesRow[];
  done: Set<string>;
}

export async function runCollector(options: CollectorOptions = {}): Promise<CollectorSummary> {
  // Options given as undefined (e.g. an absent CLI flag) keep their defaults.
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as CollectorOptions;
  const o = { ...DEFAULTS, ...given };
  const clock = o.now ?? new Date();
  if (Number.isNaN(clock.getTime())) throw new CliError('--now is not a valid time', EXIT.usage);
  const runId = runIdOf(clock);
  const day = clock.toISOString().slice(0, 10);
  const limit = o.limit ?? null;
  const t0 = performance.now();
  const store = Store.open(o.data, new Date().toISOString(), { remote: o.remote ?? null });
  try {
    const runs = store.readRuns();
    // Which series: decided by the runs before this one (a resumed run decides as its first attempt did).
    const chosen = seriesToRecord(o.methodology, runs.filter((r) => r.run_id !== runId), o.bridgeDays);
    const finished = new Set(runs.filter((r) => r.run_id === runId).map((r) => r.methodology_version));
    const series = chosen.filter((s) => !finished.has(s));
    if (series.length === 0) {
      throw new CliError(`run ${runId} already finished (see runs.jsonl); pass a different --now`, EXIT.finished);
    }
    // The series recorded, in the order a target's job probes them; no other series' code is touched.
    const recorded: SeriesRows[] = seriesFor(series, o.series).map((s) => {
      const earlier = s.read(store, day).filter((r) => r.run_id === runId);
      return { series: s, earlier, rows: [...earlier], done: new Set(earlier.map((r) => r.target)) };
    });
    const earlierRows = recorded.reduce((n, r) => n + r.earlier.length, 0);
    // observed_at = run clock + elapsed; a resumed run continues after its last row, keeping order.
    let base = clock.getTime();
    for (const r of recorded.flatMap((x) => x.earlier)) base = Math.max(base, Date.parse(r.observed_at) + 1);
    const at = () => new Date(base + (performance.now() - t0)).toISOString();

    // Stage 1+2: roster and targets (or the roster an earlier attempt of this run wrote), its bounds
    // derived from the rosters before it.
    // The runs before this one: a run resumed after writing one series' run row is not its own predecessor.
    const before = runs.filter((r) => r.run_id !== runId);
    const prev = previousRoster(store, before);
    const rosterLimits = rosterLimitsFor(rosterHistory(store, before, prev), { ...o.rosterLimits, timeoutMs: o.timeoutMs });
    const { file: rosterFile, roster } = await todaysRoster(store, { registry: o.registry, day, runId, limits: rosterLimits, at, previous: prev?.roster ?? null });
    const rosterMs = Math.round(performance.now() - t0);
    const selected = limit === null ? roster.targets : roster.targets.slice(0, limit);
    const optOut = readOptOut(o.optout === undefined ? null : o.optout);
    const retired = limit === null ? retiredTargets(prev?.roster ?? null, roster) : [];
    const eligible = eligibleCount(selected, roster, prev?.roster ?? null, optOut, limit !== null);

    // Progress counts rows over the series recorded.
    const progress: Progress = { done: earlierRows, total: earlierRows, ok: 0, errors: {} };
    const count = (r: SeriesRow) => {
      if (r.outcome === 'ok') progress.ok++;
      if (r.error_class) progress.errors[r.error_class] = (progress.errors[r.error_class] ?? 0) + 1;
    };
    recorded.flatMap((x) => x.earlier).forEach(count);
    const write = (x: SeriesRows, row: SeriesRow) => {
      x.series.append(store, row);
      x.rows.push(row);
      x.done.add(row.target);
      progress.done++;
      count(row);
      o.onProgress?.({ ...progress, errors: { ...progress.errors } });
    };
    const ctx = (): RowContext => ({ runId, day, observedAt: at() });
    const deadlineMs = o.deadlineMs ?? null;
    /** The series still owing a row for a target (an earlier attempt may have written some). */
    const owing = (name: string) => recorded.filter((x) => !x.done.has(name));

    // Stage 3 inputs: rows that need no request are written first.
    const toProbe: RosterTarget[] = [];
    for (const t of [...retired, ...selected]) progress.total += owing(t.name).length;
    o.onProgress?.({ ...progress });
    for (const t of retired) for (const x of owing(t.name)) write(x, x.series.retiredRow(ctx(), t, prev!.file));
    for (const t of selected) {
      const w = owing(t.name);
      if (w.length === 0) continue;
      if (isOptedOut(t, optOut)) for (const x of w) write(x, x.series.excludedRow(ctx(), t));
      else if (t.endpoint === null) for (const x of w) write(x, x.series.noEndpointRow(ctx(), t));
      else toProbe.push(t);
    }

    // Stage 3: probe, as the schedule says (per-host limits, back-off, unresponsive hosts, deadline).
    // The per-host rule counts the run's targets on each host, earlier attempts of a resumed run included.
    const hostTargets = new Map<string, number>();
    for (const t of selected) {
      if (t.endpoint === null || isOptedOut(t, optOut)) continue;
      const host = new URL(t.endpoint).host;
      hostTargets.set(host, (hostTargets.get(host) ?? 0) + 1);
    }
    const hostLimit = (host: string) => perHostLimit(hostTargets.get(host) ?? 0, o.perHostDivisor, o.perHostMax);
    const http = createHttpContext({ allowPrivate: o.allowPrivate ?? false, timeoutMs: o.timeoutMs, hostLimit });
    const env: ProbeEnv = { http, store, timeoutMs: o.timeoutMs, probeLimits: o.probeLimits, probeV2Limits: o.probeV2Limits };
    const probers = new Map(recorded.map((x) => [x, x.series.prober(env)]));
    // One job per target: each series owing a row probes in turn (newest first; sequential, so one
    // request at a time per endpoint holds); the schedule hears what the host did over all of them.
    const job = async (t: RosterTarget): Promise<HostSignal> => {
      const signals: HostSignal[] = [];
      for (const x of owing(t.name)) {
        const { row, signal } = await probers.get(x)!(t, ctx);
        write(x, row);
        signals.push(signal);
      }
      return jobSignal(signals);
    };
    const skip = (t: RosterTarget, reason: NotAttemptedReason) => {
      for (const x of owing(t.name)) write(x, x.series.notAttemptedRow(ctx(), t, reason));
    };
    // Within a host, targets go in an order drawn per run (by hash of run id and name): a cluster of
    // one publisher's dead servers listed side by side cannot look like a dead host, and a deadline
    // does not always cut the same names. A resumed run draws the same order.
    const order = new Map(toProbe.map((t) => [t.name, sha256Hex(new TextEncoder().encode(`${runId}\0${t.name}`))]));
    toProbe.sort((a, b) => (order.get(a.name)! < order.get(b.name)! ? -1 : 1));
    const limits = { ...SCHEDULE_DEFAULTS, ...o.scheduleLimits };
    const probeStart = performance.now();
    let report: ScheduleReport;
    try {
      report = await (o.schedule ?? lpt)(
        toProbe.map((t) => ({ host: new URL(t.endpoint!).host, run: () => job(t), skip: (reason: NotAttemptedReason) => skip(t, reason) })),
        {
          concurrency: o.concurrency,
          perHostDivisor: o.perHostDivisor,
          perHostMax: o.perHostMax,
          hostTargets,
          unresponsiveAfter: o.unresponsiveAfter,
          unresponsiveSpanMs: limits.unresponsiveSpanMs ?? o.timeoutMs,
          deadline: deadlineMs === null ? null : t0 + deadlineMs,
          retryAfterCapMs: limits.retryAfterCapMs,
          backoffBaseMs: limits.backoffBaseMs,
        },
      );
    } finally {
      await http.dispatcher.close();
    }
    const probeMs = Math.round(performance.now() - probeStart);
    const scheduling: Omit<RunScheduling, 'not_attempted'> = {
      scheduler: report.scheduler,
      hosts: hostTargets.size,
      max_targets_per_host: [...hostTargets.values()].reduce((m, n) => Math.max(m, n), 0),
      per_host_limit: { divisor: o.perHostDivisor, max: o.perHostMax },
      global_concurrency: Math.max(1, o.concurrency),
      max_in_flight_per_host: report.maxInFlightPerHost,
      unresponsive_after: o.unresponsiveAfter,
      deadline_at: deadlineMs === null ? null : new Date(base + deadlineMs).toISOString(),
      slowest_hosts: [...report.hosts]
        .sort((a, b) => b.wallMs - a.wallMs || b.targets - a.targets)
        .slice(0, 10)
        .map((h) => ({ host: clip(h.host, 255), targets: h.targets, limit: h.limit, max_in_flight: h.maxInFlight, backoffs: h.backoffs, wall_ms: h.wallMs, not_attempted: h.notAttempted })),
    };

    // One run row per series, v1 first; all of one run share its facts and scheduling block.
    const facts = {
      runId,
      day,
      startedAt: clock.toISOString(),
      finishedAt: at(),
      registry: o.registry,
      rosterFile,
      rosterComplete: roster.complete,
      limit,
      eligible,
      message: roster.complete ? null : `roster incomplete: ${roster.incomplete_reason ?? 'unknown'}`,
      scheduling,
    };
    const written = runRowOrder(recorded).map((x) => x.series.runRow({ ...facts, rows: x.rows }));
    for (const run of written) store.appendRun(run);
    // The run's manifest on the hash chain (src/archive/chain.ts), sealed at the run's own clock.
    await appendRunManifests(o.data, runId, { signer: o.signer ?? null, sealedAt: written[0]!.finished_at, durable: store.durable });
    const durationMs = Math.round(performance.now() - t0);
    const rowsWritten = recorded.reduce((n, x) => n + x.rows.length, 0) - earlierRows;
    return {
      run: written[0]!,
      runs: written,
      series,
      data: o.data,
      resumed_rows: earlierRows,
      probed: toProbe.length,
      duration_ms: durationMs,
      roster_ms: rosterMs,
      probe_ms: probeMs,
      targets_per_s: durationMs > 0 ? Math.round((rowsWritten / durationMs) * 1000 * 10) / 10 : 0,
    };
  } finally {
    store.close();
  }
}
