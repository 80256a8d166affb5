// Fold checkpoints (src/loader/checkpoint.ts): a build keeps the fold after a prefix of the days in the
// build cache, and a later build folds only the days after it. Whatever the checkpoint, the derived
// archive must be the one a fold from the start gives: checked here on the golden and lifecycle
// fixtures, on a stitched headline (v1, the bridge, v2) and on a generated archive (changes, retirements,
// late joiners), with one and three shards, by building an archive day by day with one cache and
// comparing every build with a build without any cache. A day file that changed, a headline that
// switched and a checkpoint entry with a changed byte each give a fold from the start, with the same result.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateArchive } from '../../bench/archive-gen.ts';
import { byCodeUnits } from '../../src/lib/index.ts';
import { deriveArchive, readRawArchive, type Archive, type ServerView } from '../../src/loader/load-archive.ts';
import { checkpointCut, type FoldEntry } from '../../src/loader/checkpoint.ts';
import { headlineArchive, HEADLINE_ARCHIVE, ROOT } from '../site/shared.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();
const FIXTURES = path.join(import.meta.dirname, '..', '..', 'fixtures', 'archive');
const SERIES_DIRS = ['observations', 'observations-v2'];

/** JSON of everything pages read (Maps and Sets as arrays); no cache counters, timings, functions or folder. */
async function pagesRead(a: Archive): Promise<Record<string, string>> {
  const servers: ServerView[] = [];
  for (let k = 0; k < a.shards; k++) servers.push(...(await a.serversIn(k)));
  servers.sort((x, y) => byCodeUnits(x.name, y.name));
  // Not compared: the cache's counters, functions, the folder, and what a build in shards refuses to hold (servers are read above).
  const skip = new Set(['cacheStats', 'memo', 'dir', 'serversIn', 'server', 'bySlug', 'servers']);
  const rest = Object.fromEntries(Object.keys(a).filter((k) => !skip.has(k)).map((k) => [k, a[k as keyof Archive]]));
  const json = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (v instanceof Map || v instanceof Set ? [...v] : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
  return Object.fromEntries(Object.entries({ ...rest, servers }).map(([k, v]) => [k, json(v)]));
}

/** The fields where two builds differ (none when they agree), each with the first characters that differ. */
function differences(a: Record<string, string>, b: Record<string, string>): string[] {
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[k] ?? '';
    const y = b[k] ?? '';
    if (x === y) continue;
    let i = 0;
    while (x[i] === y[i]) i++;
    out.push(`${k} @${i}: ${x.slice(Math.max(0, i - 80), i + 80)} ≠ ${y.slice(Math.max(0, i - 80), i + 80)}`);
  }
  return out;
}

interface Built {
  pages: Record<string, string>;
  /** Day summaries the build read (hits and misses): the days after its checkpoint. */
  daysRead: number;
  rejected: number;
}

/** A build with checkpoints in `cache`; without one, the reference: a fold from the start, in an empty cache of its own. */
async function build(dir: string, opts: { cache?: string; shards?: number; bridgeDays?: number } = {}): Promise<Built> {
  const cache = { dir: opts.cache ?? tmp('mcp-schema-cp-empty-'), sourceRoot: ROOT };
  const raw = await readRawArchive(dir, { cache, checkpoints: opts.cache !== undefined, shards: opts.shards ?? 1, bridgeDays: opts.bridgeDays });
  const a = await deriveArchive(raw);
  return { pages: await pagesRead(a), daysRead: raw.cacheStats.hits + raw.cacheStats.misses, rejected: raw.cache.rejected };
}

/** The archive's days (every series), in order. */
function daysOf(dir: string): string[] {
  const days = new Set<string>();
  for (const s of SERIES_DIRS) {
    try {
      for (const f of readdirSync(path.join(dir, s))) days.add(f.slice(0, 10));
    } catch {
      /* no such series */
    }
  }
  return [...days].sort();
}

/** `from` as it stood on `last`: every file but the day files and run lines after it. */
function prefixOf(from: string, to: string, last: string): void {
  cpSync(from, to, { recursive: true, filter: (src) => !SERIES_DIRS.includes(path.basename(path.dirname(src))) || path.basename(src).slice(0, 10) <= last });
  const runs = readFileSync(path.join(from, 'runs.jsonl'), 'utf8').split('\n').filter((l) => l.trim() && (JSON.parse(l) as { day: string }).day <= last);
  writeFileSync(path.join(to, 'runs.jsonl'), runs.map((l) => `${l}\n`).join(''));
}

