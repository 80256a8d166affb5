// The daily scrub checks presence, not only the bytes it lists: a closed day file or roster kept in
// the store (stored.jsonl) whose object was deleted is named on its shard's day of the cycle (and on
// no other day), and a full verify names it at once. And the full verify's parts follow the archive:
// --plan-parts sizes them at the bench's rate, and any n it plans partitions every day, run and shard.
import { readdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compactArchive } from '../../../collector/ops/compact.ts';
import { scrubSlice, SHARDS, verifyArchive, type VerifyReport } from '../../../collector/ops/verify.ts';
import { FULL_VERIFY_HOURS_PER_GB, partsFor, planParts } from '../../../collector/ops/verify-plan.ts';
import { objectPath } from '../../../src/archive/layout.ts';
import { FsObjectStore } from '../../../src/archive/object-store.ts';
import { offload, readStoredIndex } from '../../../src/archive/stored-files.ts';
import { collectArchive } from '../../helpers/archive.ts';
import { runCli } from '../../helpers/cli.ts';
import { scratchDirs } from '../../helpers/scratch.ts';

const temp = scratchDirs();
let dir: string;

beforeAll(async () => {
  dir = await collectArchive({ seed: 'verify-presence', size: 14, days: 3, methodology: 'v1,v2' }, temp('mcps-presence-'));
  compactArchive(dir, { finished: true });
  expect((await offload(dir, new FsObjectStore(dir))).length).toBeGreaterThan(3);
  // As on a runner with a bucket: the closed files are only in the store.
  for (const folder of ['observations', 'observations-v2', 'rosters']) rmSync(join(dir, folder), { recursive: true, force: true });
  const first = await verifyArchive(dir, { mode: 'full', record: true });
  expect(first.problems).toEqual([]);
  expect(first.recorded).toBe(true);
}, 180_000);

/** The first day from 2026-01-01 whose scrub slice (28-day cycle) does, or does not, hold `shard`. */
function dayFor(shard: number, holds: boolean): string {
  for (let i = 0; i < 28; i++) {
    const day = new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
    const s = scrubSlice(day, 28);
    if ((s.first <= shard && shard <= s.last) === holds) return day;
  }
  throw new Error('no such day');
}

describe('the daily scrub checks presence', () => {
  it('a deleted stored file is named on its shard day, passes on another day (near miss), and --full names it at once', async () => {
    const line = [...readStoredIndex(dir).files.values()].find((l) => l.path.startsWith('observations-v2/'))!;
    const shard = parseInt(line.sha256.slice(0, 2), 16);
    const inSlice = dayFor(shard, true);
    const before = await verifyArchive(dir, { mode: 'auto', today: inSlice });
    expect(before.mode).toBe('incremental');
    expect(before.problems).toEqual([]);
    expect(before.scrub.named).toBeGreaterThan(0);

    unlinkSync(objectPath(dir, line.sha256));
    const onItsDay = await verifyArchive(dir, { mode: 'auto', today: inSlice });
    expect(onItsDay.mode).toBe('incremental');
    expect(onItsDay.problems).toEqual([{ kind: 'object-missing', where: `stored.jsonl: ${line.path}`, message: `object ${line.sha256.slice(0, 12)}… is missing` }]);

    const otherDay = await verifyArchive(dir, { mode: 'auto', today: dayFor(shard, false) });
    expect(otherDay.mode).toBe('incremental');
    expect(otherDay.problems).toEqual([]);

    const full = await verifyArchive(dir, { mode: 'full' });
    expect(full.problems.map((p) => p.where)).toContain(line.path);
    expect(full.problems.some((p) => p.message.includes(line.sha256.slice(0, 12)))).toBe(true);
  });
});

describe('a full verify in parts that finish', () => {
  it('the part count follows the size at the bench rate: 356 GB (year 5, growing) is 8 parts of at most 3 h; exactly 3 h is one part, a little more two', () => {
    expect(FULL_VERIFY_HOURS_PER_GB).toBeCloseTo(0.0629, 4);
    expect(partsFor(356e9, 0, 3)).toEqual({ hours: expect.closeTo(22.4, 6), parts: 8 });
    const threeHours = (3 / FULL_VERIFY_HOURS_PER_GB) * 1e9;
    expect(partsFor(threeHours * 0.999, 0, 3).parts).toBe(1);
    expect(partsFor(threeHours * 1.001, 0, 3).parts).toBe(2);
    // A week's growth is planned for: the same bytes with 10 % to come need a part more here.
    expect(partsFor(threeHours * 0.95, 0.1, 3).parts).toBe(2);
    expect(() => partsFor(1e15, 0, 3)).toThrow(/more than 64 parts/);
  });

  it('measures the store it is given, and --plan-parts prints the count and the matrix', async () => {
    const plan = await planParts(dir, new FsObjectStore(dir));
    const files = ['objects', 'pages'].flatMap((f) => readdirSync(join(dir, f)).flatMap((s) => readdirSync(join(dir, f, s))));
    expect(plan.keys).toBe(files.length);
    expect(plan.measured).toBe('listed');
    expect(plan.parts).toBe(1);
    const cli = await runCli('collector/ops/verify-cli.ts', ['--data', dir, '--plan-parts', '--store-bytes', '356000000000'], {});
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^8 parts: 356\.00 GB given, \+0\.0 % for a week's growth, at 3\.8 min a GB: 22\.40 h in all, 2\.80 h a part \(at most 3 h\)\n\{"part":\[1,2,3,4,5,6,7,8\]\}\n$/);
    const bad = await runCli('collector/ops/verify-cli.ts', ['--data', dir, '--plan-parts', '--max-part-hours', '7'], {});
    expect(bad.code).toBe(2);
  });

  it('the planned parts partition every day, run and shard of the archive', async () => {
    const { parts: n } = partsFor(356e9, 0, 3);
    const whole = await verifyArchive(dir, { mode: 'full' });
    const reports: VerifyReport[] = [];
    for (let k = 1; k <= n; k++) reports.push(await verifyArchive(dir, { mode: 'full', part: { k, n } }));
    const days = reports.flatMap((r) => r.scope.days);
    const runs = reports.flatMap((r) => r.scope.runs);
    expect(days.sort()).toEqual([...whole.scope.days].sort());
    expect(runs.sort()).toEqual([...whole.scope.runs].sort());
    const shards = reports.flatMap((r) => Array.from({ length: r.scrub.last - r.scrub.first + 1 }, (_, i) => r.scrub.first + i));
    expect(shards).toEqual(Array.from({ length: SHARDS }, (_, i) => i));
    expect(reports.reduce((sum, r) => sum + r.scrub.keys, 0)).toBe(whole.scrub.keys);
    expect(reports.reduce((sum, r) => sum + r.rows, 0)).toBe(whole.rows);
  }, 120_000);
});
