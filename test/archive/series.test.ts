// A series is a folder (observations/ for v1, observations-v2/ for v2) and runs.jsonl holds a row per
// run and series: src/archive lists, reads and validates each series with its own contract.
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { noEndpointRowV2, notAttemptedRowV2, runRowV2 } from '../../collector/rows-v2.ts';
import { Store } from '../../collector/store.ts';
import { listDays } from '../../src/archive/day-files.ts';
import { dayFile, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { dayFileRows, dayFileRowsV2, observationLines, observationV2Lines } from '../../src/archive/observations.ts';
import { InvalidArchiveError } from '../../src/archive/problems.ts';
import { readRuns, runsOf } from '../../src/archive/runs.ts';
import { isRunV1, isRunV2, sha256Hex, type RosterTarget } from '../../src/lib/index.ts';
import { cleanUp, GOLDEN, goldenCopy } from '../helpers/golden-archive.ts';

afterAll(cleanUp);

const DAY = '2025-12-18';
const RUN = '2025-12-18T031500Z';
const ctx = (i: number) => ({ runId: RUN, day: DAY, observedAt: `2025-12-18T03:15:0${i}.000Z` });
const target = (name: string, endpoint: string | null): RosterTarget => ({ name, version: '1.0.0', status: 'active', endpoint, endpoint_problem: endpoint ? null : 'no_streamable_http', page_sha256: sha256Hex('page'), page_index: 0 });
const v1Line = readFileSync(path.join(GOLDEN, 'observations/2025-12-17.jsonl'), 'utf8').split('\n')[0]!;

/** A golden copy with a v2 day written by the store: two rows and a v2 run row beside the v1 runs. */
async function withV2(): Promise<string> {
  const dir = await goldenCopy();
  const store = Store.open(dir, new Date().toISOString());
  const rows = [noEndpointRowV2(ctx(1), target('a', null)), notAttemptedRowV2(ctx(2), target('b', 'https://b.example/mcp'), 'run_deadline')];
  for (const r of rows) store.appendObservationV2(r);
  const v1Run = readRuns(dir).runs.at(-1)!;
  store.appendRun(
    runRowV2({ runId: v1Run.run_id, day: v1Run.day, startedAt: v1Run.started_at, finishedAt: v1Run.finished_at, registry: 'http://r', rosterFile: null, rosterComplete: true, limit: null, eligible: 1, rows, message: null, scheduling: null }),
  );
  store.close();
  return dir;
}

describe('series folders (layout.ts SERIES_FOLDER, day-files.ts listDays)', () => {
  it('writes v2 rows to observations-v2/<day>.jsonl and lists each series from its own folder only', async () => {
    const dir = await withV2();
    expect(readdirSync(path.join(dir, 'observations-v2'))).toEqual([`${DAY}.jsonl`]);
    expect(listDays(dir, SERIES_FOLDER.v2)).toEqual([{ day: DAY, files: [`observations-v2/${DAY}.jsonl`] }]);
    expect(listDays(dir).map((d) => d.day)).toEqual(listDays(GOLDEN).map((d) => d.day));
    expect(listDays(dir).flatMap((d) => d.files).every((f) => f.startsWith('observations/'))).toBe(true);
    expect(dayFile(DAY, true, SERIES_FOLDER.v2)).toBe(`observations-v2/${DAY}.jsonl.gz`);
  });
  it('an archive without observations-v2/ has no v2 day and the store does not create the folder for a v1 archive', async () => {
    const dir = await goldenCopy();
    Store.open(dir, new Date().toISOString()).close();
    expect(existsSync(path.join(dir, 'observations-v2'))).toBe(false);
    expect(listDays(dir, SERIES_FOLDER.v2)).toEqual([]);
  });
});

describe('observationV2Lines(dir, day) and dayFileRowsV2(file, text)', () => {
  it('validates v2 day files with ObservationV2: the rows the store wrote come back, a v1 row is a problem', async () => {
    const dir = await withV2();
    appendFileSync(path.join(dir, 'observations-v2', `${DAY}.jsonl`), v1Line + '\n');
    const [day] = listDays(dir, SERIES_FOLDER.v2);
    const lines = [];
    for await (const l of observationV2Lines(dir, day!)) lines.push(l);
    expect(lines.map((l) => l.row?.ok)).toEqual([true, true, false]);
    expect(lines[0]!.row!.ok && lines[0]!.row!.value).toMatchObject({ target: 'a', outcome: 'no_endpoint', status: null, era: 'none', methodology_version: 'v2' });
    expect(lines[2]).toMatchObject({ file: `observations-v2/${DAY}.jsonl`, n: 3, row: { ok: false, message: expect.stringMatching(/^methodology_version: |: /) } });
    const text = readFileSync(path.join(dir, 'observations-v2', `${DAY}.jsonl`), 'utf8');
    expect(() => dayFileRowsV2(`observations-v2/${DAY}.jsonl`, text)).toThrow(InvalidArchiveError);
    expect(dayFileRowsV2('x', text.split('\n').slice(0, 2).join('\n'))).toHaveLength(2);
  });
  it('a v2 row in the v1 folder is a problem of the v1 reader (one folder, one schema)', async () => {
    const dir = await withV2();
    const v2Line = readFileSync(path.join(dir, 'observations-v2', `${DAY}.jsonl`), 'utf8').split('\n')[0]!;
    writeFileSync(path.join(dir, 'observations', `${DAY}.jsonl`), v2Line + '\n');
    const day = listDays(dir).find((d) => d.day === DAY)!;
    const lines = [];
    for await (const l of observationLines(dir, day)) lines.push(l);
    expect(lines.map((l) => l.row?.ok)).toEqual([false]);
    expect(() => dayFileRows('x', v2Line)).toThrow(InvalidArchiveError);
  });
});

describe('runs.jsonl: one row per run and series', () => {
  it('reads Run and RunV2 rows with the same run_id, each by its own schema, and runsOf filters by series', async () => {
    const dir = await withV2();
    const { runs, problems } = readRuns(dir);
    expect(problems).toEqual([]);
    const v2 = runsOf(runs, 'v2');
    expect(v2).toHaveLength(1);
    expect(v2[0]).toMatchObject({ methodology_version: 'v2', targets: 2, eligible: 1, attempts: 0, status: 'failed', outcomes: { no_endpoint: 1, not_attempted: 1 }, eras: { none: 2 }, requests: { total: 0, max: 0, mean: 0 } });
    expect(runsOf(runs, 'v1')).toEqual(readRuns(GOLDEN).runs);
    expect(runs.filter(isRunV1).length + runs.filter(isRunV2).length).toBe(runs.length);
    expect(runs.filter((r) => r.run_id === v2[0]!.run_id).map((r) => r.methodology_version)).toEqual(['v1', 'v2']);
  });
  it('a line that says v2 but lacks v2 fields is a problem naming the field; a v1 row with v2 fields is refused too', async () => {
    const dir = await goldenCopy();
    const v1 = readFileSync(path.join(dir, 'runs.jsonl'), 'utf8').split('\n')[0]!;
    const row = JSON.parse(v1) as Record<string, unknown>;
    appendFileSync(path.join(dir, 'runs.jsonl'), JSON.stringify({ ...row, methodology_version: 'v2' }) + '\n' + JSON.stringify({ ...row, statuses: {} }) + '\n');
    const { problems } = readRuns(dir);
    expect(problems.map((p) => p.line)).toEqual([6, 7]);
    // Validated by RunV2 (whose outcome counts must name not_attempted, unlike old v1 rows).
    expect(problems[0]!.message).toMatch(/^(outcomes.not_attempted|statuses|eras|requests)/);
    expect(problems[1]!.message).toMatch(/statuses|Unrecognized/);
  });
});

describe('Store.open: crash repair per series', () => {
  it('cuts a torn last line of a v2 day file into quarantine/, as for v1', async () => {
    const dir = await withV2();
    const file = path.join(dir, 'observations-v2', `${DAY}.jsonl`);
    const before = readFileSync(file, 'utf8');
    appendFileSync(file, '{"run_id":"torn');
    Store.open(dir, new Date().toISOString()).close();
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(path.join(dir, 'quarantine')).filter((f) => f.startsWith('observations-v2_'))).toHaveLength(1);
  });
});
