// npm run compact on a collector-written archive: closed days become .jsonl.gz with the same lines,
// every reader still sees the same rows, and an interrupted compaction is finished by the next open.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactArchive } from '../../../collector/ops/compact.ts';
import { restate } from '../../../collector/ops/restate.ts';
import { Store } from '../../../collector/store.ts';
import { verifyArchive } from '../../../collector/ops/verify.ts';
import { listDays, readDayLines } from '../../../src/archive/day-files.ts';
import { listRosterFiles, readRoster } from '../../../src/archive/rosters.ts';
import { collectArchive } from '../../helpers/archive.ts';

let base: string;
const scratch: string[] = [];
const copy = () => {
  const d = mkdtempSync(join(tmpdir(), 'mcps-compact-'));
  scratch.push(d);
  cpSync(base, d, { recursive: true });
  return d;
};
async function allLines(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const day of listDays(dir)) for await (const { line } of readDayLines(dir, day)) out.push(line);
  return out;
}

beforeAll(async () => {
  base = await collectArchive({ seed: 'compact', size: 50, days: 4 });
});
afterAll(() => {
  for (const d of [base, ...scratch]) rmSync(d, { recursive: true, force: true });
});

describe('compactArchive(dir): rosters and the newest day', () => {
  it('gzips finished runs\' rosters in place: same roster names, same bytes, same chain, verify green', async () => {
    const dir = copy();
    const rosterNames = readdirSync(join(dir, 'rosters')).sort();
    const plainBytes = rosterNames.map((f) => readFileSync(join(dir, 'rosters', f)));
    const chainBefore = (await verifyArchive(dir)).chain;
    const s = compactArchive(dir);
    expect(s.rosters).toEqual(rosterNames);
    expect(readdirSync(join(dir, 'rosters')).sort()).toEqual(rosterNames.map((f) => `${f}.gz`));
    rosterNames.forEach((f, i) => expect(gunzipSync(readFileSync(join(dir, 'rosters', `${f}.gz`))).equals(plainBytes[i]!)).toBe(true));
    expect(listRosterFiles(dir)).toEqual(rosterNames);
    expect(readRoster(dir, rosterNames[0]!).ok).toBe(true);
    const after = await verifyArchive(dir);
    expect(after.problems).toEqual([]);
    expect(after.chain).toEqual(chainBefore);
    expect(after.rosters).toBe(rosterNames.length);
  });

  it('a damaged gzipped roster fails verify (the chain no longer matches)', async () => {
    const dir = copy();
    compactArchive(dir);
    const gz = readdirSync(join(dir, 'rosters')).sort()[0]!;
    writeFileSync(join(dir, 'rosters', gz), Buffer.from('not a gzip'));
    const kinds = (await verifyArchive(dir)).problems.map((p) => p.kind);
    expect(kinds).toContain('roster-invalid');
    expect(kinds.some((k) => k.startsWith('chain'))).toBe(true);
  });

  it('a roster left in both forms by a crash is folded back by the next open', async () => {
    const dir = copy();
    compactArchive(dir);
    const gz = readdirSync(join(dir, 'rosters')).sort()[0]!;
    const plain = join(dir, 'rosters', gz.replace(/\.gz$/, ''));
    writeFileSync(plain, gunzipSync(readFileSync(join(dir, 'rosters', gz))));
    Store.open(dir, new Date().toISOString()).close();
    expect(existsSync(plain)).toBe(false);
    expect((await verifyArchive(dir)).problems).toEqual([]);
  });

  it('--finished closes the newest day too, and a later run that day starts a plain file beside it', async () => {
    const dir = copy();
    const before = await allLines(dir);
    const s = compactArchive(dir, { finished: true });
    expect(s.compacted).toHaveLength(4);
    expect(s.skipped_open_days).toEqual([]);
    expect(readdirSync(join(dir, 'observations')).filter((f) => f.endsWith('.jsonl'))).toEqual([]);
    expect(await allLines(dir)).toEqual(before);
    expect((await verifyArchive(dir)).problems).toEqual([]);
  });
});

describe('compactArchive(dir)', () => {
  it('gzips every closed day, keeps the newest open, and readers see the same lines', async () => {
    const dir = copy();
    const before = await allLines(dir);
    const s = compactArchive(dir);
    expect(s.compacted).toHaveLength(3);
    expect(s.skipped_open_days).toHaveLength(1);
    expect(s.bytes_after).toBeLessThan(s.bytes_before / 3);
    const files = readdirSync(join(dir, 'observations')).sort();
    expect(files.filter((f) => f.endsWith('.jsonl.gz'))).toHaveLength(3);
    expect(files.filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
    expect(await allLines(dir)).toEqual(before);
    expect((await verifyArchive(dir)).problems).toEqual([]);
    const m = await restate(dir, 'v1');
    expect(m.differing_rows).toBe(0);
    expect(m.source_rows).toBe(before.length);
  });

  it('finishes a compaction cut short between rename and unlink, so no row is read twice', async () => {
    const dir = copy();
    compactArchive(dir);
    const gz = readdirSync(join(dir, 'observations')).find((f) => f.endsWith('.gz'))!;
    const plain = join(dir, 'observations', gz.replace(/\.gz$/, ''));
    writeFileSync(plain, gunzipSync(readFileSync(join(dir, 'observations', gz)))); // the leftover
    expect((await verifyArchive(dir)).problems.map((p) => p.kind)).toContain('row-duplicate');
    Store.open(dir, new Date().toISOString()).close();
    expect(existsSync(plain)).toBe(false);
    expect((await verifyArchive(dir)).problems).toEqual([]);
  });

  it('keeps a late plain file beside a gz as rows of its own', async () => {
    const dir = copy();
    compactArchive(dir);
    const gz = readdirSync(join(dir, 'observations')).find((f) => f.endsWith('.gz'))!;
    const lines = gunzipSync(readFileSync(join(dir, 'observations', gz))).toString('utf8').trim().split('\n');
    const late = { ...JSON.parse(lines[0]!), run_id: 'late-run', target: 'io.example/late' };
    writeFileSync(join(dir, 'observations', gz.replace(/\.gz$/, '')), `${JSON.stringify(late)}\n`);
    Store.open(dir, new Date().toISOString()).close();
    const day = listDays(dir).find((d) => d.files.length === 2)!;
    expect(day.files[0]).toMatch(/\.gz$/);
    const read: string[] = [];
    for await (const { line } of readDayLines(dir, day)) read.push(line);
    expect(read).toHaveLength(lines.length + 1);
    expect(read.at(-1)).toContain('io.example/late');
  });
});
