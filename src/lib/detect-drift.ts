// detectDrift: one target's contract history (methodology v1, "Statistics, exactly" → Drift).
// A target drifted iff its tools_sha256 differs from the last *successful* observation; failures,
// no_endpoint, retired and excluded rows never move the head.
import type { Observation } from './contract/observation.ts';
import { inTimeOrder } from './observation-order.ts';

export interface ContractRef {
  tools_sha256: string;
  body_sha256: string;
  observed_at: string;
  day: string;
  run_id: string;
}

/** One contiguous occupancy of a hash: a revert to an earlier hash opens a new version. */
export interface ContractVersion {
  tools_sha256: string;
  /** Raw body of the first observation of this occupancy (later bodies may differ in order only). */
  body_sha256: string;
  first_seen: string;
  last_seen: string;
  first_day: string;
  last_day: string;
  /** ok observations in this occupancy. */
  observations: number;
}

export interface Change {
  target: string;
  /** 0-based position among this target's changes. */
  index: number;
  day: string;
  observed_at: string;
  run_id: string;
  /** The last ok observation before the change (the head it moved from). */
  before: ContractRef;
  /** The first ok observation of the new hash. */
  after: ContractRef;
  /** The new hash was seen earlier for this target (a hash returning to an earlier one). */
  revert: boolean;
}

export interface Drift {
  target: string;
  /** The latest ok observation, or null when the target never answered. */
  head: ContractRef | null;
  versions: ContractVersion[];
  changes: Change[];
  /** Changed at least twice over the rows given (REPEAT_MOVER_CHANGES). */
  repeatMover: boolean;
}

/**
 * The fields of a row that drift, versions and lifetimes read: a full Observation is one, and so is
 * the lean row the site's loader keeps per target (ok rows and retired rows only, no probe details).
 */
export type DriftRow = Pick<Observation, 'target' | 'outcome' | 'observed_at' | 'day' | 'run_id' | 'tools_sha256' | 'body_sha256'>;

/** A repeat mover changed at least this many times; the same threshold as volatility's volatile subset. */
export const REPEAT_MOVER_CHANGES = 2;

/** The drift history of ONE target's rows (any order; sorted by observed_at, then run_id). Throws on no rows or mixed targets. */
export function detectDrift(rows: readonly DriftRow[]): Drift {
  if (rows.length === 0) throw new RangeError('detectDrift needs at least one row');
  const sorted = inTimeOrder(rows, 'detectDrift');
  const drift: Drift = { target: sorted[0]!.target, head: null, versions: [], changes: [], repeatMover: false };
  const seen = new Set<string>();
  for (const row of sorted) {
    if (row.outcome !== 'ok' || row.tools_sha256 === null || row.body_sha256 === null) continue;
    const ref: ContractRef = {
      tools_sha256: row.tools_sha256,
      body_sha256: row.body_sha256,
      observed_at: row.observed_at,
      day: row.day,
      run_id: row.run_id,
    };
    const head = drift.head;
    if (head !== null && head.tools_sha256 === ref.tools_sha256) {
      const current = drift.versions[drift.versions.length - 1]!;
      current.last_seen = ref.observed_at;
      current.last_day = ref.day;
      current.observations += 1;
    } else {
      if (head !== null) {
        drift.changes.push({
          target: drift.target,
          index: drift.changes.length,
          day: ref.day,
          observed_at: ref.observed_at,
          run_id: ref.run_id,
          before: head,
          after: ref,
          revert: seen.has(ref.tools_sha256),
        });
      }
      drift.versions.push({
        tools_sha256: ref.tools_sha256,
        body_sha256: ref.body_sha256,
        first_seen: ref.observed_at,
        last_seen: ref.observed_at,
        first_day: ref.day,
        last_day: ref.day,
        observations: 1,
      });
      seen.add(ref.tools_sha256);
    }
    drift.head = ref;
  }
  drift.repeatMover = drift.changes.length >= REPEAT_MOVER_CHANGES;
  return drift;
}
