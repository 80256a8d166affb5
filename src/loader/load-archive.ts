// The site's loader (methodology v1, "Rows", "Runs", "Roster"): loadArchive() reads an archive
// through src/archive/ and gives one derived, cached state per build; pages call it (through
// src/site/site-archive.ts), components get props. Memory stays bounded by targets, not by rows:
//   1. every day file is read once and reduced to a columnar summary (day-summary.ts), cached between
//      builds by the content hash of the day's files (cache.ts) — a daily rebuild validates one new
//      day, not a year; a first build summarises days in worker threads (workers.ts);
//   2. the day summaries are folded, in time order, into a compact state per target (fold.ts): its ok rows as
//      runs of rows that agree on what drift reads, so a target costs what it changed, not its days; with
//      checkpoints (ReadOptions.checkpoints, checkpoint.ts) from the fold a build kept after the last closed
//      day, so a daily build folds the newest days only and the cache keeps no summary of older ones;
//   3. each target and then the population are derived through src/lib (derive.ts, changes.ts);
//   4. the few full rows pages show are read back from their day files by line number (rows.ts).
// The loader reads no environment and no working directory: the caller names the archive, the
// cache and the source root.
//
// The headline series (methodology v2, "Bridge and headline"), read off runs.jsonl, never the clock:
// v1 until the bridge is complete (src/lib bridgeComplete), then the stitched timeline — v1 days
// before the seam (the bridge's first day), v2 days (observations-v2/) from it on — folded into the
// same per-target state, so every headline figure (survival, half-life, drift, server pages, tiles)
// moves together; v1 ok rows from the seam on are kept aside only to decide each target's series seam
// (derive.ts, src/lib stitchSeries). Before the bridge completes no v2 day is read at all.
import { SERIES_FOLDER } from '../archive/layout.ts';
import { listDaysWithStored, rosterFilesWithStored } from '../archive/stored-files.ts';
import { readManifests } from '../archive/restatements.ts';
import { readChain } from '../archive/chain.ts';
import { readEditions } from '../archive/editions.ts';
import { readRuns, runsOf } from '../archive/runs.ts';
import { readValidations } from '../archive/validations.ts';
import type { Problem } from '../archive/problems.ts';
import { BRIDGE_DAYS, bridgeDays, SERIES, type AnyRun, type RunSeries } from '../lib/index.ts';
import { BuildCache, type CacheOptions, type DaySource } from './cache.ts';
import { deriveArchive } from './derive.ts';
import type { DaySummary } from './day-summary.ts';
import { Checkpoints, type DaySeen } from './checkpoint.ts';
import { adoptExact, emptyFold, exactFold, foldBridgeV1, foldDay, type Fold } from './fold.ts';
import { shardCount, shardMember, targetsOf } from './shards.ts';
import { prebuildDaySummaries, type Prebuild } from './workers.ts';
import { readV2Summary } from './v2-summary.ts';
import { NO_TIMINGS, type Archive, type DayInfo, type HeadlineView, type RawArchive, type RestatementView, type Timings } from './views.ts';

export { deriveArchive };
export type * from './views.ts';

export interface ReadOptions {
  /** The build cache (day summaries, derived changes, rows read back); absent or null: none, every day is read. */
  cache?: CacheOptions | null;
  /** Day-summary workers for a first build, and what they do beside the day summaries (with a cache only). */
  prebuild?: Omit<Prebuild, 'sourceRoot'>;
  timings?: Timings;
  /** The bridge's length in days (default BRIDGE_DAYS, the published archive's); only local worlds and demos set another. */
  bridgeDays?: number;
  /**
   * Keep every ok row in the fold (fold.ts OkRun.whole) instead of runs of equal rows: the reference
   * the runs are tested against (test/loader/fold-runs.test.ts); memory then grows with rows.
   */
  exact?: boolean;
  /**
   * Derive the targets in this many shards (shards.ts), holding one shard's full state at a time; 'auto':
   * as many as the archive's size asks (shardCount). Default 1: every target at once, `servers` and
   * `bySlug` held. With more than one, pages read `rows` and `serversIn(k)` / `server(slug)` instead.
   */
  shards?: number | 'auto';
  /**
   * Keep fold checkpoints in the cache (checkpoint.ts): a build folds only the days after the newest one
   * that matches its days, and the day summaries of the days it holds are deleted (with a cache only).
   */
  checkpoints?: boolean;
}

