// The site's recent months as the bundles read them, without loading the archive: the months, each
// day's files, content key, rows and problems in both series, and the roster files — what
// src/outputs/bundles.ts reads of an Archive to write month bundles. The bundles step
// (src/site/bundles-step.ts) writes them in a job of its own with this view: no fold, no build cache.
//
// Each day's key, rows and problems come from the code the loader uses (BuildCache.source under the
// contract's fingerprint, buildDaySummary for v1, the v2 day summary for v2), one day at a time, so a
// month's seal key here is the site build's: the month this step wrote is one the build takes from
// the record. A day kept only in the object store is fetched, read and removed again.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { SERIES_FOLDER } from '../archive/layout.ts';
import { isLocal, listDaysWithStored, rosterFilesWithStored } from '../archive/stored-files.ts';
import type { DayFiles } from '../archive/day-files.ts';
import { BuildCache } from './cache.ts';
import { buildDaySummary } from './day-summary.ts';
import { summariseDay } from './v2-summary.ts';
import type { Archive, DayInfo } from './views.ts';
import type { V2DayInfo } from './v2-summary.ts';

export type MonthView = Pick<Archive, 'dir' | 'months' | 'dayFiles' | 'rosterFiles'> & { v2: { dayFiles: V2DayInfo[] } };

/** The last `months` months of v1 days (as bundledArchive keeps them) and of v2 days, with their days. */
export async function monthView(dir: string, opts: { sourceRoot: string; months: number }): Promise<MonthView> {
  const cache = new BuildCache({ dir: null, sourceRoot: opts.sourceRoot });
  const stored = cache.storedIndex(dir);
  const lastMonths = (days: readonly DayFiles[]) => new Set([...new Set(days.map((d) => d.day.slice(0, 7)))].sort().slice(-opts.months));
  // A day read only for its counts: fetched if it is only in the store, then removed again.
  const counted = async <T>(day: DayFiles, read: () => Promise<T>): Promise<T> => {
    const fetched = day.files.filter((f) => !isLocal(dir, f));
    await cache.bring(dir, day);
    try {
      return await read();
    } finally {
      for (const f of fetched) rmSync(path.join(dir, f), { force: true });
    }
  };
  const v1Days = listDaysWithStored(dir, SERIES_FOLDER.v1, stored);
  const v1Months = lastMonths(v1Days);
  const dayFiles: DayInfo[] = [];
  for (const day of v1Days.filter((d) => v1Months.has(d.day.slice(0, 7)))) {
    const src = await cache.source(dir, day);
    const s = await counted(day, () => buildDaySummary(dir, day, [], 'v1'));
    dayFiles.push({ day: day.day, files: day.files, rows: s.n, problems: s.problems.length, key: src.key });
  }
  const v2Days = listDaysWithStored(dir, SERIES_FOLDER.v2, stored);
  const v2MonthSet = lastMonths(v2Days);
  const v2: V2DayInfo[] = [];
  for (const day of v2Days.filter((d) => v2MonthSet.has(d.day.slice(0, 7)))) {
    // As readV2Summary keys a v2 day (the source's default series).
    const src = await cache.source(dir, day);
    const s = await counted(day, () => summariseDay(dir, day));
    v2.push({ day: day.day, files: day.files, rows: s.rows, problems: s.problems, key: src.key });
  }
  const months = [...v1Months].sort();
  const first = months[0] ?? '9999-99';
  return { dir, months, dayFiles, rosterFiles: rosterFilesWithStored(dir, stored).filter((f) => f.slice(0, 7) >= first), v2: { dayFiles: v2 } };
}
