// src/archive/rosters.ts: the one reader of roster files.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NOT_JSON } from '../../src/archive/problems.ts';
import { listRosterFiles, readRoster, rosterEntries } from '../../src/archive/rosters.ts';
import { cleanUp, GOLDEN, goldenCopy } from '../helpers/golden-archive.ts';

afterAll(cleanUp);

describe('listRosterFiles(dir), rosterEntries(dir)', () => {
  it('lists roster files by name; entries include what is not one (verify reports those)', async () => {
    const dir = await goldenCopy();
    writeFileSync(path.join(dir, 'rosters', '.2025-12-20.tmp-1-ab'), '');
    expect(listRosterFiles(dir)).toEqual(['2025-12-15.json', '2025-12-16.json', '2025-12-17.json', '2025-12-18.json', '2025-12-19.json']);
    expect(rosterEntries(dir)[0]).toBe('.2025-12-20.tmp-1-ab');
  });
});

describe('readRoster(dir, file)', () => {
  it('validates a collector-written roster', () => {
    const r = readRoster(GOLDEN, '2025-12-15.json');
    expect(r.ok && r.value.complete).toBe(true);
  });
  it('refuses a name that could leave rosters/, and says why a file is unreadable or invalid', async () => {
    const dir = await goldenCopy();
    expect(readRoster(dir, '../runs.jsonl')).toEqual({ ok: false, message: 'not a roster file name' });
    expect(readRoster(dir, '2099-01-01.json')).toEqual({ ok: false, message: 'unreadable (ENOENT)' });
    writeFileSync(path.join(dir, 'rosters', 'a.json'), '{');
    writeFileSync(path.join(dir, 'rosters', 'b.json'), '{"day":"x"}');
    expect(readRoster(dir, 'a.json')).toEqual({ ok: false, message: NOT_JSON });
    expect(readRoster(dir, 'b.json')).toMatchObject({ ok: false, message: expect.stringMatching(/^day: /) });
  });
});