/** Which series the headline uses, from the archive's runs (the bridge rule of src/lib/bridge.ts). */
export function headlineOf(runs: readonly AnyRun[], bridgeLength: number = BRIDGE_DAYS): HeadlineView {
  const days = bridgeDays(runs);
  const complete = days.length >= bridgeLength;
  return { series: complete ? 'stitched' : 'v1', bridgeLength, bridgeDays: days.length, seamDay: complete ? days[0]! : null, since: complete ? days[bridgeLength - 1]! : null };
}

export async function readRawArchive(dir: string, opts: ReadOptions = {}): Promise<RawArchive> {
  const timings = opts.timings ?? NO_TIMINGS;
  timings.markSince('startup');
  const problems: Problem[] = [];
  const cache = new BuildCache(opts.cache ?? null);
  const t0 = performance.now();
  const read = readRuns(dir);
  problems.push(...read.problems);
  const headline = headlineOf(read.runs, opts.bridgeDays);
  // Days in the folder and days kept only in the object store (stored.jsonl): a cached summary needs no file.
  const stored = cache.storedIndex(dir);
  problems.push(...stored.problems);
  const days = listDaysWithStored(dir, SERIES_FOLDER.v1, stored);
  // The stitched headline reads the v2 days from the seam on; before the bridge completes, none.
  const v2Days = headline.seamDay === null ? [] : listDaysWithStored(dir, SERIES_FOLDER.v2, stored).filter((d) => d.day >= headline.seamDay!);
  const sources: DaySource[] = [];
  for (const day of days) sources.push(await cache.source(dir, day));
  const v2Sources: DaySource[] = [];
  for (const day of v2Days) v2Sources.push(await cache.source(dir, day, 'v2'));
  // v2 days that also have v1 rows (the bridge): their ok rows are kept whole for the stitch (fold.ts wholeDays).
  const v1DaySet = new Set(days.map((d) => d.day));
  const wholeDays = new Set(v2Days.map((d) => d.day).filter((d) => v1DaySet.has(d)));
  // One pass over the days in order: a v1 day before the seam folds into the headline; from the seam
  // on, the day's v2 file folds into it and the v1 file is kept aside for the seam (foldBridgeV1).
  const order: { src: DaySource; series: RunSeries }[] = [...sources.map((src) => ({ src, series: 'v1' as const })), ...v2Sources.map((src) => ({ src, series: 'v2' as const }))]
    .sort((a, b) => (a.src.day.day < b.src.day.day ? -1 : a.src.day.day > b.src.day.day ? 1 : a.series === 'v2' ? -1 : 1));
  // Per day of `order`, its index in foldDays (RowRef.d), or -1 for a v1 day kept aside for the seam.
  const foldIndex = order.map(({ src, series }): number => (headline.seamDay === null || series === 'v2' || src.day.day < headline.seamDay ? 0 : -1));
  for (let k = 0, n = 0; k < order.length; k++) if (foldIndex[k]! >= 0) foldIndex[k] = n++;
  const shardTotal = opts.shards === 'auto' ? shardCount(targetsOf(read.runs)) : Math.max(1, Math.floor(opts.shards ?? 1));
  const exact = opts.exact ?? false;
  // Fold checkpoints (checkpoint.ts): the fold after a prefix of these days, so only the days after it are read.
  const checkpoints = opts.cache && opts.checkpoints
    ? new Checkpoints(
        cache,
        { sourceRoot: opts.cache.sourceRoot, libPrint: cache.libPrint(), series: headline.series, seamDay: headline.seamDay, bridgeLength: headline.bridgeLength, shards: shardTotal, exact },
        order.map(({ src, series }) => ({ day: src.day.day, series, key: src.key, whole: series === 'v2' && wholeDays.has(src.day.day), closed: src.day.files.every((f) => f.endsWith('.gz')) })),
      )
    : null;
  const from = checkpoints?.find(0) ?? 0;
  let summaryWorkers = 0;
  if (opts.cache && opts.prebuild) {
    try {
      // Only the days after the checkpoint are read (a checkpoint refused below reads the rest in this thread).
      summaryWorkers = await prebuildDaySummaries(cache, dir, order.slice(from).map((o) => o.src), { ...opts.prebuild, sourceRoot: opts.cache.sourceRoot });
    } catch (error) {
      // Workers are an optimisation: without them every day is read in this thread below.
      process.stderr.write(`[archive] day-summary workers unavailable (${String(error).slice(0, 200)}); reading in one thread\n`);
    }
  }
  const plan: FoldPlan = { dir, cache, order, foldIndex, seamDay: headline.seamDay, wholeDays, exact, shards: shardTotal, checkpoints };
  const dayFiles: DayInfo[] = [];
  // The days the headline folds (RowRef.d indexes this list): v1's, or the stitched timeline.
  const foldDays: DayInfo[] = [];
  let rowCount = 0;
  const info = (src: DaySource, n: number, bad: number): DayInfo => ({ day: src.day.day, ...(src.series === 'v2' ? { series: 'v2' as const } : {}), files: src.day.files, rows: n, problems: bad, key: src.key });
  // The first shard's pass (the only one with one shard) also counts the days' rows and problems.
  const { fold, foldMs } = await foldShard(plan, 0, (k, summary) => {
    const { src, series } = order[k]!;
    if (foldIndex[k]! >= 0) foldDays.push(info(src, summary.n, summary.problems.length));
    problems.push(...summary.problems);
    if (series === 'v1') {
      rowCount += summary.n;
      dayFiles.push(info(src, summary.n, summary.problems.length));
    }
  });
  cache.save();
  timings.mark('load', performance.now() - t0 - foldMs, { days: days.length, rows: rowCount, cache_hits: cache.hits, cache_misses: cache.misses });
  timings.mark('fold', foldMs, { targets: fold.targets.size, disordered: fold.disordered.size, ...(shardTotal > 1 ? { shards: shardTotal } : {}), ...(checkpoints ? { checkpoint_days: checkpoints.restored.get(0) ?? 0 } : {}) });

  // `runs` are v1's (the runs bundle, coverage by run, editions); the headline's own runs (tiles, the
  // latest full run) are v2's once the headline is stitched (derive.ts).
  const byStart = (a: AnyRun, b: AnyRun) => Date.parse(a.started_at) - Date.parse(b.started_at);
  const runs = runsOf(read.runs, 'v1').sort(byStart);
  const headlineRuns = headline.series === 'v1' ? runs : runsOf(read.runs, 'v2').sort(byStart);
  const rosterFiles = rosterFilesWithStored(dir, stored);
  const { manifests, problems: manifestProblems } = readManifests(dir);
  problems.push(...manifestProblems);
  const restatements: RestatementView[] = manifests.map((m) => {
    const s = SERIES[m.series];
    return {
      series: m.series, title: s.title, summary: s.summary, firstDay: m.days[0] ?? null, lastDay: m.days.at(-1) ?? null, days: m.days.length,
      sourceRows: m.source_rows, okRows: m.ok_rows, unreadableRows: m.unreadable_rows, differingRows: m.differing_rows, original: m.original, restated: m.restated,
    };
  });
  const eds = readEditions(dir);
  problems.push(...eds.problems);
  const chain = readChain(dir);
  problems.push(...chain.problems);
  const editions = eds.editions.map((e) => e.edition);
  const chainView = { manifests: chain.manifests.length, head: chain.manifests.at(-1)?.manifest ?? null };
  return {
    dir, days: dayFiles.map((d) => d.day), dayFiles, foldDays, headline, headlineRuns, runs, fold, rowCount, rosterFiles, problems, restatements, editions, chain: chainView, cache, cacheStats: { hits: cache.hits, misses: cache.misses, summaryWorkers }, timings,
    shards: { count: shardTotal, fold: async (k) => (await foldShard(plan, k)).fold },
  };
}

