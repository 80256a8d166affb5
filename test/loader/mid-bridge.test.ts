// The loader on an archive that holds both methodology series while the bridge is not complete (three
// bridge days of fourteen): the headline is v1, so every figure it derives is the same as on the same
// archive with the v2 series taken out — no v2 row or v2 run row leaks into v1's statistics. After the
// bridge: test/loader/headline.test.ts.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { collectArchive } from '../helpers/archive.ts';

let both: string;
let v1Only: string;
let a: Archive;
let b: Archive;

beforeAll(async () => {
  both = await collectArchive({ seed: 'loader-series', size: 60, days: 3, methodology: 'v1,v2' });
  v1Only = mkdtempSync(join(tmpdir(), 'mcps-loader-v1only-'));
  cpSync(both, v1Only, { recursive: true });
  rmSync(join(v1Only, 'observations-v2'), { recursive: true });
  const runs = readFileSync(join(both, 'runs.jsonl'), 'utf8').trimEnd().split('\n');
  writeFileSync(join(v1Only, 'runs.jsonl'), runs.filter((l) => (JSON.parse(l) as { methodology_version: string }).methodology_version === 'v1').join('\n') + '\n');
  a = await loadArchive(both);
  b = await loadArchive(v1Only);
}, 120_000);
afterAll(() => {
  for (const d of [both, v1Only]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('loadArchive(dir) on an archive with both series', () => {
  it('holds a v2 series to leave out: three v2 run rows and v2 day files', () => {
    const runs = readFileSync(join(both, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { methodology_version: string });
    expect(runs.map((r) => r.methodology_version)).toEqual(['v1', 'v2', 'v1', 'v2', 'v1', 'v2']);
  });
  it('reads the v1 run rows and v1 rows only: the same runs, rows, servers, changes and figures as without the v2 series', () => {
    expect(a.problems).toEqual([]);
    expect(a.runs.map((r) => r.methodology_version)).toEqual(['v1', 'v1', 'v1']);
    expect(a.runs).toEqual(b.runs);
    expect(a.methodologyVersions).toEqual(['v1']);
    expect(a.rowCount).toBe(b.rowCount);
    expect(a.days).toEqual(b.days);
    expect(a.dayFiles.flatMap((d) => d.files).every((f) => f.startsWith('observations/'))).toBe(true);
    expect(a.servers.map((s) => [s.slug, JSON.stringify(s)])).toEqual(b.servers.map((s) => [s.slug, JSON.stringify(s)]));
    expect(a.changes.length).toBe(b.changes.length);
    expect(JSON.stringify([a.tiles, a.errorShares, a.halfLife, a.km, a.latestFullRun])).toBe(JSON.stringify([b.tiles, b.errorShares, b.halfLife, b.km, b.latestFullRun]));
  });
});
