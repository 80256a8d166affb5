// What the build holds in memory after the load (issue 23: the daily build's peak grows with the
// archive's age). Loads an archive as the site does (a warm cache: run a build first), forces a GC,
// and prints the heap it keeps (bench/README.md "Results, third run": 34.2 MB at 5,000 × 60, 65.2 at × 360).
//   node --expose-gc --import tsx bench/memory.ts --archive DIR --cache DIR
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
const a = await loadArchive(archive, { cache: { dir: cache, sourceRoot: process.cwd() }, prebuild: { workers: 0 } });
gc();
gc();
const after = process.memoryUsage();
const mb = (n: number) => +(n / 1e6).toFixed(1);
console.log(JSON.stringify({
  archive,
  heap_used_mb: mb(after.heapUsed - before.heapUsed),
  rss_mb: mb(after.rss),
  external_mb: mb(after.external),
  array_buffers_mb: mb(after.arrayBuffers),
  servers: a.servers.length,
  changes: a.changes.length,
  sets: a.sets.length,
}, null, 1));
