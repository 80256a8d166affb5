// One series' rows of a run in one Store: those an earlier attempt wrote (a resumed run, a re-run
// shard), those written since, and which targets already have one. Every stage of a run (plan, probe a
// shard, seal) writes through `rowWriter`, so no target ever gets a second row in a series.
import type { Store } from '../store.ts';
import type { RecordedSeries, SeriesRow } from './series.ts';

export interface Tracked {
  series: RecordedSeries;
  earlier: SeriesRow[];
  rows: SeriesRow[];
  done: Set<string>;
}

/** What a stage tells the caller about rows (progress): `owe` rows to come, then each one `wrote`. */
export interface RowSink {
  /** Rows an earlier attempt wrote (a resumed run), told once. */
  resumed?(rows: readonly SeriesRow[]): void;
  owe(n: number): void;
  wrote(row: SeriesRow): void;
}

export const NO_SINK: RowSink = { owe: () => {}, wrote: () => {} };

/** Each series' rows of run `runId` in `store`'s open day file. */
export function track(store: Store, series: readonly RecordedSeries[], day: string, runId: string): Tracked[] {
  return series.map((s) => {
    const earlier = s.read(store, day).filter((r) => r.run_id === runId);
    return { series: s, earlier, rows: [...earlier], done: new Set(earlier.map((r) => r.target)) };
  });
}

/** Appends a row to its series' day file and notes it. */
export function rowWriter(store: Store, sink: RowSink): (x: Tracked, row: SeriesRow) => void {
  return (x, row) => {
    x.series.append(store, row);
    x.rows.push(row);
    x.done.add(row.target);
    sink.wrote(row);
  };
}

/** The series still owing a row for a target. */
export function owing(tracked: readonly Tracked[], name: string): Tracked[] {
  return tracked.filter((x) => !x.done.has(name));
}

/** observed_at base: the run's clock, or just after the last row an earlier attempt wrote (rows keep their order). */
export function clockBase(clockMs: number, tracked: readonly Tracked[]): number {
  let base = clockMs;
  for (const r of tracked.flatMap((x) => x.earlier)) base = Math.max(base, Date.parse(r.observed_at) + 1);
  return base;
}

