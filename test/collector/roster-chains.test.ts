// The roster over parallel cursor chains (collector/roster-chains.ts), against the sandbox registry on
// loopback serving the REAL 2025-12-12 listing ('+' versions and all): the same roster as one chain,
// the one pace held across chains, a boundary item deleted between days, a failed page, a cursor the
// registry does not honour, the first day on one chain, and the roster file the archive reads back.
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROSTER_LIMITS, fetchRoster, rosterBounds, type FetchedRoster, type RosterLimits } from '../../collector/roster.ts';
import { chainBoundaries, compareKeys, cursorKey, fetchRosterChains, ROSTER_CHAINS, rosterChains } from '../../collector/roster-chains.ts';
import { Store } from '../../collector/store.ts';
import { selectTargets } from '../../collector/targets.ts';
import { main } from '../../collector/cli.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { runCollector } from '../../collector/run.ts';
import { previousRoster, rosterHistory, todaysRoster } from '../../collector/todays-roster.ts';
import { readObject } from '../../src/archive/objects.ts';
import { loadArchive } from '../../src/loader/load-archive.ts';
import { sha256Hex, type Roster } from '../../src/lib/index.ts';
import { loadRealListing } from '../../sandbox/fixtures.ts';
import { compareEntries, listPage, OFFICIAL_META, startRegistry, type RegistryEntry } from '../../sandbox/registry-server.ts';
import { startWorld, tmpData } from './world.ts';

const agent = new Agent();
afterAll(() => agent.close());
const deps = { dispatcher: agent, putObject: async (b: Uint8Array) => sha256Hex(b) };
/** The default pace in a one-second window: these cases are about paging (the pace: its own case below). */
const LIMITS: RosterLimits = { ...DEFAULT_ROSTER_LIMITS, chains: 1, backoffMs: 10, paceWindowMs: 1_000, timeoutMs: 5_000 };

const listing = loadRealListing('2025-12-12').slice().sort(compareEntries);
const keyOf = (e: RegistryEntry) => `${e.server.name}:${e.server.version}`;
/** The roster's entries, in order, as the targets stage reads them. */
const listed = (r: FetchedRoster) => r.bodies.flatMap((b) => (b.servers as RegistryEntry[]).map(keyOf));
/** The targets without their page references (pages differ between chainings, the servers must not). */
const servers = (r: FetchedRoster) => selectTargets(r.bodies).targets.map(({ page_sha256: _p, page_index: _i, ...t }) => t);
/** A previous complete roster's pages as the collector records them (the cursors are what chainBoundaries reads). */
const asPrevious = (r: FetchedRoster): Pick<Roster, 'complete' | 'pages'> => ({ complete: r.complete, pages: r.pages });

async function single(url: string): Promise<FetchedRoster> {
  const r = await fetchRoster(url, deps, LIMITS);
  expect(r.incompleteReason).toBeNull();
  return r;
}

