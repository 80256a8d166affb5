// The collector as a function: roster → targets → probe → rows (methodology v1). cli.ts, the demo
// world, benchmarks and tests all call runCollector(); it never exits the process. This module only
// wires the stages: todays-roster.ts (roster and targets), targets.ts (retirement, opt-outs,
// eligibility), schedule.ts (which probe runs when), probe.ts, rows.ts and store.ts.
//
// Resuming: the run's identity is its clock (--now). A restart after a crash with the same clock
// reuses the roster file that attempt wrote and skips every target that already has a row for the
// run_id, so there is never a duplicate row. A run already in runs.jsonl is refused.
import { appendRunManifests } from '../src/archive/chain.ts';
import type { ChainSigner, Observation, RosterTarget, Run } from '../src/lib/index.ts';
import { ERROR_CLASSES } from '../src/lib/index.ts';
import { CliError, EXIT } from './cli-error.ts';
import { classify } from './errors.ts';
import { createHttpContext } from './http.ts';
import { DEFAULT_PROBE_LIMITS, probe, type ProbeLimits, type ProbeResult } from './probe.ts';
import { DEFAULT_ROSTER_LIMITS, type RosterLimits } from './roster.ts';
import { excludedRow, noEndpointRow, probeRow, retiredRow, runRow } from './rows.ts';
import { hostQueues, type Schedule } from './schedule.ts';
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
  concurrency?: number;
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
  /** Which probe runs when (default: a queue per host, one probe at a time per host; schedule.ts). */
  schedule?: Schedule;
  /** Signs the run's chain manifest (cli.ts reads MCP_SCHEMA_SIGNING_KEY); null or absent: unsigned. */
  signer?: ChainSigner | null;
}

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

export const DEFAULTS = { registry: DEFAULT_REGISTRY, data: 'data', concurrency: 16, timeoutMs: 20_000 } as const;

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

    // Stage 3: probe, as the schedule says (one probe at a time per host, hosts sharing `concurrency`).
    const probeLimits: ProbeLimits = { ...DEFAULT_PROBE_LIMITS, ...o.probeLimits, timeoutMs: o.timeoutMs };
    const http = createHttpContext({ allowPrivate: o.allowPrivate ?? false, timeoutMs: o.timeoutMs });
    const probeOne = async (t: RosterTarget) => {
      let result: ProbeResult;
      try {
        result = await probe(http, t.endpoint!, probeLimits);
      } catch (error) {
        // A bug of ours must not cost the target its row.
        result = { ok: false, error: classify({ kind: 'thrown', step: 'initialize', error }), finalUrl: null, redirects: 0, protocolVersion: null, serverName: null, serverVersion: null, session: null, latencyMs: 0, body: null, bodyContentType: null };
      }
      const bodySha = result.body ? await store.putObject(result.body) : null;
      write(probeRow(ctx(), t, result, bodySha));
    };
    const probeStart = performance.now();
    try {
      await (o.schedule ?? hostQueues)(
        toProbe.map((t) => ({ host: new URL(t.endpoint!).host, run: () => probeOne(t) })),
        { concurrency: o.concurrency, perHost: 1 },
      );
    } finally {
      await http.dispatcher.close();
    }
    const probeMs = Math.round(performance.now() - probeStart);

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
    });
    store.appendRun(run);
    // The run's manifest on the hash chain (src/archive/chain.ts), sealed at the run's own clock.
    await appendRunManifests(o.data, runId, { signer: o.signer ?? null, sealedAt: run.finished_at, durable: store.durable });
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
