// The loader derives targets in shards (src/loader/shards.ts) and keeps only each server's summary
// (src/lib serverSummary) and compact row for the site-wide figures, so a build holds one shard's full
// state at a time. Whatever the number of shards, every figure must be the same, bit for bit (numbers
// compared by their IEEE-754 bits, NaN and -0 included): checked here on the golden archive and on a
// generated one with S = 1, 2 and 7, against a reference computed straight from the day files' rows
// through src/lib (no loader in between), and on every server's full view read back shard by shard.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateArchive } from '../../bench/archive-gen.ts';
import { byCodeUnits, contractIntervals, detectDrift, everChangedShare, firstChangeIntervals, halfLife, headlineFigures, kaplanMeier, volatility, type DriftRow } from '../../src/lib/index.ts';
import { deriveArchive, readRawArchive, type Archive, type ServerView } from '../../src/loader/load-archive.ts';
import { eachServer, SHARD_TARGETS, shardCount, shardMember, shardOf, targetsOf } from '../../src/loader/shards.ts';
import { familiesOf } from '../../src/loader/families.ts';
import { splitDaySummary } from '../../src/loader/day-summary.ts';
import { BuildCache } from '../../src/loader/cache.ts';
import { listDays } from '../../src/archive/day-files.ts';

const GOLDEN = join(import.meta.dirname, '..', '..', 'fixtures', 'archive', 'golden');
const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

/** JSON with every number written as its float64 bits: equal text means equal bits. */
function bits(value: unknown): string {
  const buf = new DataView(new ArrayBuffer(8));
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'number') return v instanceof Map ? [...v] : v;
    buf.setFloat64(0, v);
    return `f64:${buf.getBigUint64(0).toString(16)}`;
  });
}

/** Every figure /statistics/, the dashboard, the trends and the downloads print from the population. */
function figures(a: Archive): string {
  return bits({
    intervals: a.intervals, km: a.km, halfLife: a.halfLife, serverIntervals: a.serverIntervals, serverKm: a.serverKm, serverHalfLife: a.serverHalfLife,
    everChanged: a.everChanged, volatility: a.volatility, migrationSensitivity: a.migrationSensitivity, errorShares: a.errorShares, timelines: a.timelines, tiles: a.tiles,
    seams: a.seams, changes: a.changes, bodyFindings: a.bodyFindings, instructionChanges: a.instructionChanges, sets: a.sets, asOf: a.asOf, asOfDay: a.asOfDay, empty: a.empty,
  });
}

/** Every server's full view, shard by shard, in name order. */
async function allServers(a: Archive): Promise<ServerView[]> {
  const out: ServerView[] = [];
  for (let k = 0; k < a.shards; k++) out.push(...(await a.serversIn(k)));
  return out.sort((x, y) => byCodeUnits(x.name, y.name));
}

const load = async (dir: string, shards: number) => deriveArchive(await readRawArchive(dir, { shards }));

/** The headline figures of a v1 archive straight from its day files' rows through src/lib, one target at a time in name order. */
function reference(dir: string) {
  const byTarget = new Map<string, DriftRow[]>();
  const folder = join(dir, 'observations');
  for (const f of readdirSync(folder).sort()) {
    const bytes = readFileSync(join(folder, f));
    const text = f.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as DriftRow;
      if (r.outcome !== 'ok' && r.outcome !== 'retired') continue;
      if (r.outcome === 'ok' && (r.tools_sha256 === null || r.body_sha256 === null)) continue;
      byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), r]);
    }
  }
  // Every target observed counts in volatility, answering or not: name them all.
  const names = new Set<string>();
  for (const f of readdirSync(folder)) {
    const bytes = readFileSync(join(folder, f));
    const text = f.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    for (const line of text.split('\n')) if (line.trim()) names.add((JSON.parse(line) as { target: string }).target);
  }
  const sorted = [...names].sort(byCodeUnits);
  const rows = (t: string) => byTarget.get(t) ?? [];
  const intervals = sorted.flatMap((t) => contractIntervals(rows(t)));
  const serverIntervals = sorted.flatMap((t) => firstChangeIntervals(rows(t)));
  const km = kaplanMeier(intervals.map((i) => i.duration), intervals.map((i) => i.event));
  const serverKm = kaplanMeier(serverIntervals.map((i) => i.duration), serverIntervals.map((i) => i.event));
  const drifts = sorted.map((t) => (rows(t).length > 0 ? detectDrift(rows(t)) : { target: t, head: null, versions: [], changes: [], repeatMover: false }));
  return bits({ intervals, km, halfLife: halfLife(km), serverIntervals, serverKm, serverHalfLife: halfLife(serverKm), everChanged: everChangedShare(serverIntervals), volatility: volatility(drifts) });
}

