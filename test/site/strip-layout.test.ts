// Issue 16: the status strip shows missing days and degraded runs on its date axis.
import { describe, expect, it } from 'vitest';
import { stripLayout, type StripCell } from '../../src/site/strip-kinds.ts';

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
