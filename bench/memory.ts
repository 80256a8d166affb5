// What the build holds in memory after the load (the daily build's peak grows with the
// archive's age). Loads an archive as the site does (a warm cache: run a build first), forces a GC,
// and prints the heap it keeps (bench/README.md "Results, third run": 34.2 MB at 5,000 × 60, 65.2 at × 360).
//   node --expose-gc --import tsx bench/memory.ts --archive DIR --cache DIR
import path from 'node:path';
import { loadArchive } from '../src/loader/load-archive.ts';
import { checked, command, exitCodes, script, usage } from '../collector/cli-kit/index.ts';

const COMMAND = command({
  name: 'bench:memory',
  help: `usage: node --expose-gc --import tsx bench/memory.ts [--archive DIR] [--cache DIR]

Loads an archive as the site does (a warm cache: run a build first), forces a GC, and prints the heap it keeps.

${exitCodes({ 0: 'measured', 2: 'bad usage, or node run without --expose-gc' })}`,
  options: { archive: { type: 'string', default: 'data' }, cache: { type: 'string', default: '.cache/bench-build' } },
});
const { values } = script(COMMAND);
const gc = checked(COMMAND, () => (globalThis as { gc?: () => void }).gc ?? (() => { throw usage('run with node --expose-gc'); })());
const archive = path.resolve(values.archive);
const cache = path.resolve(values.cache);
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
