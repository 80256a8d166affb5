// The build cache carried between deploys (.github/workflows/deploy.yml restores yesterday's
// cache with actions/cache). A restored cache is trusted only through the loader's own checks
// (src/loader/cache.ts): an entry is found by its key (a fingerprint of what it was computed from: the
// day files' contents, the contract's and src/lib's sources), and read only when its bytes are the ones
// the loader wrote under that key. So a cache carried to another folder and another checkout (new paths,
// new mtimes) is reused whole; a day file that changed since is read again; and an entry whose bytes
// were changed, cut short, or moved under another key is refused (counted in `BuildCache.rejected`) and recomputed
// — every time with the same result as a build without any cache.
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { beforeAll, describe, expect, it } from 'vitest';
import { deriveArchive, readRawArchive, type Archive } from '../../src/loader/load-archive.ts';
import { CACHE_ENTRY_MAGIC } from '../../src/loader/cache.ts';
import { fixtureArchive, ROOT } from '../site/shared.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();
/** A copy in a new folder: new paths and new mtimes, as a fresh checkout or a restored cache has. */
function copyOf(dir: string, prefix: string): string {
  const to = tmp(prefix);
  cpSync(dir, to, { recursive: true });
  return to;
}

/** Everything a page or bundle reads, without the functions and the cache counters. */
function comparable(a: Archive) {
  return { servers: a.servers, changes: a.changes, bodyFindings: a.bodyFindings, sets: a.sets, intervals: a.intervals, km: a.km, tiles: a.tiles, rowCount: a.rowCount, days: a.days, problems: a.problems, asOf: a.asOf, runs: a.runs };
}
/** A build (day-summary workers on, as the site's first build has them), with the cache's counters after it. */
async function build(dir: string, cache: string | null): Promise<Archive & { stats: { hits: number; misses: number; rejected: number; changeHits: number; changeMisses: number } }> {
  const raw = await readRawArchive(dir, cache ? { cache: { dir: cache, sourceRoot: ROOT }, prebuild: { workers: 2 } } : {});
  const a = await deriveArchive(raw);
  // rejected: entries that were there under their key but were not the bytes the loader wrote (src/loader/cache.ts).
  return Object.assign(a, { stats: { ...a.cacheStats, rejected: raw.cache.rejected } });
}

/** The cache's day summaries, by file name. */
const dayEntries = (cache: string) => readdirSync(path.join(cache, 'days')).filter((f) => f.endsWith('.v8')).sort();
const changeEntries = (cache: string) => readdirSync(path.join(cache, 'changes')).filter((f) => /^[0-9a-f]{64}\.v8$/.test(f)).sort();

