// The collector as a function: roster → targets → probe → rows (methodology v1). cli.ts, the demo
// world, benchmarks and tests all call runCollector(); it never exits the process. This module only
// wires the stages: todays-roster.ts (roster and targets), targets.ts (retirement, opt-outs,
// eligibility), schedule.ts (which probe runs when, and which targets are not attempted),
// host-signal.ts (what a probe tells the schedule), probe.ts, rows.ts and store.ts.
//
// Resuming: the run's identity is its clock (--now). A restart after a crash with the same clock
// reuses the roster file that attempt wrote and skips every target that already has a row for the
// run_id, so there is never a duplicate row. A run already in runs.jsonl is refused.
import type { NotAttemptedReason, Observation, RosterTarget, Run, RunScheduling } from '../src/lib/index.ts';
import { clip, ERROR_CLASSES, sha256Hex } from '../src/lib/index.ts';
import { CliError, EXIT } from './cli-error.ts';
import { classify } from './errors.ts';
import { createHttpContext } from './http.ts';
import { DEFAULT_PROBE_LIMITS, probe, type ProbeLimits, type ProbeResult } from './probe.ts';
import { DEFAULT_ROSTER_LIMITS, type RosterLimits } from './roster.ts';
import { hostSignal } from './host-signal.ts';
import { excludedRow, noEndpointRow, notAttemptedRow, probeRow, retiredRow, runRow } from './rows.ts';
import { lpt, perHostLimit, type HostSignal, type Schedule, type ScheduleReport } from './schedule.ts';
import { Store } from './store.ts';
import { eligibleCount, isOptedOut, readOptOut, retiredTargets } from './targets.ts';
import { previousRoster, todaysRoster } from './todays-roster.ts';
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
  /** Bounds, for tests and local worlds. */
  probeLimits?: Partial<Omit<ProbeLimits, 'timeoutMs'>>;
  rosterLimits?: Partial<Omit<RosterLimits, 'timeoutMs'>>;
  /** Which probe runs when (default `lpt`, schedule.ts). */
  schedule?: Schedule;
  /** Schedule bounds in ms, for tests and scaled benchmarks (defaults: SCHEDULE_DEFAULTS). */
  scheduleLimits?: Partial<typeof SCHEDULE_DEFAULTS>;
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
  run: Run;
  data: string;
  /** Rows found from an earlier attempt of the same run (resume). */
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
} as const;

/** `2026-11-30T03:15:00.123Z` → `2026-11-30T031500Z`. */
export function runIdOf(clock: Date): string {
  const iso = clock.toISOString();
  return `${iso.slice(0, 10)}T${iso.slice(11, 19).replace(/:/g, '')}Z`;
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
  const store = Store.open(o.data, new Date().toISOString());
  try {
    const runs = store.readRuns();
    if (runs.some((r) => r.run_id === runId)) {
      throw new CliError(`run ${runId} already finished (see runs.jsonl); pass a different --now`, EXIT.finished);
    }
    const earlier = store.readObservations(day).filter((r) => r.run_id === runId);
    const done = new Set(earlier.map((r) => r.target));
    // observed_at = run clock + elapsed; a resumed run continues after its last row, keeping order.
    let base = clock.getTime();
    for (const r of earlier) base = Math.max(base, Date.parse(r.observed_at) + 1);
    const at = () => new Date(base + (performance.now() - t0)).toISOString();

    // Stage 1+2: roster and targets (or the roster an earlier attempt of this run wrote).
    const rosterLimits: RosterLimits = { ...DEFAULT_ROSTER_LIMITS, ...o.rosterLimits, timeoutMs: o.timeoutMs };
    const { file: rosterFile, roster } = await todaysRoster(store, { registry: o.registry, day, runId, limits: rosterLimits, at });
    const rosterMs = Math.round(performance.now() - t0);
    const selected = limit === null ? roster.targets : roster.targets.slice(0, limit);
    const optOut = readOptOut(o.optout === undefined ? null : o.optout);
    const prev = previousRoster(store, runs);
    const retired = limit === null ? retiredTargets(prev?.roster ?? null, roster) : [];
    const eligible = eligibleCount(selected, roster, prev?.roster ?? null, optOut, limit !== null);

    const rows: Observation[] = [...earlier];
    const progress: Progress = { done: earlier.length, total: earlier.length, ok: 0, errors: {} };
    const count = (r: Observation) => {
      if (r.outcome === 'ok') progress.ok++;
      if (r.error_class) progress.errors[r.error_class] = (progress.errors[r.error_class] ?? 0) + 1;
    };
    earlier.forEach(count);
    const write = (row: Observation) => {
      store.appendObservation(row);
      rows.push(row);
      progress.done++;
      count(row);
      o.onProgress?.({ ...progress, errors: { ...progress.errors } });
    };
    const ctx = () => ({ runId, day, observedAt: at() });
    const deadlineMs = o.deadlineMs ?? null;

    // Stage 3 inputs: rows that need no request are written first.
    const toProbe: RosterTarget[] = [];
    const pendingRetired = retired.filter((t) => !done.has(t.name));
    const pendingSelected = selected.filter((t) => !done.has(t.name));
    progress.total += pendingRetired.length + pendingSelected.length;
    o.onProgress?.({ ...progress });
    for (const t of pendingRetired) write(retiredRow(ctx(), t, prev!.file));
    for (const t of pendingSelected) {
      if (isOptedOut(t, optOut)) write(excludedRow(ctx(), t));
      else if (t.endpoint === null) write(noEndpointRow(ctx(), t));
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
    const probeLimits: ProbeLimits = { ...DEFAULT_PROBE_LIMITS, ...o.probeLimits, timeoutMs: o.timeoutMs };
    const http = createHttpContext({ allowPrivate: o.allowPrivate ?? false, timeoutMs: o.timeoutMs, hostLimit });
    const probeOne = async (t: RosterTarget): Promise<HostSignal> => {
      let result: ProbeResult;
      try {
        result = await probe(http, t.endpoint!, probeLimits);
      } catch (error) {
        // A bug of ours must not cost the target its row.
        result = { ok: false, error: classify({ kind: 'thrown', step: 'initialize', error }), finalUrl: null, redirects: 0, protocolVersion: null, serverName: null, serverVersion: null, session: null, latencyMs: 0, body: null, bodyContentType: null };
      }
      const bodySha = result.body ? await store.putObject(result.body) : null;
      write(probeRow(ctx(), t, result, bodySha));
      return hostSignal(result.ok ? null : result.error, Date.now());
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
        toProbe.map((t) => ({ host: new URL(t.endpoint!).host, run: () => probeOne(t), skip: (reason: NotAttemptedReason) => write(notAttemptedRow(ctx(), t, reason)) })),
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

    const run = runRow({
      runId,
      day,
      startedAt: clock.toISOString(),
      finishedAt: at(),
      registry: o.registry,
      rosterFile,
      rosterComplete: roster.complete,
      limit,
      eligible,
      rows,
      message: roster.complete ? null : `roster incomplete: ${roster.incomplete_reason ?? 'unknown'}`,
      scheduling,
    });
    store.appendRun(run);
    const durationMs = Math.round(performance.now() - t0);
    const written = rows.length - earlier.length;
    return {
      run,
      data: o.data,
      resumed_rows: earlier.length,
      probed: toProbe.length,
      duration_ms: durationMs,
      roster_ms: rosterMs,
      probe_ms: probeMs,
      targets_per_s: durationMs > 0 ? Math.round((written / durationMs) * 1000 * 10) / 10 : 0,
    };
  } finally {
    store.close();
  }
}
