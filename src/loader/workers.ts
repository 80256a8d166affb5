// Summaries of many uncached days (a first build) in worker threads: reading and validating is CPU
// bound and days are independent. Each worker loads its modules from source through tsx — the site's
// modules are bundled by Vite, and a worker needs a module it can import by path, so the caller names
// the source root — builds day summaries into the cache, which the main thread then reads in order.
//
// What else a first build does with a day it has just parsed is not the loader's business: the
// caller may hand a tap per day (a module and an export that make a DayTap, day-summary.ts) and other jobs
// to spread over the same workers. The site uses both for the bundle members (src/outputs/members.ts),
// so a day of a first build is parsed once.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serialize } from 'node:v8';
import { writeAtomic } from '../archive/atomic.ts';
import type { DayFiles } from '../archive/day-files.ts';
import type { RunSeries } from '../lib/index.ts';
import type { BuildCache, DaySource } from './cache.ts';
import { buildDaySummary, type DayTap } from './day-summary.ts';

/** This module, relative to the source root: what a worker imports. */
const WORKER_MODULE = 'src/loader/workers.ts';
/** Fewer uncached days than this are read in the main thread: starting workers costs more. */
const MIN_DAYS = 8;
/** Days one worker summarises before it is replaced by a fresh one (its heap bounded by a chunk's, not the archive's). */
export const WORKER_DAYS = 30;

/** `days` in consecutive chunks of at most `size` (at least one chunk, maybe empty, so a slot's other jobs still run). */
export function workerChunks<T>(days: readonly T[], size: number): T[][] {
  if (!(size >= 1)) throw new Error(`worker chunk size must be at least 1, not ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < days.length; i += size) out.push(days.slice(i, i + size));
  return out.length > 0 ? out : [[]];
}

/** A function a worker calls by name in a module it imports from source. */
export interface WorkerCall {
  /** Absolute path of a source module. */
  module: string;
  export: string;
  /** Plain data (structured-cloned into the worker). */
  args: unknown;
}

export interface Prebuild {
  /** Worker threads (0: none, every day is read in the main thread). */
  workers: number;
  /** The repository root the modules are imported from. */
  sourceRoot: string;
  /** For each day to summarise, a call returning a DayTap for it (`fn(args, day)`), or null. */
  dayTap?(src: DaySource): WorkerCall | null;
  /** Other work for the same workers, spread round-robin (`fn(args)`). */
  jobs?(): Promise<WorkerCall[]>;
  /** Days a worker summarises before a fresh one takes over (default WORKER_DAYS). */
  workerDays?: number;
}

/** Summarise the uncached `sources` in workers; returns how many workers it started (0: none, the caller reads the days). */
export async function prebuildDaySummaries(cache: BuildCache, archive: string, sources: DaySource[], p: Prebuild): Promise<number> {
  const todo = sources.filter((s) => !existsSync(cache.summaryFile(s.key)!));
  const module = path.join(p.sourceRoot, WORKER_MODULE);
  if (!(p.workers > 0) || todo.length < MIN_DAYS || !existsSync(module)) return 0;
  // Workers read the folder only: bring the days kept in the object store first (through this thread's registered store).
  for (const s of todo) await cache.bring(archive, s.day);
  const { Worker } = await import('node:worker_threads');
  const jobs = (await p.jobs?.()) ?? [];
  const n = Math.min(p.workers, todo.length);
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { tsImport } = await import('tsx/esm/api');
      const load = (m) => tsImport(m, workerData.parent);
      const self = await load(workerData.module);
      for (const day of workerData.days) await self.summariseDayToCache(workerData.archive, day, load);
      for (const job of workerData.jobs) await (await load(job.module))[job.export](job.args);
      parentPort.postMessage('done');
    })().catch((e) => parentPort.postMessage({ error: String((e && e.stack) || e) }));`;
  // Each slot runs its days in chunks of WORKER_DAYS, a fresh worker per chunk: a worker's heap grows
  // with the days it has parsed (V8 collects lazily), so a first build of years of days would need
  // workers × years of heap (3.7 GB at 360 days of 5,000 targets, growing with the days);
  // chunked, a slot holds at most one chunk's. The other jobs (a roster member each) likewise, after the days.
  const runOne = (days: DayJob[], mine: WorkerCall[]) =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(code, { eval: true, workerData: { module, parent: pathToFileURL(path.join(p.sourceRoot, 'package.json')).href, archive, days, jobs: mine } });
      worker.once('message', (m: unknown) => {
        void worker.terminate();
        if (m === 'done') resolve();
        else reject(new Error(`day-summary worker: ${(m as { error?: string }).error ?? String(m)}`));
      });
      worker.once('error', reject);
    });
  const runs = Array.from({ length: n }, async (_, w) => {
    // Taps (bundle members) read v1 days only.
    const days: DayJob[] = todo.filter((_, i) => i % n === w).map((s) => ({ day: s.day, series: s.series, file: cache.summaryFile(s.key)!, tap: s.series === 'v1' ? (p.dayTap?.(s) ?? null) : null }));
    const mine = jobs.filter((_, i) => i % n === w);
    // Days, then the other jobs (a roster member each: as many as days), each in chunks of the same size.
    const size = p.workerDays ?? WORKER_DAYS;
    const dayChunks = days.length > 0 ? workerChunks(days, size) : [];
    const jobChunks = mine.length > 0 ? workerChunks(mine, size) : [];
    for (const chunk of dayChunks) await runOne(chunk, []);
    for (const chunk of jobChunks) await runOne([], chunk);
    return dayChunks.length + jobChunks.length;
  });
  const started = (await Promise.all(runs)).reduce((a, b) => a + b, 0);
  for (const s of todo) cache.fresh.add(s.key);
  return started;
}

interface DayJob {
  day: DayFiles;
  series: RunSeries;
  /** Where the summary goes. */
  file: string;
  tap: WorkerCall | null;
}

/** What a worker does with one day: summarise it (feeding the tap) and store the summary under its key. */
export async function summariseDayToCache(archive: string, job: DayJob, load: (module: string) => Promise<Record<string, unknown>>): Promise<void> {
  const taps: DayTap[] = [];
  if (job.tap) taps.push(((await load(job.tap.module))[job.tap.export] as (args: unknown, day: DayFiles) => DayTap)(job.tap.args, job.day));
  writeAtomic(job.file, serialize(await buildDaySummary(archive, job.day, taps, job.series)));
}
