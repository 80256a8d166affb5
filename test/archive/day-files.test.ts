// src/archive/day-files.ts: how a day is split over files and what a line is, for every reader.
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { listDays, readDayLines, readLines, scanDayLines, splitLines, tornLastLine } from '../../src/archive/day-files.ts';
import { cleanUp, goldenCopy } from '../helpers/golden-archive.ts';

afterAll(cleanUp);

const tmp = () => mkdtemp(path.join(os.tmpdir(), 'mcp-schema-lines-'));

describe('listDays(dir)', () => {
  it('lists days oldest first, the gzipped part of a day before its plain part, and ignores other files', async () => {
    const dir = await goldenCopy();
    const obs = path.join(dir, 'observations');
    writeFileSync(path.join(obs, '2025-12-16.jsonl.gz'), gzipSync(''));
    writeFileSync(path.join(obs, '2025-12-16.jsonl.tmp-1-ab'), '');
    writeFileSync(path.join(obs, 'notes.txt'), '');
    const days = listDays(dir);
    expect(days.map((d) => d.day)).toEqual(['2025-12-15', '2025-12-16', '2025-12-17', '2025-12-18', '2025-12-19']);
    expect(days[1]!.files).toEqual(['observations/2025-12-16.jsonl.gz', 'observations/2025-12-16.jsonl']);
  });
  it('finds no day in a folder without observations/', async () => {
    const dir = await tmp();
    expect(listDays(dir)).toEqual([]);
    await rm(dir, { recursive: true });
  });
});

describe('splitLines(text) reads a file held whole as readLines streams it', () => {
  it('for any text of LF, CR, CRLF and other characters (property)', async () => {
    const dir = await tmp();
    const file = path.join(dir, 'x.jsonl');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', '{}', ' ', '\n', '\r', '\r\n', 'é')).map((p) => p.join('')), async (text) => {
        await writeFile(file, text);
        const streamed: string[] = [];
        for await (const l of readLines(file)) streamed.push(l);
        expect(splitLines(text)).toEqual(streamed);
      }),
      { numRuns: 200 },
    );
    await rm(dir, { recursive: true });
  });
});

describe('scanDayLines(dir, day, wanted)', () => {
  it('numbers lines across a day\'s files as readDayLines does and decodes only the wanted ones', async () => {
    const dir = await goldenCopy();
    const day = listDays(dir)[2]!;
    const all: string[] = [];
    for await (const { line } of readDayLines(dir, day)) all.push(line);
    const scanned: (string | null)[] = [];
    for await (const t of scanDayLines(dir, day, (n) => n % 2 === 0)) scanned.push(t);
    expect(scanned.length).toBe(all.length);
    expect(scanned).toEqual(all.map((l, i) => ((i + 1) % 2 === 0 ? l : null)));
  });
  it('falls back to readline\'s line breaks when a file holds a CR', async () => {
    const dir = await tmp();
    await writeFile(path.join(dir, 'a.jsonl'), 'x\ry\r\nz');
    const got: (string | null)[] = [];
    for await (const t of scanDayLines(dir, { day: 'd', files: ['a.jsonl'] }, () => true)) got.push(t);
    expect(got).toEqual(['x', 'y', 'z']);
    await rm(dir, { recursive: true });
  });
});

describe('tornLastLine(path): the torn-line rule', () => {
  it.each([
    ['', false],
    ['{"a":1}\n', false],
    ['{"a":1}\n{"a"', true],
    ['{"a":1}', true],
  ])('%j → %s', async (text, torn) => {
    const dir = await tmp();
    await writeFile(path.join(dir, 'f'), text);
    expect(tornLastLine(path.join(dir, 'f'))).toBe(torn);
    await rm(dir, { recursive: true });
  });
});
