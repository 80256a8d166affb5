// src/archive/observations.ts: the one reader of observation rows, on collector-written day files and
// on copies damaged the ways real ones get damaged.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listDays } from '../../src/archive/day-files.ts';
import { dayFileRows, observationLines, parseObservation, rowsAtLines } from '../../src/archive/observations.ts';
import { InvalidArchiveError, NOT_JSON } from '../../src/archive/problems.ts';
import { cleanUp, GOLDEN, goldenCopy } from '../helpers/golden-archive.ts';

afterAll(cleanUp);

const FILE = 'observations/2025-12-17.jsonl';
const text = readFileSync(path.join(GOLDEN, FILE), 'utf8');
const firstLine = text.split('\n')[0]!;

describe('parseObservation(text)', () => {
  it('returns a collector-written row as it was written', () => {
    const row = parseObservation(firstLine);
    expect(row.ok && JSON.stringify(row.value)).toBe(firstLine);
  });
  it('says "not json" for a torn line and names the first issue of a row the contract refuses', () => {
    expect(parseObservation(firstLine.slice(0, 40))).toEqual({ ok: false, message: NOT_JSON });
    const row = JSON.parse(firstLine) as Record<string, unknown>;
    expect(parseObservation(JSON.stringify({ ...row, outcome: 'maybe' }))).toMatchObject({ ok: false, message: expect.stringMatching(/^outcome: /) });
    // A rule over the whole row has no path: the message starts at the colon.
    expect(parseObservation(JSON.stringify({ ...row, outcome: 'ok', error_class: 'timeout' }))).toMatchObject({ ok: false, message: expect.stringMatching(/^: /) });
  });
  it('cuts a message to 300 characters (registry text in an issue is unvetted)', () => {
    const row = JSON.parse(firstLine) as Record<string, unknown>;
    const r = parseObservation(JSON.stringify({ ...row, [`x${'y'.repeat(500)}`]: 1 }));
    expect(!r.ok && r.message.length).toBe(300);
  });
});

describe('observationLines(dir, day, opts?)', () => {
  it('numbers lines per file and across the day, gives blank lines no row, and lists the rest as rows or problems', async () => {
    const dir = await goldenCopy();
    appendFileSync(path.join(dir, FILE), `\n${firstLine.slice(0, 30)}`);
    const day = listDays(dir).find((d) => d.day === '2025-12-17')!;
    const lines = [];
    for await (const l of observationLines(dir, day)) lines.push(l);
    const n = text.split('\n').length - 1;
    expect(lines).toHaveLength(n + 2);
    expect(lines.slice(0, n).every((l) => l.row?.ok)).toBe(true);
    expect(lines[n]).toMatchObject({ file: FILE, n: n + 1, line: n + 1, row: null });
    expect(lines[n + 1]).toMatchObject({ n: n + 2, row: { ok: false, message: NOT_JSON } });
  });
  it('trusted: parses without validating (for days the loader found clean), still refusing non-JSON', async () => {
    const dir = await goldenCopy();
    const row = JSON.parse(firstLine) as Record<string, unknown>;
    writeFileSync(path.join(dir, FILE), `${JSON.stringify({ ...row, outcome: 'maybe' })}\n{torn`);
    const day = listDays(dir).find((d) => d.day === '2025-12-17')!;
    const got = [];
    for await (const l of observationLines(dir, day, { trusted: true })) got.push(l.row);
    expect(got).toEqual([{ ok: true, value: { ...row, outcome: 'maybe' } }, { ok: false, message: NOT_JSON }]);
  });
});

describe('rowsAtLines(dir, day, lines, alsoRun?)', () => {
  it('reads back the asked lines whole, and every row of a run', async () => {
    const day = listDays(GOLDEN).find((d) => d.day === '2025-12-17')!;
    const rows = text.trim().split('\n');
    const { byLine, ofRun } = await rowsAtLines(GOLDEN, day, new Set([1, 3]), '2025-12-17T031500Z');
    expect([...byLine.keys()]).toEqual([1, 3]);
    expect(JSON.stringify(byLine.get(3))).toBe(rows[2]);
    expect(ofRun).toHaveLength(rows.length);
  });
});

describe('dayFileRows(file, text)', () => {
  it('gives every row of an open day file, and throws naming the file and line of one that does not validate', () => {
    expect(dayFileRows(FILE, text)).toHaveLength(text.trim().split('\n').length);
    const bad = `${firstLine}\n{"run_id":"x"}\n`;
    expect(() => dayFileRows(FILE, bad)).toThrow(InvalidArchiveError);
    expect(() => dayFileRows(FILE, bad)).toThrow(`${FILE}:2: `);
  });
});