describe('a build cache carried to another run', () => {
  let archive: string;
  /** Yesterday's cache: written by a build of the archive in another folder. */
  let yesterday: string;
  let scratchBuild: ReturnType<typeof comparable>;
  beforeAll(async () => {
    archive = copyOf(await fixtureArchive(), 'mcp-schema-carried-archive-');
    yesterday = tmp('mcp-schema-carried-cache-');
    const first = await build(archive, yesterday);
    expect(first.stats).toMatchObject({ hits: 0, misses: first.days.length, rejected: 0 });
    scratchBuild = comparable(await build(archive, null));
  }, 300_000);

  it('is reused whole in a new checkout (other paths, other mtimes): every day and every unchanged target from the cache', async () => {
    const checkout = copyOf(archive, 'mcp-schema-carried-checkout-');
    const restored = copyOf(yesterday, 'mcp-schema-carried-restored-');
    const a = await build(checkout, restored);
    expect(a.stats).toMatchObject({ hits: a.days.length, misses: 0, rejected: 0, changeMisses: 0 });
    expect(a.stats.changeHits).toBeGreaterThan(0);
    expect(comparable(a)).toEqual(scratchBuild);
  }, 300_000);

  it('reads a day again when its file no longer matches the fingerprint the entry was filed under', async () => {
    const checkout = copyOf(archive, 'mcp-schema-carried-checkout-');
    const restored = copyOf(yesterday, 'mcp-schema-carried-restored-');
    // The last row of the first day dropped: same name, other bytes, so another key.
    const obs = path.join(checkout, 'observations');
    const first = readdirSync(obs).sort()[0]!;
    const lines = readFileSync(path.join(obs, first), 'utf8').split('\n').filter(Boolean);
    writeFileSync(path.join(obs, first), lines.slice(0, -1).map((l) => `${l}\n`).join(''));
    const a = await build(checkout, restored);
    expect(a.stats).toMatchObject({ hits: a.days.length - 1, misses: 1, rejected: 0 });
    expect(a.rowCount).toBe(scratchBuild.rowCount - 1);
    expect(comparable(a)).toEqual(comparable(await build(checkout, null)));
  }, 300_000);

  it('refuses a day summary whose bytes were changed (still a well-formed summary), and computes it again', async () => {
    const restored = copyOf(yesterday, 'mcp-schema-carried-restored-');
    const entries = dayEntries(restored);
    expect(entries.length).toBe(scratchBuild.days.length);
    // A poisoned entry: the summary of the first day with one row fewer, re-serialised behind the entry's header.
    const file = path.join(restored, 'days', entries[0]!);
    const bytes = readFileSync(file);
    const header = bytes.subarray(0, CACHE_ENTRY_MAGIC.length + 32);
    expect(header.subarray(0, CACHE_ENTRY_MAGIC.length).toString('latin1')).toBe(CACHE_ENTRY_MAGIC);
    const summary = deserialize(bytes.subarray(header.length)) as { n: number };
    writeFileSync(file, Buffer.concat([header, serialize({ ...summary, n: summary.n - 1 })]));
    const a = await build(copyOf(archive, 'mcp-schema-carried-checkout-'), restored);
    expect(a.stats).toMatchObject({ hits: a.days.length - 1, misses: 1, rejected: 1 });
    expect(comparable(a)).toEqual(scratchBuild);
    // Rewritten: the next build reads it from the cache again.
    const again = await build(copyOf(archive, 'mcp-schema-carried-checkout-'), restored);
    expect(again.stats).toMatchObject({ hits: again.days.length, misses: 0, rejected: 0 });
  }, 300_000);

  it('refuses entries cut short, flipped by one bit, or moved under another key', async () => {
    const restored = copyOf(yesterday, 'mcp-schema-carried-restored-');
    const [a, b, c, donor] = [...dayEntries(restored).slice(0, 3), dayEntries(restored).at(-1)!].map((f) => path.join(restored, 'days', f));
    // Another day's summary under this day's name: a well-formed entry of the same format, filed under the wrong key.
    writeFileSync(c!, readFileSync(donor!));
    const cut = readFileSync(a!);
    writeFileSync(a!, cut.subarray(0, cut.length - 7));
    const flip = Buffer.from(readFileSync(b!));
    flip[flip.length >> 1]! ^= 0x10;
    writeFileSync(b!, flip);
    const built = await build(copyOf(archive, 'mcp-schema-carried-checkout-'), restored);
    expect(built.stats).toMatchObject({ hits: built.days.length - 3, misses: 3, rejected: 3 });
    expect(comparable(built)).toEqual(scratchBuild);
  }, 300_000);

  it("refuses a target's derived changes whose bytes were changed, and derives them again", async () => {
    const restored = copyOf(yesterday, 'mcp-schema-carried-restored-');
    const entries = changeEntries(restored);
    expect(entries.length).toBeGreaterThan(0);
    // Every derived-change entry flipped by one bit in its last byte.
    for (const f of entries) {
      const file = path.join(restored, 'changes', f);
      const bytes = Buffer.from(readFileSync(file));
      bytes[bytes.length - 1]! ^= 0x01;
      writeFileSync(file, bytes);
      expect(statSync(file).size).toBe(bytes.length);
    }
    const a = await build(copyOf(archive, 'mcp-schema-carried-checkout-'), restored);
    expect(a.stats.rejected).toBeGreaterThanOrEqual(entries.length);
    expect(comparable(a)).toEqual(scratchBuild);
  }, 300_000);
});
