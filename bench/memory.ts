// What the build holds in memory after the load (issue 23: the daily build's peak grows with the
// archive's age). Loads an archive as the site does (a warm cache: run a build first), forces a GC,
// and prints the heap it keeps (bench/README.md "Results, third run": 34.2 MB at 5,000 × 60, 65.2 at × 360).
//   node --expose-gc --import tsx bench/memory.ts --archive DIR --cache DIR [--shards N|auto]
// --shards: derive the targets in N shards (src/loader/shards.ts; default 1, every server held; auto:
// as production sizes it). It also prints the process's peak RSS (the load's transient high-water mark)
// and, with --live, the largest live heap at the loader's stage marks (a forced GC at each: the fold,
// each shard while its fold and views are alive, the end), which is slower.
import path from 'node:path';
import { loadArchive } from '../src/loader/load-archive.ts';

const arg = (f: string) => {
  const i = process.argv.indexOf(f);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const archive = path.resolve(arg('--archive') ?? 'data');
const cache = path.resolve(arg('--cache') ?? '.cache/bench-build');
gc();
const before = process.memoryUsage();
const shardArg = arg('--shards') ?? '1';
const shards = shardArg === 'auto' ? 'auto' : Number(shardArg);
if (shards !== 'auto' && !(Number.isInteger(shards) && shards >= 1)) throw new Error(`--shards must be a whole number ≥ 1 or auto, not ${JSON.stringify(shardArg)}`);
const mb = (n: number) => +(n / 1e6).toFixed(1);
let livePeak = 0;
const live = process.argv.includes('--live')
  ? {
      mark(stage: string) {
        // Twice: what one full GC leaves of a pass's digests (weakly held) is garbage, not live state.
        gc!();
        gc!();
        const used = process.memoryUsage().heapUsed - before.heapUsed;
        livePeak = Math.max(livePeak, used);
        if (process.argv.includes('--verbose')) process.stderr.write(`[live] ${stage}: ${mb(used)} MB\n`);
      },
      markSince() {},
    }
  : undefined;
const a = await loadArchive(archive, { cache: { dir: cache, sourceRoot: process.cwd() }, prebuild: { workers: 0 }, shards, timings: live });
gc();
gc();
const after = process.memoryUsage();
console.log(JSON.stringify({
  archive,
  heap_used_mb: mb(after.heapUsed - before.heapUsed),
  rss_mb: mb(after.rss),
  external_mb: mb(after.external),
  array_buffers_mb: mb(after.arrayBuffers),
  max_rss_mb: mb(process.resourceUsage().maxRSS * 1024),
  ...(live ? { live_peak_mb: mb(Math.max(livePeak, after.heapUsed - before.heapUsed)) } : {}),
  shards: a.shards,
  servers: a.rows.length,
  changes: a.changes.length,
  sets: a.sets.length,
}, null, 1));
