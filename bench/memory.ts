// What the build holds in memory after the load (the daily build's peak grows with the
// archive's age). Loads an archive as the site does (a warm cache: run a build first), forces a GC,
// and prints the heap it keeps (bench/README.md "Years at the registry's size").
//   node --expose-gc --import tsx bench/memory.ts --archive DIR --cache DIR [--shards N|auto] [--live] [--walk]
// --shards: derive the targets in N shards (src/loader/shards.ts; default 1, every server held; auto:
// as production sizes it). It also prints the process's peak RSS (the load's transient high-water mark)
// and, with --live, the largest live heap at the loader's stage marks (a forced GC at each: the fold,
// each shard while its fold and views are alive, the end), which is slower. --walk then visits every
// shard's views as the site's pages and per-server files do (Archive.serversIn, shard by shard, two
// kept) and prints the largest live heap while a shard is held: the build's archive at its peak.
import path from 'node:path';
import { loadArchive } from '../src/loader/load-archive.ts';
import { checked, command, exitCodes, script, usage } from '../collector/cli-kit/index.ts';

const COMMAND = command({
  name: 'bench:memory',
  help: `usage: node --expose-gc --import tsx bench/memory.ts [--archive DIR] [--cache DIR] [--shards N|auto] [--live] [--walk] [--verbose]

Loads an archive as the site does (a warm cache: run a build first), forces a GC, and prints the heap it keeps.
  --shards N|auto  derive the targets in N shards (src/loader/shards.ts; default 1; auto: as production sizes it)
  --live           also the largest live heap at the loader's stage marks (a forced GC at each; slower)
  --walk           then every shard's views in turn, as the pages read them: the largest live heap then
  --verbose        print each stage mark's live heap on stderr

${exitCodes({ 0: 'measured', 2: 'bad usage, or node run without --expose-gc' })}`,
  options: { archive: { type: 'string', default: 'data' }, cache: { type: 'string', default: '.cache/bench-build' }, shards: { type: 'string', default: '1' }, live: { type: 'boolean', default: false }, walk: { type: 'boolean', default: false }, verbose: { type: 'boolean', default: false } },
});
const { values } = script(COMMAND);
const gc = checked(COMMAND, () => (globalThis as { gc?: () => void }).gc ?? (() => { throw usage('run with node --expose-gc'); })());
const archive = path.resolve(values.archive);
const cache = path.resolve(values.cache);
gc();
const before = process.memoryUsage();
const shardArg = values.shards;
const shards = shardArg === 'auto' ? 'auto' : Number(shardArg);
if (shards !== 'auto' && !(Number.isInteger(shards) && shards >= 1)) throw new Error(`--shards must be a whole number ≥ 1 or auto, not ${JSON.stringify(shardArg)}`);
const mb = (n: number) => +(n / 1e6).toFixed(1);
let livePeak = 0;
const live = values.live
  ? {
      mark(stage: string) {
        // Twice: what one full GC leaves of a pass's day summaries (weakly held) is garbage, not live state.
        gc!();
        gc!();
        const used = process.memoryUsage().heapUsed - before.heapUsed;
        livePeak = Math.max(livePeak, used);
        if (values.verbose) process.stderr.write(`[live] ${stage}: ${mb(used)} MB\n`);
      },
      markSince() {},
    }
  : undefined;
const a = await loadArchive(archive, { cache: { dir: cache, sourceRoot: process.cwd() }, prebuild: { workers: 0 }, shards, timings: live });
gc();
gc();
const after = process.memoryUsage();
// The pages' and per-server files' pass (src/site/changed-servers.ts renderedRows, src/loader/shards.ts eachServer).
let walkPeak = 0;
if (values.walk) {
  for (let k = 0; k < a.shards; k++) {
    await a.serversIn(k);
    gc();
    gc();
    walkPeak = Math.max(walkPeak, process.memoryUsage().heapUsed - before.heapUsed);
    if (values.verbose) process.stderr.write(`[walk] shard ${k}: ${mb(walkPeak)} MB\n`);
  }
}
console.log(JSON.stringify({
  archive,
  heap_used_mb: mb(after.heapUsed - before.heapUsed),
  rss_mb: mb(after.rss),
  external_mb: mb(after.external),
  array_buffers_mb: mb(after.arrayBuffers),
  max_rss_mb: mb(process.resourceUsage().maxRSS * 1024),
  ...(live ? { live_peak_mb: mb(Math.max(livePeak, after.heapUsed - before.heapUsed)) } : {}),
  ...(values.walk ? { walk_peak_mb: mb(walkPeak) } : {}),
  shards: a.shards,
  servers: a.rows.length,
  changes: a.changes.length,
  sets: a.sets.length,
}, null, 1));