/** What a shard's fold reads: the days in order, which of them the headline folds, and how. */
interface FoldPlan {
  dir: string;
  cache: BuildCache;
  order: readonly { src: DaySource; series: RunSeries }[];
  /** Per day of `order`: its index in foldDays (RowRef.d), or -1 for a v1 day of the bridge kept aside for the seam. */
  foldIndex: readonly number[];
  seamDay: string | null;
  wholeDays: ReadonlySet<string>;
  exact: boolean;
  shards: number;
  checkpoints: Checkpoints | null;
}

/**
 * Shard `k`'s fold: every day in order, only that shard's targets kept (shards.ts; with one shard,
 * every target). Targets whose rows were not in time order are folded again with every ok row kept
 * (fold.ts disordered). `seen` gets each day's summary of the first pass (its counts and problems).
 */
async function foldShard(plan: FoldPlan, k: number, seen?: (index: number, day: DaySeen) => void): Promise<{ fold: Fold; foldMs: number }> {
  const only = shardMember(k, plan.shards);
  // From the newest checkpoint of these days when there is one (checkpoint.ts), else from the start.
  const restored = plan.checkpoints?.restore(k, plan.wholeDays, only) ?? null;
  const { fold, tables } = restored ?? emptyFold({ seamDay: plan.seamDay, wholeDays: plan.wholeDays, exact: plan.exact, only });
  const start = restored?.at ?? 0;
  // What shard 0's days added (rows, problems): the checkpoint's days', then each day read here.
  const log: DaySeen[] | null = k === 0 ? (restored?.seen ?? []) : null;
  if (seen && restored?.seen) restored.seen.forEach((day, i) => seen(i, day));
  let foldMs = 0;
  // The first shard reads each day whole (its counts and problems); the others their part (cache.ts daySummaryPart).
  const read = (d: number) => (k === 0 || plan.shards === 1 ? plan.cache.daySummary(plan.dir, plan.order[d]!.src) : plan.cache.daySummaryPart(plan.dir, plan.order[d]!.src, k, plan.shards));
  for (let d = start; d < plan.order.length; d++) {
    const summary = await read(d);
    const f0 = performance.now();
    if (plan.foldIndex[d]! >= 0) foldDay(fold, tables, summary, plan.foldIndex[d]!);
    else foldBridgeV1(fold, tables, summary);
    foldMs += performance.now() - f0;
    log?.push({ n: summary.n, problems: summary.problems });
    seen?.(d, summary);
    if (d + 1 === plan.checkpoints?.cut) plan.checkpoints.save(k, d + 1, fold, log);
  }
  if (fold.disordered.size > 0) {
    const f0 = performance.now();
    // Every day again, for those targets only (days a checkpoint holds are read from their files when their summaries are gone).
    const exact = exactFold(fold, fold.disordered);
    for (let d = 0; d < plan.order.length; d++) if (plan.foldIndex[d]! >= 0) foldDay(exact, tables, await read(d), plan.foldIndex[d]!);
    adoptExact(fold, exact);
    foldMs += performance.now() - f0;
    process.stderr.write(`[archive] ${fold.disordered.size} target(s) with rows out of time order: folded again row by row\n`);
  }
  return { fold, foldMs };
}