describe('chainBoundaries, rosterChains (pure)', () => {
  const page = (cursor: string | null, chain?: number) => ({ cursor, url: 'u', http_status: 200, sha256: 'a'.repeat(64), count: 100, next_cursor: null, attempts: 1, error: null, ...(chain === undefined ? {} : { chain }) });
  const pages = [page(null), ...Array.from({ length: 9 }, (_, i) => page(`io.example/s${i + 1}:1.0.${i}+b`))];

  it('splits at the previous roster\'s page cursors at equal quantiles, sorted by key; none without a complete previous roster', () => {
    // 10 pages: page 6 was asked with s5 (the end of page 5), so two chains of 5 pages split there.
    expect(chainBoundaries({ complete: true, pages }, 2)).toEqual(['io.example/s5:1.0.4+b']);
    expect(chainBoundaries({ complete: true, pages }, 3)).toEqual(['io.example/s3:1.0.2+b', 'io.example/s7:1.0.6+b']);
    expect(chainBoundaries({ complete: true, pages: [...pages].reverse() }, 3)).toEqual(chainBoundaries({ complete: true, pages }, 3));
    expect(chainBoundaries(null, 3)).toEqual([]);
    expect(chainBoundaries({ complete: false, pages }, 3)).toEqual([]);
    expect(chainBoundaries({ complete: true, pages }, 1)).toEqual([]);
    expect(chainBoundaries({ complete: true, pages: pages.slice(0, 2) }, 4)).toEqual(['io.example/s1:1.0.0+b']); // too few pages: fewer chains
  });

  it('leaves out a chain\'s first cursor (yesterday\'s boundary), failed pages and cursors that are not name:version', () => {
    const chained = [page(null, 0), page('b:1', 0), page('c:1', 1), page('d:1', 1), page('e:1', 1)];
    expect(chainBoundaries({ complete: true, pages: chained }, 2)).not.toContain('c:1');
    const hostile = [page(null), page('no-colon'), page(':1'), { ...page('x:1'), error: 'http 500', sha256: null }, page('m:1')];
    expect(chainBoundaries({ complete: true, pages: hostile }, 2)).toEqual(['m:1']);
  });

  it('compares keys as the registry orders them (name, then version, bytes), not as name:version strings', () => {
    // As strings 'a-b:1' < 'a:1' ('-' < ':'); by name 'a' < 'a-b'.
    expect(compareKeys(cursorKey('a:1')!, cursorKey('a-b:1')!)).toBeLessThan(0);
    expect(compareKeys(cursorKey('a:1.10.0')!, cursorKey('a:1.9.0')!)).toBeLessThan(0);
    expect(cursorKey('io.x/y:1.0.0+build:7')).toEqual(['io.x/y', '1.0.0+build:7']);
  });

  it("auto: one chain at today's size; at year 5 the chains the pace can use", () => {
    const PACE = { paceRequests: 150, paceWindowMs: 60_000 };
    expect(rosterChains({ complete: null, cut: null }, PACE)).toBe(1);
    expect(rosterChains({ complete: { pages: 1_150, ms: 1_150 * 550 }, cut: null }, PACE)).toBe(1); // ≈ 11 min
    // The budget's edge: one chain just under an hour, two just over it.
    expect(rosterChains({ complete: { pages: 6_545, ms: 6_545 * 550 }, cut: null }, PACE)).toBe(1);
    expect(rosterChains({ complete: { pages: 6_546, ms: 6_546 * 550 }, cut: null }, PACE)).toBe(2);
    expect(rosterChains({ complete: { pages: 29_018, ms: 29_018 * 550 }, cut: null }, PACE)).toBe(2); // 4.4 h; 0.55 s ÷ 0.4 s
    // Yesterday on 2 chains at 0.275 s a page is the same registry: the same answer, not fewer chains.
    expect(rosterChains({ complete: { pages: 29_018, ms: 29_018 * 275, chains: 2 }, cut: null }, PACE)).toBe(2);
    expect(rosterChains({ complete: { pages: 20_000, ms: 20_000 * 5_000 }, cut: null }, PACE)).toBe(ROSTER_CHAINS.max);
    // The time bound shares yesterday's one-chain time a page among today's chains, never below the pace.
    const prev = { complete: { pages: 10_000, ms: 10_000 * 275, chains: 2 }, cut: null };
    expect(rosterBounds(prev, PACE, 1).maxWallMs).toBe(rosterBounds({ complete: { pages: 10_000, ms: 10_000 * 550 }, cut: null }, PACE).maxWallMs);
    expect(rosterBounds(prev, PACE, 2).maxWallMs).toBe(rosterBounds({ complete: { pages: 10_000, ms: 10_000 * 400 }, cut: null }, PACE).maxWallMs);
  });
});

