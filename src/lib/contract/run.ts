// Data contract: one row per collector run (data/runs.jsonl). Methodology v1, "Runs".
import { z } from 'zod';
import { ERROR_CLASSES, METHODOLOGY_VERSION, OUTCOMES } from './observation.ts';

/** Below this share of eligible targets attempted, a run is published with a "degraded" badge. */
export const DEGRADED_BELOW = 0.9;

const counts = <T extends readonly [string, ...string[]]>(keys: T) =>
  z.object(Object.fromEntries(keys.map((k) => [k, z.number().int().nonnegative()])) as Record<T[number], z.ZodNumber>).strict();

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
    /** Targets actually contacted (ok + error rows). */
    attempts: z.number().int().nonnegative(),
    /** attempts / eligible (1 when nothing was eligible and nothing was attempted: see degraded). */
    coverage: z.number().min(0).max(1),
    degraded: z.boolean(),
    /** True when --limit restricted the run; partial runs never feed published shares. */
    partial: z.boolean(),
    limit: z.number().int().positive().nullable(),
    outcomes: counts(OUTCOMES),
    error_classes: counts(ERROR_CLASSES),
    /** finished: rows written for every selected target. failed: the run could not do its job (e.g. zero attempts). */
    status: z.enum(['finished', 'failed']),
    message: z.string().max(1024).nullable(),
    prober_version: z.string().min(1).max(64),
    methodology_version: z.literal(METHODOLOGY_VERSION),
  })
  .strict();
export type Run = z.infer<typeof Run>;
