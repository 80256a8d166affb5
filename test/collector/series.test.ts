// runCollector with both methodology series: a v1,v2 run writes both day files
// and two run rows with the same run_id; `auto` records both until the bridge is complete (read off
// runs.jsonl), then v2 alone; a job skipped by the schedule gets a not_attempted row in both series; a
// resumed run completes each series without duplicates. Against the loopback world (SDK v1 servers
// on real listings) with two of its endpoints swapped for era-zoo servers (SDK v2 modern-only and
// dual-era), so v1 and v2 disagree where they should.
import fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../collector/cli.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { runCollector, type CollectorOptions } from '../../collector/run.ts';
import { listDays } from '../../src/archive/day-files.ts';
import { objectPath, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { readRuns } from '../../src/archive/runs.ts';
import { bridgeDays, bridgeTable, Observation, ObservationV2, type AnyRun } from '../../src/lib/index.ts';
import { startEraZoo, type EraZoo } from '../../sandbox/era-servers.ts';
import { startWorld, tmpData, type World } from './world.ts';

let world: World;
let zoo: EraZoo<'sdk-v2-modern-only' | 'sdk-v2-dual-era'>;
let modernOnly: string;
let dualEra: string;

beforeAll(async () => {
  zoo = await startEraZoo({ cases: ['sdk-v2-modern-only', 'sdk-v2-dual-era'] });
  world = await startWorld({ endpoints: 8, hostCount: 3, urlFor: (i, url) => (i === 0 ? zoo.urls['sdk-v2-modern-only'] : i === 1 ? zoo.urls['sdk-v2-dual-era'] : url) });
  const byUrl = new Map([...world.endpoints].map(([name, url]) => [url, name]));
  modernOnly = byUrl.get(zoo.urls['sdk-v2-modern-only'])!;
  dualEra = byUrl.get(zoo.urls['sdk-v2-dual-era'])!;
});
afterAll(async () => {
  await world?.close();
  await zoo?.close();
});

const day = (d: number) => new Date(Date.UTC(2026, 11, d, 3, 15, 0));
const collect = (data: string, d: number, extra: Partial<CollectorOptions> = {}) =>
  runCollector({ registry: world.registry.url, data, allowPrivate: true, now: day(d), timeoutMs: 3000, optout: null, rosterLimits: { backoffMs: 5 }, ...extra });
const file = (data: string, series: 'v1' | 'v2', d: number) => join(data, SERIES_FOLDER[series], `${day(d).toISOString().slice(0, 10)}.jsonl`);
const lines = (path: string) => (fs.existsSync(path) ? fs.readFileSync(path, 'utf8').trimEnd().split('\n').filter(Boolean) : []);
const v1Rows = (data: string, d: number) => lines(file(data, 'v1', d)).map((l) => Observation.parse(JSON.parse(l)));
const v2Rows = (data: string, d: number) => lines(file(data, 'v2', d)).map((l) => ObservationV2.parse(JSON.parse(l)));
const runsIn = (data: string): AnyRun[] => {
  const { runs, problems } = readRuns(data);
  expect(problems).toEqual([]);
  return runs;
};

describe('runCollector({ methodology: "v1,v2" })', () => {
  it('writes both day files, one row per target in each, and two run rows with the same run_id', async () => {
    const data = tmpData();
    const s = await collect(data, 1, { methodology: 'v1,v2' });
    expect(s.series).toEqual(['v1', 'v2']);
    const a = v1Rows(data, 1);
    const b = v2Rows(data, 1);
    const targets = [...new Set(world.entries.map((e) => e.server.name))].sort();
    expect(a.map((r) => r.target).sort()).toEqual(targets);
    expect(b.map((r) => r.target).sort()).toEqual(targets);
    const runs = runsIn(data);
    expect(runs.map((r) => [r.run_id, r.methodology_version])).toEqual([
      ['2026-12-01T031500Z', 'v1'],
      ['2026-12-01T031500Z', 'v2'],
    ]);
    expect(s.runs).toEqual(runs);
    const [r1, r2] = runs as [AnyRun, AnyRun];
    expect(r2.eligible).toBe(r1.eligible);
    expect(r2.targets).toBe(r1.targets);
    expect(r2.roster_file).toBe(r1.roster_file);
    // What each series sees: the modern-only server is ok in v2 only, the dual-era one in both.
    const v1Of = (n: string) => a.find((r) => r.target === n)!;
    const v2Of = (n: string) => b.find((r) => r.target === n)!;
    expect(v2Of(modernOnly)).toMatchObject({ outcome: 'ok', status: 'ok', era: 'modern', protocol_version: '2026-07-28' });
    expect(v1Of(modernOnly)).toMatchObject({ outcome: 'error', error_class: 'http_4xx' });
    expect(v2Of(dualEra)).toMatchObject({ outcome: 'ok', era: 'modern' });
    expect(v1Of(dualEra)).toMatchObject({ outcome: 'ok' });
    // The SDK v1 servers: legacy in v2, ok in both, and the same contract hash (one page).
    const legacy = b.filter((r) => r.era === 'legacy');
    expect(legacy.length).toBe(world.endpoints.size - 2);
    for (const r of legacy) expect(r.tools_sha256).toBe(v1Of(r.target).tools_sha256);
    // Every body a v2 row names is stored.
    for (const r of b.filter((x) => x.outcome === 'ok')) for (const sha of [r.handshake_sha256!, ...r.tools_pages_sha256!]) expect(fs.existsSync(objectPath(data, sha))).toBe(true);
    expect(r2).toMatchObject({ statuses: { ok: world.endpoints.size }, eras: { modern: 2, legacy: world.endpoints.size - 2 } });
    expect((r2 as { requests: { max: number } }).requests.max).toBeLessThanOrEqual(8);
    const t = bridgeTable(a, b);
    expect(t.newlyVisible).toEqual([modernOnly]);
    expect(t.cells).toContainEqual({ v1: 'http_4xx', v2: 'ok', count: 1 });
    expect(listDays(data, SERIES_FOLDER.v2).map((d) => d.files)).toEqual([['observations-v2/2026-12-01.jsonl']]);
  });

  it('a job the schedule skips (deadline) gets a not_attempted row in both series, for the same targets', async () => {
    const data = tmpData();
    const s = await collect(data, 2, { methodology: 'v1,v2', deadlineMs: 1 });
    const a = v1Rows(data, 2).filter((r) => r.outcome === 'not_attempted');
    const b = v2Rows(data, 2).filter((r) => r.outcome === 'not_attempted');
    expect(a.length).toBe(world.endpoints.size);
    expect(b.map((r) => [r.target, r.not_attempted_reason, r.status, r.era, r.requests])).toEqual(a.map((r) => [r.target, 'run_deadline', null, 'none', 0]));
    for (const r of s.runs) expect(r).toMatchObject({ attempts: 0, degraded: true, status: 'failed', scheduling: { not_attempted: { run_deadline: world.endpoints.size } } });
  });
});

describe('runCollector({ methodology: "auto" }): the bridge', () => {
  it('records both series until runs.jsonl holds the bridge days, then v2 alone; a partial run is no bridge day', async () => {
    const data = tmpData();
    expect((await collect(data, 1, { bridgeDays: 2 })).series).toEqual(['v1', 'v2']);
    expect((await collect(data, 2, { bridgeDays: 2, limit: 3 })).series).toEqual(['v1', 'v2']); // partial: not a bridge day
    expect(bridgeDays(runsIn(data))).toEqual(['2026-12-01']);
    expect((await collect(data, 3, { bridgeDays: 2 })).series).toEqual(['v1', 'v2']);
    expect(bridgeDays(runsIn(data))).toEqual(['2026-12-01', '2026-12-03']);
    const after = await collect(data, 4, { bridgeDays: 2 });
    expect(after.series).toEqual(['v2']);
    expect(after.run.methodology_version).toBe('v2');
    expect(fs.existsSync(file(data, 'v1', 4))).toBe(false);
    expect(v2Rows(data, 4)).toHaveLength(after.run.targets);
    expect(runsIn(data).map((r) => `${r.day} ${r.methodology_version}`)).toEqual([
      '2026-12-01 v1', '2026-12-01 v2', '2026-12-02 v1', '2026-12-02 v2', '2026-12-03 v1', '2026-12-03 v2', '2026-12-04 v2',
    ]);
    // An explicit choice still wins after the bridge.
    expect((await collect(data, 5, { bridgeDays: 2, methodology: 'v1' })).series).toEqual(['v1']);
  });
});

describe('runCollector: resuming a run of both series', () => {
  it('completes each series from where it stopped, without a duplicate row, and records only the series whose run row is missing', async () => {
    const data = tmpData();
    const first = await collect(data, 6, { methodology: 'v1,v2' });
    const full1 = lines(file(data, 'v1', 6));
    const full2 = lines(file(data, 'v2', 6));
    // A crash mid-run: v1 has half its rows, v2 a third (v2 runs first in a job, so it is usually ahead,
    // but nothing depends on it), no run row.
    fs.writeFileSync(file(data, 'v1', 6), full1.slice(0, Math.floor(full1.length / 2)).join('\n') + '\n');
    fs.writeFileSync(file(data, 'v2', 6), full2.slice(0, Math.floor(full2.length / 3)).join('\n') + '\n');
    fs.writeFileSync(join(data, 'runs.jsonl'), '');
    fs.writeFileSync(join(data, 'chain.jsonl'), ''); // nor the run's manifest on the hash chain
    const again = await collect(data, 6, { methodology: 'v1,v2' });
    expect(again.resumed_rows).toBe(Math.floor(full1.length / 2) + Math.floor(full2.length / 3));
    for (const [rows, n] of [[v1Rows(data, 6), full1.length], [v2Rows(data, 6), full2.length]] as const) {
      expect(rows).toHaveLength(n);
      expect(new Set(rows.map((r) => r.target)).size).toBe(n);
      expect(new Set(rows.map((r) => r.run_id))).toEqual(new Set([first.run.run_id]));
    }
    expect(again.runs.map((r) => r.outcomes)).toEqual(first.runs.map((r) => r.outcomes));
    expect(fs.readdirSync(join(data, 'rosters'))).toEqual(['2026-12-06.json']);

    // A crash between the two run rows: the v1 row is there, the v2 row is not. The resume probes
    // nothing and writes the v2 run row only; then the run is finished for good.
    const [v1Run] = runsIn(data);
    fs.writeFileSync(join(data, 'runs.jsonl'), JSON.stringify(v1Run) + '\n');
    fs.writeFileSync(join(data, 'chain.jsonl'), ''); // the manifest comes after the last run row
    const last = await collect(data, 6, { methodology: 'v1,v2' });
    expect(last.series).toEqual(['v2']);
    expect(last.probed).toBe(0);
    expect(runsIn(data).map((r) => r.methodology_version)).toEqual(['v1', 'v2']);
    expect(v2Rows(data, 6)).toHaveLength(full2.length);
    await expect(collect(data, 6, { methodology: 'v1,v2' })).rejects.toMatchObject({ name: 'CliError', exitCode: 4 });
    // The archive is whole: both series' rows and run rows, and one manifest covering them.
    expect((await verifyArchive(data)).problems).toEqual([]);
  });
});

describe('npm run collect -- --methodology', () => {
  it('refuses a methodology it does not know and a bridge length that is not a positive integer', async () => {
    const said = async (argv: string[]) => {
      let err = '';
      const code = await main(argv, { stdout: () => {}, stderr: (t) => void (err += t), env: {} });
      return { code, err };
    };
    expect(await said(['--methodology', 'v3'])).toEqual({ code: 2, err: 'collect: --methodology must be one of v1, v2, v1,v2, auto, got "v3"\n' });
    expect(await said(['--bridge-days', '0'])).toEqual({ code: 2, err: 'collect: --bridge-days must be an integer ≥ 1, got "0"\n' });
    // The near miss: a span of 0 is the cap alone, not a refusal; a negative one is refused before any work.
    expect(await said(['--per-host-span=-1'])).toEqual({ code: 2, err: 'collect: --per-host-span must be an integer ≥ 0, got "-1"\n' });
    expect(await said(['probe', '--registry', 'http://127.0.0.1:1/'])).toEqual({ code: 2, err: 'collect: probe does not take --registry (see --help)\n' });
  });
});
