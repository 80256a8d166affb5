// The site's loader (methodology v1, "Rows", "Runs", "Roster"): loadArchive() reads an archive
// through src/archive/ and gives one derived, cached state per build; pages call it (through
// src/site/site-archive.ts), components get props. Memory stays bounded by targets, not by rows:
//   1. every day file is read once and reduced to a columnar digest (digest.ts), cached between
//      builds by the content hash of the day's files (cache.ts) — a daily rebuild validates one new
//      day, not a year; a first build digests days in worker threads (workers.ts);
//   2. the digests are folded, in time order, into a compact state per target (fold.ts);
//   3. each target and then the population are derived through src/lib (derive.ts, changes.ts);
//   4. the few full rows pages show are read back from their day files by line number (rows.ts).
// The loader reads no environment and no working directory: the caller names the archive, the
// cache and the source root.
import { listDays } from '../archive/day-files.ts';
import { listRosterFiles } from '../archive/rosters.ts';
import { readManifests } from '../archive/restatements.ts';
import { readChain } from '../archive/chain.ts';
import { readEditions } from '../archive/editions.ts';
import { readRuns, runsOf } from '../archive/runs.ts';
import type { Problem } from '../archive/problems.ts';
import { SERIES } from '../lib/index.ts';
import { DigestCache, type CacheOptions, type DigestSource } from './cache.ts';
import { deriveArchive } from './derive.ts';
import { emptyFold, foldDay } from './fold.ts';
import { prebuildDigests, type Prebuild } from './workers.ts';
import { readV2Summary } from './v2-summary.ts';
import { NO_TIMINGS, type Archive, type DayInfo, type RawArchive, type RestatementView, type Timings } from './views.ts';

export { deriveArchive };
export type * from './views.ts';

export interface ReadOptions {
  /** The build cache (digests, derived changes, rows read back); absent or null: none, every day is read. */
  cache?: CacheOptions | null;
  /** Digest workers for a first build, and what they do beside the digests (with a cache only). */
  prebuild?: Omit<Prebuild, 'sourceRoot'>;
  timings?: Timings;
}

export async function readRawArchive(dir: string, opts: ReadOptions = {}): Promise<RawArchive> {
  const timings = opts.timings ?? NO_TIMINGS;
  timings.markSince('startup');
  const problems: Problem[] = [];
  const cache = new DigestCache(opts.cache ?? null);
  const t0 = performance.now();
  const days = listDays(dir);
  const sources: DigestSource[] = [];
  for (const day of days) sources.push(await cache.source(dir, day));
  if (opts.cache && opts.prebuild) {
    try {
      await prebuildDigests(cache, dir, sources, { ...opts.prebuild, sourceRoot: opts.cache.sourceRoot });
    } catch (error) {
      // Workers are an optimisation: without them every day is read in this thread below.
      process.stderr.write(`[archive] digest workers unavailable (${String(error).slice(0, 200)}); reading in one thread\n`);
    }
  }
  const { fold, tables } = emptyFold();
  const dayFiles: DayInfo[] = [];
  let rowCount = 0;
  let foldMs = 0;
  for (const [d, src] of sources.entries()) {
    const digest = await cache.digest(dir, src);
    const f0 = performance.now();
    foldDay(fold, tables, digest, d);
    foldMs += performance.now() - f0;
    rowCount += digest.n;
    problems.push(...digest.problems);
    dayFiles.push({ day: src.day.day, files: src.day.files, rows: digest.n, problems: digest.problems.length, key: src.key });
  }
  cache.save();
  timings.mark('load', performance.now() - t0 - foldMs, { days: days.length, rows: rowCount, cache_hits: cache.hits, cache_misses: cache.misses });
  timings.mark('fold', foldMs, { targets: fold.targets.size });

  const read = readRuns(dir);
  problems.push(...read.problems);
  // The site reads the v1 series only, for now: v2 rows (observations-v2/) and v2 run rows are the next
  // step's (issue 13, phase 2b); mixing them into v1's statistics would be wrong, not just early.
  const runs = runsOf(read.runs, 'v1').sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  const rosterFiles = listRosterFiles(dir);
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
  return { dir, days: dayFiles.map((d) => d.day), dayFiles, runs, fold, rowCount, rosterFiles, problems, restatements, editions, chain: chainView, cache, cacheStats: { hits: cache.hits, misses: cache.misses }, timings };
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
