// The fold keeps each target's ok rows as runs of rows that agree on what drift reads (src/loader/fold.ts
// OkRun: first row, last row, count), so the loaded archive grows with what targets change, not with
// days. Whatever the archive publishes must be what the row-by-row fold gives: compared
// here on a long archive with every kind of change, on the frozen golden archive, and on copies of it
// whose rows are out of time order (the fold then re-reads those targets row by row).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateArchive } from '../../bench/archive-gen.ts';
import { readRawArchive } from '../../src/loader/load-archive.ts';
import { compareFolds } from '../helpers/fold-agree.ts';

const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});
const tmp = (tag: string) => {
  const d = mkdtempSync(join(tmpdir(), `mcps-fold-${tag}-`));
  scratch.push(d);
  return d;
};
const GOLDEN = join(import.meta.dirname, '..', '..', 'fixtures', 'archive', 'golden');

describe('the fold as runs of equal ok rows', () => {
  it('publishes what the row-by-row fold publishes over 120 days of changes, failures, joins and leaves, holding far fewer entries', async () => {
    const dir = join(tmp('gen'), 'a');
    const sum = await generateArchive({ targets: 160, days: 120, out: dir, seed: 'fold-runs' });
    expect(sum.changes).toBeGreaterThan(20);
    const c = await compareFolds(dir);
    expect(c.disordered).toEqual([]);
    expect(c.runs).toEqual(c.rows);
    // Not vacuous: the runs fold holds a small share of the rows it read.
    expect(c.okRows).toBeGreaterThan(3_000);
    expect(c.okRuns).toBeLessThan(c.okRows / 10);
    expect((c.runs as { changes: unknown[] }).changes.length).toBeGreaterThan(20);
  }, 240_000);

  it('publishes the same on the golden archive', async () => {
    const c = await compareFolds(GOLDEN);
    expect(c.disordered).toEqual([]);
    expect(c.okRuns).toBeLessThan(c.okRows);
    expect(c.runs).toEqual(c.rows);
  }, 120_000);

  it('folds a target again row by row when its rows are out of time order, and publishes what sorting the rows gives', async () => {
    // A copy of the golden archive whose last day holds one ok row stamped before every earlier day:
    // the target's runs, built in file order, would put it last; drift sorts it first.
    const dir = tmp('disorder');
    cpSync(GOLDEN, dir, { recursive: true });
    const file = join(dir, 'observations', '2025-12-19.jsonl');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const k = lines.findIndex((l) => (JSON.parse(l) as { outcome: string }).outcome === 'ok');
    const row = JSON.parse(lines[k]!) as { target: string; observed_at: string; day: string };
    row.observed_at = '2025-12-14T12:00:00.000Z';
    row.day = '2025-12-14';
    lines[k] = JSON.stringify(row);
    writeFileSync(file, lines.join('\n') + '\n');
    const c = await compareFolds(dir);
    expect(c.disordered).toEqual([row.target]);
    expect(c.runs).toEqual(c.rows);
    // Near miss: the golden archive itself is in order (the previous test), so the re-read is the edit's.
    const raw = await readRawArchive(dir);
    const s = raw.fold.targets.get(row.target)!;
    expect(s.ok.every((r) => r.whole && r.n === 1)).toBe(true);
    expect([...raw.fold.targets.values()].filter((t) => t.name !== row.target).some((t) => t.ok.some((r) => r.n > 1))).toBe(true);
  }, 120_000);
});
