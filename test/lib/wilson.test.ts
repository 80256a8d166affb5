import { describe, expect, it } from 'vitest';
import { wilson } from '../../src/lib/wilson.ts';

/** qnorm(0.975), typed here rather than imported, so a wrong constant in src fails these tests. */
const z2 = 1.959963984540054 ** 2;

describe('wilson(successes, n)', () => {
  // At n = 3 the unguarded formula gives centre − half a few ulps above 0 at 0 successes (and below 1
  // at n): the bounds are exact only because wilson sets them.
  it.each([1, 3, 10, 263])('has the closed forms [0, z²/(n+z²)] at 0 successes and [n/(n+z²), 1] at n (n = %i)', (n) => {
    expect(wilson(0, n)).toEqual({ p: 0, lower: 0, upper: expect.closeTo(z2 / (n + z2), 14) });
    expect(wilson(n, n)).toEqual({ p: 1, lower: expect.closeTo(n / (n + z2), 14), upper: 1 });
  });
  it.each([[1, 2], [81, 263], [7, 1000], [499, 500]])('bounds %i/%i are the roots of (p̂ − p)² = z²·p(1 − p)/n', (x, n) => {
    // Solved as a quadratic a p² + b p + c = 0 (a = 1 + z²/n, b = −(2p̂ + z²/n), c = p̂²).
    const ph = x / n;
    const a = 1 + z2 / n;
    const b = -(2 * ph + z2 / n);
    const c = ph * ph;
    const disc = Math.sqrt(b * b - 4 * a * c);
    const w = wilson(x, n);
    expect(w.p).toBe(ph);
    expect(Math.abs(w.lower - (-b - disc) / (2 * a))).toBeLessThan(1e-12);
    expect(Math.abs(w.upper - (-b + disc) / (2 * a))).toBeLessThan(1e-12);
  });
  it('is symmetric: lower(x, n) = 1 − upper(n − x, n)', () => {
    expect(wilson(3, 17).lower).toBeCloseTo(1 - wilson(14, 17).upper, 14);
  });
  it('gives p = NaN and [0, 1] for n = 0', () => {
    expect(wilson(0, 0)).toEqual({ p: NaN, lower: 0, upper: 1 });
  });
  it.each([[-1, 3], [4, 3], [1.5, 3], [1, 2.5]])('throws a RangeError for %d of %d', (x, n) => {
    expect(() => wilson(x, n)).toThrow(new RangeError('wilson needs integers 0 ≤ successes ≤ n'));
  });
});
