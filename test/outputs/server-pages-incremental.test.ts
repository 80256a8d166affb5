// The fingerprint of a server's pages (src/outputs/server-pages-incremental.ts) on the collector's own
// archive: two consecutive days of the local world, read by the loader. A server that answered the same
// on both days has new rows (its last observation, its observation count, its strip's newest run all
// moved) and the same page inputs; BREAKS_NAME, whose only news is a failed probe (HTTP 503 on its
// unchanged endpoint), has other inputs and another fingerprint. The pure helpers are checked beside.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArchive } from '../../src/loader/load-archive.ts';
import type { Archive, ServerView, StripSegment } from '../../src/loader/views.ts';
import { changedSlugs, pageStrip, renderKey, serverFingerprint, serverPageInputs, shownLastOk, shownLastSeen, stateSince } from '../../src/outputs/server-pages-incremental.ts';
import { BREAKS_NAME, collectArchive } from '../helpers/archive.ts';

const seg = (kind: StripSegment['kind'], firstDay: string, lastDay: string, count: number): StripSegment => ({ kind, errorClass: null, http: 0, count, firstDay, lastDay });

describe('what a page shows instead of what moves every run', () => {
  const strip = [seg('error', '2026-01-01', '2026-01-03', 3), seg('ok', '2026-01-04', '2026-01-09', 6)];

  it('the current state begins on the newest run\'s first day, drawn as that day only', () => {
    expect(stateSince({ strip })).toBe('2026-01-04');
    expect(pageStrip({ strip })).toEqual([strip[0], seg('ok', '2026-01-04', '2026-01-04', 1)]);
    // A day later with the same state: the same strip on the page.
    expect(pageStrip({ strip: [strip[0]!, seg('ok', '2026-01-04', '2026-01-10', 7)] })).toEqual(pageStrip({ strip }));
    // The near miss: a new run (the state changed) is a new strip.
    expect(pageStrip({ strip: [...strip, seg('error', '2026-01-10', '2026-01-10', 1)] })).not.toEqual(pageStrip({ strip }));
    expect(stateSince({ strip: [] })).toBeNull();
  });

  it('a last OK or last seen that is the latest run is no date; one in the past keeps its day', () => {
    const head = { toolsSha256: 'a'.repeat(64), bodySha256: null, firstSeen: '2026-01-04T03:15:00Z', lastSeen: '2026-01-09T03:15:00Z', toolCount: 1 };
    const older = { ...head, toolsSha256: 'b'.repeat(64), firstSeen: '2026-01-01T03:15:00Z', lastSeen: '2026-01-03T03:15:00Z' };
    expect(shownLastSeen({ status: 'ok', head }, head)).toBeNull();
    expect(shownLastSeen({ status: 'ok', head }, older)).toBe('2026-01-03');
    expect(shownLastSeen({ status: 'error', head }, head)).toBe('2026-01-09');
    expect(shownLastOk({ status: 'ok', lastOk: '2026-01-09T03:15:00Z' })).toBeNull();
    expect(shownLastOk({ status: 'error', lastOk: '2026-01-09T03:15:00Z' })).toBe('2026-01-09');
    expect(shownLastOk({ status: 'error', lastOk: null })).toBeNull();
  });

  it('changedSlugs: a new server and a moved fingerprint render; an equal one does not', () => {
    const now = new Map([['a_x', '1'.repeat(64)], ['b_x', '2'.repeat(64)], ['c_x', '3'.repeat(64)]]);
    expect(changedSlugs(now, { a_x: '1'.repeat(64), b_x: '9'.repeat(64) })).toEqual(new Set(['b_x', 'c_x']));
    expect(changedSlugs(now, null)).toEqual(new Set(['a_x', 'b_x', 'c_x']));
    expect(changedSlugs(now, Object.fromEntries(now))).toEqual(new Set());
  });

  it('the fingerprint covers the site-wide key: the same inputs under another key differ', () => {
    const k1 = renderKey({ headline: { series: 'v1' } as Archive['headline'] }, { sources: 'x', settings: { site: 'https://a' } });
    const k2 = renderKey({ headline: { series: 'v1' } as Archive['headline'] }, { sources: 'x', settings: { site: 'https://b' } });
    expect(k1).not.toBe(k2);
    expect(serverFingerprint(k1, { a: 1 })).toBe(serverFingerprint(k1, { a: 1 }));
    expect(serverFingerprint(k1, { a: 1 })).not.toBe(serverFingerprint(k2, { a: 1 }));
    expect(serverFingerprint(k1, { a: 1 })).not.toBe(serverFingerprint(k1, { a: 2 }));
  });
});

