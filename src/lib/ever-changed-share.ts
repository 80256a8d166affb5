// everChangedShare: the share of servers that have changed their contract at least once, by days
// observed, beside the straight line a constant rate would give (methodology v1, "Population figures"). The drift census that inspired this project saw 21 servers move in the first 36 hours and
// only 3 more in the next 36: a rate read off the first window and projected forward overstates change.
//
// The published share is 1 − S(d) of the server-level Kaplan–Meier curve (firstChangeIntervals →
// kaplanMeier, same conventions and band), because servers join the archive on different days: a
// plain "changed / all servers" counts late joiners as unchanged when they simply have not been
// watched long enough (biased down), and "changed / servers whose outcome is known" keeps early
// changers while dropping the unchanged who left early (biased up). Kaplan–Meier uses every server for
// as long as it was watched. The complete-case share (only servers followed for at least d days) is
// given beside it with its denominator, for comparison: unbiased under independent follow-up but
// noisier, and not monotone, because each d has a different denominator.
//
// The linear line is the reader's shortcut: the share changed by the end of the first `baseline` days
// (default 1, the smallest step a daily cadence resolves: the census's "first 36 hours"), as a rate per
// day, times d. It is capped at 1.
import { bisectLeft, bisectRight } from 'd3-array';
import type { FirstChangeInterval } from './first-change-intervals.ts';
import { kaplanMeier } from './survival/kaplan-meier.ts';

export interface EverChangedRow {
  /** Days observed, 0..the longest first-change duration. */
  days: number;
  /** 1 − S(days) of the server-level Kaplan–Meier curve: the estimated share changed within `days` days. */
  share: number;
  /** Its 95% band: 1 − the upper and 1 − the lower band of S (plain Greenwood band, as kaplanMeier). */
  lower: number;
  upper: number;
  /** Servers still unchanged and still watched at the start of day `days` (Kaplan–Meier's at-risk count). */
  at_risk: number;
  /** Complete case: servers followed (first to last ok observation) for at least `days` days… */
  observed: number;
  /** …of which changed within their first `days` days… */
  changed: number;
  /** …as a share (changed / observed). */
  observed_share: number;
  /** The constant-rate line: share(baseline) / baseline × days, capped at 1; null before the baseline day is observed. */
  linear: number | null;
}

export type FirstChangeRecord = Pick<FirstChangeInterval, 'duration' | 'event' | 'observed_days'>;

/** One row per day observed, 0..D (D the longest first-change duration); [] with no servers. */
export function everChangedShare(intervals: readonly FirstChangeRecord[], opts: { baseline?: number } = {}): EverChangedRow[] {
  const baseline = opts.baseline ?? 1;
  if (!Number.isInteger(baseline) || baseline < 1) throw new RangeError('everChangedShare baseline must be a whole number of days ≥ 1');
  for (const i of intervals) {
    if (!Number.isInteger(i.duration) || i.duration < 0) throw new RangeError('everChangedShare durations must be whole days ≥ 0');
    if (!Number.isInteger(i.observed_days) || i.observed_days < i.duration) throw new RangeError('everChangedShare observed_days must be whole days ≥ duration');
  }
  const km = kaplanMeier(
    intervals.map((i) => i.duration),
    intervals.map((i) => i.event),
  );
  if (km.length === 0) return [];
  const times = km.map((r) => r.time);
  const sorted = (xs: number[]) => Float64Array.from(xs).sort();
  const durations = sorted(intervals.map((i) => i.duration));
  const followed = sorted(intervals.map((i) => i.observed_days));
  const changedAt = sorted(intervals.filter((i) => i.event).map((i) => i.duration));
  const changedThenLeft = sorted(intervals.filter((i) => i.event).map((i) => i.observed_days));
  const n = intervals.length;
  const last = times[times.length - 1]!;
  const rows: EverChangedRow[] = [];
  for (let d = 0; d <= last; d++) {
    // S is a step function: its value at d is the last row at or before d (1 before the first row).
    const row = km[bisectRight(times, d) - 1];
    const observed = n - bisectLeft(followed, d);
    // Changed by d and still followed at d: changed at ≤ d minus those whose follow-up ended before d.
    const changed = bisectRight(changedAt, d) - bisectLeft(changedThenLeft, d);
    rows.push({
      days: d,
      share: 1 - (row?.survival ?? 1),
      lower: 1 - (row?.upper ?? 1),
      upper: 1 - (row?.lower ?? 1),
      at_risk: n - bisectLeft(durations, d),
      observed,
      changed,
      // observed ≥ 1 on every row: the longest duration is followed at least that long.
      observed_share: changed / observed,
      linear: null,
    });
  }
  const base = rows[baseline];
  if (base !== undefined) for (const r of rows) r.linear = Math.min(1, (base.share / baseline) * r.days);
  return rows;
}
