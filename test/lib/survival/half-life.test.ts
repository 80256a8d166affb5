import { describe, expect, it } from 'vitest';
import { halfLife, MEDIAN_TOLERANCE } from '../../../src/lib/survival/half-life.ts';
import { kaplanMeier, type KMRow } from '../../../src/lib/survival/kaplan-meier.ts';

const hl = (t: number[], e: (0 | 1)[]) => halfLife(kaplanMeier(t, e.map(Boolean)));

describe('halfLife(rows)', () => {
  // Bounds worked by hand from the rows (S ± 1.96·SE): lower band first ≤ 0.5 at 18 (0.716 − 0.274),
  // upper band first ≤ 0.5 at 48 (0.184 + 0.301); R prints median 31 for this group.
  it('gives median 31 [18, 48] with 5 at risk for aml "Maintained"', () => {
    expect(hl([9, 13, 13, 18, 23, 28, 31, 34, 45, 48, 161], [1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0])).toEqual({ median: 31, lower: 18, upper: 48, atRisk: 5 });
  });
  // Lower band at 8: 0.667 − 1.96·0.136 = 0.400; upper band at 33: 0.194 + 1.96·0.122 = 0.433 (at 30 it is 0.563).
  it('gives median 23 [8, 33] with 6 at risk for aml "Nonmaintained"', () => {
    expect(hl([5, 5, 8, 8, 12, 16, 23, 27, 30, 33, 43, 45], [1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1])).toEqual({ median: 23, lower: 8, upper: 33, atRisk: 6 });
  });
  it('takes the midpoint of an exact 0.5 plateau and the next drop (R: median of Surv(1:4) is 2.5)', () => {
    expect(hl([1, 2, 3, 4], [1, 1, 1, 1])!.median).toBe(2.5);
  });
  it('looks past censoring-only rows on the plateau for the next drop', () => {
    // S: 5/6, 4/6, 3/6 at t = 3, censored at 4 (still 0.5), 0.25 at 5 → (3 + 5) / 2
    expect(hl([1, 2, 3, 4, 5, 6], [1, 1, 1, 0, 1, 1])!.median).toBe(4);
  });
  it('gives the plateau start when the 0.5 plateau runs to the end (print.survfit, not quantile.survfit)', () => {
    expect(hl([1, 2, 3, 4], [1, 1, 0, 0])!.median).toBe(2);
  });
  // R's minmin compares S with 0.5 by all.equal, so a plateau that is 0.5 in exact arithmetic counts as one
  // whichever way the rounding falls. Each case asserts its own premise: the floating-point S is checked
  // first, so a change to kaplanMeier's product cannot quietly turn these into exact-0.5 cases.
  it('treats 0.5 + rounding noise as 0.5 (Surv(1:24): S(12) = 0.5 + 1.1e-16 in doubles, median 12.5 as in R)', () => {
    const t = Array.from({ length: 24 }, (_, i) => i + 1);
    const rows = kaplanMeier(t, t.map(() => true));
    expect(rows[11]!.survival - 0.5).toBe(2 ** -53); // 23/24 · 22/23 · … · 12/13, one ulp above 0.5
    // Without the tolerance S(12) is "above 0.5" and the median would be 13 (S(13) = 11/24), or 12 if only
    // the plateau test dropped it; R gives (12 + 13) / 2.
    expect(halfLife(rows)).toMatchObject({ median: 12.5, atRisk: 13 });
  });
  it('treats 0.5 − rounding noise as 0.5 (Surv(1:100): S(50) = 0.5 − 4.4e-16 in doubles, median 50.5 as in R)', () => {
    const t = Array.from({ length: 100 }, (_, i) => i + 1);
    const rows = kaplanMeier(t, t.map(() => true));
    expect(rows[49]!.survival - 0.5).toBe(-(2 ** -51));
    // Without the plateau tolerance S(50) is "below 0.5" and the median would be 50.
    expect(halfLife(rows)).toMatchObject({ median: 50.5, atRisk: 51 });
  });
  // The tolerance's two edges, on hand-made rows (no Kaplan–Meier product lands exactly there). R's minmin
  // keeps y < 0.5 + tol (strictly) and calls y a plateau when |y − 0.5| < tol (strictly); 0.5 ± 2^-26 is
  // exactly representable, so each edge is hit to the bit.
  const rowsOf = (survival: number[]): KMRow[] =>
    survival.map((s, i) => ({ time: i + 1, atRisk: 10 - i, events: 1, censored: 0, survival: s, stdErr: 0, lower: s, upper: s }));
  it('does not count S = 0.5 + 2^-26 as reaching 0.5 (R: y < 0.5 + tolerance, not ≤)', () => {
    expect(0.5 + MEDIAN_TOLERANCE - 0.5).toBe(2 ** -26);
    // S = 1, 0.5 + 2^-26, 0.25 at t = 1, 2, 3: the first S below 0.5 + tol is at t = 3, which is no plateau.
    expect(halfLife(rowsOf([1, 0.5 + MEDIAN_TOLERANCE, 0.25]))).toEqual({ median: 3, lower: 3, upper: 3, atRisk: 8 });
  });
  it('does not count S = 0.5 − 2^-26 as a 0.5 plateau (R: |y − 0.5| < tolerance, not ≤)', () => {
    expect(0.5 - (0.5 - MEDIAN_TOLERANCE)).toBe(2 ** -26);
    // S = 1, 0.5 − 2^-26, 0.25: the median is t = 2 itself, not the midpoint 2.5 with the next drop.
    expect(halfLife(rowsOf([1, 0.5 - MEDIAN_TOLERANCE, 0.25]))).toEqual({ median: 2, lower: 2, upper: 2, atRisk: 9 });
  });
  it('uses R\'s tolerance, sqrt(machine epsilon) = 2^-26', () => {
    expect(MEDIAN_TOLERANCE).toBe(2 ** -26);
  });
  it.each([
    ['a curve that never reaches 0.5', [1, 2, 3, 4], [1, 0, 0, 0]],
    ['all censored', [1, 2, 3], [0, 0, 0]],
    ['no data', [], []],
  ] as const)('is null for %s', (_what, t, e) => {
    expect(hl([...t], [...e])).toBeNull();
  });
  it('leaves a bound open (null) when its band never reaches 0.5', () => {
    // S(1) = 0.75 (SE 0.217, upper 1), S(2) = 0.5 plateau to the end: upper band stays above 0.5.
    expect(hl([1, 2, 3, 4], [1, 1, 0, 0])).toMatchObject({ median: 2, upper: null });
  });
  it('counts the bound of a band at S = 0 where the band is [0, 0] (DESIGN.md; R would print NA)', () => {
    expect(hl([1, 2], [1, 1])).toEqual({ median: 1.5, lower: 1, upper: 2, atRisk: 2 });
  });
});
