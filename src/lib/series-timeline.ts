// One target's contract history across the change of methodology (methodology v2, "The bridge" and
// "Drift across eras"). Pure: the loader hands in rows, this module decides.
//
// Stitching. The headline timeline uses v1 rows for days before the seam (the bridge's first day) and
// v2 rows from it on. The two series can hash one server's contract differently for reasons that are
// ours, not the server's — v2 reads every page of tools/list where v1 read the first — so a hash that
// differs across the seam is not a change: it is a *series seam*. The v1 interval is censored at its
// last ok day before the seam and a new interval starts with the v2 hash. The comparison that decides:
//   'bridge_run' — the first bridge run (day ≥ seam) in which both series answered ok for the target:
//                  seam iff their hashes differ (same server, same run, two probes);
//   'heads'      — no such run: the last v1 ok hash before the seam against the first v2 ok hash from
//                  it; seam iff they differ (we cannot tell a real change from a series difference,
//                  so it is never counted as an event).
//
// Protocol migrations. A change between two v2 ok rows whose era or negotiated protocol version differ
// is flagged `protocol_migration`. In v2 it counts as a survival event (a client pinned to the old
// contract must re-pin whatever the cause); the sensitivity series `v2-without-migrations` censors the
// interval at it instead (censorAtMigrations).
import type { ObservationV2 } from './contract/observation-v2.ts';
import { contractIntervals, type Interval } from './contract-intervals.ts';
import { detectDrift, type Change, type DriftRow } from './detect-drift.ts';
import { inTimeOrder } from './observation-order.ts';

export interface SeriesSeam {
  target: string;
  /** The seam day (the bridge's first day). */
  day: string;
  basis: 'bridge_run' | 'heads';
  /** The v1 hash the comparison used, and the v2 one. */
  v1_tools_sha256: string;
  v2_tools_sha256: string;
}

export interface StitchedHistory {
  target: string;
  seamDay: string;
  /** v1 rows of days before the seam. */
  before: DriftRow[];
  /** v2 rows of days from the seam on. */
  after: DriftRow[];
  /** The series seam, or null when the hashes agree across it (or one side never answered ok). */
  seam: SeriesSeam | null;
}

const ok = (r: DriftRow): r is DriftRow & { tools_sha256: string; body_sha256: string } => r.outcome === 'ok' && r.tools_sha256 !== null && r.body_sha256 !== null;

/**
 * One target's stitched history: v1 rows before `seamDay`, v2 rows from it on, and the seam if the
 * two series' hashes disagree across it (see the header). Rows of both series for all days may be
 * given; v1 rows from the seam on are read only to decide the seam.
 */
export function stitchSeries(v1: readonly DriftRow[], v2: readonly DriftRow[], seamDay: string): StitchedHistory {
  const target = v1[0]?.target ?? v2[0]?.target;
  if (target === undefined) throw new RangeError('stitchSeries needs at least one row');
  const v1Sorted = inTimeOrder(v1, 'stitchSeries');
  const v2Sorted = inTimeOrder(v2, 'stitchSeries');
  if (v1Sorted.length > 0 && v2Sorted.length > 0 && v1Sorted[0]!.target !== v2Sorted[0]!.target) throw new RangeError('stitchSeries takes one target’s rows, got more than one target');
  const before = v1Sorted.filter((r) => r.day < seamDay);
  const after = v2Sorted.filter((r) => r.day >= seamDay);
  let seam: SeriesSeam | null = null;
  const v1OkByRun = new Map(v1Sorted.filter((r) => r.day >= seamDay && ok(r)).map((r) => [r.run_id, r]));
  const bridgePair = after.filter(ok).find((r) => v1OkByRun.has(r.run_id));
  if (bridgePair !== undefined) {
    const v1Row = v1OkByRun.get(bridgePair.run_id)!;
    if (v1Row.tools_sha256 !== bridgePair.tools_sha256) seam = { target, day: seamDay, basis: 'bridge_run', v1_tools_sha256: v1Row.tools_sha256!, v2_tools_sha256: bridgePair.tools_sha256! };
  } else {
    const v1Head = before.filter(ok).at(-1);
    const v2First = after.find(ok);
    if (v1Head && v2First && v1Head.tools_sha256 !== v2First.tools_sha256) seam = { target, day: seamDay, basis: 'heads', v1_tools_sha256: v1Head.tools_sha256!, v2_tools_sha256: v2First.tools_sha256! };
  }
  return { target, seamDay, before, after, seam };
}

/** Contract lifetimes of a stitched history: across a seam the v1 interval is censored and a new one starts. */
export function stitchedIntervals(h: StitchedHistory): Interval[] {
  if (h.seam === null) return contractIntervals([...h.before, ...h.after]);
  return [...contractIntervals(h.before), ...contractIntervals(h.after)];
}

/** Changes of a stitched history, indexed in order; none across a seam. */
export function stitchedChanges(h: StitchedHistory): Change[] {
  const changes =
    h.seam === null
      ? [...h.before, ...h.after].length === 0
        ? []
        : detectDrift([...h.before, ...h.after]).changes
      : [...(h.before.length ? detectDrift(h.before).changes : []), ...(h.after.length ? detectDrift(h.after).changes : [])];
  return changes.map((c, index) => ({ ...c, index }));
}

/** What protocolMigration reads of a v2 row. */
export type MigrationRow = Pick<ObservationV2, 'run_id' | 'target' | 'outcome' | 'era' | 'protocol_version' | 'methodology_version'>;

/**
 * Whether a change is a protocol migration: its before and after rows are both v2 ok rows (found by
 * run_id among `v2Rows` of the change's target) and their era or negotiated protocol version differ.
 * A change whose before row is a v1 row is never one (v1 spoke one revision; the seam is ours).
 */
export function protocolMigration(change: Pick<Change, 'target' | 'before' | 'after'>, v2Rows: readonly MigrationRow[]): boolean {
  const find = (run_id: string) => v2Rows.find((r) => r.run_id === run_id && r.target === change.target && r.outcome === 'ok');
  const b = find(change.before.run_id);
  const a = find(change.after.run_id);
  if (!b || !a) return false;
  return b.era !== a.era || b.protocol_version !== a.protocol_version;
}

/**
 * The sensitivity series `v2-without-migrations`: the same intervals, with every interval that a
 * protocol migration ended censored instead (event → false). An interval is ended by a change when the
 * change leaves its hash on its end day.
 */
export function censorAtMigrations(intervals: readonly Interval[], migrations: readonly (Pick<Change, 'target' | 'day'> & { before: Pick<Change['before'], 'tools_sha256'> })[]): Interval[] {
  const key = (target: string, day: string, hash: string) => JSON.stringify([target, day, hash]);
  const ended = new Set(migrations.map((m) => key(m.target, m.day, m.before.tools_sha256)));
  return intervals.map((i) => (i.event && ended.has(key(i.target, i.end_day, i.tools_sha256)) ? { ...i, event: false } : i));
}
