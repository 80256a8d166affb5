// Paging the registry list API: the sandbox registry serves windows of the REAL listing.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROSTER_LIMITS, fetchRoster, Pacer, retryAfterMs, type Clock, type RosterLimits } from '../../collector/roster.ts';
import { selectTargets } from '../../collector/targets.ts';
import { sha256Hex } from '../../src/lib/index.ts';
import { loadRealListing } from '../../sandbox/fixtures.ts';
import { compareEntries, OFFICIAL_META, startRegistry, type RegistryEntry } from '../../sandbox/registry-server.ts';

const agent = new Agent();
afterAll(() => agent.close());

// The pace is the default's in a one-second window: these cases are about paging, not the pace
// (the fetches at the real size: roster-paced.test.ts; the pace itself: 'Pacer' below).
const LIMITS: RosterLimits = { ...DEFAULT_ROSTER_LIMITS, backoffMs: 10, paceWindowMs: 1_000, timeoutMs: 2000 };
const objects = new Map<string, Buffer>();
const deps = {
  dispatcher: agent,
  putObject: async (b: Uint8Array) => {
    const sha = sha256Hex(b);
    objects.set(sha, Buffer.from(b));
    return sha;
  },
};

const sorted = loadRealListing('2025-12-12').slice().sort(compareEntries);
/** 200 real entries whose 100th is a version with '+', so page 2's cursor contains '+'. */
function plusWindow(): RegistryEntry[] {
  const k = sorted.findIndex((e) => e.server.version.includes('+'));
  return sorted.slice(k - 99, k + 101);
}

