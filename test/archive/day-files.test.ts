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

describe('the line reading every reader shares', () => {
  const read = async (dir: string, day: { day: string; files: string[] }) => {
    const out: { line: string; file: string; n: number }[] = [];
    for await (const x of readDayLines(dir, day)) out.push(x);
    return out;
  };
  const scan = async (dir: string, day: { day: string; files: string[] }, wanted: (n: number) => boolean) => {
    const out: (string | null)[] = [];
    for await (const t of scanDayLines(dir, day, wanted)) out.push(t);
    return out;
  };

  it('readDayLines numbers each file\'s lines from 1, gzipped part first', async () => {
    const dir = await tmp();
    await writeFile(path.join(dir, 'd.jsonl.gz'), gzipSync('a\nb\n'));
    await writeFile(path.join(dir, 'd.jsonl'), 'c\n');
    expect(await read(dir, { day: 'd', files: ['d.jsonl.gz', 'd.jsonl'] })).toEqual([
      { line: 'a', file: 'd.jsonl.gz', n: 1 },
      { line: 'b', file: 'd.jsonl.gz', n: 2 },
      { line: 'c', file: 'd.jsonl', n: 1 },
    ]);
    await rm(dir, { recursive: true });
  });

  it('scanDayLines reads a gzipped part through its gzip, numbers lines across files from 1, and keeps an empty line and a last line without LF', async () => {
    const dir = await tmp();
    await writeFile(path.join(dir, 'd.jsonl.gz'), gzipSync('\nx\n'));
    await writeFile(path.join(dir, 'd.jsonl'), 'y\nz');
    const day = { day: 'd', files: ['d.jsonl.gz', 'd.jsonl'] };
    expect(await scan(dir, day, () => true)).toEqual(['', 'x', 'y', 'z']);
    expect((await read(dir, day)).map((x) => x.line)).toEqual(['', 'x', 'y', 'z']);
    // Numbered 1, 2, 3, 4: only the first and the third are decoded.
    expect(await scan(dir, day, (n) => n === 1 || n === 3)).toEqual(['', null, 'y', null]);
    await rm(dir, { recursive: true });
  });

  it('scanDayLines falls back to readline when any one file of the day holds a CR', async () => {
    const dir = await tmp();
    await writeFile(path.join(dir, 'd.jsonl.gz'), gzipSync('a\n'));
    await writeFile(path.join(dir, 'd.jsonl'), 'b\rc\n');
    expect(await scan(dir, { day: 'd', files: ['d.jsonl.gz', 'd.jsonl'] }, () => true)).toEqual(['a', 'b', 'c']);
    await rm(dir, { recursive: true });
  });

  it('readLines rejects a missing file, plain or gzipped (it does not hang)', async () => {
    const dir = await tmp();
    for (const name of ['gone.jsonl', 'gone.jsonl.gz']) {
      await expect((async () => {
        for await (const _ of readLines(path.join(dir, name))) void _;
      })()).rejects.toMatchObject({ code: 'ENOENT' });
    }
    await rm(dir, { recursive: true });
  });

  it('listDays reads a series folder laid out the same way', async () => {
    const dir = await tmp();
    const { mkdir } = await import('node:fs/promises');
    await mkdir(path.join(dir, 'observations-v2'));
    await writeFile(path.join(dir, 'observations-v2', '2026-01-02.jsonl'), '');
    await writeFile(path.join(dir, 'observations-v2', '2026-01-01.jsonl.gz'), gzipSync(''));
    expect(listDays(dir, 'observations-v2')).toEqual([
      { day: '2026-01-01', files: ['observations-v2/2026-01-01.jsonl.gz'] },
      { day: '2026-01-02', files: ['observations-v2/2026-01-02.jsonl'] },
    ]);
    expect(listDays(dir)).toEqual([]);
    await rm(dir, { recursive: true });
  });
});
