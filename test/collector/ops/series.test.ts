// verify, compact and restate on an archive that holds both series (a run of each simulated day with
// --methodology v1,v2, against the local world with its modern-only, dual-era and paginated servers):
// each works per series folder, and verify catches what is wrong in the v2 series' rows and objects.
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactArchive } from '../../../collector/ops/compact.ts';
import { restate } from '../../../collector/ops/restate.ts';
import { reproduceV2 } from '../../../collector/ops/restate-v2.ts';
import { verifyArchive } from '../../../collector/ops/verify.ts';
import { listDays, readDayLines } from '../../../src/archive/day-files.ts';
import { objectPath, SERIES_FOLDER } from '../../../src/archive/layout.ts';
import { ObservationV2 } from '../../../src/lib/index.ts';
import { collectArchive } from '../../helpers/archive.ts';

let base: string;
const scratch: string[] = [];
const copy = () => {
  const d = mkdtempSync(join(tmpdir(), 'mcps-ops-series-'));
  scratch.push(d);
  cpSync(base, d, { recursive: true });
  return d;
};
const v2Dir = (dir: string) => join(dir, 'observations-v2');
const v2Files = (dir: string) => readdirSync(v2Dir(dir)).sort();
const v2RowsOf = (dir: string, file: string) => readFileSync(join(v2Dir(dir), file), 'utf8').trimEnd().split('\n').map((l) => ObservationV2.parse(JSON.parse(l)));
const kinds = async (dir: string) => (await verifyArchive(dir)).problems.map((p) => p.kind);

beforeAll(async () => {
  base = await collectArchive({ seed: 'ops-series', size: 60, days: 3, methodology: 'v1,v2' });
}, 120_000);
afterAll(() => {
  for (const d of [base, ...scratch]) rmSync(d, { recursive: true, force: true });
});