/** Build `from` day by day (from day `start` on) with one cache, each build compared with a build without a cache. */
async function dayByDay(from: string, start: number, opts: { shards?: number; bridgeDays?: number } = {}): Promise<{ cache: string; work: string; reads: number[]; days: number[] }> {
  const days = daysOf(from);
  const cache = tmp('mcp-schema-cp-cache-');
  const reads: number[] = [];
  const counts: number[] = [];
  let work = '';
  for (let n = start; n <= days.length; n++) {
    work = tmp('mcp-schema-cp-day-');
    prefixOf(from, work, days[n - 1]!);
    const daily = await build(work, { ...opts, cache });
    const scratch = await build(work, opts);
    expect(differences(daily.pages, scratch.pages), `${days[n - 1]}`).toEqual([]);
    expect(daily.rejected).toBe(0);
    reads.push(daily.daysRead);
    counts.push(n);
  }
  return { cache, work, reads, days: counts };
}

describe('fold checkpoints', () => {
  it('cut after the last closed day before the newest, or before the newest when no day is closed', () => {
    const e = (day: string, closed: boolean): FoldEntry => ({ day, series: 'v1', key: day, whole: false, closed });
    expect(checkpointCut([e('a', false), e('b', false), e('c', false)])).toBe(2);
    expect(checkpointCut([e('a', true), e('b', false), e('c', false)])).toBe(1);
    expect(checkpointCut([e('a', true), e('b', true), e('c', true)])).toBe(2);
    expect(checkpointCut([e('a', true), e('a', true), e('b', false)])).toBe(2);
    expect(checkpointCut([e('a', false)])).toBe(0);
    expect(checkpointCut([])).toBe(0);
  });

  for (const name of ['golden', 'lifecycle']) {
    it(`${name}: built day by day with checkpoints, every build is the fold from the start, and reads only the days after its checkpoint`, async () => {
      const { reads } = await dayByDay(path.join(FIXTURES, name), 2);
      // The first build folds both days; each later one the day before its newest (not yet in a checkpoint) and the newest.
      expect(reads[0]).toBe(2);
      for (const r of reads.slice(1)) expect(r).toBe(2);
    }, 120_000);
  }

  it('rows out of time order (a target folded again row by row, through days the checkpoint holds): every build equal to the fold from the start', async () => {
    // The golden archive with one ok row on 2025-12-17 and one on 2025-12-19 stamped before every earlier day.
    const dir = tmp('mcp-schema-cp-disorder-');
    cpSync(path.join(FIXTURES, 'golden'), dir, { recursive: true });
    const moved: string[] = [];
    for (const [day, nth] of [['2025-12-17', 0], ['2025-12-19', 3]] as const) {
      const file = path.join(dir, 'observations', `${day}.jsonl`);
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      const k = lines.map((l, i) => [i, JSON.parse(l) as { outcome: string }] as const).filter(([, r]) => r.outcome === 'ok')[nth]![0];
      const row = JSON.parse(lines[k]!) as { target: string; observed_at: string; day: string };
      row.observed_at = '2025-12-14T12:00:00.000Z';
      row.day = '2025-12-14';
      lines[k] = JSON.stringify(row);
      moved.push(row.target);
      writeFileSync(file, lines.join('\n') + '\n');
    }
    expect(new Set(moved).size).toBe(2);
    const { cache, reads } = await dayByDay(dir, 2);
    // Not vacuous: the newest build folded two days after its checkpoint, then all five again for the
    // disordered targets (three of them read from their files: their summaries were deleted), and the re-read targets are the edits'.
    expect(reads.at(-1)).toBe(2 + 5);
    const raw = await readRawArchive(dir, { cache: { dir: cache, sourceRoot: ROOT }, checkpoints: true });
    expect([...raw.fold.disordered].sort()).toEqual([...moved].sort());
  }, 120_000);

  describe('a generated archive (changes, retirements, late joiners)', () => {
    let gen: string;
    beforeAll(async () => {
      gen = tmp('mcp-schema-cp-gen-');
      const sum = await generateArchive({ targets: 240, days: 16, out: gen, seed: 'checkpoint', start: '2026-03-01' });
      expect(sum.changes).toBeGreaterThan(0);
    }, 300_000);

    for (const shards of [1, 3]) {
      it(`${shards} shard(s): day by day from day 12, every build equal to the fold from the start; the cache keeps the tail's summaries and two checkpoints`, async () => {
        const { cache, reads } = await dayByDay(gen, 12, { shards });
        expect(reads[0]).toBe(12);
        // Closed days are gzipped: the checkpoint holds every day before the newest.
        for (const r of reads.slice(1)) expect(r).toBe(2);
        const ids = new Set(readdirSync(path.join(cache, 'checkpoints')).map((f) => f.slice(0, 64)));
        expect(ids.size).toBe(2);
        expect(readdirSync(path.join(cache, 'checkpoints'))).toHaveLength(2 * shards);
        // Only the newest day's summary is left (with its shards' parts).
        const keys = new Set(readdirSync(path.join(cache, 'days')).map((f) => f.slice(0, 64)));
        expect(keys.size).toBe(1);
      }, 600_000);
    }

    it('an old day file that changed, or a checkpoint with a changed byte: a fold from the start, the same result', async () => {
      const days = daysOf(gen);
      const cache = tmp('mcp-schema-cp-cache-');
      const work = tmp('mcp-schema-cp-work-');
      prefixOf(gen, work, days.at(-2)!);
      await build(work, { cache });
      prefixOf(gen, work, days.at(-1)!);
      // A changed byte in every checkpoint entry: refused (the seal), and every day is folded again.
      const cps = path.join(cache, 'checkpoints');
      for (const f of readdirSync(cps)) {
        const bytes = readFileSync(path.join(cps, f));
        bytes[bytes.length - 9]! ^= 1;
        writeFileSync(path.join(cps, f), bytes);
      }
      const corrupt = await build(work, { cache });
      expect(corrupt.rejected).toBeGreaterThan(0);
      expect(corrupt.daysRead).toBe(days.length);
      expect(differences(corrupt.pages, (await build(work)).pages)).toEqual([]);
      // The next build has a sound checkpoint again.
      expect((await build(work, { cache })).daysRead).toBe(1);
      // The first day's file rewritten (one row fewer): no checkpoint is a prefix of the days any more.
      const first = readdirSync(path.join(work, 'observations')).sort()[0]!;
      const { gunzipSync, gzipSync } = await import('node:zlib');
      const lines = gunzipSync(readFileSync(path.join(work, 'observations', first))).toString('utf8').split('\n').filter(Boolean);
      writeFileSync(path.join(work, 'observations', first), gzipSync(lines.slice(0, -1).map((l) => `${l}\n`).join('')));
      const changed = await build(work, { cache });
      expect(changed.daysRead).toBe(days.length);
      expect(differences(changed.pages, (await build(work)).pages)).toEqual([]);
    }, 600_000);

    it('another number of shards: no checkpoint matches, a fold from the start, the same result', async () => {
      const days = daysOf(gen);
      const cache = tmp('mcp-schema-cp-cache-');
      const work = tmp('mcp-schema-cp-work-');
      prefixOf(gen, work, days.at(-1)!);
      await build(work, { cache });
      expect((await build(work, { cache })).daysRead).toBe(1);
      const three = await build(work, { cache, shards: 3 });
      expect(three.daysRead).toBe(days.length);
      expect(differences(three.pages, (await build(work, { shards: 3 })).pages)).toEqual([]);
      expect((await build(work, { cache, shards: 3 })).daysRead).toBe(1);
    }, 600_000);
  });

  describe('the stitched headline (v1, the bridge, v2)', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await headlineArchive();
    }, 600_000);

    it('day by day through the bridge and after: every build equal to the fold from the start; the headline switch folds from the start', async () => {
      const { reads } = await dayByDay(dir, 2, { bridgeDays: HEADLINE_ARCHIVE.bridgeDays });
      const days = daysOf(dir);
      // The day the bridge completes is another base: every day folded again (v1 and v2 files of the bridge).
      const switchAt = HEADLINE_ARCHIVE.v1Days + HEADLINE_ARCHIVE.bridgeDays - 2;
      // The files of the first n days: every v1 day, and the v2 days from the seam (the first day after v1 alone).
      const files = (n: number) => SERIES_DIRS.flatMap((s) => readdirSync(path.join(dir, s)).filter((f) => f.slice(0, 10) <= days[n - 1]! && (s === 'observations' || f.slice(0, 10) >= days[HEADLINE_ARCHIVE.v1Days]!))).length;
      expect(reads.slice(0, switchAt)).toEqual(new Array(switchAt).fill(2));
      expect(reads[switchAt]).toBe(files(switchAt + 2));
      // Then again only the days after the checkpoint: the newest day and the one before it, in each series they have.
      for (const r of reads.slice(switchAt + 1)) expect(r).toBeLessThanOrEqual(4);
    }, 600_000);
  });
});
