// One small record per server and the headline figures from those records (src/lib server-summary.ts):
// a summary keeps exactly what the population functions read, every empty list is one shared frozen
// array, and headlineFigures gives the figures those functions give over every server's rows in target
// order, whatever the order or grouping of the summaries, with the migration-censored series only when
// stitched. Inputs are hand-made: three servers, one that changed by a protocol migration, one that
// changed otherwise, one that never answered.
import { describe, expect, it } from 'vitest';
import type { Interval } from '../../src/lib/contract-intervals.ts';
import type { Change, Drift } from '../../src/lib/detect-drift.ts';
import { everChangedShare } from '../../src/lib/ever-changed-share.ts';
import type { FirstChangeInterval } from '../../src/lib/first-change-intervals.ts';
import { headlineFigures, serverSummary, type ServerSummary } from '../../src/lib/server-summary.ts';
import { halfLife } from '../../src/lib/survival/half-life.ts';
import { kaplanMeier } from '../../src/lib/survival/kaplan-meier.ts';

const H = (c: string) => c.repeat(64);
const iv = (target: string, hash: string, start_day: string, end_day: string, duration: number, event: boolean): Interval => ({ target, tools_sha256: hash, start_day, end_day, duration, event, retired: false });
const first = (i: Interval, observed_days: number): FirstChangeInterval => ({ ...i, observed_days });
/** The part of a drift a summary reads: the changes' days and the versions' day spans. */
function drift(target: string, changeDays: string[], versions: [string, string][]): Pick<Drift, 'target' | 'changes' | 'versions'> {
  return {
    target,
    changes: changeDays.map((day) => ({ day }) as unknown as Change),
    versions: versions.map(([first_day, last_day]) => ({ first_day, last_day }) as unknown as Drift['versions'][number]),
  };
}
const migration = (day: string, from: string) => ({ day, before: { tools_sha256: from } }) as unknown as Change;

// 'a' changed on 01-03 (not a migration); 'b' changed on 01-04 by a protocol migration; 'c' never answered.
const a1 = iv('a', H('3'), '2026-01-01', '2026-01-03', 2, true);
const a2 = iv('a', H('4'), '2026-01-03', '2026-01-08', 5, false);
const b1 = iv('b', H('1'), '2026-01-01', '2026-01-04', 3, true);
const b2 = iv('b', H('2'), '2026-01-04', '2026-01-10', 6, false);
const summaryA = () => serverSummary(drift('a', ['2026-01-03'], [['2026-01-01', '2026-01-02'], ['2026-01-03', '2026-01-08']]), [a1, a2], [first(a1, 7)]);
const summaryB = () => serverSummary(drift('b', ['2026-01-04'], [['2026-01-01', '2026-01-03'], ['2026-01-04', '2026-01-10']]), [b1, b2], [first(b1, 9)], [migration('2026-01-04', H('1'))]);
const summaryC = () => serverSummary(drift('c', [], []), [], []);

describe('serverSummary(drift, intervals, firstChange, migrations?)', () => {
  it('keeps the target, the intervals, the first change, the change days, the version spans flat and each migration as its day and the hash left', () => {
    expect(summaryB()).toEqual({
      target: 'b',
      intervals: [b1, b2],
      firstChange: [first(b1, 9)],
      changeDays: ['2026-01-04'],
      versionSpans: ['2026-01-01', '2026-01-03', '2026-01-04', '2026-01-10'],
      migrations: [{ day: '2026-01-04', from: H('1') }],
    });
    expect(summaryA().migrations).toEqual([]);
  });

  it('copies the interval lists it is given, so a caller that reuses its arrays does not change the summary', () => {
    const intervals = [a1];
    const firstChange = [first(a1, 7)];
    const s = serverSummary(drift('a', [], []), intervals, firstChange);
    intervals.push(a2);
    firstChange.length = 0;
    expect(s.intervals).toEqual([a1]);
    expect(s.firstChange).toEqual([first(a1, 7)]);
  });

  it('gives every empty list as one shared frozen empty array, and a non-empty list as its own', () => {
    const c = summaryC();
    const empties = [c.intervals, c.firstChange, c.changeDays, c.versionSpans, c.migrations, summaryA().migrations];
    for (const e of empties) {
      expect(e).toEqual([]);
      expect(e).toBe(c.intervals);
      expect(Object.isFrozen(e)).toBe(true);
    }
    const b = summaryB();
    for (const l of [b.intervals, b.firstChange, b.changeDays, b.versionSpans, b.migrations]) {
      expect(l.length).toBeGreaterThan(0);
      expect(Object.isFrozen(l)).toBe(false);
    }
  });
});

