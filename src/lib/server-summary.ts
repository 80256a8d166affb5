// serverSummary and headlineFigures: the headline figures (methodology v1, "Population figures";
// methodology v2, "Bridge and headline") from one small record per server, so a build can drop a
// server's full state (its fold, its views, its changes' bodies) as soon as its record exists and
// still publish every population figure exactly as if it had held every server at once.
//
// A summary keeps exactly what the population functions read of a server, nothing more:
//   - its contract intervals (kaplanMeier, halfLife; censorAtMigrations for the sensitivity series);
//   - its first-change interval (the server-level curve, everChangedShare);
//   - its changes' days and its versions' day spans (volatility, with or without a window);
//   - the changes that were protocol migrations, as (day, hash moved from) (censorAtMigrations).
// headlineFigures puts the summaries in target order (code units) before it concatenates them, so the
// figures do not depend on the order, or the number of groups, in which the summaries were made: the
// same inputs reach the same src/lib calls in the same order, and the results are equal bit for bit.
import { censorAtMigrations } from './series-timeline.ts';
import type { Interval } from './contract-intervals.ts';
import type { Change, Drift } from './detect-drift.ts';
import { everChangedShare, type EverChangedRow } from './ever-changed-share.ts';
import type { FirstChangeInterval } from './first-change-intervals.ts';
import { halfLife, type HalfLife } from './survival/half-life.ts';
import { kaplanMeier, type KMRow } from './survival/kaplan-meier.ts';
import { byCodeUnits } from './tool-map.ts';
import { volatility, type Volatility } from './volatility.ts';

export interface ServerSummary {
  target: string;
  /** Its contract intervals on the headline series, in time order (contractIntervals, or stitchedIntervals). */
  intervals: readonly Interval[];
  /** Its first-change interval (firstChangeOf of the intervals): one, or none when it never answered ok. */
  firstChange: readonly FirstChangeInterval[];
  /** The day of each of its changes, in order (what volatility counts). */
  changeDays: readonly string[];
  /** Each version's first_day and last_day, flat: [first, last, first, last, …] (what volatility's `answering` reads). */
  versionSpans: readonly string[];
  /** Its changes that were protocol migrations (methodology v2): the day and the hash it moved from. */
  migrations: readonly { day: string; from: string }[];
}

/** One frozen empty list for every empty field: most servers never answer or never change, and a summary is kept per server. */
const NONE: readonly never[] = Object.freeze([]);
const list = <T>(items: readonly T[]): readonly T[] => (items.length === 0 ? NONE : items);

/**
 * One server's summary from its drift (the headline's changes and versions), its intervals and first
 * change, and the changes that were protocol migrations (a subset of `drift.changes`).
 */
export function serverSummary(
  drift: Pick<Drift, 'target' | 'changes' | 'versions'>,
  intervals: readonly Interval[],
  firstChange: readonly FirstChangeInterval[],
  migrations: readonly Pick<Change, 'day' | 'before'>[] = [],
): ServerSummary {
  return {
    target: drift.target,
    intervals: list([...intervals]),
    firstChange: list([...firstChange]),
    changeDays: list(drift.changes.map((c) => c.day)),
    versionSpans: list(drift.versions.flatMap((v) => [v.first_day, v.last_day])),
    migrations: list(migrations.map((m) => ({ day: m.day, from: m.before.tools_sha256 }))),
  };
}

export interface HeadlineFigures {
  /** Every server's contract intervals, servers in code-unit order. */
  intervals: Interval[];
  km: KMRow[];
  halfLife: HalfLife | null;
  serverIntervals: FirstChangeInterval[];
  serverKm: KMRow[];
  serverHalfLife: HalfLife | null;
  everChanged: EverChangedRow[];
  volatility: Volatility;
  /** The sensitivity series without protocol migrations as events (stitched headline only), else null. */
  withoutMigrations: { migrations: number; intervals: Interval[]; km: KMRow[]; halfLife: HalfLife | null } | null;
}

/**
 * The population figures from every server's summary (any order, any grouping): kaplanMeier and
 * halfLife over the contract intervals and the first-change intervals, everChangedShare, volatility
 * (whole archive), and on a stitched headline the series censored at protocol migrations.
 * Throws when two summaries name the same target (a server counted twice would skew every figure).
 */
export function headlineFigures(summaries: readonly ServerSummary[], opts: { stitched: boolean }): HeadlineFigures {
  const sorted = [...summaries].sort((a, b) => byCodeUnits(a.target, b.target));
  for (let k = 1; k < sorted.length; k++) if (sorted[k]!.target === sorted[k - 1]!.target) throw new Error(`headlineFigures: ${JSON.stringify(sorted[k]!.target.slice(0, 200))} is summarised twice`);
  const intervals = sorted.flatMap((s) => s.intervals);
  const serverIntervals = sorted.flatMap((s) => s.firstChange);
  const km = curve(intervals);
  const serverKm = curve(serverIntervals);
  let withoutMigrations: HeadlineFigures['withoutMigrations'] = null;
  if (opts.stitched) {
    const migrations = sorted.flatMap((s) => s.migrations.map((m) => ({ target: s.target, day: m.day, before: { tools_sha256: m.from } })));
    const censored = censorAtMigrations(intervals, migrations);
    const sKm = curve(censored);
    withoutMigrations = { migrations: migrations.length, intervals: censored, km: sKm, halfLife: halfLife(sKm) };
  }
  return {
    intervals,
    km,
    halfLife: halfLife(km),
    serverIntervals,
    serverKm,
    serverHalfLife: halfLife(serverKm),
    everChanged: everChangedShare(serverIntervals),
    volatility: volatility(sorted.map((s) => ({ target: s.target, changes: s.changeDays.map((day) => ({ day })), versions: spans(s.versionSpans) }))),
    withoutMigrations,
  };
}

function spans(flat: readonly string[]): { first_day: string; last_day: string }[] {
  const out: { first_day: string; last_day: string }[] = [];
  for (let k = 0; k + 1 < flat.length; k += 2) out.push({ first_day: flat[k]!, last_day: flat[k + 1]! });
  return out;
}

function curve(intervals: readonly Pick<Interval, 'duration' | 'event'>[]): KMRow[] {
  return kaplanMeier(
    intervals.map((i) => i.duration),
    intervals.map((i) => i.event),
  );
}
