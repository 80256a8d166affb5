// The collector as a function: roster → targets → probe → rows (methodology v1). cli.ts, the demo
// world, benchmarks and tests all call runCollector(); it never exits the process.
//
// Resuming: the run's identity is its clock (--now). A restart after a crash with the same clock
// reuses the roster file that attempt wrote and skips every target that already has a row for the
// run_id, so there is never a duplicate row. A run already in runs.jsonl is refused.
import { Agent } from 'undici';
import type { Observation, Roster, RosterTarget, Run } from '../src/lib/index.ts';
import { ERROR_CLASSES } from '../src/lib/index.ts';
import { CliError, EXIT } from './cli-error.ts';
import { classify } from './errors.ts';
import { createHttpContext } from './http.ts';
import { DEFAULT_PROBE_LIMITS, probe, type ProbeLimits, type ProbeResult } from './probe.ts';
import { DEFAULT_ROSTER_LIMITS, fetchRoster, type RosterLimits } from './roster.ts';
import { excludedRow, noEndpointRow, probeRow, retiredRow, runRow } from './rows.ts';
import { Store } from './store.ts';
import { isOptedOut, readOptOut, retiredTargets, selectTargets } from './targets.ts';
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
    let found = store.findRoster(day, runId);
    if (!found) {
      const registryAgent = new Agent({ headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs });
      try {
        const fetched = await fetchRoster(o.registry, { dispatcher: registryAgent, putObject: (b) => store.putObject(b) }, rosterLimits);
        const { targets, entries } = selectTargets(fetched.bodies);
        const roster: Roster = {
          day,
          run_id: runId,
          fetched_at: at(),
          source: o.registry.slice(0, 4096),
          complete: fetched.complete,
          incomplete_reason: fetched.incompleteReason,
          pages: fetched.pages,
          counts: { pages: fetched.pages.length, entries, targets: targets.length, with_endpoint: targets.filter((t) => t.endpoint !== null).length },
          targets,
        };
        found = { file: store.writeRoster(roster), roster };
      } finally {
        await registryAgent.close();
      }
    }
    const { file: rosterFile, roster } = found;
    const rosterMs = Math.round(performance.now() - t0);
    const selected = limit === null ? roster.targets : roster.targets.slice(0, limit);
    const optOut = readOptOut(o.optout === undefined ? null : o.optout);

    // Retirement compares with the last finished full run whose roster was complete.
    const prevRun = [...runs].reverse().find((r) => r.status === 'finished' && !r.partial && r.roster_complete && r.roster_file !== null);
    const prev = prevRun?.roster_file ? { file: prevRun.roster_file, roster: store.readRoster(prevRun.roster_file) } : null;
    const retired = limit === null ? retiredTargets(prev?.roster ?? null, roster) : [];

    const contactable = (t: RosterTarget) => t.endpoint !== null && !isOptedOut(t, optOut);
    let eligible = selected.filter(contactable).length;
    if (!roster.complete && prev && limit === null) {
      // Targets today's cut-short roster could not list were still meant to be probed.
      const listed = new Set(roster.targets.map((t) => t.name));
      eligible += prev.roster.targets.filter((t) => !listed.has(t.name) && contactable(t)).length;
    }

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

    // Stage 3: probe. Targets are queued per host (one request in flight per host) and the hosts
    // share `concurrency` slots in FIFO order, so one big host cannot starve the others.
    const probeLimits: ProbeLimits = { ...DEFAULT_PROBE_LIMITS, ...o.probeLimits, timeoutMs: o.timeoutMs };
    const http = createHttpContext({ allowPrivate: o.allowPrivate ?? false, timeoutMs: o.timeoutMs });
    const byHost = new Map<string, RosterTarget[]>();
    for (const t of toProbe) {
      const host = new URL(t.endpoint!).host;
      const queue = byHost.get(host);
      if (queue) queue.push(t);
      else byHost.set(host, [t]);
    }
    const slots = semaphore(Math.max(1, o.concurrency));
    const probeStart = performance.now();
    try {
      await Promise.all(
        [...byHost.values()].map(async (queue) => {
          for (const t of queue) {
            await slots.acquire();
            try {
              let result: ProbeResult;
              try {
                result = await probe(http, t.endpoint!, probeLimits);
              } catch (error) {
                // A bug of ours must not cost the target its row.
                result = { ok: false, error: classify({ kind: 'thrown', step: 'initialize', error }), finalUrl: null, redirects: 0, protocolVersion: null, serverName: null, serverVersion: null, session: null, latencyMs: 0, body: null, bodyContentType: null };
              }
              const bodySha = result.body ? await store.putObject(result.body) : null;
              write(probeRow(ctx(), t, result, bodySha));
            } finally {
              slots.release();
            }
          }
        }),
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

function semaphore(n: number): { acquire(): Promise<void>; release(): void } {
  let free = n;
  const waiting: Array<() => void> = [];
  return {
    acquire() {
      if (free > 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
