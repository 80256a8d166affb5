// The series this collector records, in the order one target's job probes them: the newer series
// first (v2, then v1: one request at a time per endpoint, so they run one after the other). Run rows
// are written in RUN_SERIES order (v1 first) whatever the order here.
//
// Retiring a series is one deletion here. When v1 is no longer recorded (after the bridge), delete
// `v1Series` from RECORDED_SERIES (and collector/series/v1.ts with it); its frozen reader stays:
// Store.readObservations and src/archive/observations.ts read observations/ for restatement and
// the site. A run asked for a series not listed here stops with a usage error before it writes
// anything (seriesFor), and no stage of a run touches a series it does not record (a test runs v2
// alone with a v1 whose every method throws).
import type { RunSeries } from '../../src/lib/index.ts';
import { RUN_SERIES } from '../../src/lib/index.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { RecordedSeries } from './series.ts';
import { v1Series } from './v1.ts';
import { v2Series } from './v2.ts';

export const RECORDED_SERIES: readonly RecordedSeries[] = [v2Series, v1Series];

/**
 * The recorded series for the ids a run records, in probe order (the registry's); an id no series
 * in `registry` has is a usage error.
 */
export function seriesFor(ids: readonly RunSeries[], registry: readonly RecordedSeries[] = RECORDED_SERIES): RecordedSeries[] {
  for (const id of ids) {
    if (!registry.some((s) => s.id === id)) throw new CliError(`series ${id} is not recorded by this collector (it is read, not written); pass --methodology ${registry.map((s) => s.id).join(' or ')}`, EXIT.usage);
  }
  return registry.filter((s) => ids.includes(s.id));
}

/** The order run rows are written in: RUN_SERIES (v1 before v2), as runs.jsonl has always held them. */
export function runRowOrder<T extends { series: { id: RunSeries } }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => RUN_SERIES.indexOf(a.series.id) - RUN_SERIES.indexOf(b.series.id));
}
