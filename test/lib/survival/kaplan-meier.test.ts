// Expected values are derived by hand in this file: at-risk counts and events are read off the data
// listing (not grouped by code), S is the product of the hand-listed factors, Greenwood's sum the sum
// of the hand-listed terms. Published R output (survival::aml, summary(survfit(Surv(time, status) ~ x)),
// reproduced in many tutorials) checks the same rows to the 3–4 digits R prints.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kaplanMeier, type KMRow } from '../../../src/lib/survival/kaplan-meier.ts';
import { Z_95 } from '../../../src/lib/survival/z.ts';

/** qnorm(0.975), typed here rather than imported, so a wrong constant in src fails these tests. */
const Z = 1.959963984540054;

/** Rows from hand-listed (time, n at risk, d events, c censored). */
function expected(steps: [number, number, number, number][]): KMRow[] {
  let s = 1;
  let g = 0;
  return steps.map(([time, n, d, c]) => {
    if (d > 0) {
      s *= (n - d) / n;
      g += n === d ? Infinity : d / (n * (n - d));
    }
    const se = s === 0 ? NaN : s * Math.sqrt(g);
    return { time, atRisk: n, events: d, censored: c, survival: s, stdErr: se, lower: s === 0 ? 0 : Math.max(0, s - Z * se), upper: s === 0 ? 0 : Math.min(1, s + Z * se) };
  });
}

function expectRowsClose(actual: KMRow[], want: KMRow[]) {
  expect(actual.map((r) => [r.time, r.atRisk, r.events, r.censored])).toEqual(want.map((r) => [r.time, r.atRisk, r.events, r.censored]));
  actual.forEach((r, i) => {
    const w = want[i]!;
    for (const k of ['survival', 'stdErr', 'lower', 'upper'] as const) {
      if (Number.isNaN(w[k])) expect(r[k]).toBeNaN();
      else expect(Math.abs(r[k] - w[k])).toBeLessThanOrEqual(1e-12);
    }
  });
}

// survival::aml, x = "Maintained": 9, 13, 13+, 18, 23, 28+, 31, 34, 45+, 48, 161+
const maintained = { time: [9, 13, 13, 18, 23, 28, 31, 34, 45, 48, 161], event: [1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0].map(Boolean) };
// x = "Nonmaintained": 5, 5, 8, 8, 12, 16+, 23, 27, 30, 33, 43, 45
const nonmaintained = { time: [5, 5, 8, 8, 12, 16, 23, 27, 30, 33, 43, 45], event: [1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1].map(Boolean) };