describe('headlineFigures(summaries, { stitched })', () => {
  it('concatenates the intervals in target order and gives the curves, half-lives and ever-changed share of those rows', () => {
    const f = headlineFigures([summaryC(), summaryB(), summaryA()], { stitched: false });
    expect(f.intervals).toEqual([a1, a2, b1, b2]);
    expect(f.km).toEqual(kaplanMeier([2, 5, 3, 6], [true, false, true, false]));
    // Two of four change, at days 2 and 3: S is 3/4, then 3/4 · 2/3 = 1/2, where the half-life is reached.
    expect(f.km.filter((r) => r.events > 0).map((r) => [r.time, r.atRisk, r.survival])).toEqual([
      [2, 4, 0.75],
      [3, 3, 0.5],
    ]);
    expect(f.halfLife).toEqual(halfLife(f.km));
    expect(f.halfLife).not.toBeNull();
    expect(f.serverIntervals).toEqual([first(a1, 7), first(b1, 9)]);
    expect(f.serverKm).toEqual(kaplanMeier([2, 3], [true, true]));
    expect(f.serverKm.map((r) => [r.time, r.survival])).toEqual([
      [2, 0.5],
      [3, 0],
    ]);
    expect(f.serverHalfLife).toEqual(halfLife(f.serverKm));
    expect(f.everChanged).toEqual(everChangedShare([first(a1, 7), first(b1, 9)]));
    expect(f.everChanged.length).toBeGreaterThan(0);
  });

  it('counts volatility over every server (no window): a server without versions is not answering, one without changes has 0', () => {
    const v = headlineFigures([summaryC(), summaryB(), summaryA()], { stitched: false }).volatility;
    expect(v.targets).toBe(3);
    expect(v.answering).toBe(2);
    expect(v.changes).toBe(2);
    expect(v.changed).toBe(2);
    expect(v.perTarget).toEqual([
      { target: 'a', changes: 1 },
      { target: 'b', changes: 1 },
      { target: 'c', changes: 0 },
    ]);
    expect(headlineFigures([summaryC()], { stitched: false }).volatility.answering).toBe(0);
    expect(headlineFigures([summaryA()], { stitched: false }).volatility.answering).toBe(1);
  });

  it('gives the same figures, bit for bit, whatever the order or grouping of the summaries', () => {
    const ordered = headlineFigures([summaryA(), summaryB(), summaryC()], { stitched: true });
    expect(headlineFigures([summaryC(), summaryA(), summaryB()], { stitched: true })).toEqual(ordered);
    expect(headlineFigures([...[summaryB()], ...[summaryC(), summaryA()]], { stitched: true })).toEqual(ordered);
  });

  it('on a stitched headline, censors the intervals a protocol migration ended; not stitched, gives no such series', () => {
    expect(headlineFigures([summaryA(), summaryB()], { stitched: false }).withoutMigrations).toBeNull();
    const w = headlineFigures([summaryC(), summaryB(), summaryA()], { stitched: true }).withoutMigrations!;
    expect(w.migrations).toBe(1);
    expect(w.intervals).toEqual([a1, a2, { ...b1, event: false }, b2]);
    expect(w.km).toEqual(kaplanMeier([2, 5, 3, 6], [true, false, false, false]));
    expect(w.halfLife).toEqual(halfLife(w.km));
    // The headline series itself is not censored.
    expect(headlineFigures([summaryB()], { stitched: true }).intervals).toEqual([b1, b2]);
  });

  it('leaves an interval ended on another day or from another hash than the migration an event (the near misses)', () => {
    const otherHash = serverSummary(drift('b', ['2026-01-04'], [['2026-01-01', '2026-01-10']]), [b1, b2], [first(b1, 9)], [migration('2026-01-04', H('9'))]);
    const otherDay = serverSummary(drift('b', ['2026-01-05'], [['2026-01-01', '2026-01-10']]), [b1, b2], [first(b1, 9)], [migration('2026-01-05', H('1'))]);
    for (const s of [otherHash, otherDay]) {
      const w = headlineFigures([s], { stitched: true }).withoutMigrations!;
      expect(w.migrations).toBe(1);
      expect(w.intervals).toEqual([b1, b2]);
    }
  });

  it('over no summaries gives empty curves, no half-life and, stitched, an empty series with 0 migrations', () => {
    const f = headlineFigures([], { stitched: true });
    expect(f.intervals).toEqual([]);
    expect(f.km).toEqual([]);
    expect(f.halfLife).toBeNull();
    expect(f.serverHalfLife).toBeNull();
    expect(f.everChanged).toEqual([]);
    expect(f.volatility.targets).toBe(0);
    expect(f.withoutMigrations).toEqual({ migrations: 0, intervals: [], km: [], halfLife: null });
  });

  it('throws when two summaries name one target, wherever they are in the list, naming it cut to 200 characters', () => {
    expect(() => headlineFigures([summaryA(), summaryB(), summaryA()], { stitched: false })).toThrow(new Error('headlineFigures: "a" is summarised twice'));
    const long = 'x'.repeat(300);
    const s = { ...summaryC(), target: long };
    expect(() => headlineFigures([s, summaryA(), s], { stitched: false })).toThrow(new Error(`headlineFigures: "${'x'.repeat(200)}" is summarised twice`));
    // Targets that differ only past the first 200 characters are two servers.
    expect(headlineFigures([s, { ...s, target: `${long}y` }], { stitched: false }).volatility.targets).toBe(2);
  });
});
