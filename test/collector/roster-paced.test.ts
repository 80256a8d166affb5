// The listing at the real size: 115,000 rows = 1,150 pages of 100, from a loopback
// registry with page latency and the real service's rate limit (180 requests a minute, then 429).
// Time is scaled by F = 20: the registry's minute and the collector's pace window are 3 s, latencies
// are a twentieth of the real ones, so one listing takes about 25 s instead of 8 min. Why not a
// larger F: the collector's own work per page (~5–8 ms on two cores: the HTTP round trip, hashing and
// parsing a page) is not scaled, and the contrast case needs an unpaced collector to outrun the
// limiter's 3,000 / 180 = 16.7 ms a request; at F = 100 (6 ms a request) nothing here could.
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROSTER_LIMITS, fetchRoster, rosterBounds, type FetchedRoster, type RosterLimits } from '../../collector/roster.ts';
import { chainBoundaries, rosterChains, fetchRosterChains } from '../../collector/roster-chains.ts';
import { sha256Hex } from '../../src/lib/index.ts';
import { loadRealListing } from '../../sandbox/fixtures.ts';
import { rng } from '../../sandbox/prng.ts';
import { compareEntries, OFFICIAL_META, startRegistry, type RegistryEntry, type RegistryServer } from '../../sandbox/registry-server.ts';

const F = 20;
const MINUTE = 60_000 / F;
const ROWS = 115_000;

/**
 * ROWS rows: the real 2025-12-12 listing (2,628 name+version rows, '+' versions and all) and copies of
 * it named `<name>-sim-<k>` as the sandbox world names its synthetic targets, in API order. Rows are
 * slim (name, version, a description cut to 100 characters, the registry's _meta: ~330 bytes, a
 * third of a real row) to keep the test's memory modest; paging does not look inside a row.
 */
function bigListing(n: number): RegistryEntry[] {
  const base = loadRealListing('2025-12-12');
  const out: RegistryEntry[] = [];
  for (let k = 0; out.length < n; k++) {
    for (const e of base) {
      if (out.length >= n) break;
      const m = e._meta?.[OFFICIAL_META] ?? {};
      out.push({
        server: { name: k === 0 ? e.server.name : `${e.server.name}-sim-${k}`, version: e.server.version, description: String(e.server.description ?? '').slice(0, 100) },
        _meta: { [OFFICIAL_META]: { status: m.status, isLatest: m.isLatest, publishedAt: m.publishedAt, updatedAt: m.updatedAt } },
      });
    }
  }
  return out.sort(compareEntries);
}

const listing = bigListing(ROWS);
const keyOf = (e: RegistryEntry) => `${e.server.name}:${e.server.version}`;

/** Page latency drawn per request, log-normal: median 60 ms, 99th percentile 400 ms (real time), ÷ F. */
function latency(seed: string): () => number {
  const draw = rng(`roster-paced|${seed}`);
  const sigma = Math.log(400 / 60) / 2.3263478740408408;
  return () => {
    const z = Math.sqrt(-2 * Math.log(1 - draw.next())) * Math.cos(2 * Math.PI * draw.next());
    return (60 * Math.exp(sigma * z)) / F;
  };
}

const agent = new Agent();
afterAll(() => agent.close());
/** Pages are hashed as the store would, not kept: 37 MB of bodies would only cost memory here. */
const deps = { dispatcher: agent, putObject: async (b: Uint8Array) => sha256Hex(b) };

/** The default limits with every time divided by F (the pace stays 150 a window, burst 20). */
const SCALED: RosterLimits = {
  ...DEFAULT_ROSTER_LIMITS,
  paceWindowMs: MINUTE,
  backoffMs: DEFAULT_ROSTER_LIMITS.backoffMs / F,
  rateLimitBackoffMs: DEFAULT_ROSTER_LIMITS.rateLimitBackoffMs / F,
  maxRetryAfterMs: DEFAULT_ROSTER_LIMITS.maxRetryAfterMs / F,
  timeoutMs: 10_000,
};
// A first run's bounds at this pace: what a day with no previous roster would get.
Object.assign(SCALED, rosterBounds({ complete: null, cut: null }, SCALED));

async function withRegistry<T>(retryAfter: boolean, f: (reg: RegistryServer) => Promise<T>, latencyMs: number | (() => number) = latency(String(retryAfter))): Promise<T> {
  const reg = await startRegistry({ entries: listing, sorted: true, latencyMs, rateLimit: { requests: 180, windowMs: MINUTE, retryAfter } });
  try {
    return await f(reg);
  } finally {
    await reg.close();
  }
}

