// src/archive/runs.ts: the one reader of runs.jsonl.
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NOT_JSON } from '../../src/archive/problems.ts';
import { readRuns, runLines } from '../../src/archive/runs.ts';
import { cleanUp, GOLDEN, goldenCopy } from '../helpers/golden-archive.ts';

afterAll(cleanUp);

describe('readRuns(dir)', () => {
  it('reads every run of a collector-written archive, in file order', () => {
    const { runs, problems } = readRuns(GOLDEN);
    expect(problems).toEqual([]);
    expect(runs.map((r) => r.run_id)).toEqual(readFileSync(path.join(GOLDEN, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { run_id: string }).run_id));
  });
  it('skips a blank line and lists a torn one and one the contract refuses, by line number', async () => {
    const dir = await goldenCopy();
    appendFileSync(path.join(dir, 'runs.jsonl'), '\n{"run_id":"x"}\n{"run_id":"2025-12-');
    const { runs, problems } = readRuns(dir);
    expect(runs).toHaveLength(5);
    expect(problems).toEqual([
      { file: 'runs.jsonl', line: 7, message: expect.stringMatching(/^day: /) },
      { file: 'runs.jsonl', line: 8, message: NOT_JSON },
    ]);
    expect(runLines(dir)[5]).toEqual({ n: 6, row: null });
  });
  it('finds no run in an archive without runs.jsonl', async () => {
    const dir = await goldenCopy();
    rmSync(path.join(dir, 'runs.jsonl'));
    expect(readRuns(dir)).toEqual({ runs: [], problems: [] });
  });
});
