// The headline switch (methodology v2, "Bridge and headline") on an archive the real collector wrote
// against the sandbox world: three days of v1 alone, then `auto` with a three-day bridge (both series),
// then v2 alone. The world (seed headline-34, 60 targets, days 41–49) has, in that window, a paginated
// server (v1 hashes its first page, v2 every page: a series seam), a server that migrates from legacy
// to modern with a new tool list on day 49 (a protocol migration), and a server whose instructions
// change on day 49 with its tools unchanged. Expectations are computed here from the rows as stored
// and from the world's own plan, not through the loader.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorld } from '../../sandbox/world.ts';
import { deriveArchive, forgetArchive, loadArchive, readRawArchive, type Archive } from '../../src/loader/load-archive.ts';
import { toolsSha256 } from '../../src/lib/index.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { collectArchive } from '../helpers/archive.ts';
import { compareFolds } from '../helpers/fold-agree.ts';

const SEED = 'headline-34';
const SIZE = 60;
const FIRST = 41;
const world = buildWorld({ seed: SEED, size: SIZE });
const day = (d: number) => world.date(d);
const SEAM = day(FIRST + 3);
const PAGINATED = world.targets[57]!.name;
const MIGRATES = world.targets[56]!.name;
const INSTRUCTIONS = world.targets[58]!.name;

let dir: string;
let midBridge: string;
let midBridgeV1: string;
let a: Archive;
let mid: Archive;
let midV1: Archive;

type Row = { run_id: string; target: string; day: string; observed_at: string; outcome: string; tools_sha256: string | null; era?: string; protocol_version?: string | null };
function rowsOf(folder: string, at: string): Row[] {
  const out: Row[] = [];
  for (const f of readdirSync(join(at, folder)).sort()) {
    const bytes = readFileSync(join(at, folder, f));
    const text = f.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    for (const line of text.split('\n')) if (line.trim()) out.push(JSON.parse(line) as Row);
  }
  return out.sort((x, y) => Date.parse(x.observed_at) - Date.parse(y.observed_at));
}

beforeAll(async () => {
  dir = await collectArchive({ seed: SEED, size: SIZE, days: 3, firstDay: FIRST, methodology: 'v1' });
  await collectArchive({ seed: SEED, size: SIZE, days: 2, firstDay: FIRST + 3, methodology: 'auto', bridgeDays: 3 }, dir, true);
  // Two bridge days of three: the headline is still v1.
  midBridge = mkdtempSync(join(tmpdir(), 'mcps-headline-mid-'));
  cpSync(dir, midBridge, { recursive: true });
  midBridgeV1 = mkdtempSync(join(tmpdir(), 'mcps-headline-mid-v1-'));
  cpSync(dir, midBridgeV1, { recursive: true });
  rmSync(join(midBridgeV1, 'observations-v2'), { recursive: true });
  const runs = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n');
  writeFileSync(join(midBridgeV1, 'runs.jsonl'), runs.filter((l) => (JSON.parse(l) as { methodology_version: string }).methodology_version === 'v1').join('\n') + '\n');
  await collectArchive({ seed: SEED, size: SIZE, days: 4, firstDay: FIRST + 5, methodology: 'auto', bridgeDays: 3 }, dir, true);
  a = await loadArchive(dir, { bridgeDays: 3 });
  mid = await loadArchive(midBridge, { bridgeDays: 3 });
  midV1 = await loadArchive(midBridgeV1, { bridgeDays: 3 });
}, 300_000);
afterAll(() => {
  for (const d of [dir, midBridge, midBridgeV1]) if (d) rmSync(d, { recursive: true, force: true });
  forgetArchive();
});