/** Complete, and every row exactly once in API order (checked without a 115,000-line diff on failure). */
function expectWholeListing(r: FetchedRoster): void {
  expect(r.incompleteReason).toBeNull();
  expect(r.complete).toBe(true);
  expect(r.pages).toHaveLength(ROWS / 100 + 1); // a full last page still carries nextCursor
  expect(r.pages.at(-1)!.count).toBe(0);
  const seen = r.bodies.flatMap((b) => (b.servers as RegistryEntry[]).map(keyOf));
  expect(seen.length).toBe(ROWS);
  const firstWrong = seen.findIndex((k, i) => k !== keyOf(listing[i]!));
  expect(firstWrong).toBe(-1);
}

const retries = (r: FetchedRoster) => r.pages.reduce((n, p) => n + p.attempts - 1, 0);
const report = (what: string, r: FetchedRoster, reg: RegistryServer, ms: number) =>
  console.log(`${what}: ${r.pages.length} pages, ${reg.requests} requests, ${reg.rateLimited} × 429, ${(ms / 1000).toFixed(1)} s (${((ms * F) / 60_000).toFixed(1)} min at real scale)`);

describe('fetchRoster at the real size (115,000 rows, F = 20)', () => {
  it('paced (150 a minute, burst 20) under a 180-a-minute limiter: the whole listing, and the registry answers no 429', async () => {
    await withRegistry(true, async (reg) => {
      const t0 = performance.now();
      const r = await fetchRoster(reg.url, deps, SCALED);
      report('paced', r, reg, performance.now() - t0);
      expectWholeListing(r);
      expect(reg.rateLimited).toBe(0);
      expect(reg.requests).toBe(r.pages.length); // not one retry
    });
  }, 120_000);

  // The contrast: a collector paced at four times the limit (faster than it can go: in effect unpaced)
  // is answered 429 and completes only thanks to its retries, with and without Retry-After.
  const overPaced: RosterLimits = { ...SCALED, paceRequests: 4 * 180 };
  for (const retryAfter of [true, false]) {
    it(`over-paced (4 × 180 a minute): 429s${retryAfter ? ' with Retry-After' : ' without Retry-After (back-off)'}, every one retried, the whole listing`, async () => {
      await withRegistry(retryAfter, async (reg) => {
        const t0 = performance.now();
        const r = await fetchRoster(reg.url, deps, overPaced);
        report(`over-paced, Retry-After ${retryAfter ? 'yes' : 'no'}`, r, reg, performance.now() - t0);
        expectWholeListing(r);
        expect(reg.rateLimited).toBeGreaterThan(0);
        expect(retries(r)).toBe(reg.rateLimited); // every 429 was retried, nothing else failed
        expect(reg.requests).toBe(r.pages.length + reg.rateLimited);
      });
    }, 180_000);
  }

  // Pages answering in 0.55 s (the operator's measurement, ÷ F), slower than the pace's 0.4 s: one chain
  // is latency-bound; the chains auto gives at year 5's size share the one pace, and the registry's
  // 180-a-minute limiter answers no 429. Yesterday's listing is this one: its page cursors are the keys
  // at every 100th row.
  it('two cursor chains at 0.55 s a page under the one pace: the whole listing, in order, and no 429', async () => {
    const yesterday = { complete: true, pages: Array.from({ length: ROWS / 100 }, (_, i) => ({ cursor: i === 0 ? null : keyOf(listing[i * 100 - 1]!), url: 'u', http_status: 200, sha256: 'a'.repeat(64), count: 100, next_cursor: null, attempts: 1, error: null })) };
    expect(rosterChains({ complete: { pages: 29_018, ms: 29_018 * 550 }, cut: null }, DEFAULT_ROSTER_LIMITS)).toBe(2);
    const boundaries = chainBoundaries(yesterday, 2);
    expect(boundaries).toEqual([keyOf(listing[ROWS / 2 - 1]!)]);
    await withRegistry(true, async (reg) => {
      const t0 = performance.now();
      const r = await fetchRosterChains(reg.url, deps, SCALED, boundaries);
      report('two chains, 0.55 s a page', r, reg, performance.now() - t0);
      expect(r.incompleteReason).toBeNull();
      const seen = r.bodies.flatMap((b) => (b.servers as RegistryEntry[]).map(keyOf));
      expect(seen.length).toBe(ROWS);
      expect(seen.findIndex((k, i) => k !== keyOf(listing[i]!))).toBe(-1);
      expect(reg.rateLimited).toBe(0);
      expect(reg.requests).toBe(r.pages.length); // not one retry
    }, 550 / F);
  }, 120_000);
});
