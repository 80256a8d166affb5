// Pass 4 of the loader: the few full rows pages show whole (each target's latest, its last with an
// endpoint, its last with a registry page, and the rows of the latest full run), read back from their
// day files by line number (src/archive rowsAtLines) — through the build cache, so a rebuild reads back
// only days it never asked before. On a stitched headline a day from the seam on is a v2 day: its rows
// are ObservationV2 (v1's fields but next_cursor, plus v2's), which pages show as they show v1 rows (a retired server's last rows sit in an old day; asking the same of
// it every day would re-read that day every day).
import type { DayFiles } from '../archive/day-files.ts';
import { rowsAtLines } from '../archive/observations.ts';
import type { Observation, RunSeries } from '../lib/index.ts';
import type { BuildCache } from './cache.ts';

export async function cachedRowsAt(
  cache: BuildCache,
  archive: string,
  day: DayFiles,
  key: string,
  lines: ReadonlySet<number>,
  alsoRun?: string,
  series: RunSeries = 'v1',
  /** One shard's entry (shards.ts: "<k>of<S>"): a shard asks for, and holds, its own targets' rows only. */
  part: string | null = null,
): Promise<{ byLine: Map<number, Observation>; ofRun: Observation[] }> {
  type Entry = { lines: [number, Observation][]; runs: [string, Observation[]][] };
  const file = part === null ? `${key}.rows` : `${key}.rows.${part}`;
  const hit = cache.readChanges<Entry>(file);
  const byLine = new Map(hit?.lines ?? []);
  const runs = new Map(hit?.runs ?? []);
  const missing = [...lines].filter((l) => !byLine.has(l));
  if (missing.length === 0 && (alsoRun === undefined || runs.has(alsoRun))) return { byLine, ofRun: alsoRun === undefined ? [] : runs.get(alsoRun)! };
  await cache.bring(archive, day);
  const got = await rowsAtLines(archive, day, new Set([...lines, ...byLine.keys()]), alsoRun, series);
  for (const [l, r] of got.byLine) byLine.set(l, r);
  if (alsoRun !== undefined) runs.set(alsoRun, got.ofRun);
  // Keep only the latest run's rows (the one errorClassShares needs), not every run ever asked for.
  cache.writeChanges(file, { lines: [...byLine], runs: alsoRun === undefined ? [...runs].slice(-1) : [[alsoRun, got.ofRun]] } satisfies Entry);
  return { byLine, ofRun: alsoRun === undefined ? [] : got.ofRun };
}