describe('page inputs on two consecutive days of the collector\'s archive', () => {
  let work: string;
  let before: Archive;
  let after: Archive;
  const inputs = (a: Archive, s: ServerView) => serverPageInputs(a, s, { quality: null, entry: null }, null);

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'mcps-incremental-'));
    await collectArchive({ seed: 'incremental-inputs', size: 10, days: 4, breaksOnDay: 3, timeoutMs: 3000, afterRun: async (day, dir) => void (day === 2 && cpSync(dir, path.join(work, 'before'), { recursive: true })) }, path.join(work, 'after'));
    [before, after] = [await loadArchive(path.join(work, 'before')), await loadArchive(path.join(work, 'after'))];
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('a server in the same state (the same answer, or the same failure) has new rows and the same inputs', () => {
    const steady = after.servers.filter((s) => {
      const b = before.bySlug.get(s.slug);
      return b && s.status === b.status && s.strip.length === b.strip.length && s.head?.toolsSha256 === b.head?.toolsSha256 && s.changes.length === b.changes.length && s.endpoint === b.endpoint && s.latest.detail === b.latest.detail;
    });
    expect(steady.length).toBeGreaterThan(0);
    for (const s of steady) {
      const b = before.bySlug.get(s.slug)!;
      // What moved: so the equality below is not of two identical views.
      expect(s.lastObserved).not.toBe(b.lastObserved);
      expect(s.observations).toBe(b.observations + 1);
      expect(inputs(after, s), s.name).toEqual(inputs(before, b));
    }
  });

  it('the server whose only news is a failed probe has other inputs', () => {
    const s = after.bySlug.get([...after.bySlug.keys()].find((k) => after.bySlug.get(k)!.name === BREAKS_NAME)!)!;
    const b = before.bySlug.get(s.slug)!;
    expect([b.status, s.status]).toEqual(['ok', 'error']);
    expect(s.endpoint).toBe(b.endpoint);
    expect(s.head?.toolsSha256).toBe(b.head?.toolsSha256);
    expect(inputs(after, s)).not.toEqual(inputs(before, b));
    expect(stateSince(s)).toBe(s.lastObserved.slice(0, 10));
  });
});

describe('page inputs with methodology v2 list caching on two consecutive days', () => {
  let work: string;
  let before: Archive;
  let after: Archive;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'mcps-incremental-caching-'));
    await collectArchive({ seed: 'incremental-caching', size: 16, days: 4, methodology: 'v1,v2', caching: true, afterRun: async (day, dir) => void (day === 2 && cpSync(dir, path.join(work, 'before'), { recursive: true })) }, path.join(work, 'after'));
    [before, after] = [await loadArchive(path.join(work, 'before')), await loadArchive(path.join(work, 'after'))];
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("a server whose list caching reads the same is not rendered again for the new run's id and day", () => {
    const steady = after.servers.filter((s) => {
      const [x, y] = [after.v2?.cachingByTarget.get(s.name), before.v2?.cachingByTarget.get(s.name)];
      const b = before.bySlug.get(s.slug);
      return x && y && b && x.cacheScope === y.cacheScope && x.ttlMs === y.ttlMs && x.resultType === y.resultType && x.missing.join() === y.missing.join() && s.status === b.status && s.strip.length === b.strip.length && s.head?.toolsSha256 === b.head?.toolsSha256 && s.changes.length === b.changes.length && s.latest.detail === b.latest.detail;
    });
    expect(steady.length).toBeGreaterThan(0);
    for (const s of steady) {
      const b = before.bySlug.get(s.slug)!;
      // What moved: the caching was read on another run (so the equality below means something).
      expect(after.v2!.cachingByTarget.get(s.name)!.run_id).not.toBe(before.v2!.cachingByTarget.get(s.name)!.run_id);
      expect(serverPageInputs(after, s, { quality: null, entry: null }, null), s.name).toEqual(serverPageInputs(before, b, { quality: null, entry: null }, null));
    }
  });
});
