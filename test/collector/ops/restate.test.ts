// npm run restate on a collector-written archive of simulated days.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restate } from '../../../collector/ops/restate.ts';
import { Observation } from '../../../src/lib/index.ts';
import { collectArchive } from '../../helpers/archive.ts';

let dir: string;
const snapshot = (d: string) =>
  readdirSync(join(d, 'observations'))
    .sort()
    .map((f) => [f, readFileSync(join(d, 'observations', f), 'utf8')] as const);

beforeAll(async () => {
  dir = await collectArchive({ seed: 'restate', size: 80, days: 10 });
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('restate(dataDir, series)', () => {
  it('under v1 reproduces every recorded hash from the raw objects', async () => {
    const before = snapshot(dir);
    const m = await restate(dir, 'v1');
    expect(m.ok_rows).toBeGreaterThan(0);
    expect(m.differing_rows).toBe(0);
    expect(m.unreadable_rows).toBe(0);
    expect(m.restated).toEqual(m.original);
    // The recorded rows are untouched.
    expect(snapshot(dir)).toEqual(before);
  });

  it('under v1-contract writes a second series whose changes are a subset of v1 changes', async () => {
    const before = snapshot(dir);
    const m = await restate(dir, 'v1-contract');
    const out = join(dir, 'restatements', 'v1-contract');
    expect(statSync(join(out, 'manifest.json')).isFile()).toBe(true);
    expect(readdirSync(join(out, 'observations')).sort()).toEqual(before.map(([f]) => f));
    const rows = readFileSync(join(out, 'observations', before[0]![0]), 'utf8').trim().split('\n').map((l) => Observation.parse(JSON.parse(l)));
    expect(rows.every((r) => r.methodology_version === 'v1-contract')).toBe(true);
    expect(m.source_rows).toBe(before.reduce((n, [, text]) => n + text.trim().split('\n').length, 0));
    // Every contract-tier change is also a v1 change; description-only edits vanish from the series.
    expect(m.original.changes).toBeGreaterThan(0);
    expect(m.restated.changes).toBeLessThanOrEqual(m.original.changes);
    expect(m.differing_rows).toBe(m.ok_rows); // a different hash function: every ok row's hash differs
    expect(snapshot(dir)).toEqual(before);
    // The series was built in a temp folder and renamed into place: nothing of it is left beside.
    expect(readdirSync(join(dir, 'restatements')).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('refuses an unknown series with a clear message', async () => {
    await expect(restate(dir, 'v9')).rejects.toThrow(/unknown methodology series "v9"; known: v1, v1-contract/);
  });
});
