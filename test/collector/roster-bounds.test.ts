// The roster's page and time bounds, derived from the rosters before it: the pure
// derivation (rosterBounds), then what a run reads from the archive (rosterHistory) and that
// runCollector pages under the derived bound, growing it after a day it cut.
import fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROSTER_LIMITS, ROSTER_BOUNDS, rosterBounds, type RosterHistory } from '../../collector/roster.ts';
import { runCollector } from '../../collector/run.ts';
import { Store } from '../../collector/store.ts';
import { previousRoster, rosterHistory, rosterLimitsFor } from '../../collector/todays-roster.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry, type RegistryServer } from '../../sandbox/registry-server.ts';
import { startWorld, tmpData, type World } from './world.ts';

const PACE = { paceRequests: DEFAULT_ROSTER_LIMITS.paceRequests, paceWindowMs: DEFAULT_ROSTER_LIMITS.paceWindowMs };
const AT_PACE = PACE.paceWindowMs / PACE.paceRequests; // 400 ms
const MIN = 60_000;
const none: RosterHistory = { complete: null, cut: null };

describe('rosterBounds(history, pace)', () => {
  it('a first run: room for a registry twice the 2026 size (2,300 pages) at the pace, and these are the defaults', () => {
    const b = rosterBounds(none, PACE);
    expect(b.maxPages).toBeGreaterThanOrEqual(2_300);
    expect(b.maxWallMs).toBeGreaterThanOrEqual(2_300 * AT_PACE);
    expect(b).toEqual({ maxPages: DEFAULT_ROSTER_LIMITS.maxPages, maxWallMs: DEFAULT_ROSTER_LIMITS.maxWallMs });
  });

  it("from yesterday's 1,150 pages at the pace: pages × 1.5 + 100, and time for those at the pace × 1.5 + 2 min", () => {
    const b = rosterBounds({ complete: { pages: 1_150, ms: 1_150 * AT_PACE }, cut: null }, PACE);
    expect(b.maxPages).toBe(1_825);
    expect(b.maxWallMs).toBe(1_825 * AT_PACE * 1.5 + 2 * MIN); // 20.25 min
    // Unknown duration: the pace alone.
    expect(rosterBounds({ complete: { pages: 1_150, ms: null }, cut: null }, PACE)).toEqual(b);
    // A duration shorter than the pace allows (a clock step) does not make the bound shorter than the pace.
    expect(rosterBounds({ complete: { pages: 1_150, ms: 1_000 }, cut: null }, PACE)).toEqual(b);
  });

  it('a registry slower than the pace (1 s a page): the time bound follows the speed, so a day twice as slow still fits', () => {
    const b = rosterBounds({ complete: { pages: 1_150, ms: 1_150_000 }, cut: null }, PACE);
    expect(b.maxWallMs).toBe(1_825 * 1_000 * 1.5 + 2 * MIN);
    expect(b.maxWallMs).toBeGreaterThan(2 * 1_150_000);
    // ... where the old fixed 15 min cut every such day.
    expect(1_150_000).toBeGreaterThan(15 * MIN);
  });

  it('a slower pace stretches the time bound', () => {
    const slow = rosterBounds({ complete: { pages: 1_150, ms: null }, cut: null }, { ...PACE, paceRequests: 75 });
    expect(slow.maxWallMs).toBe(1_825 * 800 * 1.5 + 2 * MIN);
  });

  it('a roster cut short since then doubles into the bounds; an early failure changes nothing', () => {
    const complete = { pages: 1_150, ms: 1_150 * AT_PACE };
    const base = rosterBounds({ complete, cut: null }, PACE);
    const byPages = rosterBounds({ complete, cut: { pages: base.maxPages, ms: 12 * MIN } }, PACE);
    expect(byPages.maxPages).toBe(2 * base.maxPages);
    expect(byPages.maxWallMs).toBe(Math.ceil(2 * base.maxPages * AT_PACE * 1.5) + 2 * MIN);
    const byTime = rosterBounds({ complete, cut: { pages: 1_000, ms: base.maxWallMs } }, PACE);
    expect(byTime.maxWallMs).toBe(2 * base.maxWallMs);
    expect(rosterBounds({ complete, cut: { pages: 3, ms: 20_000 } }, PACE)).toEqual(base);
  });

  it('stays under its ceilings (a registry that pages forever cannot take the run)', () => {
    const b = rosterBounds({ complete: { pages: 50_000, ms: 50_000 * 2_000 }, cut: { pages: 40_000, ms: 5 * 3600_000 } }, PACE);
    expect(b).toEqual({ maxPages: ROSTER_BOUNDS.ceilingPages, maxWallMs: ROSTER_BOUNDS.ceilingMs });
  });

  // Day by day: the listing a day needs (pages, time per page) against the bounds derived from the days
  // before, as the collector would record them. Under fixed bounds (2,000 pages, 15 min) a day that
  // does not fit is cut every day after it too.
  const simulate = (days: Array<{ pages: number; perPageMs: number }>, fixed?: { maxPages: number; maxWallMs: number }) => {
    let h: RosterHistory = none;
    return days.map((d) => {
      const b = fixed ?? rosterBounds(h, PACE);
      const perPage = Math.max(d.perPageMs, AT_PACE);
      const fetched = Math.min(d.pages, b.maxPages, Math.floor(b.maxWallMs / perPage));
      const complete = fetched === d.pages;
      const facts = { pages: fetched, ms: fetched * perPage };
      h = complete ? { complete: facts, cut: null } : { complete: h.complete, cut: facts };
      return complete;
    });
  };

  it('a registry that doubles overnight is cut one day at most, then complete again', () => {
    const days = [{ pages: 1_150, perPageMs: 300 }, { pages: 1_150, perPageMs: 300 }, ...Array(4).fill({ pages: 2_600, perPageMs: 300 })];
    expect(simulate(days)).toEqual([true, true, false, true, true, true]);
  });

  it('pages answering in 1.2 s instead of 0.3 s: cut one day at most, where fixed bounds cut every day', () => {
    const days = [{ pages: 1_150, perPageMs: 300 }, ...Array(5).fill({ pages: 1_150, perPageMs: 1_200 })];
    expect(simulate(days)).toEqual([true, false, true, true, true, true]);
    expect(simulate(days, { maxPages: 2_000, maxWallMs: 15 * MIN })).toEqual([true, false, false, false, false, false]);
  });
});

