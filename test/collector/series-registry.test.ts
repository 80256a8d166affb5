// The series seam (collector/series/): runCollector loops over the series it records and touches no
// other. A run recording v2 alone, given a v1 whose every member throws, finishes and writes no v1 file;
// the near miss, the same poisoned v1 in a run of both series, fails on it. A series missing from the
// registry (retired) is a usage error before anything is written. Against the loopback world.
import fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../collector/cli-error.ts';
import { runCollector, type CollectorOptions } from '../../collector/run.ts';
import { RECORDED_SERIES, seriesFor } from '../../collector/series/registry.ts';
import type { RecordedSeries } from '../../collector/series/series.ts';
import { v1Series } from '../../collector/series/v1.ts';
import { v2Series } from '../../collector/series/v2.ts';
import { SERIES_FOLDER } from '../../src/archive/layout.ts';
import { readRuns } from '../../src/archive/runs.ts';
import { startWorld, tmpData, type World } from './world.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld({ endpoints: 4, hostCount: 2 });
});
afterAll(async () => {
  await world?.close();
});

/** v1 with every member a trap: any call (or property read past `id`) throws. */
const touched: string[] = [];
const poisonedV1 = new Proxy(v1Series, {
  get(target, key, receiver) {
    if (key === 'id') return target.id;
    touched.push(String(key));
    throw new Error(`v1 touched: ${String(key)}`);
  },
}) as RecordedSeries;

const now = new Date(Date.UTC(2026, 11, 1, 3, 15, 0));
const collect = (data: string, extra: Partial<CollectorOptions>) =>
  runCollector({ registry: world.registry.url, data, allowPrivate: true, now, timeoutMs: 3000, optout: null, rosterLimits: { backoffMs: 5 }, ...extra });

describe('the series registry', () => {
  it('lists v2 before v1 (a job probes the newer series first), each once', () => {
    expect(RECORDED_SERIES.map((s) => s.id)).toEqual(['v2', 'v1']);
    expect(seriesFor(['v1', 'v2']).map((s) => s.id)).toEqual(['v2', 'v1']);
  });

  it('a run recording only v2 never touches v1: it finishes, writes v2 rows and no observations/ file', async () => {
    const data = tmpData();
    touched.length = 0;
    const s = await collect(data, { methodology: 'v2', series: [v2Series, poisonedV1] });
    expect(touched).toEqual([]);
    expect(s.series).toEqual(['v2']);
    expect(readRuns(data).runs.map((r) => r.methodology_version)).toEqual(['v2']);
    expect(fs.readdirSync(join(data, SERIES_FOLDER.v1))).toEqual([]);
    expect(fs.readdirSync(join(data, SERIES_FOLDER.v2))).toEqual(['2026-12-01.jsonl']);
  });

  it('near miss: the same poisoned v1 in a run of both series is touched and the run fails', async () => {
    touched.length = 0;
    await expect(collect(tmpData(), { methodology: 'v1,v2', series: [v2Series, poisonedV1] })).rejects.toThrow(/v1 touched/);
    expect(touched.length).toBeGreaterThan(0);
  });

  it('a retired series (absent from the registry) is a usage error, and nothing is written', async () => {
    const data = tmpData();
    await expect(collect(data, { methodology: 'v1', series: [v2Series] })).rejects.toMatchObject({ exitCode: EXIT.usage, message: expect.stringMatching(/series v1 is not recorded/) });
    expect(fs.existsSync(join(data, 'rosters')) ? fs.readdirSync(join(data, 'rosters')) : []).toEqual([]);
    expect(fs.existsSync(join(data, 'runs.jsonl'))).toBe(false);
  });
});