const headline = (a: Archive) => bits({ intervals: a.intervals, km: a.km, halfLife: a.halfLife, serverIntervals: a.serverIntervals, serverKm: a.serverKm, serverHalfLife: a.serverHalfLife, everChanged: a.everChanged, volatility: a.volatility });

describe('shards', () => {
  it('puts a name in one stable shard (FNV-1a over UTF-16 code units, modulo S) and sizes S by the archive', () => {
    // 'a' hashes to 0xe40c292c = 3826002220; 3826002220 mod 7 = 5 (a near miss: any other hash or modulus moves it).
    expect(shardOf('a', 7)).toBe(5);
    expect(shardOf('io.github.x/y', 7)).toBe(4);
    expect(shardOf('a', 1)).toBe(0);
    expect(shardMember(0, 1)).toBeNull();
    expect(shardMember(5, 7)!.has('a')).toBe(true);
    expect(shardMember(4, 7)!.has('a')).toBe(false);
    expect(() => shardMember(7, 7)).toThrow(/not one of 0\.\.6/);
    expect(shardCount(SHARD_TARGETS)).toBe(1);
    expect(shardCount(SHARD_TARGETS + 1)).toBe(2);
    expect(shardCount(840_000)).toBe(42);
    expect(targetsOf([])).toBe(0);
  });
});

describe('splitDaySummary', () => {
  it('cuts a day into parts that hold each row once, in order, with its own hashes, in the shard its name hashes to', async () => {
    const cache = new BuildCache(null);
    const day = listDays(GOLDEN, 'observations')[0]!;
    const g = await cache.daySummary(GOLDEN, await cache.source(GOLDEN, day));
    const parts = splitDaySummary(g, 3);
    expect(parts.map((p) => p.n).reduce((x, y) => x + y, 0)).toBe(g.n);
    expect(parts.filter((p) => p.n > 0).length).toBeGreaterThan(1);
    const rowsOf = (d: typeof g) => Array.from({ length: d.n }, (_, i) => [d.line[i], d.names[i], d.code[i], d.ms[i], d.tools[i]! < 0 ? null : d.hashes[d.tools[i]!], d.body[i]! < 0 ? null : d.hashes[d.body[i]!], d.runs[d.run[i]!]]);
    const joined = parts.flatMap((p, k) => {
      for (const name of p.names) expect(shardOf(name, 3)).toBe(k);
      // Each part's hash table holds only its own rows' hashes.
      expect(new Set(p.hashes).size).toBe(p.hashes.length);
      expect(p.hashes.length).toBeLessThanOrEqual(g.hashes.length);
      return rowsOf(p);
    });
    expect(joined.sort((x, y) => (x[0] as number) - (y[0] as number))).toEqual(rowsOf(g).sort((x, y) => (x[0] as number) - (y[0] as number)));
    expect(parts.every((p) => p.problems.length === 0)).toBe(true);
  });
});