describe('rosterHistory and rosterLimitsFor: what a run reads, and runCollector paging under it', () => {
  let world: World;
  let registry: RegistryServer;
  let listing: RegistryEntry[] = [];
  /** The world's entries and more without a remote (no_endpoint: nothing to probe), `rows` in all. */
  const serve = (rows: number) => {
    listing = [
      ...world.entries,
      ...Array.from({ length: rows - world.entries.length }, (_, i) => ({
        server: { name: `zz.example/pad-${String(i).padStart(6, '0')}`, version: '1.0.0' },
        _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true } },
      })),
    ];
  };
  beforeAll(async () => {
    world = await startWorld({ endpoints: 2, hostCount: 1 });
    registry = await startRegistry({ entries: () => listing });
  });
  afterAll(async () => {
    await registry?.close();
    await world?.close();
  });

  const day = (d: number) => new Date(Date.UTC(2026, 2, d, 3, 0, 0));
  const run = (data: string, d: number, rosterLimits: Record<string, number> = {}) =>
    runCollector({ registry: registry.url, data, allowPrivate: true, now: day(d), timeoutMs: 2000, optout: null, methodology: 'v1', rosterLimits: { backoffMs: 5, paceRequests: 60_000, ...rosterLimits } });
  const history = (data: string) => {
    const store = Store.open(data, new Date().toISOString());
    try {
      const runs = store.readRuns();
      return rosterHistory(store, runs, previousRoster(store, runs));
    } finally {
      store.close();
    }
  };

  it('reads pages and fetch time of the last complete roster and of a roster cut after it', async () => {
    const data = tmpData();
    serve(250); // 3 pages
    expect(history(data)).toEqual(none);
    await run(data, 1);
    const h1 = history(data);
    expect(h1.complete).toMatchObject({ pages: 3 });
    expect(h1.complete!.ms).toBeGreaterThan(0);
    expect(h1.cut).toBeNull();
    // Day 2 cut at its first page: the cut is read; the complete roster stays day 1's.
    await run(data, 2, { maxPages: 1 });
    const h2 = history(data);
    expect(h2.complete).toEqual(h1.complete);
    expect(h2.cut).toMatchObject({ pages: 1 });
    // Derived, unless the caller sets a bound.
    expect(rosterLimitsFor(h1, { timeoutMs: 2000 })).toMatchObject({ maxPages: 105, timeoutMs: 2000, paceRequests: 150 });
    expect(rosterLimitsFor(h1, { timeoutMs: 2000, maxPages: 7, paceRequests: 60 })).toMatchObject({ maxPages: 7, paceRequests: 60 });
    expect(rosterLimitsFor(none, { timeoutMs: 2000 })).toMatchObject({ maxPages: DEFAULT_ROSTER_LIMITS.maxPages, maxWallMs: DEFAULT_ROSTER_LIMITS.maxWallMs });
    // Day 3 complete again: nothing cut since.
    await run(data, 3);
    expect(history(data)).toMatchObject({ complete: { pages: 3 }, cut: null });
  });

  it('pages under the bound derived from yesterday, and a day it cut raises the next day\'s', async () => {
    const data = tmpData();
    serve(150); // 2 pages: tomorrow's bound is 2 × 1.5 + 100 = 103
    const s1 = await run(data, 1);
    expect(s1.run.roster_complete).toBe(true);
    serve(10_500); // 106 pages: more than 103
    const s2 = await run(data, 2);
    expect(s2.run).toMatchObject({ roster_complete: false, message: 'roster incomplete: page bound reached (103 pages)' });
    expect(s2.run.outcomes.retired).toBe(0);
    const s3 = await run(data, 3); // bound 2 × 103 = 206
    expect(s3.run.roster_complete).toBe(true);
    const roster = JSON.parse(fs.readFileSync(join(data, 'rosters', s3.run.roster_file!), 'utf8')) as { counts: { pages: number } };
    expect(roster.counts.pages).toBe(106);
  }, 240_000); // 10,500 rows, each stored as an object (Store.putPage), twice: slow on a busy machine
});
