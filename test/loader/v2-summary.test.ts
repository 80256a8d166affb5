// The loader's v2 summary (src/loader/v2-summary.ts) on an archive the collector recorded in both series
// against the local world: every figure is checked against the rows read here straight from the day
// files (JSON.parse, no src/archive reader, no src/lib statistic) and against what the world says each
// server is (World.expectedV2), never against numbers copied from the implementation.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorld } from '../../sandbox/world.ts';
import { forgetArchive, loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { collectArchive } from '../helpers/archive.ts';

type Row = Record<string, any>;
const SEED = 'loader-v2-summary';
const SIZE = 60;
const DAYS = 3;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
let a: Archive;
let v1: Row[];
let v2: Row[];
let runs: Row[];

const readRows = (folder: string) =>
  readdirSync(join(dir, folder))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) => readFileSync(join(dir, folder, f), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Row));

beforeAll(async () => {
  dir = await collectArchive({ seed: SEED, size: SIZE, days: DAYS, methodology: 'v1,v2' });
  forgetArchive(dir);
  a = await loadArchive(dir);
  v1 = readRows('observations');
  v2 = readRows('observations-v2');
  runs = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
}, 180_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const probed = (r: Row) => r.outcome === 'ok' || r.outcome === 'error';

describe('loadArchive(dir).v2 on an archive with both series', () => {
  it('reads every v2 row and run row; v1 figures still come from v1 only', () => {
    const s = a.v2!;
    expect(s.rows).toBe(v2.length);
    expect(s.problems).toBe(0);
    expect(s.runs.map((r) => r.run_id)).toEqual(runs.filter((r) => r.methodology_version === 'v2').map((r) => r.run_id));
    expect(a.runs.every((r) => r.methodology_version === 'v1')).toBe(true);
    expect(a.rowCount).toBe(v1.length);
  });

  it('the latest full run: every status count and era as the world says each server is', () => {
    const s = a.v2!.latest!;
    const last = runs.filter((r) => r.methodology_version === 'v2').at(-1)!;
    expect(s.run.run_id).toBe(last.run_id);
    const rows = v2.filter((r) => r.run_id === last.run_id);
    const world = buildWorld({ seed: SEED, size: SIZE });
    const day = DAYS - 1;
    // The world's expectation for each listed server, by the row's target name.
    const expected = new Map<string, string | null>();
    for (const r of rows) expected.set(r.target, world.expectedV2(world.indexOf(r.target), day).status);
    const p = rows.filter(probed);
    expect(s.statistics.reachable.n).toBe(p.length);
    for (const status of new Set(p.map((r) => r.status as string))) {
      const fromWorld = p.filter((r) => expected.get(r.target) === status).length;
      const fromRows = p.filter((r) => r.status === status).length;
      expect(fromRows, status).toBe(fromWorld);
      expect(s.statistics.statuses[status as 'ok'].count, status).toBe(fromRows);
    }
    const handshakes = p.filter((r) => r.status === 'ok' || r.status === 'handshake_only');
    expect(s.statistics.era.modern.n).toBe(handshakes.length);
    expect(s.statistics.era.modern.count).toBe(handshakes.filter((r) => r.era === 'modern').length);
    expect(s.statistics.era.legacy.count).toBe(handshakes.filter((r) => r.era === 'legacy').length);
    const dual = handshakes.filter((r) => r.era === 'modern' && (r.supported_versions ?? []).some((v: string) => v < '2026-01-01'));
    expect(s.statistics.era.dualEraAdvertised.count).toBe(dual.length);
    expect(s.statistics.era.modern.count).toBeGreaterThan(0);
    expect(s.statistics.era.legacy.count).toBeGreaterThan(0);
    // Hosts: the world's servers share a few loopback listeners.
    const hosts = new Set(p.map((r) => new URL(r.endpoint).hostname));
    expect(s.statistics.reachable.hosts).toBe(hosts.size);
    const perHost = [...hosts].map((h) => p.filter((r) => new URL(r.endpoint).hostname === h).length);
    expect(s.statistics.reachable.largestHostCount).toBe(Math.max(...perHost));
    // RQ5 over the rows sent the canary.
    const canaried = p.filter((r) => r.canary_sent);
    expect(s.statistics.canaryInChannel.n).toBe(canaried.length);
    expect(s.statistics.canaryInChannel.count).toBe(canaried.filter((r) => r.canary_in_channel === true).length);
  });

  it('RQ4 reads every tool of every page of the ok rows; RQ6 compares the last two full runs', () => {
    const s = a.v2!.latest!;
    const ok = v2.filter((r) => r.run_id === s.run.run_id && r.outcome === 'ok');
    expect(s.hygieneUnreadable).toBe(0);
    expect(s.hygiene.targets).toBe(ok.length);
    expect(s.hygiene.tools).toBe(ok.reduce((n, r) => n + r.tool_count, 0));
    expect(ok.some((r) => r.tools_pages > 1)).toBe(true);

    const v2Runs = runs.filter((r) => r.methodology_version === 'v2');
    const earlier = v2Runs.at(-2)!;
    expect(s.stability!.earlier.run_id).toBe(earlier.run_id);
    const before = new Map(v2.filter((r) => r.run_id === earlier.run_id && probed(r)).map((r) => [r.target, r.status]));
    const pairs = v2.filter((r) => r.run_id === s.run.run_id && probed(r) && before.has(r.target)).map((r) => [before.get(r.target), r.status] as const);
    const n = pairs.length;
    const same = pairs.filter(([x, y]) => x === y).length;
    const margin = (i: 0 | 1, st: unknown) => pairs.filter((pr) => pr[i] === st).length / n;
    const pe = [...new Set(pairs.flat())].reduce((sum, st) => sum + margin(0, st) * margin(1, st), 0);
    expect(s.stability!.agreement.n).toBe(n);
    expect(s.stability!.agreement.agreement.count).toBe(same);
    expect(s.stability!.agreement.kappa).toBeCloseTo((same / n - pe) / (1 - pe), 10);
  });

  it('era adoption: one point per full v2 run, counted from the rows', () => {
    const v2Runs = runs.filter((r) => r.methodology_version === 'v2' && r.status === 'finished' && !r.partial);
    expect(a.v2!.adoption.map((p) => p.run_id)).toEqual(v2Runs.map((r) => r.run_id));
    for (const point of a.v2!.adoption) {
      const rows = v2.filter((r) => r.run_id === point.run_id && probed(r));
      for (const era of ['modern', 'legacy', 'legacy_sse'] as const) expect(point.counts[era], era).toBe(rows.filter((r) => r.era === era).length);
      expect(point.n).toBe(rows.filter((r) => r.era !== 'none').length);
    }
  });

  it('the bridge: every run is a bridge day; the cross-table counts every pair; newly visible targets are ok only in v2', () => {
    const b = a.v2!.bridge;
    expect(b.days).toHaveLength(DAYS);
    expect(b.complete).toBe(false);
    const t = b.table!;
    expect(t.pairs).toBe(v1.length);
    expect(t.cells.reduce((n, c) => n + c.count, 0)).toBe(v1.length);
    const key = (r: Row) => `${r.run_id} ${r.target}`;
    const v2By = new Map(v2.map((r) => [key(r), r]));
    const okBoth = v1.filter((r) => r.outcome === 'ok' && v2By.get(key(r))?.outcome === 'ok');
    expect(t.bothOk).toBe(okBoth.length);
    expect(t.hashesAgree).toBe(okBoth.filter((r) => v2By.get(key(r))!.tools_sha256 === r.tools_sha256).length);
    const okV1 = new Set(v1.filter((r) => r.outcome === 'ok').map((r) => r.target));
    const onlyV2 = [...new Set(v2.filter((r) => r.outcome === 'ok' && !okV1.has(r.target)).map((r) => r.target))].sort();
    expect(t.newlyVisible).toEqual(onlyV2);
  });

  it('each target\'s row in the latest full v2 run, for the descriptors', () => {
    const run = runs.filter((r) => r.methodology_version === 'v2' && r.status === 'finished' && !r.partial).at(-1)!;
    const last = new Map<string, Row>();
    for (const r of v2) if (r.run_id === run.run_id) last.set(r.target, r);
    expect(a.v2!.latestByTarget.size).toBe(last.size);
    for (const [target, r] of last) {
      const got = a.v2!.latestByTarget.get(target)!;
      expect([got.run_id, got.era, got.protocol_version, got.auth_metadata_valid], target).toEqual([r.run_id, r.era, r.protocol_version, r.auth_metadata_valid]);
    }
  });
});

describe('loadArchive(dir).v2 with the build cache', () => {
  it('gives the same summary from the cache as without it, and a second build writes no new v2 cache entry', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'mcps-v2-cache-'));
    try {
      const opts = { cache: { dir: cacheDir, sourceRoot: ROOT } };
      forgetArchive(dir);
      const first = await loadArchive(dir, opts);
      const files = () => readdirSync(join(cacheDir, 'changes')).filter((f) => /\.v2(day|stats|bridge)\./.test(f)).sort();
      const written = files();
      expect(written.filter((f) => f.includes('.v2day.'))).toHaveLength(DAYS);
      expect(written.some((f) => f.includes('.v2stats.'))).toBe(true);
      expect(written.some((f) => f.includes('.v2bridge.'))).toBe(true);
      forgetArchive(dir);
      const second = await loadArchive(dir, opts);
      expect(files()).toEqual(written);
      // Day keys fingerprint the contract only with a cache (src/loader/cache.ts), so they are left out.
      const view = (x: Archive) => JSON.stringify({ ...x.v2, dayFiles: x.v2!.dayFiles.map(({ key: _key, ...d }) => d), latestByTarget: [...x.v2!.latestByTarget] }, (_k, v: unknown) => (typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v));
      expect(view(second)).toBe(view(first));
      expect(view(second)).toBe(view(a));
    } finally {
      forgetArchive(dir);
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('loadArchive(dir).v2 on an archive without the v2 series', () => {
  it('has no run, no figures and no bridge', async () => {
    const only = await collectArchive({ seed: SEED, size: 20, days: 1, methodology: 'v1' });
    try {
      const b = await loadArchive(only);
      expect(b.v2!.runs).toEqual([]);
      expect(b.v2!.latest).toBeNull();
      expect(b.v2!.adoption).toEqual([]);
      expect(b.v2!.bridge).toMatchObject({ days: [], complete: false, table: null });
    } finally {
      rmSync(only, { recursive: true, force: true });
    }
  }, 120_000);
});