describe('the headline series', () => {
  it('records what the test needs: v1 alone, a three-day bridge, then v2 alone', () => {
    const runs = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { day: string; methodology_version: string });
    const byDay = new Map<string, string[]>();
    for (const r of runs) byDay.set(r.day, [...(byDay.get(r.day) ?? []), r.methodology_version]);
    expect([...byDay.values()]).toEqual([['v1'], ['v1'], ['v1'], ['v1', 'v2'], ['v1', 'v2'], ['v1', 'v2'], ['v2'], ['v2'], ['v2']]);
  });

  it('is v1 until the bridge is complete, and then derives exactly what the v1 series alone derives', () => {
    expect(mid.headline).toEqual({ series: 'v1', bridgeLength: 3, bridgeDays: 2, seamDay: null, since: null });
    expect(mid.problems).toEqual([]);
    expect(mid.seams).toEqual([]);
    expect(mid.migrationSensitivity).toBeNull();
    expect(JSON.stringify([mid.changes, mid.intervals, mid.halfLife, mid.tiles, mid.latestRun])).toBe(JSON.stringify([midV1.changes, midV1.intervals, midV1.halfLife, midV1.tiles, midV1.latestRun]));
    expect(mid.servers.map((s) => JSON.stringify(s))).toEqual(midV1.servers.map((s) => JSON.stringify(s)));
  });

  it('is the stitched timeline once the bridge is complete: v1 before the seam, v2 from it on', () => {
    expect(a.problems).toEqual([]);
    expect(a.headline).toEqual({ series: 'stitched', bridgeLength: 3, bridgeDays: 3, seamDay: SEAM, since: day(FIRST + 5) });
    // The latest run is v2's (v1 stopped after the bridge), and every server page reads to the last day.
    expect(a.latestRun?.methodology_version).toBe('v2');
    expect(a.latestRun?.day).toBe(day(FIRST + 8));
    const server = a.bySlug.get(slugFor(PAGINATED))!;
    expect(server.latest.day).toBe(day(FIRST + 8));
    expect((server.latest as { methodology_version: string }).methodology_version).toBe('v2');
    // The v1 series' own figures stay v1's.
    expect(a.runs.every((r) => r.methodology_version === 'v1')).toBe(true);
    // The trends run to the last day: coverage by run is v1's before the seam and v2's from it on, and
    // every change is counted in its week.
    expect(a.timelines.runs.map((r) => r.day)).toEqual(Array.from({ length: 9 }, (_, i) => day(FIRST + i)));
    const runIds = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { run_id: string; day: string; methodology_version: string });
    expect(a.timelines.runs.map((r) => r.run_id)).toEqual(runIds.filter((r) => (r.day < SEAM ? r.methodology_version === 'v1' : r.methodology_version === 'v2')).map((r) => r.run_id));
    expect(a.timelines.weeks.reduce((n, w) => n + w.total, 0)).toBe(a.changes.length);
    expect(a.timelines.roster.at(-1)!.day).toBe(day(FIRST + 8));
  });

  it('censors a hash that differs across the seam (v1 read page 1, v2 every page) instead of counting a change', async () => {
    const v1 = rowsOf('observations', dir);
    const v2 = rowsOf('observations-v2', dir);
    // Independently: per target, the first bridge run where both series answered ok; a seam iff their hashes differ.
    const expected = new Set<string>();
    const v2Ok = v2.filter((r) => r.outcome === 'ok' && r.day >= SEAM);
    for (const target of new Set(v2Ok.map((r) => r.target))) {
      const pair = v2Ok.filter((r) => r.target === target).map((r) => [r, v1.find((x) => x.run_id === r.run_id && x.target === target && x.outcome === 'ok')] as const).find(([, x]) => x !== undefined);
      if (pair) {
        if (pair[0].tools_sha256 !== pair[1]!.tools_sha256) expected.add(target);
      } else {
        const head = v1.filter((r) => r.target === target && r.outcome === 'ok' && r.day < SEAM).at(-1);
        const first = v2Ok.find((r) => r.target === target);
        if (head && first && head.tools_sha256 !== first.tools_sha256) expected.add(target);
      }
    }
    expect(expected.has(PAGINATED)).toBe(true);
    expect(new Set(a.seams.map((s) => s.target))).toEqual(expected);
    const seam = a.seams.find((s) => s.target === PAGINATED)!;
    expect(seam).toMatchObject({ day: SEAM, basis: 'bridge_run' });
    // No change at the seam, and the v1 contract's lifetime ends there censored.
    expect(a.changes.filter((c) => expected.has(c.target) && c.day === SEAM)).toEqual([]);
    const v1Interval = a.intervals.find((i) => i.target === PAGINATED && i.tools_sha256 === seam.v1_tools_sha256)!;
    expect(v1Interval).toMatchObject({ end_day: day(FIRST + 2), event: false });
    expect(a.intervals.find((i) => i.target === PAGINATED && i.tools_sha256 === seam.v2_tools_sha256)).toMatchObject({ start_day: SEAM, end_day: day(FIRST + 8), event: false });
    // The v2 contract's tool list is every page's (what its hash covers), not its first page's.
    const head = a.bySlug.get(slugFor(PAGINATED))!.head!;
    expect(head.toolsSha256).toBe(seam.v2_tools_sha256);
    const all = await a.tools(head.bodySha256!, head.toolsSha256);
    const first = await a.tools(head.bodySha256!);
    expect(Array.isArray(all) && all.map((t) => t.name).sort()).toEqual(world.expectedV2(57, FIRST + 8).tools!.map((t) => t.name).sort());
    expect(Array.isArray(first) && Array.isArray(all) && first.length < all.length).toBe(true);
    expect(toolsSha256(all as unknown[])).toBe(head.toolsSha256);
    // Every change of the stitched timeline, computed from the stored rows: consecutive ok hashes that differ, never across a seam.
    const want: string[] = [];
    for (const target of new Set([...v1, ...v2].map((r) => r.target))) {
      const oks = [...v1.filter((r) => r.day < SEAM), ...v2.filter((r) => r.day >= SEAM)].filter((r) => r.target === target && r.outcome === 'ok');
      for (let i = 1; i < oks.length; i++) {
        if (oks[i]!.tools_sha256 === oks[i - 1]!.tools_sha256) continue;
        if (expected.has(target) && oks[i - 1]!.day < SEAM && oks[i]!.day >= SEAM) continue;
        want.push(`${target}|${oks[i]!.day}`);
      }
    }
    expect(a.changes.map((c) => `${c.target}|${c.day}`).sort()).toEqual(want.sort());
  });

  it('flags a change between v2 ok rows of another era or protocol version as protocol_migration, counts it, and censors it in v2-without-migrations', () => {
    const v2 = rowsOf('observations-v2', dir);
    const flagged = a.changes.filter((c) => c.protocolMigration);
    // Independently: a change whose before and after rows (by run) are v2 ok rows whose era or protocol version differ.
    const want = a.changes.filter((c) => {
      const at = (run: string) => v2.find((r) => r.run_id === run && r.target === c.target && r.outcome === 'ok');
      const before = v2.filter((r) => r.target === c.target && r.outcome === 'ok' && Date.parse(r.observed_at) < Date.parse(c.observedAt)).at(-1);
      const after = at(c.runId);
      return before !== undefined && after !== undefined && c.day > SEAM && (before.era !== after.era || before.protocol_version !== after.protocol_version);
    });
    expect(flagged.map((c) => c.id)).toEqual(want.map((c) => c.id));
    expect(flagged.map((c) => [c.target, c.day])).toContainEqual([MIGRATES, day(FIRST + 8)]);
    // It counts as an event in the headline …
    const ended = a.intervals.filter((i) => i.target === MIGRATES && i.end_day === day(FIRST + 8) && i.event);
    expect(ended).toHaveLength(1);
    // … and is censored in the sensitivity series, which differs from the headline by exactly the migrations.
    const s = a.migrationSensitivity!;
    expect(s.series).toBe('v2-without-migrations');
    expect(s.migrations).toBe(flagged.length);
    expect(s.intervals).toHaveLength(a.intervals.length);
    const events = (list: { event: boolean }[]) => list.filter((i) => i.event).length;
    expect(events(a.intervals) - events(s.intervals)).toBe(flagged.length);
    expect(s.intervals.find((i) => i.target === MIGRATES && i.end_day === day(FIRST + 8) && i.tools_sha256 === ended[0]!.tools_sha256)?.event).toBe(false);
    // The plan of the world agrees: the server moved from legacy to modern that day.
    expect([world.expectedV2(56, FIRST + 7).era, world.expectedV2(56, FIRST + 8).era]).toEqual(['legacy', 'modern']);
  });

  it('finds instructions drift between successive v2 answers: on the change when the tools changed too, else an "instructions changed" entry', () => {
    const v2 = rowsOf('observations-v2', dir) as (Row & { instructions_sha256: string | null })[];
    const onChanges: string[] = [];
    const entries: string[] = [];
    for (const target of new Set(v2.map((r) => r.target))) {
      const oks = v2.filter((r) => r.target === target && r.outcome === 'ok' && r.day >= SEAM);
      for (let i = 1; i < oks.length; i++) {
        if (oks[i]!.instructions_sha256 === oks[i - 1]!.instructions_sha256) continue;
        const key = `${target}|${oks[i]!.day}|${oks[i - 1]!.instructions_sha256}|${oks[i]!.instructions_sha256}`;
        (a.changes.some((c) => c.target === target && c.runId === oks[i]!.run_id) ? onChanges : entries).push(key);
      }
    }
    expect(entries).toContainEqual(expect.stringMatching(new RegExp(`^${INSTRUCTIONS.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\|${day(FIRST + 8)}\\|`)));
    expect(a.instructionChanges.map((x) => `${x.target}|${x.day}|${x.before}|${x.after}`).sort()).toEqual(entries.sort());
    for (const x of a.instructionChanges) expect(x.findings.map((f) => [f.rule, f.axis, f.level])).toEqual([['server-instructions-changed', 'security', 'WARN']]);
    const flagged = a.changes.filter((c) => c.findings.some((f) => f.rule === 'server-instructions-changed'));
    expect(flagged.map((c) => `${c.target}|${c.day}|${c.findings.find((f) => f.rule === 'server-instructions-changed')!.before ?? null}|${c.findings.find((f) => f.rule === 'server-instructions-changed')!.after ?? null}`).sort()).toEqual(onChanges.sort());
    for (const c of flagged) expect(c.security).not.toBeNull();
    // The world's plan: the server's instructions changed that day, its tools did not.
    expect(world.expectedV2(58, FIRST + 7).instructions).not.toBe(world.expectedV2(58, FIRST + 8).instructions);
    expect(a.bySlug.get(slugFor(INSTRUCTIONS))!.instructionChanges.map((x) => x.day)).toEqual([day(FIRST + 8)]);
  });

  it('keeps a server with no seam, migration or change on one contract across the bridge', () => {
    const steady = a.servers.find((s) => s.name === INSTRUCTIONS)!;
    expect(steady.changes).toEqual([]);
    expect(a.intervals.filter((i) => i.target === INSTRUCTIONS)).toHaveLength(1);
  });

  it('publishes from runs of equal ok rows what the row-by-row fold publishes: seams, migrations, instructions drift, the bridge kept whole', async () => {
    const c = await compareFolds(dir, { bridgeDays: 3 });
    expect(c.disordered).toEqual([]);
    expect(c.okRuns).toBeLessThan(c.okRows);
    expect(c.runs).toEqual(c.rows);
    // Not vacuous: what the comparison covers is present on this archive.
    const p = c.runs as { seams: unknown[]; instructionChanges: unknown[]; changes: { protocolMigration: boolean }[] };
    expect(p.seams.length).toBeGreaterThan(0);
    expect(p.changes.some((x) => x.protocolMigration)).toBe(true);
    // The bridge's v2 days are kept row by row (stitchSeries pairs a v2 row with its run's v1 row).
    const raw = await readRawArchive(dir, { bridgeDays: 3 });
    expect([...raw.fold.wholeDays].sort()).toEqual([day(FIRST + 3), day(FIRST + 4), day(FIRST + 5)]);
    const runs = [...raw.fold.targets.values()].flatMap((t) => t.ok);
    expect(runs.filter((r) => r.whole).every((r) => r.n === 1 && raw.fold.wholeDays.has(raw.fold.dayIds[r.firstDay]!))).toBe(true);
    expect(runs.some((r) => !r.whole && r.n > 1 && r.era >= 0)).toBe(true);
  });

  it('builds the same headline from the build cache (v2 day summaries cached by series) as from the files', async () => {
    const cache = { dir: mkdtempSync(join(tmpdir(), 'mcps-headline-cache-')), sourceRoot: process.cwd() };
    try {
      const first = await deriveArchive(await readRawArchive(dir, { cache, bridgeDays: 3 }));
      const again = await deriveArchive(await readRawArchive(dir, { cache, bridgeDays: 3 }));
      expect(again.cacheStats.misses).toBe(0);
      // loadArchive marks changes of private-scope lists from the v2 summary, which deriveArchive alone does not read.
      const derived = a.changes.map(({ privateScopeList: _, ...c }) => c);
      for (const b of [first, again]) expect(JSON.stringify([b.headline, b.seams, b.changes, b.intervals, b.migrationSensitivity, b.tiles])).toBe(JSON.stringify([a.headline, a.seams, derived, a.intervals, a.migrationSensitivity, a.tiles]));
    } finally {
      rmSync(cache.dir, { recursive: true, force: true });
    }
  });

  it('a paginated v2 contract has the set hash of all its pages, the one its v2 row records (not the first page\'s "partial listing")', () => {
    const v2 = rowsOf('observations-v2', dir).filter((r) => r.target === PAGINATED && r.outcome === 'ok') as (Row & { tools_set_hash: string | null; tools_pages: number })[];
    const last = v2.at(-1)!;
    expect(last.tools_pages).toBeGreaterThan(1);
    expect(last.tools_set_hash).toMatch(/^[0-9a-f]{64}$/);
    const server = a.bySlug.get(slugFor(PAGINATED))!;
    expect(server.current?.setHashProblem).toBeNull();
    expect(server.current?.setHash).toBe(last.tools_set_hash);
    // The set index names the server under that hash.
    expect(a.sets.find((x) => x.setHash === last.tools_set_hash)?.servers.map((x) => x.target)).toContain(PAGINATED);
  });

  it('a paginated v2 contract\'s tool definition hashes cover every page (as many as the row\'s tool_count), with the row\'s set hash', async () => {
    const last = (rowsOf('observations-v2', dir).filter((r) => r.target === PAGINATED && r.outcome === 'ok') as (Row & { tools_set_hash: string; tool_count: number; body_sha256: string })[]).at(-1)!;
    const hashes = await a.toolHashes(last.body_sha256);
    if (typeof hashes === 'string') throw new Error(hashes);
    expect(hashes.definitions).toHaveLength(last.tool_count);
    expect(hashes.lines).toHaveLength(last.tool_count);
    expect(hashes.setHash).toBe(last.tools_set_hash);
    expect(hashes.problem).toBeNull();
  });

  it('derives the same stitched headline in 3 shards (each shard folds its own bridge rows): seams, migrations, the sensitivity series, every server', async () => {
    forgetArchive(dir);
    const cache = { dir: mkdtempSync(join(tmpdir(), 'mcps-headline-shards-')), sourceRoot: process.cwd() };
    try {
      const s3 = await loadArchive(dir, { bridgeDays: 3, shards: 3, cache });
      expect(s3.shards).toBe(3);
      const pick = (x: Archive) => JSON.stringify([x.headline, x.seams, x.changes, x.intervals, x.serverIntervals, x.km, x.serverKm, x.migrationSensitivity, x.instructionChanges, x.sets, x.timelines, x.tiles, x.errorShares, x.volatility]);
      expect(pick(s3)).toBe(pick(a));
      const views: unknown[] = [];
      for (let k = 0; k < 3; k++) views.push(...(await s3.serversIn(k)));
      views.sort((x, y) => ((x as { name: string }).name < (y as { name: string }).name ? -1 : 1));
      expect(JSON.stringify(views)).toBe(JSON.stringify(a.servers));
      // Not vacuous: the seam, the migration and the instructions change are all in it, spread over shards.
      expect(s3.seams.map((x) => x.target)).toContain(PAGINATED);
      expect(s3.migrationSensitivity!.migrations).toBeGreaterThan(0);
      expect(new Set(s3.rows.map((r) => r.shard)).size).toBe(3);
      // A second build reads every shard's rows from the cache.
      forgetArchive(dir);
      const again = await loadArchive(dir, { bridgeDays: 3, shards: 3, cache });
      expect(again.cacheStats.misses).toBe(0);
      expect(pick(again)).toBe(pick(a));
    } finally {
      forgetArchive(dir);
      rmSync(cache.dir, { recursive: true, force: true });
    }
  });
});
