// Data contract: one row per collector run and series (data/runs.jsonl). Methodology v1, "Runs"; a run
// that records methodology v2 too writes a second row, `RunV2`, with the same run_id (methodology v2,
// "Cadence"). Readers take the union and filter by series (methodology_version).
import { z } from 'zod';
import { ERAS } from '../eras.ts';
import { V2_STATUSES } from '../v2-status.ts';
import { ERROR_CLASSES, METHODOLOGY_VERSION, NOT_ATTEMPTED_REASONS, OUTCOMES } from './observation.ts';
import { METHODOLOGY_VERSION_V2, OUTCOMES_V2, V2_REQUEST_BUDGET } from './observation-v2.ts';

/** Below this share of eligible targets attempted, a run is published with a "degraded" badge. */
export const DEGRADED_BELOW = 0.9;

const count = z.number().int().nonnegative();
const counts = <T extends readonly [string, ...string[]]>(keys: T) => z.object(Object.fromEntries(keys.map((k) => [k, count])) as Record<T[number], z.ZodNumber>).strict();

/**
 * Outcome counts. not_attempted came after v1 shipped: the collector always writes it; older rows lack
 * it, which reads as 0 (optional rather than defaulted, so a run row parses back to what was written).
 */
const OutcomeCounts = counts(OUTCOMES).extend({ not_attempted: count.optional() });

/** One of the slowest hosts of a run (collector/schedule.ts). Host names are registry-derived text, clipped. */
export const HostScheduling = z
  .object({
    host: z.string().max(256),
    targets: count,
    /** Per-host limit the rule gave (before any halving on 429/503). */
    limit: z.number().int().positive(),
    max_in_flight: count,
    /** Times the host answered 429/503 and was paused (each halved its limit, to at least 1). */
    backoffs: count,
    /** First probe started to last probe finished (0 when nothing was probed). */
    wall_ms: count,
    not_attempted: count,
  })
  .strict();
export type HostScheduling = z.infer<typeof HostScheduling>;

/**
 * How the probe stage was scheduled (changelog "Deviation from v1: scheduling"). Figures are those of
 * the process that finished the run (a resumed run's earlier attempt is not in them), except
 * not_attempted, which counts every row of the run.
 */
export const RunScheduling = z
  .object({
    /** Schedule used: `lpt` (per-host limits, longest queue first) or `host-queues` (one probe per host, FIFO). */
    scheduler: z.string().min(1).max(64),
    /** Distinct endpoint hosts (URL host, port included) among the run's targets with an endpoint. */
    hosts: count,
    max_targets_per_host: count,
    /**
     * The rule's parameters: per host at most clamp(ceil(targets / divisor), 1, cap) probes in flight, the
     * cap `max`, or ceil(targets / span) for a host larger than max × span (span absent: the cap alone; runs
     * written before 2026-12-07 have none).
     */
    per_host_limit: z.object({ divisor: z.number().int().positive(), max: z.number().int().positive(), span: z.number().int().positive().optional() }).strict(),
    global_concurrency: z.number().int().positive(),
    /** Highest number of probes in flight reached on any one host. */
    max_in_flight_per_host: count,
    /** K: consecutive timeouts or connection failures after which a host is unresponsive (0: rule off). */
    unresponsive_after: count,
    /** When the run stops starting probes (observed_at's clock); null without a deadline. */
    deadline_at: z.string().datetime({ offset: true }).nullable(),
    /** Per reason; shard_lost came with sharded runs: the collector always writes it, older rows lack it (reads as 0). */
    not_attempted: counts(NOT_ATTEMPTED_REASONS).extend({ shard_lost: count.optional() }),
    /** The hosts whose probing took longest, slowest first (at most 10). */
    slowest_hosts: z.array(HostScheduling).max(10),
  })
  .strict();
export type RunScheduling = z.infer<typeof RunScheduling>;

