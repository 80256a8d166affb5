// halfLife: the median contract lifetime and its interval, by R's median rule
// (survival's print.survfit → survmean → minmin; methodology v1, "Half-life").
//   median = first time with S ≤ 0.5 (within a tolerance of sqrt(machine epsilon), as all.equal);
//            when S is 0.5 there (an exact 0.5 plateau), the midpoint of that time and the next time S
//            drops below it; when the plateau runs to the end of the curve, the plateau's start.
//   lower / upper = the same rule applied to the lower and the upper band; null when a band never
//            reaches 0.5 (an open bound: "> last time").
import type { KMRow } from './kaplan-meier.ts';

export interface HalfLife {
  median: number;
  lower: number | null;
  upper: number | null;
  /** Contracts at risk at the row where S first reaches ≤ 0.5: how many the half-life rests on. */
  atRisk: number;
}

/** R's tolerance in minmin: .Machine$double.eps^0.5 (2^-26). */
export const MEDIAN_TOLERANCE = Math.sqrt(Number.EPSILON);

/** The median survival time of a Kaplan–Meier curve, or null before the curve reaches 0.5. */
export function halfLife(rows: readonly KMRow[]): HalfLife | null {
  const at = firstAtOrBelowHalf(rows.map((r) => r.survival));
  if (at === null) return null;
  return {
    median: medianTime(rows, rows.map((r) => r.survival), at),
    lower: bound(rows, rows.map((r) => r.lower)),
    upper: bound(rows, rows.map((r) => r.upper)),
    atRisk: rows[at]!.atRisk,
  };
}

function bound(rows: readonly KMRow[], ys: number[]): number | null {
  const at = firstAtOrBelowHalf(ys);
  return at === null ? null : medianTime(rows, ys, at);
}

function firstAtOrBelowHalf(ys: readonly number[]): number | null {
  const i = ys.findIndex((y) => !Number.isNaN(y) && y < 0.5 + MEDIAN_TOLERANCE);
  return i < 0 ? null : i;
}

function medianTime(rows: readonly KMRow[], ys: readonly number[], at: number): number {
  const y = ys[at]!;
  if (Math.abs(y - 0.5) < MEDIAN_TOLERANCE) {
    const drop = ys.findIndex((v, i) => i > at && v < y);
    if (drop >= 0) return (rows[at]!.time + rows[drop]!.time) / 2;
  }
  return rows[at]!.time;
}