describe('fetchRoster(registry)', () => {
  it('pages 200 real entries with a "+" cursor to the trailing empty page, complete', async () => {
    const entries = plusWindow();
    expect(entries[99]!.server.version).toContain('+');
    const reg = await startRegistry({ entries });
    try {
      const r = await fetchRoster(reg.url, deps, LIMITS);
      expect(r.complete).toBe(true);
      expect(r.pages.map((p) => p.count)).toEqual([100, 100, 0]);
      expect(r.pages[1]!.cursor).toContain('+');
      expect(r.pages[1]!.url).toContain('%2B'); // encoded: a raw '+' would reach the server as a space
      expect(r.pages[2]!.next_cursor).toBeNull();
      // Every entry exactly once, in API order.
      const seen = r.bodies.flatMap((b) => b.servers as RegistryEntry[]).map((e) => `${e.server.name}:${e.server.version}`);
      expect(seen).toEqual(entries.map((e) => `${e.server.name}:${e.server.version}`));
      // Raw pages are kept byte for byte.
      for (const p of r.pages) expect(sha256Hex(objects.get(p.sha256!)!)).toBe(p.sha256);
    } finally {
      await reg.close();
    }
  });

  it('asks for limit=100 (the registry answers 422 above it) and records a 422 as an incomplete roster', async () => {
    const reg = await startRegistry({ entries: plusWindow() });
    try {
      expect((await fetchRoster(reg.url, deps, LIMITS)).pages[0]!.url).toContain('limit=100');
      const r = await fetchRoster(reg.url, deps, { ...LIMITS, pageSize: 101 });
      expect(r.complete).toBe(false);
      expect(r.pages[0]).toMatchObject({ http_status: 422, attempts: 1, sha256: null });
    } finally {
      await reg.close();
    }
  });

  it('honours Retry-After on 429 and then completes', async () => {
    const reg = await startRegistry({ entries: plusWindow() });
    try {
      reg.throttle(2, '1');
      const t0 = Date.now();
      const r = await fetchRoster(reg.url, deps, LIMITS);
      expect(r.complete).toBe(true);
      expect(r.pages[0]!.attempts).toBe(3);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1900); // two waits of Retry-After: 1
    } finally {
      await reg.close();
    }
  });

  it('honours a Retry-After given as an HTTP-date', async () => {
    const reg = await startRegistry({ entries: plusWindow() });
    try {
      const until = Date.now() + 1500;
      reg.throttle(1, new Date(until).toUTCString()); // whole seconds: 0.5 to 1.5 s from now
      const r = await fetchRoster(reg.url, deps, LIMITS);
      expect(r.complete).toBe(true);
      expect(r.pages[0]!.attempts).toBe(2);
      expect(Date.now()).toBeGreaterThanOrEqual(Math.floor(until / 1000) * 1000 - 5); // a timer may fire a few ms early
    } finally {
      await reg.close();
    }
  });

  it('backs off and retries a 429 without Retry-After (a rate limit of 1 request per 300 ms)', async () => {
    const reg = await startRegistry({ entries: plusWindow(), rateLimit: { requests: 1, windowMs: 300, retryAfter: false } });
    try {
      // Paced far above the limit, so the back-off (40, 80, 160 ms ...) and the slowed pace do the work.
      const r = await fetchRoster(reg.url, deps, { ...LIMITS, rateLimitBackoffMs: 40, paceRequests: 1_000, paceWindowMs: 1_000, paceBurst: 1 });
      expect(r.complete).toBe(true);
      expect(reg.rateLimited).toBeGreaterThan(0);
      expect(r.pages.reduce((n, p) => n + p.attempts - 1, 0)).toBe(reg.rateLimited);
    } finally {
      await reg.close();
    }
  });

  it('caps a huge Retry-After instead of sleeping for it', async () => {
    const reg = await startRegistry({ entries: plusWindow() });
    try {
      reg.throttle(1, '86400');
      const r = await fetchRoster(reg.url, deps, { ...LIMITS, maxRetryAfterMs: 50 });
      expect(r.complete).toBe(true);
      expect(r.pages[0]!.attempts).toBe(2);
    } finally {
      await reg.close();
    }
  });

  it('marks the roster incomplete when a page keeps failing after retries', async () => {
    const reg = await startRegistry({ entries: plusWindow() });
    try {
      reg.failNext(LIMITS.maxAttempts, 503);
      const r = await fetchRoster(reg.url, deps, LIMITS);
      expect(r.complete).toBe(false);
      expect(r.pages).toHaveLength(1);
      expect(r.pages[0]).toMatchObject({ http_status: 503, attempts: LIMITS.maxAttempts, error: 'http 503' });
      expect(r.incompleteReason).toMatch(/page 1 failed/);
    } finally {
      await reg.close();
    }
  });

  it('marks the roster incomplete on a repeated cursor (a registry paging in circles)', async () => {
    const page = sorted.slice(0, 100);
    const srv = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ servers: page, metadata: { count: 100, nextCursor: 'same:1.0.0' } }));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const r = await fetchRoster(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/v0.1/servers`, deps, LIMITS);
      expect(r.complete).toBe(false);
      expect(r.incompleteReason).toMatch(/repeated cursor same:1.0.0/);
      expect(r.pages).toHaveLength(2);
    } finally {
      srv.close();
    }
  });

  it('stops at the page bound with an incomplete roster', async () => {
    const reg = await startRegistry({ entries: plusWindow() });
    try {
      const r = await fetchRoster(reg.url, deps, { ...LIMITS, maxPages: 2 });
      expect(r.complete).toBe(false);
      expect(r.incompleteReason).toMatch(/page bound/);
    } finally {
      await reg.close();
    }
  });
});

describe('selectTargets(pages)', () => {
  const listing = loadRealListing('2025-12-12');
  const pages = [{ sha256: 'a'.repeat(64), servers: listing }];
  const { targets, entries } = selectTargets(pages);

  it('makes one target per name from the isLatest entry, never by position', () => {
    expect(entries).toBe(listing.length);
    expect(targets.length).toBe(new Set(listing.map((e) => e.server.name)).size);
    for (const t of targets) {
      const e = listing[t.page_index]!;
      expect(e.server.name).toBe(t.name);
      expect(e._meta?.[OFFICIAL_META]?.isLatest).toBe(true);
    }
    // A real name whose latest version is not the last of its group (versions sort as strings).
    const multi = targets.find((t) => {
      const group = listing.filter((e) => e.server.name === t.name);
      return group.length > 1 && group[group.length - 1]!.server.version !== t.version;
    });
    expect(multi).toBeDefined();
  });

  it('takes the first streamable-http remote even when sse is listed first', () => {
    const sseFirst = listing.find((e) => e._meta?.[OFFICIAL_META]?.isLatest && (e.server.remotes as Array<{ type: string }> | undefined)?.[0]?.type === 'sse' && (e.server.remotes as Array<{ type: string }>).some((r) => r.type === 'streamable-http'));
    expect(sseFirst).toBeDefined();
    const t = targets.find((x) => x.name === sseFirst!.server.name)!;
    expect(t.endpoint).toBe((sseFirst!.server.remotes as Array<{ type: string; url: string }>).find((r) => r.type === 'streamable-http')!.url);
  });

  it('gives no endpoint for sse-only entries, templated URLs and non-http URLs', () => {
    let n = 0;
    const mk = (remotes: unknown): RegistryEntry => ({ server: { name: `x/${n++}`, version: '1', remotes }, _meta: { [OFFICIAL_META]: { isLatest: true, status: 'active' } } });
    const { targets: ts } = selectTargets([
      {
        sha256: 'b'.repeat(64),
        servers: [
          mk([{ type: 'sse', url: 'https://a.example/sse' }]),
          mk([{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp' }]),
          mk([{ type: 'streamable-http', url: 'ftp://a.example/mcp' }]),
          mk(undefined),
        ],
      },
    ]);
    expect(ts.map((t) => t.endpoint_problem)).toEqual(['no_streamable_http', 'templated_url', 'invalid_url', 'no_streamable_http']);
  });
});

describe('retryAfterMs(value)', () => {
  it('reads delta-seconds and an HTTP-date; anything else is null (the caller backs off)', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(['2', '9'])).toBe(2000);
    const ms = retryAfterMs(new Date(Date.now() + 10_000).toUTCString())!;
    expect(ms).toBeGreaterThan(8_000);
    expect(ms).toBeLessThanOrEqual(10_000);
    expect(retryAfterMs('Thu, 01 Jan 1970 00:00:00 GMT')).toBe(0); // in the past: go now
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });
});

describe('Pacer (a fake clock: take() starts, in ms)', () => {
  const clock = (): Clock & { t: number } => {
    const c = { t: 0, now: () => c.t, sleep: async (ms: number) => void (c.t += ms) };
    return c;
  };
  const starts = async (p: Pacer, c: { t: number }, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      await p.take();
      out.push(c.t);
    }
    return out;
  };
  const gaps = (xs: number[]) => xs.slice(1).map((x, i) => Math.round(x - xs[i]!));
  /** Most starts in any window of `w` ms. */
  const busiest = (xs: number[], w: number) => {
    let best = 0;
    for (let i = 0, j = 0; i < xs.length; i++) {
      while (xs[i]! - xs[j]! >= w) j++;
      best = Math.max(best, i - j + 1);
    }
    return best;
  };
  const PACE = { requests: 150, windowMs: 60_000, burst: 20 };

  it('lets a burst of 20 through, then one request every 400 ms: never more than 170 in any minute', async () => {
    const c = clock();
    const p = new Pacer(PACE, c);
    const xs = await starts(p, c, 1_000);
    expect(xs.slice(0, 20)).toEqual(Array(20).fill(0));
    expect(new Set(gaps(xs.slice(19)))).toEqual(new Set([400]));
    expect(busiest(xs, 60_000)).toBe(169); // 20 + 149 in a half-open minute: at most 170 in a closed one
  });

  it('a client slower than the pace saves up at most the burst', async () => {
    const c = clock();
    const p = new Pacer(PACE, c);
    await starts(p, c, 20);
    c.t += 10 * 60_000;
    const xs = await starts(p, c, 22);
    expect(gaps(xs)).toEqual([...Array(19).fill(0), 400, 400]);
  });

  it('after a 429: half the pace and no burst; each quiet minute a quarter of the pace back', async () => {
    const c = clock();
    const p = new Pacer(PACE, c);
    await starts(p, c, 30);
    p.throttled();
    expect(p.requestsPerWindow).toBe(75);
    const slow = await starts(p, c, 75); // the first minute after the 429
    expect(new Set(gaps(slow))).toEqual(new Set([800]));
    const xs = await starts(p, c, 300);
    expect(p.requestsPerWindow).toBe(150);
    const g = gaps(xs);
    expect(g.slice(0, 100).filter((x) => x === 533 || x === 534).length).toBeGreaterThanOrEqual(99); // 112.5 a minute, then 150
    expect(new Set(g.slice(-100))).toEqual(new Set([400]));
    expect(new Set(g).size).toBeLessThanOrEqual(4); // 800, 533/534, 400: no burst after a 429
    expect(busiest(xs, 60_000)).toBeLessThanOrEqual(151);
  });

  it('429 after 429 halves down to an eighth of the pace, not to a standstill', async () => {
    const c = clock();
    const p = new Pacer(PACE, c);
    for (let i = 0; i < 6; i++) p.throttled();
    expect(p.requestsPerWindow).toBe(150 / 8);
    expect(gaps(await starts(p, c, 4))).toEqual([3_200, 3_200, 3_200]);
  });
});