describe('verifyArchive(dir) with both series', () => {
  it('passes: three runs of two series, six day files, every v2 row and object accounted for', async () => {
    const report = await verifyArchive(base);
    expect(report.problems).toEqual([]);
    expect(report.runs).toBe(6);
    expect(report.dayFiles).toBe(6);
    const rows = v2Files(base).flatMap((f) => v2RowsOf(base, f));
    expect(rows.filter((r) => r.era === 'modern' && r.status === 'ok').length).toBeGreaterThan(0);
    expect(rows.some((r) => (r.tools_pages_sha256?.length ?? 0) > 1)).toBe(true);
  });

  it('fails on a missing handshake object and on a missing later tools/list page', async () => {
    const rows = v2Files(base).flatMap((f) => v2RowsOf(base, f));
    const paged = rows.find((r) => (r.tools_pages_sha256?.length ?? 0) > 1)!;
    const a = copy();
    unlinkSync(objectPath(a, paged.tools_pages_sha256![1]!));
    expect(new Set(await kinds(a))).toEqual(new Set(['object-missing']));
    const b = copy();
    unlinkSync(objectPath(b, rows.find((r) => r.handshake_sha256)!.handshake_sha256!));
    expect(new Set(await kinds(b))).toEqual(new Set(['object-missing']));
  });

  it('fails on a v2 row that does not validate, one in the v1 folder, a duplicate, and run counts the rows do not hold', async () => {
    const file = v2Files(base)[0]!;
    const first = readFileSync(join(v2Dir(base), file), 'utf8').split('\n')[0]!;
    const a = copy();
    appendFileSync(join(v2Dir(a), file), JSON.stringify({ ...JSON.parse(first), era: 'future' }) + '\n');
    expect(await kinds(a)).toContain('row-invalid');
    const b = copy();
    appendFileSync(join(b, 'observations', file), first + '\n');
    expect(await kinds(b)).toContain('row-invalid');
    const c = copy();
    appendFileSync(join(v2Dir(c), file), first + '\n');
    expect(await kinds(c)).toContain('row-duplicate');
    const d = copy();
    const runs = readFileSync(join(d, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const i = runs.findIndex((r) => r.methodology_version === 'v2');
    const v2 = runs[i]!;
    runs[i] = { ...v2, statuses: { ...v2.statuses, ok: v2.statuses.ok + 1 }, requests: { ...v2.requests, total: v2.requests.total + 1 } };
    writeFileSync(join(d, 'runs.jsonl'), runs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const report = await verifyArchive(d);
    // The edited run line no longer matches the run's manifest on the hash chain either.
    expect(report.problems.map((p) => p.kind)).toEqual(['run-counts', 'run-counts', 'chain-digest']);
    expect(report.problems.map((p) => p.message).join(' ')).toMatch(/status ok.*requests/);
  });

  it('warns on a run whose v2 row is missing, and fails when the two rows of a run disagree on its facts', async () => {
    const a = copy();
    const lines = readFileSync(join(a, 'runs.jsonl'), 'utf8').trimEnd().split('\n');
    writeFileSync(join(a, 'runs.jsonl'), lines.filter((l) => !(l.includes('"methodology_version":"v2"') && l.includes(JSON.parse(lines[0]!).run_id))).join('\n') + '\n');
    const report = await verifyArchive(a);
    // The run's manifest on the hash chain names both run lines: taking one out is a broken link.
    expect(report.problems.map((p) => p.kind)).toEqual(['chain-digest']);
    expect(report.warnings.filter((w) => w.kind === 'run-unfinished').map((w) => w.message)).toEqual([expect.stringMatching(/\(v2\) have no run row/)]);
    const b = copy();
    const runs = lines.map((l) => JSON.parse(l) as Record<string, any>);
    const i = runs.findIndex((r) => r.methodology_version === 'v2');
    runs[i] = { ...runs[i]!, eligible: runs[i]!.eligible + 1 };
    writeFileSync(join(b, 'runs.jsonl'), runs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    expect(await kinds(b)).toEqual(['run-series', 'chain-digest']);
  });
});

describe('compactArchive(dir) with both series', () => {
  it('gzips the closed days of each series folder; readers see the same lines and verify passes', async () => {
    const dir = copy();
    const before = async (folder: string) => {
      const out: string[] = [];
      for (const day of listDays(dir, folder)) for await (const { line } of readDayLines(dir, day)) out.push(line);
      return out;
    };
    const v1 = await before(SERIES_FOLDER.v1);
    const v2 = await before(SERIES_FOLDER.v2);
    const s = compactArchive(dir);
    expect(s.compacted.filter((d) => d.startsWith('v2/'))).toHaveLength(2);
    expect(s.compacted.filter((d) => !d.startsWith('v2/'))).toHaveLength(2);
    expect(s.skipped_open_days).toHaveLength(2);
    expect(v2Files(dir).filter((f) => f.endsWith('.gz'))).toHaveLength(2);
    expect(await before(SERIES_FOLDER.v1)).toEqual(v1);
    expect(await before(SERIES_FOLDER.v2)).toEqual(v2);
    expect((await verifyArchive(dir)).problems).toEqual([]);
  });
});

describe('restate with both series', () => {
  it('v1 restates the v1 rows only; v2 reproduces every v2 contract and instructions hash from the stored bodies', async () => {
    const dir = copy();
    const v1Count = readdirSync(join(dir, 'observations')).reduce((n, f) => n + readFileSync(join(dir, 'observations', f), 'utf8').trimEnd().split('\n').length, 0);
    const m = await restate(dir, 'v1');
    expect(m.days).toHaveLength(3);
    expect(m.differing_rows).toBe(0);
    expect(m.source_rows).toBe(v1Count);
    const v2Count = v2Files(dir).reduce((n, f) => n + v2RowsOf(dir, f).length, 0);
    const r = await reproduceV2(dir);
    expect(r).toMatchObject({ series: 'v2', source_rows: v2Count, unreadable_rows: 0, differing_rows: 0, differing_instructions: 0, differing_caching: 0, examples: [] });
    expect(r.ok_rows).toBeGreaterThan(20);
  });

  it('v2 names a row whose recorded contract hash its bodies do not give, and one whose body is gone', async () => {
    const dir = copy();
    const file = v2Files(dir)[0]!;
    const rows = v2RowsOf(dir, file);
    const i = rows.findIndex((r) => r.status === 'ok');
    const j = rows.findIndex((r, k) => k > i && r.status === 'ok' && r.tools_pages_sha256![0] !== rows[i]!.tools_pages_sha256![0]);
    rows[i] = { ...rows[i]!, tools_sha256: 'f'.repeat(64) };
    writeFileSync(join(v2Dir(dir), file), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    unlinkSync(objectPath(dir, rows[j]!.tools_pages_sha256![0]!));
    const r = await reproduceV2(dir);
    expect(r.differing_rows).toBe(1);
    expect(r.unreadable_rows).toBeGreaterThanOrEqual(1);
    expect(r.examples.join('\n')).toContain(`observations-v2/${file}:${i + 1}: tools_sha256 ffffffffffff`);
  });
});
