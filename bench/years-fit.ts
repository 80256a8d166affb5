// The fits bench:years draws its slopes with: least squares of a build figure over targets and
// target-days, a straight line over days, and a median.
import type { BuildPoint } from './years-figures.ts';

/** Least squares of y = c + a·N + b·N·days over the build points (null when there are fewer than 3). */
export function fitSite(points: BuildPoint[], y: (p: BuildPoint) => number): { a: number; b: number } | null {
  return fitBuilds(points.map((p) => ({ targets: p.targets, days: p.days, y: y(p) })));
}

/** Least squares of y = c + a·targets + b·targets·days, with each point's residual (null with fewer than 3 points). */
export function fitBuilds(points: readonly { targets: number; days: number; y: number }[]): { c: number; a: number; b: number; residuals: number[] } | null {
  if (points.length < 3) return null;
  // Normal equations for [c, a, b].
  const X = points.map((p) => [1, p.targets, p.targets * p.days]);
  const Y = points.map((p) => p.y);
  const XtX = [0, 1, 2].map((i) => [0, 1, 2].map((j) => X.reduce((s, r) => s + r[i]! * r[j]!, 0)));
  const XtY = [0, 1, 2].map((i) => X.reduce((s, r, k) => s + r[i]! * Y[k]!, 0));
  const sol = solve3(XtX, XtY);
  if (!sol) return null;
  const [c, a, b] = sol as [number, number, number];
  return { c, a, b, residuals: points.map((p) => p.y - (c + a * p.targets + b * p.targets * p.days)) };
}

/** Negative slopes (noise between builds on a shared machine) count as flat. */
export function clamp(f: { a: number; b: number } | null): { a: number; b: number } | null {
  return f ? { a: Math.max(0, f.a), b: Math.max(0, f.b) } : null;
}

function solve3(A: number[][], b: number[]): number[] | null {
  const M = A.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < 3; c++) {
    let p = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    if (Math.abs(M[p]![c]!) < 1e-12) return null;
    [M[c], M[p]] = [M[p]!, M[c]!];
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = M[r]![c]! / M[c]![c]!;
      for (let k = c; k < 4; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  return M.map((r, i) => r[3]! / r[i]!);
}

/** Least squares y = base + slope·t over t = 0, 1, …. */
export function line(ys: number[]): { base: number; slope: number } {
  const n = ys.length;
  const mx = (n - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  ys.forEach((y, x) => {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  });
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { base: my - slope * mx, slope };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}
