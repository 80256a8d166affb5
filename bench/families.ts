// npm run bench:families -- [--targets N] [--days D] [--archive DIR] [--repeat K]
//
// What contract families (src/loader/families.ts) cost a build: a generated archive (bench/archive-gen.ts,
// the local world's rates; or --archive) loaded as the site loads it, then familiesOf timed cold (every
// contract's tools read and keyed by src/lib templateKey) and, with a template-key cache, warm (only new
// contracts keyed). Printed: contracts keyed, families, wall and CPU per contract, the heap the view
// keeps. Figures, not assertions: the current table is in bench/README.md.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checked, command, exitCodes, integer, script } from '../collector/cli-kit/index.ts';
import { familiesOf } from '../src/loader/families.ts';
import { forgetArchive, loadArchive } from '../src/loader/load-archive.ts';
import { generateArchive } from './archive-gen.ts';

const COMMAND = command({
  name: 'bench:families',
  help: `usage: npm run bench:families -- [--targets N] [--days D] [--archive DIR]

Times contract families (src/loader/families.ts) on a generated archive: keyed cold (every contract's tools
read and keyed), then again on a new load with the build cache warm (only contracts not keyed before).
  --targets N     generated archive's targets (default 2000)
  --days D        generated archive's days (default 30)
  --archive DIR   an existing archive instead (never written to)

${exitCodes({ 0: 'measured', 2: 'bad usage' })}`,
  options: { targets: { type: 'string', default: '2000' }, days: { type: 'string', default: '30' }, archive: { type: 'string' } },
});
const { values } = script(COMMAND);
const targets = checked(COMMAND, () => integer('--targets', values.targets, { min: 1 })) ?? 2000;
const days = checked(COMMAND, () => integer('--days', values.days, { min: 2 })) ?? 30;

const work = mkdtempSync(path.join(os.tmpdir(), 'mcps-bench-families-'));
try {
  const archive = values.archive ? path.resolve(values.archive) : path.join(work, 'archive');
  if (!values.archive) {
    const t0 = performance.now();
    await generateArchive({ targets, days, out: archive });
    console.error(`generated ${targets} targets × ${days} days in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const cache = { dir: path.join(work, 'cache'), sourceRoot: process.cwd() };
  const measure = async (label: string) => {
    const a = await loadArchive(archive, { cache, prebuild: { workers: 0 } });
    const heap0 = process.memoryUsage().heapUsed;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const f = await familiesOf(a);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const contracts = a.intervals.length;
    return {
      step: label,
      servers: a.rows.length,
      contracts,
      unkeyed: f.unkeyed,
      families: f.families.length,
      wall_ms: Math.round(ms),
      cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      us_per_contract: contracts ? Math.round((ms * 1000) / contracts) : null,
      heap_delta_mb: +((process.memoryUsage().heapUsed - heap0) / 1e6).toFixed(1),
    };
  };
  console.log(JSON.stringify(await measure('cold')));
  forgetArchive(archive);
  console.log(JSON.stringify(await measure('warm')));
} finally {
  rmSync(work, { recursive: true, force: true });
}
