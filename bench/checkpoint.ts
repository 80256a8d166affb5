// npm run bench:checkpoint -- [--targets N] [--days D]
//
// What fold checkpoints (src/loader/checkpoint.ts) change: a generated archive (bench/archive-gen.ts, the
// local world's rates) built as the daily job builds it — the archive as it stood the day before, then
// the same folder with the new day, one build cache — once without checkpoints and once with. Printed per
// build: the load (day summaries read and folded) and the derivation in wall ms, day summaries read, and
// the build cache's bytes (all, days/, checkpoints/). Figures, not assertions: the current table is in
// bench/README.md.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checked, command, exitCodes, integer, script } from '../collector/cli-kit/index.ts';
import { deriveArchive, readRawArchive } from '../src/loader/load-archive.ts';
import { generateArchive } from './archive-gen.ts';

const COMMAND = command({
  name: 'bench:checkpoint',
  help: `usage: npm run bench:checkpoint -- [--targets N] [--days D]

Builds a generated archive as the daily job does (the day before, then the new day, one build cache),
without and with fold checkpoints, and prints each build's load and derive time and the cache's size.
  --targets N     generated archive's targets (default 2000)
  --days D        generated archive's days (default 60)

${exitCodes({ 0: 'measured', 2: 'bad usage' })}`,
  options: { targets: { type: 'string', default: '2000' }, days: { type: 'string', default: '60' } },
});
const { values } = script(COMMAND);
const targets = checked(COMMAND, () => integer('--targets', values.targets, { min: 1 })) ?? 2000;
const days = checked(COMMAND, () => integer('--days', values.days, { min: 3 })) ?? 60;
const SERIES_DIRS = ['observations', 'observations-v2'];

/** `from` as it stood on `last`: every file but the day files and run lines after it. */
function prefixOf(from: string, to: string, last: string): void {
  cpSync(from, to, { recursive: true, filter: (src) => !SERIES_DIRS.includes(path.basename(path.dirname(src))) || path.basename(src).slice(0, 10) <= last });
  const runs = readFileSync(path.join(from, 'runs.jsonl'), 'utf8').split('\n').filter((l) => l.trim() && (JSON.parse(l) as { day: string }).day <= last);
  writeFileSync(path.join(to, 'runs.jsonl'), runs.map((l) => `${l}\n`).join(''));
}

function bytesUnder(dir: string): number {
  let total = 0;
  try {
    for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) total += statSync(path.join(e.parentPath, e.name)).size;
  } catch {
    /* absent: 0 */
  }
  return total;
}

const work = mkdtempSync(path.join(os.tmpdir(), 'mcps-bench-checkpoint-'));
try {
  const gen = path.join(work, 'archive');
  const t0 = performance.now();
  await generateArchive({ targets, days, out: gen });
  console.error(`generated ${targets} targets × ${days} days in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const dayList = readdirSync(path.join(gen, 'observations')).map((f) => f.slice(0, 10)).sort();
  // A first load without a cache, not measured: the code is compiled before either series is timed.
  await deriveArchive(await readRawArchive(gen));
  for (const checkpoints of [false, true]) {
    const cacheDir = path.join(work, `cache-${checkpoints ? 'on' : 'off'}`);
    const folder = path.join(work, `build-${checkpoints ? 'on' : 'off'}`);
    const build = async (step: string, last: string) => {
      prefixOf(gen, folder, last);
      const l0 = performance.now();
      const raw = await readRawArchive(folder, { cache: { dir: cacheDir, sourceRoot: process.cwd() }, checkpoints });
      const loadMs = performance.now() - l0;
      const d0 = performance.now();
      await deriveArchive(raw);
      const deriveMs = performance.now() - d0;
      console.log(JSON.stringify({
        checkpoints, step, days: raw.days.length, rows: raw.rowCount, summaries_read: raw.cacheStats.hits + raw.cacheStats.misses,
        load_ms: Math.round(loadMs), derive_ms: Math.round(deriveMs),
        cache_mb: +(bytesUnder(cacheDir) / 1e6).toFixed(2), days_mb: +(bytesUnder(path.join(cacheDir, 'days')) / 1e6).toFixed(2), checkpoints_mb: +(bytesUnder(path.join(cacheDir, 'checkpoints')) / 1e6).toFixed(2),
      }));
    };
    await build('first build (the day before)', dayList.at(-2)!);
    await build('daily build (the new day)', dayList.at(-1)!);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
