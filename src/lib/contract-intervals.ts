// contractIntervals: contract lifetimes of one target, the input of the survival curve
// (methodology v1, "Statistics, exactly" → lifetimes).
//
// Unit: whole days, the difference of the rows' UTC `day` fields. The run cadence is daily with a
// random start delay, so instants would add noisy fractions of a day that say nothing about servers.
// An interval starts at the first ok observation of a hash and ends at the first ok observation of a
// different hash (event), or at the last ok observation (censored — also when the target was retired:
// we saw it go away, not its contract change).
import { detectDrift, type DriftRow } from './detect-drift.ts';
import { daysBetween } from './observation-order.ts';

export interface Interval {
  target: string;
  tools_sha256: string;
  start_day: string;
  end_day: string;
  /** Whole days from start_day to end_day (0 when both fall on one day). */
  duration: number;
  /** true: ended by a different hash; false: censored at the last ok observation. */
  event: boolean;
  /** Censored because the target left the registry (a `retired` row follows the last ok one). */
  retired: boolean;
}

/** One interval per contiguous occupancy of a hash, in time order; [] when the target never answered ok. */
export function contractIntervals(rows: readonly DriftRow[]): Interval[] {
  if (rows.length === 0) return [];
  const drift = detectDrift(rows);
  const last = drift.versions[drift.versions.length - 1];
  const retired = last !== undefined && rows.some((r) => r.outcome === 'retired' && Date.parse(r.observed_at) >= Date.parse(last.last_seen));
  return drift.versions.map((v, i) => {
    const next = drift.versions[i + 1];
    const end_day = next ? next.first_day : v.last_day;
    return {
      target: drift.target,
      tools_sha256: v.tools_sha256,
      start_day: v.first_day,
      end_day,
      duration: daysBetween(v.first_day, end_day),
      event: next !== undefined,
      retired: next === undefined && retired,
    };
  });
}
