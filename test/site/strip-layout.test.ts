// The status strip shows missing days and degraded runs on its date axis.
import { describe, expect, it } from 'vitest';
import { MAX_DEGRADED_MARKS, MAX_TICKS, stripLayout, type StripCell } from '../../src/site/strip-kinds.ts';

const seg = (kind: string, firstDay: string, lastDay: string, count = 1): StripCell => ({ kind, firstDay, lastDay, count, errorClass: null, http: 0 });

describe('stripLayout(segments, degradedDays)', () => {
  it('fills a gap between observations with one missing cell covering exactly the unobserved days', () => {
    const l = stripLayout([seg('ok', '2026-01-01', '2026-01-03', 3), seg('error', '2026-01-07', '2026-01-08', 2)], []);
    expect(l.cells.map((c) => [c.kind, c.firstDay, c.lastDay])).toEqual([
      ['ok', '2026-01-01', '2026-01-03'],
      ['missing', '2026-01-04', '2026-01-06'],
      ['error', '2026-01-07', '2026-01-08'],
    ]);
    expect([l.start, l.end, l.span]).toEqual(['2026-01-01', '2026-01-08', 8]);
  });

  it('adds no missing cell between consecutive days or two runs on one day', () => {
    const l = stripLayout([seg('ok', '2026-01-01', '2026-01-02', 2), seg('changed', '2026-01-03', '2026-01-03'), seg('ok', '2026-01-03', '2026-01-04', 2)], []);
    expect(l.cells.map((c) => c.kind)).toEqual(['ok', 'changed', 'ok']);
  });

  it('keeps the degraded days inside the span only', () => {
    const l = stripLayout([seg('ok', '2026-01-05', '2026-01-20', 16)], ['2026-01-01', '2026-01-05', '2026-01-12', '2026-01-21']);
    expect(l.degraded).toEqual(['2026-01-05', '2026-01-12']);
  });

  it('ticks each month start inside the span and labels only those away from the ends', () => {
    const l = stripLayout([seg('ok', '2025-12-20', '2026-03-10', 80)], []);
    expect(l.ticks.map((t) => t.day)).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    // 2026-01-01 is 12 of 81 days in (15%), too near the start label; 2026-03-01 (88%) too near the end's.
    expect(l.ticks.map((t) => t.label)).toEqual([null, '2026-02', null]);
    expect(l.ticks[0]!.at).toBeCloseTo((100 * 12) / 81, 10);
  });

  it('is empty without segments', () => {
    expect(stripLayout([], ['2026-01-01'])).toEqual({ cells: [], start: null, end: null, span: 1, ticks: [], degraded: [] });
  });
});

describe('the strip axis at any age', () => {
  const seg = (firstDay: string, lastDay: string) => ({ kind: 'ok', firstDay, lastDay, count: 1, errorClass: null, http: 200 });
  it('marks at most MAX_TICKS month starts, on months that divide the year, and the newest MAX_DEGRADED_MARKS degraded runs', () => {
    const five = stripLayout([seg('2025-01-01', '2029-12-29')], Array.from({ length: 40 }, (_, i) => `2025-${String((i % 12) + 1).padStart(2, '0')}-${String(Math.floor(i / 12) + 10)}`).sort());
    expect(five.ticks.length).toBeLessThanOrEqual(MAX_TICKS);
    // 59 months: every 6, on January and July.
    expect(five.ticks.map((t) => t.day)).toEqual(['2025-07-01', '2026-01-01', '2026-07-01', '2027-01-01', '2027-07-01', '2028-01-01', '2028-07-01', '2029-01-01', '2029-07-01']);
    expect(five.degraded).toHaveLength(MAX_DEGRADED_MARKS);
    // Near misses: a year still ticks every month; fourteen months every two, from January.
    expect(stripLayout([seg('2025-01-01', '2025-12-31')], []).ticks).toHaveLength(11);
    expect(stripLayout([seg('2025-01-01', '2026-03-01')], []).ticks.map((t) => t.day)).toEqual(['2025-03-01', '2025-05-01', '2025-07-01', '2025-09-01', '2025-11-01', '2026-01-01', '2026-03-01']);
  });
});
