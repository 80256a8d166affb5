// Editions of an archive that records both methodology series: a run has two run rows naming one
// roster; an edition is cut from a v1 run, and its view of the archive holds both series up to that
// run, so the loader draws the headline there as the site did then (stitched once the bridge is complete).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveCutAt } from '../../src/editions/cut-view.ts';
import { cutEdition } from '../../src/editions/cut-edition.ts';
import { generateKeyPair } from '../../collector/ops/keys.ts';
import { collectArchive } from '../helpers/archive.ts';
import { TEST_PUBLICATION } from '../helpers/publication.ts';

const key = generateKeyPair('test');
let archive: string;

beforeAll(async () => {
  archive = await collectArchive({ seed: 'editions-series', size: 24, days: 2, signer: key.signer, methodology: 'v1,v2' });
}, 120_000);
afterAll(() => {
  if (archive) rmSync(archive, { recursive: true, force: true });
});

/** Every citation form of an edition names `methodology` (the figures' method, not the run row's). */
function expectStitched(ed: string, methodology: string): void {
  const read = (f: string) => readFileSync(path.join(ed, f), 'utf8');
  expect((JSON.parse(read('edition.json')) as { methodology: string }).methodology).toBe(methodology);
  expect(read('CITATION.cff')).toContain(`Methodology ${methodology}.`);
  expect(read('citation.txt')).toContain(`Methodology ${methodology}.`);
  expect(read('citation.bib')).toContain(`Methodology ${methodology}.`);
  expect(read('schema-survival.svg')).toContain(`Methodology ${methodology}`);
  expect(read('index.html')).toContain(`Methodology ${methodology}.`);
  expect(read('tiles.json')).toContain(`"methodology": "${methodology}"`);
  for (const f of ['edition.json', 'CITATION.cff', 'citation.txt', 'citation.bib', 'schema-survival.svg', 'index.html', 'README.md']) expect(read(f), f).not.toMatch(/[Mm]ethodology"?:? "?v1\b(?!,)/);
}