describe('fetchRosterChains against the sandbox registry', () => {
  it('chains = 1 and chains = 3 give the same roster: the same entries once each, in order, the same servers', async () => {
    const reg = await startRegistry({ entries: listing });
    try {
      const one = await single(reg.url);
      const boundaries = chainBoundaries(asPrevious(one), 3);
      expect(boundaries).toHaveLength(2);
      const three = await fetchRosterChains(reg.url, deps, LIMITS, boundaries);
      expect(three.incompleteReason).toBeNull();
      expect(three.complete).toBe(true);
      expect(listed(three)).toEqual(listed(one));
      expect(servers(three)).toEqual(servers(one));
      expect(selectTargets(three.bodies).entries).toBe(selectTargets(one.bodies).entries);
      // Recorded: pages in chain order, each with its chain; a chain's last page says how many of its entries are the roster's.
      expect(three.pages.map((p) => p.chain)).toEqual([...three.pages.map((p) => p.chain)].sort());
      expect(new Set(three.pages.map((p) => p.chain))).toEqual(new Set([0, 1, 2]));
      expect(three.pages.reduce((n, p) => n + (p.listed ?? p.count!), 0)).toBe(listed(one).length);
      expect(three.pages.at(-1)!.next_cursor === null || three.pages.at(-1)!.count === 0).toBe(true);
      // Each target points at a recorded page and an index holding its entry.
      const bySha = new Map(three.bodies.map((b) => [b.sha256, b.servers as RegistryEntry[]]));
      for (const t of selectTargets(three.bodies).targets) expect(bySha.get(t.page_sha256)![t.page_index]!.server.name).toBe(t.name);
      // The chains asked for a handful of pages more than one chain: the overlap at each boundary.
      expect(three.pages.length - one.pages.length).toBeLessThanOrEqual(2);
    } finally {
      await reg.close();
    }
  });

  it('holds the one pace across chains: the registry counts no more than burst + pace requests in any window', async () => {
    // Pace 20 a second after a burst of 3; the registry admits 24 in any sliding second (one for the
    // arrival jitter of requests on new and kept-alive connections), then answers 429. With 25 ms a
    // page, three unpaced chains would ask ≈ 120 a second.
    const paced: RosterLimits = { ...LIMITS, paceRequests: 20, paceWindowMs: 1_000, paceBurst: 3 };
    const reg = await startRegistry({ entries: listing, latencyMs: 25, rateLimit: { requests: 24, windowMs: 1_000, retryAfter: true } });
    try {
      const one = await fetchRoster(reg.url, deps, paced); // yesterday, on one chain at the same pace
      expect(one.complete).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // yesterday's requests out of the window
      const before = reg.requests;
      const refused = reg.rateLimited;
      const t0 = performance.now();
      const three = await fetchRosterChains(reg.url, deps, paced, chainBoundaries(asPrevious(one), 3));
      const ms = performance.now() - t0;
      expect(three.complete).toBe(true);
      expect(listed(three)).toEqual(listed(one));
      expect(reg.rateLimited - refused).toBe(0);
      const requests = reg.requests - before;
      expect(requests).toBe(three.pages.length); // not one retry
      expect(ms).toBeGreaterThanOrEqual(((requests - 3) / 20) * 1_000 - 100); // paced, not three times the pace
    } finally {
      await reg.close();
    }
  }, 30_000);

  it('a boundary item deleted since yesterday: the chain still starts after its key (keyset), and the roster is today\'s listing', async () => {
    let entries = listing;
    const reg = await startRegistry({ entries: () => entries });
    try {
      const yesterday = await single(reg.url);
      const boundaries = chainBoundaries(asPrevious(yesterday), 3);
      const gone = new Set(boundaries);
      // Today: the boundary items and the item after each are deleted, one server is new.
      const after = new Set(listing.flatMap((e, i) => (gone.has(keyOf(e)) ? [keyOf(listing[i + 1]!)] : [])));
      const added: RegistryEntry = { server: { name: 'io.github.zz-new/after-all', version: '0.1.0' }, _meta: listing[0]!._meta };
      entries = [...listing.filter((e) => !gone.has(keyOf(e)) && !after.has(keyOf(e))), added].sort(compareEntries);
      const today = await single(reg.url);
      const three = await fetchRosterChains(reg.url, deps, LIMITS, boundaries);
      expect(three.incompleteReason).toBeNull();
      expect(listed(three)).toEqual(listed(today));
      expect(listed(three)).toEqual(entries.filter((e) => e._meta?.['io.modelcontextprotocol.registry/official']?.status !== 'deleted').map(keyOf));
      expect(servers(three)).toEqual(servers(today));
      for (const b of boundaries) expect(listed(three)).not.toContain(b);
    } finally {
      await reg.close();
    }
  });

  it('a chain that hits a failing page leaves the roster incomplete, with the reason one chain records', async () => {
    const reg = await startRegistry({ entries: listing });
    try {
      const yesterday = await single(reg.url);
      const boundaries = chainBoundaries(asPrevious(yesterday), 3);
      // The cursor of the second page: chain 1 of 3 asks for it, as one chain does.
      const failing = yesterday.pages[1]!.cursor!;
      reg.failCursor(failing, 500);
      const one = await fetchRoster(reg.url, deps, LIMITS);
      const three = await fetchRosterChains(reg.url, deps, LIMITS, boundaries);
      expect(one).toMatchObject({ complete: false, incompleteReason: 'page 2 failed: http 500' });
      expect(three).toMatchObject({ complete: false, incompleteReason: 'page 2 failed: http 500' });
      expect(three.pages[1]).toMatchObject({ cursor: failing, http_status: 500, sha256: null, attempts: LIMITS.maxAttempts, chain: 0 });
      // A later chain's failure is numbered where its page sits in the roster: the third chain's second
      // page (the chain before it asks for its boundary again, never past it).
      const second = yesterday.pages[yesterday.pages.findIndex((p) => p.cursor === boundaries[1]) + 1]!.cursor!;
      reg.failCursor(second, 503);
      const late = await fetchRosterChains(reg.url, deps, LIMITS, boundaries);
      const at = late.pages.findIndex((p) => p.cursor === second);
      expect(late).toMatchObject({ complete: false, incompleteReason: `page ${at + 1} failed: http 503` });
      expect(late.pages[at]!.chain).toBe(2);
    } finally {
      await reg.close();
    }
  });

  // A registry that answers the list API but mishandles a cursor (hostile, or changed), or changes while it is read.
  async function misbehaving(answer: (params: URLSearchParams) => { status: number; body: unknown }): Promise<{ url: string; server: Server }> {
    const server = createServer((req, res) => {
      const { status, body } = answer(new URL(req.url ?? '/', 'http://x').searchParams);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v0.1/servers`, server };
  }
  const visible = (entries: RegistryEntry[]) => entries.filter((e) => e._meta?.[OFFICIAL_META]?.status !== 'deleted').map(keyOf);

  it("fails loudly when a chain's first page answers entries not after its cursor, or none with a name and version", async () => {
    const reg = await startRegistry({ entries: listing });
    const boundaries = chainBoundaries(asPrevious(await single(reg.url)), 3);
    await reg.close();
    const b = boundaries[1]!;
    // The third chain's cursor ignored: the listing from its start.
    const ignores = await misbehaving((p) => listPage(listing, p.get('cursor') === b ? (p.delete('cursor'), p) : p));
    // The third chain's first page: entries without a name and version.
    const unkeyed = await misbehaving((p) => (p.get('cursor') === b ? { status: 200, body: { servers: [{ server: {} }, 7], metadata: { nextCursor: 'zzz:1' } } } : listPage(listing, p)));
    try {
      const r1 = await fetchRosterChains(ignores.url, deps, LIMITS, boundaries);
      expect(r1.complete).toBe(false);
      expect(r1.incompleteReason).toMatch(/^chain 3 of 3: the registry answered .+, not after its start cursor /);
      const r2 = await fetchRosterChains(unkeyed.url, deps, LIMITS, boundaries);
      expect(r2).toMatchObject({ complete: false, incompleteReason: `chain 3 of 3: its first page lists no entry with a name and version after ${b}` });
    } finally {
      ignores.server.close();
      unkeyed.server.close();
    }
  });

  it('a cursor that skips entries costs the chain before it pages, never an entry; an entry added behind a chain\'s start while it runs is kept once', async () => {
    const reg = await startRegistry({ entries: listing });
    const boundaries = chainBoundaries(asPrevious(await single(reg.url)), 3);
    await reg.close();
    const b = boundaries[1]!;
    // The third chain's cursor read as a later key: ten entries skipped. Today's listing has lost an
    // entry inside the second chain, so that chain's pages do not end at the boundary.
    const skip = keyOf(listing[listing.findIndex((e) => keyOf(e) === b) + 10]!);
    const inside = listing.findIndex((e) => keyOf(e) === boundaries[0]) + 5;
    const today = listing.filter((_, i) => i !== inside);
    const skips = await misbehaving((p) => listPage(today, p.get('cursor') === b ? (p.set('cursor', skip), p) : p));
    // Once the third chain has asked from the boundary, a new version sorting right after it is published.
    const [name, version] = cursorKey(b)!;
    const added: RegistryEntry = { server: { name, version: `${version}\u0001` }, _meta: listing[0]!._meta };
    let now = listing;
    const grows = await misbehaving((p) => {
      const answer = listPage(now, p);
      if (p.get('cursor') === b) now = [...listing, added].sort(compareEntries);
      return answer;
    });
    try {
      const r1 = await fetchRosterChains(skips.url, deps, LIMITS, boundaries);
      expect(r1.incompleteReason).toBeNull();
      expect(listed(r1)).toEqual(visible(today));
      const r2 = await fetchRosterChains(grows.url, deps, LIMITS, boundaries);
      expect(r2.incompleteReason).toBeNull();
      expect(listed(r2)).toEqual(visible(now));
      expect(listed(r2).filter((k) => k === keyOf(added))).toHaveLength(1);
    } finally {
      skips.server.close();
      grows.server.close();
    }
  });
});

describe('todaysRoster over chains: the file the archive reads', () => {
  it('a first day pages one chain and writes the roster as before; the next day pages 3 chains, read back as the same roster', async () => {
    const reg = await startRegistry({ entries: listing });
    const data = tmpData();
    const store = Store.open(data, new Date().toISOString());
    try {
      const o = { registry: reg.url, runId: 'r', limits: { ...LIMITS, chains: 3 }, at: () => new Date().toISOString() };
      const first = await todaysRoster(store, { ...o, day: '2026-03-01', runId: '2026-03-01-a', previous: null });
      expect(first.roster.complete).toBe(true);
      expect(first.roster.pages.every((p) => p.chain === undefined && p.listed === undefined)).toBe(true);
      const second = await todaysRoster(store, { ...o, day: '2026-03-02', runId: '2026-03-02-a', previous: first.roster });
      const back = store.readRoster(second.file);
      expect(back).toEqual(second.roster);
      expect(new Set(back.pages.map((p) => p.chain))).toEqual(new Set([0, 1, 2]));
      expect(back.complete).toBe(true);
      const strip = (r: Roster) => r.targets.map(({ page_sha256: _p, page_index: _i, ...t }) => t);
      expect(strip(back)).toEqual(strip(first.roster));
      expect(back.counts).toEqual({ ...first.roster.counts, pages: back.pages.length });
      // Every target's page is in the store, byte for byte, with its entry at page_index.
      for (const t of back.targets.slice(0, 50)) {
        const bytes = await readObject(data, t.page_sha256);
        expect((JSON.parse(bytes!.toString('utf8')) as { servers: RegistryEntry[] }).servers[t.page_index]!.server.name).toBe(t.name);
      }
    } finally {
      store.close();
      await reg.close();
    }
  }, 60_000);
});

describe('runCollector over chains: what everything downstream reads', () => {
  it('day 1 on one chain (no previous roster), days 2 and 3 on 3: complete rosters, a retirement, verify finds nothing, the loader reads the servers', async () => {
    const world = await startWorld({ endpoints: 2, hostCount: 1 });
    // The world's servers and 448 without a remote (nothing to probe): 5 pages in all.
    const pad = Array.from({ length: 448 }, (_, i): RegistryEntry => ({ server: { name: `zz.example/pad-${String(i).padStart(4, '0')}`, version: '1.0.0' }, _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true } } }));
    let entries = [...world.entries, ...pad];
    const reg = await startRegistry({ entries: () => entries });
    const data = tmpData();
    const run = (d: number) =>
      runCollector({ registry: reg.url, data, allowPrivate: true, now: new Date(Date.UTC(2026, 2, d, 3)), timeoutMs: 2000, optout: null, methodology: 'v1', rosterLimits: { backoffMs: 5, paceRequests: 60_000, chains: 3 } });
    const roster = (file: string | null) => JSON.parse(fs.readFileSync(join(data, 'rosters', file!), 'utf8')) as Roster;
    try {
      const d1 = await run(1);
      expect(roster(d1.run.roster_file).pages.some((p) => p.chain !== undefined)).toBe(false); // no previous roster: one chain
      const d2 = await run(2);
      const r2 = roster(d2.run.roster_file);
      expect(new Set(r2.pages.map((p) => p.chain))).toEqual(new Set([0, 1, 2]));
      expect(r2.complete).toBe(true);
      expect(r2.targets.map((t) => t.name)).toEqual(roster(d1.run.roster_file).targets.map((t) => t.name));
      // Tomorrow's auto rule and bounds read how many chains day 2 ran on.
      const store = Store.open(data, new Date().toISOString());
      try {
        const runs = store.readRuns();
        expect(rosterHistory(store, runs, previousRoster(store, runs)).complete).toMatchObject({ pages: r2.pages.length, chains: 3 });
      } finally {
        store.close();
      }
      entries = entries.filter((e) => e.server.name !== 'zz.example/pad-0100');
      const d3 = await run(3);
      expect(d3.run).toMatchObject({ roster_complete: true });
      expect(d3.run.outcomes.retired).toBe(1);
      expect((await verifyArchive(data)).problems).toEqual([]);
      const archive = await loadArchive(data);
      expect(archive.servers).toHaveLength(roster(d1.run.roster_file).targets.length);
      // The registry entry a row points at (page and index on a chained roster's page) is the server's.
      const entryOf = (name: string) => archive.servers.find((s) => s.name === name)!.registryRow!;
      for (const name of ['zz.example/pad-0099', 'zz.example/pad-0300', world.entries[0]!.server.name]) {
        const row = entryOf(name);
        const page = JSON.parse((await readObject(data, row.registry_page_sha256!))!.toString('utf8')) as { servers: RegistryEntry[] };
        expect(page.servers[row.registry_page_index!]!.server.name).toBe(name);
      }
    } finally {
      await reg.close();
      await world.close();
    }
  }, 120_000);

  it('--roster-chains takes 1 to 8 or auto', async () => {
    let err = '';
    const code = await main(['plan', '--now', '2026-03-01T03:00:00Z', '--work', tmpData(), '--data', tmpData(), '--roster-chains', '9'], { stdout: () => {}, stderr: (t) => void (err += t), env: {} });
    expect(code).toBe(2);
    expect(err).toBe('collect: --roster-chains must be an integer from 1 to 8, got "9"\n');
  });
});