const CACHE = Symbol.for('mcp-schema.archive');
type CacheHolder = { [CACHE]?: Map<string, Promise<Archive>> };

/**
 * The derived archive, built once per directory per process. The cache sits on globalThis because
 * the Astro pages and the post-build outputs load this module as two separate instances.
 */
export function loadArchive(dir: string, opts: ReadOptions = {}): Promise<Archive> {
  const holder = globalThis as CacheHolder;
  const cache = (holder[CACHE] ??= new Map());
  let pending = cache.get(dir);
  if (!pending) {
    pending = readRawArchive(dir, opts).then(async (raw) => {
      const a = await deriveArchive(raw);
      // The methodology v2 series (v2-summary.ts): beside v1's figures, never mixed into them.
      const t0 = performance.now();
      a.v2 = await readV2Summary(dir, readRuns(dir).runs, raw.cache);
      // A change on a server whose latest list is private-scope is marked so (a lookup by target: the
      // change views are shared by a.changes and each server's list).
      for (const c of a.changes) if (a.v2.cachingByTarget.get(c.target)?.cacheScope === 'private') c.privateScopeList = true;
      // The validation gate's records: whether the v2 figures passed a gate (/statistics/).
      a.validations = readValidations(dir);
      // Derived values later views keep across builds (families.ts), under the build cache.
      if (raw.cache.dir) a.memo = { read: (key) => raw.cache.readChanges(key), write: (key, value) => raw.cache.writeChanges(key, value), libPrint: raw.cache.libPrint() };
      raw.cache.save();
      raw.timings.mark('v2', performance.now() - t0, { v2_rows: a.v2.rows });
      return a;
    });
    cache.set(dir, pending);
  }
  return pending;
}

/** Drop the cache (tests that rewrite an archive directory between builds). */
export function forgetArchive(dir?: string): void {
  const cache = (globalThis as CacheHolder)[CACHE];
  if (dir === undefined) cache?.clear();
  else cache?.delete(dir);
}