describe('editions with both series', () => {
  it('cuts a view at a run that recorded both series: each roster linked once, both run rows kept, both series\' rows up to the run', async () => {
    const runs = readFileSync(path.join(archive, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { run_id: string; methodology_version: string });
    expect(runs.map((r) => r.methodology_version)).toEqual(['v1', 'v2', 'v1', 'v2']);
    const view = await archiveCutAt(archive, runs[2]!.run_id, null);
    try {
      expect(readdirSync(path.join(view.dir, 'rosters')).sort()).toEqual(readdirSync(path.join(archive, 'rosters')).sort());
      expect(readFileSync(path.join(view.dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(4);
      // Both series folders, each holding exactly the rows of the runs up to the cut (the loader of
      // the view reads v2 beside v1: /statistics/ and the bridge note as of the run).
      const allowed = new Set(runs.slice(0, 4).map((r) => r.run_id));
      for (const folder of ['observations', 'observations-v2']) {
        const rowsIn = (dir: string) => readdirSync(path.join(dir, folder)).sort().flatMap((f) => readFileSync(path.join(dir, folder, f), 'utf8').trimEnd().split('\n').filter(Boolean));
        const want = rowsIn(archive).filter((l) => allowed.has((JSON.parse(l) as { run_id: string }).run_id));
        expect(want.length, folder).toBeGreaterThan(0);
        expect(rowsIn(view.dir), folder).toEqual(want);
      }
    } finally {
      view.remove();
    }
  });

  it('cuts the month from its first full v1 run', async () => {
    const ed = await cutEdition(archive, { month: '2025-12', pub: TEST_PUBLICATION, signer: key.signer, cache: null, release: null, now: new Date('2025-12-17T12:00:00Z') });
    expect(ed).toMatchObject({ status: 'cut', id: '2025-12' });
    const edition = JSON.parse(readFileSync(path.join(archive, 'editions', '2025-12', 'edition.json'), 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(edition)).toContain('"methodology":"v1"');
  });

  it('cut from a v1 run row once the bridge is complete, names the stitched series its figures rest on (the demo\'s case)', async () => {
    const runs = readFileSync(path.join(archive, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { day: string });
    const copy = mkdtempSync(path.join(os.tmpdir(), 'edition-v1-row-'));
    try {
      cpSync(archive, copy, { recursive: true });
      rmSync(path.join(copy, 'editions'), { recursive: true, force: true });
      // Both series on every day: with a one-day bridge the headline is stitched from the first day on.
      expect(await cutEdition(copy, { month: '2025-12', pub: TEST_PUBLICATION, signer: key.signer, cache: null, release: null, now: new Date('2025-12-17T12:00:00Z'), bridgeDays: 1 })).toMatchObject({ status: 'cut' });
      const ed = path.join(copy, 'editions', '2025-12');
      const edition = JSON.parse(readFileSync(path.join(ed, 'edition.json'), 'utf8')) as { cut_from_run: string };
      expect(readFileSync(path.join(copy, 'runs.jsonl'), 'utf8')).toContain(`"run_id":"${edition.cut_from_run}"`);
      expectStitched(ed, `v2, stitched onto v1 before ${runs[0]!.day}`);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);

  it('after the bridge, when v2 runs alone, cuts the month from its first full v2 run and publishes the v2 rows', async () => {
    // Dec 31 records both series (a 1-day bridge), Jan 1 and 2 record v2 alone.
    const dir = await collectArchive({ seed: 'editions-after-bridge', size: 24, days: 3, firstDay: 16, signer: key.signer, methodology: 'auto', bridgeDays: 1 });
    try {
      const runs = readFileSync(path.join(dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { run_id: string; day: string; methodology_version: string });
      expect(runs.map((r) => `${r.day} ${r.methodology_version}`)).toEqual(['2025-12-31 v1', '2025-12-31 v2', '2026-01-01 v2', '2026-01-02 v2']);
      const ed = await cutEdition(dir, { month: '2026-01', pub: TEST_PUBLICATION, signer: key.signer, cache: null, release: null, now: new Date('2026-01-02T12:00:00Z') });
      expect(ed).toMatchObject({ status: 'cut', id: '2026-01' });
      const ed2601 = path.join(dir, 'editions', '2026-01');
      const edition = JSON.parse(readFileSync(path.join(ed2601, 'edition.json'), 'utf8')) as { methodology: string; cut_from_run: string; bundles: { name: string; resource: string; rows: number }[] };
      // Cut with the default 14-day bridge the headline is still v1's (one bridge day): the figures are v1's.
      expect(edition.methodology).toBe('v1');
      // With the bridge the collector used (one day), the headline is stitched: every citation form says so.
      const dir1 = mkdtempSync(path.join(os.tmpdir(), 'edition-bridge-'));
      try {
        cpSync(dir, dir1, { recursive: true });
        rmSync(path.join(dir1, 'editions'), { recursive: true, force: true });
        expect(await cutEdition(dir1, { month: '2026-01', pub: TEST_PUBLICATION, signer: key.signer, cache: null, release: null, now: new Date('2026-01-02T12:00:00Z'), bridgeDays: 1 })).toMatchObject({ status: 'cut' });
        expectStitched(path.join(dir1, 'editions', '2026-01'), 'v2, stitched onto v1 before 2025-12-31');
      } finally {
        rmSync(dir1, { recursive: true, force: true });
      }
      expect(edition.cut_from_run).toBe(runs[2]!.run_id);
      // The v2 rows, counted here from the archive's files: December's whole, January's up to the run.
      const lines = (day: string) => readFileSync(path.join(dir, 'observations-v2', `${day}.jsonl`), 'utf8').trimEnd().split('\n').length;
      const v2 = edition.bundles.filter((b) => b.resource === 'observations-v2');
      expect(v2.map((b) => [b.name, b.rows])).toEqual([
        ['observations-v2-2025-12.jsonl.gz', lines('2025-12-31')],
        ['observations-v2-2026-01-to-2026-01-01.jsonl.gz', lines('2026-01-01')],
      ]);
      for (const b of v2) expect(readFileSync(path.join(dir, 'editions', '2026-01', 'bundles', b.name)).length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