describe('kaplanMeier(durations, events)', () => {
  it('matches hand-derived rows for aml "Maintained", censoring-only times included', () => {
    expectRowsClose(kaplanMeier(maintained.time, maintained.event), expected([
      [9, 11, 1, 0], [13, 10, 1, 1], [18, 8, 1, 0], [23, 7, 1, 0], [28, 6, 0, 1], [31, 5, 1, 0], [34, 4, 1, 0], [45, 3, 0, 1], [48, 2, 1, 0], [161, 1, 0, 1],
    ]));
  });
  it('agrees with R\'s printed summary for aml "Maintained" (survival, std.err of S)', () => {
    const rows = kaplanMeier(maintained.time, maintained.event).filter((r) => r.events > 0);
    const printed = [[0.909, 0.0867], [0.818, 0.1163], [0.716, 0.1397], [0.614, 0.1526], [0.491, 0.1642], [0.368, 0.1627], [0.184, 0.1535]];
    expect(rows.map((r) => [round(r.survival, 3), round(r.stdErr, 4)])).toEqual(printed);
    expect(rows[4]!.survival).toBeCloseTo(27 / 55, 15); // 10/11 · 9/10 · 7/8 · 6/7 · 4/5
  });
  it('handles tied events and ends at S = 0 with a [0, 0] band and NaN stdErr (aml "Nonmaintained")', () => {
    const rows = kaplanMeier(nonmaintained.time, nonmaintained.event);
    expectRowsClose(rows, expected([
      [5, 12, 2, 0], [8, 10, 2, 0], [12, 8, 1, 0], [16, 7, 0, 1], [23, 6, 1, 0], [27, 5, 1, 0], [30, 4, 1, 0], [33, 3, 1, 0], [43, 2, 1, 0], [45, 1, 1, 0],
    ]));
    const printed = [[0.8333, 0.1076], [0.6667, 0.1361], [0.5833, 0.1423], [0.4861, 0.1481], [0.3889, 0.147], [0.2917, 0.1387], [0.1944, 0.1219], [0.0972, 0.0919]];
    expect(rows.filter((r) => r.events > 0 && r.survival > 0).map((r) => [round(r.survival, 4), round(r.stdErr, 4)])).toEqual(printed);
    expect(rows.at(-1)).toMatchObject({ survival: 0, lower: 0, upper: 0 });
  });
  it('counts events before the censored at a tied time (the censored are still at risk)', () => {
    const rows = kaplanMeier([1, 1, 2], [true, false, true]);
    expect(rows[0]).toMatchObject({ time: 1, atRisk: 3, events: 1, censored: 1 });
    expect(rows[0]!.survival).toBeCloseTo(2 / 3, 15); // 1 − 1/3; censoring first would give 1 − 1/2
    expect(rows[1]).toMatchObject({ time: 2, atRisk: 1, events: 1, survival: 0 });
  });
  it('gives S = 1 with a [1, 1] band while only censorings happened (all censored)', () => {
    expect(kaplanMeier([3, 1, 2], [false, false, false])).toEqual([1, 2, 3].map((time, i) => ({ time, atRisk: 3 - i, events: 0, censored: 1, survival: 1, stdErr: 0, lower: 1, upper: 1 })));
  });
  it('handles all events, input in any order, and a zero duration', () => {
    expectRowsClose(kaplanMeier([2, 0, 1], [true, true, true]), expected([[0, 3, 1, 0], [1, 2, 1, 0], [2, 1, 1, 0]]));
  });
  it('uses z = qnorm(0.975) to 16 digits, not 1.96', () => {
    expect(Z_95).toBe(1.959963984540054);
    const [r] = kaplanMeier([1, 2, 3, 4], [true, false, false, false]);
    expect(r!.lower).toBeCloseTo(0.75 - Z * 0.75 * Math.sqrt(1 / 12), 15);
  });
  it('returns [] for no data and throws a RangeError on bad input', () => {
    expect(kaplanMeier([], [])).toEqual([]);
    expect(() => kaplanMeier([1], [])).toThrow(new RangeError('kaplanMeier needs one event flag per duration'));
    expect(() => kaplanMeier([-1], [true])).toThrow(new RangeError('kaplanMeier durations must be finite and ≥ 0'));
    expect(() => kaplanMeier([NaN], [true])).toThrow(new RangeError('kaplanMeier durations must be finite and ≥ 0'));
    expect(() => kaplanMeier([1, Infinity], [true, false])).toThrow(RangeError);
  });

  const data = fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.boolean()), { maxLength: 60 });
  it('invariant: survival is non-increasing and the band contains S within [0, 1]', () => {
    fc.assert(fc.property(data, (pairs) => {
      const rows = kaplanMeier(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
      return rows.every((r, i) => (i === 0 || r.survival <= rows[i - 1]!.survival) && r.lower >= 0 && r.lower <= r.survival && r.survival <= r.upper && r.upper <= 1);
    }));
  });
  it('invariant: one row per distinct time and every subject counted once', () => {
    fc.assert(fc.property(data, (pairs) => {
      const rows = kaplanMeier(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
      const n = rows.reduce((s, r) => s + r.events + r.censored, 0);
      return rows.length === new Set(pairs.map((p) => p[0])).size && n === pairs.length && (rows.length === 0 || rows[0]!.atRisk === pairs.length);
    }));
  });
});

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}