export const Run = z
  .object({
    run_id: z.string().min(1).max(64),
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    started_at: z.string().datetime({ offset: true }),
    finished_at: z.string().datetime({ offset: true }),
    registry: z.string().max(4096),
    /** File name under rosters/ written by this run, or null when no roster could be fetched. */
    roster_file: z.string().max(128).nullable(),
    roster_complete: z.boolean(),
    /** Distinct targets in today's roster (plus retired ones). */
    targets: z.number().int().nonnegative(),
    /** Targets that were meant to be contacted: in the roster, with an endpoint, not excluded. */
    eligible: z.number().int().nonnegative(),
    /** Targets actually contacted (ok + error rows); not_attempted rows are eligible but not attempts. */
    attempts: z.number().int().nonnegative(),
    /** attempts / eligible (1 when nothing was eligible and nothing was attempted: see degraded). */
    coverage: z.number().min(0).max(1),
    degraded: z.boolean(),
    /** True when --limit restricted the run; partial runs never feed published shares. */
    partial: z.boolean(),
    limit: z.number().int().positive().nullable(),
    outcomes: OutcomeCounts,
    error_classes: counts(ERROR_CLASSES),
    /** finished: rows written for every selected target. failed: the run could not do its job (e.g. zero attempts). */
    status: z.enum(['finished', 'failed']),
    message: z.string().max(1024).nullable(),
    prober_version: z.string().min(1).max(64),
    methodology_version: z.literal(METHODOLOGY_VERSION),
    /** Added after v1 shipped: the collector always writes it; older rows lack it (read: null). */
    scheduling: RunScheduling.nullable().optional(),
  })
  .strict();
export type Run = z.infer<typeof Run>;

/** Requests the v2 probe counted (a row's `requests`) over the run's probed rows (ok and error; from 2026-12-07 a row sharing another name's probe counts 0). */
export const RunRequests = z
  .object({
    total: count,
    /** The most any one endpoint got (never above the budget). */
    max: count.max(V2_REQUEST_BUDGET),
    /** total / probes made (probed rows not sharing another's probe), rounded to 3 decimals; 0 when nothing was probed. */
    mean: z.number().nonnegative().max(V2_REQUEST_BUDGET),
  })
  .strict();
export type RunRequests = z.infer<typeof RunRequests>;

/**
 * The v2 series' row of a run (methodology v2). The same run facts as v1's row (the roster, eligible,
 * attempts, coverage, degraded, partial, the scheduling block, which both series of a run share), its
 * own counts — outcomes, statuses, eras, v1 error classes of its error rows — and the requests it sent.
 */
export const RunV2 = z
  .object({
    run_id: z.string().min(1).max(64),
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    started_at: z.string().datetime({ offset: true }),
    finished_at: z.string().datetime({ offset: true }),
    registry: z.string().max(4096),
    roster_file: z.string().max(128).nullable(),
    roster_complete: z.boolean(),
    /** Rows of this series in the run (today's roster plus retired targets). */
    targets: count,
    eligible: count,
    /** ok + error rows of this series. */
    attempts: count,
    coverage: z.number().min(0).max(1),
    degraded: z.boolean(),
    partial: z.boolean(),
    limit: z.number().int().positive().nullable(),
    outcomes: counts(OUTCOMES_V2),
    /** Rows per v2 status (rows without one — no_endpoint, retired, not_attempted — are not counted). */
    statuses: counts(V2_STATUSES),
    /** Rows per era (`none` includes every row that was never probed). */
    eras: counts(ERAS),
    error_classes: counts(ERROR_CLASSES),
    requests: RunRequests,
    status: z.enum(['finished', 'failed']),
    message: z.string().max(1024).nullable(),
    prober_version: z.string().min(1).max(64),
    methodology_version: z.literal(METHODOLOGY_VERSION_V2),
    scheduling: RunScheduling.nullable(),
  })
  .strict();
export type RunV2 = z.infer<typeof RunV2>;

/** A line of runs.jsonl: a v1 row or a v2 row (methodology_version says which). */
export type AnyRun = Run | RunV2;
/** The series a run row belongs to. */
export type RunSeries = AnyRun['methodology_version'];
export const RUN_SERIES = [METHODOLOGY_VERSION, METHODOLOGY_VERSION_V2] as const satisfies readonly RunSeries[];

/** The schema of a runs.jsonl value: RunV2 when it says methodology_version 'v2', else Run (whose own check then speaks). */
export function runSchemaOf(value: unknown): typeof Run | typeof RunV2 {
  return typeof value === 'object' && value !== null && (value as { methodology_version?: unknown }).methodology_version === METHODOLOGY_VERSION_V2 ? RunV2 : Run;
}

export function isRunV1(r: AnyRun): r is Run {
  return r.methodology_version === METHODOLOGY_VERSION;
}

export function isRunV2(r: AnyRun): r is RunV2 {
  return r.methodology_version === METHODOLOGY_VERSION_V2;
}