describe.each([
  ['the golden archive', () => GOLDEN],
  [
    'a generated archive of 160 targets over 120 days',
    async () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'mcps-shards-')), 'a');
      scratch.push(dir);
      const sum = await generateArchive({ targets: 160, days: 120, out: dir, seed: 'fold-runs' });
      expect(sum.changes).toBeGreaterThan(20);
      return dir;
    },
  ],
])('figures derived in shards on %s', (_name, make) => {
  let dir: string;
  const archives = new Map<number, Archive>();
  beforeAll(async () => {
    dir = await make();
    for (const s of [1, 2, 7]) archives.set(s, await load(dir, s));
  }, 240_000);

  it('are the figures src/lib gives straight from the rows, bit for bit, with S = 1, 2 and 7', () => {
    const want = reference(dir);
    const one = archives.get(1)!;
    expect(one.shards).toBe(1);
    expect(one.intervals.length).toBeGreaterThan(0);
    expect(headline(one)).toBe(want);
    for (const s of [2, 7]) {
      expect(archives.get(s)!.shards).toBe(s);
      expect(headline(archives.get(s)!)).toBe(want);
    }
  });

  it('publish every population figure, change, set and timeline the same with S = 2 and 7 as with S = 1', () => {
    const one = figures(archives.get(1)!);
    for (const s of [2, 7]) expect(figures(archives.get(s)!)).toBe(one);
  });

  it('give every server the same full view and compact row, each from the one shard its name hashes to', async () => {
    const one = archives.get(1)!;
    const want = bits(one.servers);
    for (const s of [2, 7]) {
      const a = archives.get(s)!;
      expect(() => a.servers).toThrow(/derived in \d shards and holds no servers/);
      expect(() => a.bySlug).toThrow(/holds no bySlug/);
      expect(bits(await allServers(a))).toBe(want);
      expect(a.rows.map((r) => ({ ...r, shard: 0 }))).toEqual(one.rows);
      for (const r of a.rows) expect(r.shard).toBe(shardOf(r.name, s));
      const pick = one.servers.at(-1)!;
      expect(bits(await a.server(pick.slug))).toBe(bits(pick));
      expect(await a.server('no-such-server')).toBeNull();
      await expect(a.serversIn(s)).rejects.toThrow(RangeError);
    }
    // The rows say what the views say.
    expect(one.rows.map((r) => [r.name, r.status, r.changeCount, r.lastChange])).toEqual(one.servers.map((s) => [s.name, s.status, s.changes.length, s.lastChange]));
    expect(await one.serversIn(0)).toBe(one.servers);
  });

  it('visit every server once, shard by shard and by name within a shard (eachServer), and give the same families whatever S is', async () => {
    const one = archives.get(1)!;
    const families = bits(await familiesOf(one));
    for (const s of [1, 2, 7]) {
      const a = archives.get(s)!;
      const seen: [number, string][] = [];
      for await (const [k, server] of eachServer(a)) seen.push([k, server.name]);
      expect(seen.map(([, n]) => n).sort(byCodeUnits)).toEqual(one.rows.map((r) => r.name));
      expect(seen).toEqual([...seen].sort((x, y) => x[0] - y[0] || byCodeUnits(x[1], y[1])));
      for (const [k, n] of seen) expect(k).toBe(shardOf(n, s));
      // Template keys and drift days gathered shard by shard: the same families, figures and memberships.
      expect(bits(await familiesOf(a)), `S = ${s}`).toBe(families);
    }
    // Each pass derives every shard again (two passes, three archives): minutes on a busy machine.
  }, 300_000);

  it('are the same read from the build cache, where each shard after the first reads its part of each day (summary parts), first build and second', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'mcps-shards-cache-'));
    scratch.push(cacheDir);
    const cache = { dir: cacheDir, sourceRoot: process.cwd() };
    const want = figures(archives.get(1)!);
    const servers = bits(archives.get(1)!.servers);
    for (const build of ['first', 'second']) {
      const a = await deriveArchive(await readRawArchive(dir, { shards: 7, cache }));
      expect(figures(a), build).toBe(want);
      expect(bits(await allServers(a)), build).toBe(servers);
    }
    // The parts are there, seven a day, beside each day's whole summary.
    const days = readdirSync(join(cacheDir, 'days'));
    const whole = days.filter((f) => !f.includes('of'));
    expect(whole.length).toBeGreaterThan(0);
    expect(days.filter((f) => /-\dof7\.v8$/.test(f)).length).toBe(whole.length * 7);
  });

  it('change when one server is missing from the summaries (near miss), and refuse a server summarised twice', () => {
    const a = archives.get(7)!;
    const changed = a.summaries.find((s) => s.intervals.some((i) => i.event))!;
    expect(changed).toBeDefined();
    const all = headlineFigures(a.summaries, { stitched: false });
    expect(bits(all.km)).toBe(bits(a.km));
    const short = headlineFigures(a.summaries.filter((s) => s !== changed), { stitched: false });
    expect(bits(short.km)).not.toBe(bits(a.km));
    expect(short.intervals.length).toBe(a.intervals.length - changed.intervals.length);
    expect(short.volatility.changes).toBe(a.volatility.changes - changed.changeDays.length);
    expect(() => headlineFigures([...a.summaries, changed], { stitched: false })).toThrow(/summarised twice/);
  });
});
