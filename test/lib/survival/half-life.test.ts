import { describe, expect, it } from 'vitest';
import { halfLife, kaplanMeier, MEDIAN_TOLERANCE } from '../../../src/lib/index.ts';

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
  it('treats 0.5 + rounding noise as 0.5 (R: Surv(1:100) has S(50) = 0.5 + 1e-16, median 50.5)', () => {
    const t = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(hl(t, t.map(() => 1))!.median).toBe(50.5);
    expect(MEDIAN_TOLERANCE).toBe(Math.sqrt(2.220446049250313e-16));
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
