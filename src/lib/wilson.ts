// Wilson score interval for a binomial share (Wilson 1927; what R's prop.test(x, n, correct = FALSE)
// reports). Methodology v1, "Population figures": every published share carries one.
import { Z_95 } from './survival/z.ts';

export interface WilsonInterval {
  p: number;
  lower: number;
  upper: number;
}

/**
 * The share successes/n with its 95% Wilson interval, clipped to [0, 1].
 * n = 0 gives { p: NaN, lower: 0, upper: 1 } (no information). Throws a RangeError unless
 * 0 ≤ successes ≤ n are integers.
 */
export function wilson(successes: number, n: number): WilsonInterval {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || successes > n) {
    throw new RangeError('wilson needs integers 0 ≤ successes ≤ n');
  }
  if (n === 0) return { p: NaN, lower: 0, upper: 1 };
  const p = successes / n;
  const z2 = Z_95 * Z_95;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (Z_95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At p = 0 (p = 1) the bound is 0 (1) exactly in theory; rounding must not push it past.
  return {
    p,
    lower: successes === 0 ? 0 : Math.max(0, centre - half),
    upper: successes === n ? 1 : Math.min(1, centre + half),
  };
}
