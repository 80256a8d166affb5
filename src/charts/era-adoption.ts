// Era adoption over time: for each full methodology v2 run, how many probed
// endpoints spoke each era — modern (2026-07-28), legacy (initialize), or only the deprecated HTTP+SSE
// transport — as lines of shares, with dual-era (advertised) as its own mark: modern servers whose
// supportedVersions name a legacy revision, a lower bound (SDK v2 dual-era servers advertise only
// 2026-07-28). Input is src/lib eraAdoption's points (the loader's v2 summary, a point per full run's
// day); this module draws. Past MAX_DAILY_MARKS days (src/charts/time-buckets.ts), a mark a week: each
// series' mean share over the week's runs, as the error shares are drawn. /statistics/ and /trends/
// show it.
import * as Plot from '@observablehq/plot';
import type { EraAdoptionPoint } from '../lib/index.ts';
import { plotSvg, utcDay, type ChartSize, type ChartText } from './plot-svg.ts';
import { byWeek, weekly } from './time-buckets.ts';

/** Each series, its colour and its mark; the page's legend reads this table. */
export const ERA_SERIES = [
  { key: 'modern', label: 'modern (2026-07-28)', colour: '#0b5cad', symbol: 'circle' },
  { key: 'legacy', label: 'legacy (initialize)', colour: '#9a6700', symbol: 'square' },
  { key: 'legacy_sse', label: 'HTTP+SSE only', colour: '#57606a', symbol: 'triangle' },
  { key: 'dualEraAdvertised', label: 'dual-era (advertised, a lower bound)', colour: '#8250df', symbol: 'diamond' },
] as const;

type EraSeries = (typeof ERA_SERIES)[number]['key'];

/** Whether the chart draws a mark a week (its points span more than MAX_DAILY_MARKS days); pages say so. */
export function eraWeekly(points: readonly EraAdoptionPoint[]): boolean {
  return weekly(points.filter((p) => p.n > 0));
}

export function eraAdoptionChart(points: readonly EraAdoptionPoint[], options: ChartSize & ChartText): string | null {
  const drawn = points.filter((p) => p.n > 0);
  if (drawn.length === 0) return null;
  const shares = (p: EraAdoptionPoint) => Object.fromEntries(ERA_SERIES.map((s) => [s.key, p.counts[s.key] / p.n])) as Record<EraSeries, number>;
  const marks = eraWeekly(drawn) ? byWeek(drawn, (day, g) => ({ day, share: Object.fromEntries(ERA_SERIES.map((s) => [s.key, g.reduce((n, p) => n + shares(p)[s.key], 0) / g.length])) as Record<EraSeries, number> })) : drawn.map((p) => ({ day: p.day, share: shares(p) }));
  const data = marks.flatMap((p) => ERA_SERIES.map((s) => ({ date: utcDay(p.day), series: s.key, share: p.share[s.key] })));
  const lines = ERA_SERIES.filter((s) => s.key !== 'dualEraAdvertised');
  const dual = data.filter((d) => d.series === 'dualEraAdvertised');
  return plotSvg(
    {
      width: options.width,
      height: options.height,
      marginLeft: 48,
      marginRight: 16,
      x: { type: 'utc', label: null, ticks: options.width < 500 ? 4 : undefined },
      y: { label: 'share of probed endpoints whose era is known', domain: [0, 1], grid: true, tickFormat: '.0%' },
      marks: [
        Plot.ruleY([0]),
        ...lines.map((s) => Plot.line(data.filter((d) => d.series === s.key), { x: 'date', y: 'share', stroke: s.colour, strokeWidth: 1.5 })),
        ...lines.map((s) => Plot.dot(data.filter((d) => d.series === s.key), { x: 'date', y: 'share', fill: s.colour, r: 3, symbol: s.symbol, className: `era-${s.key}` })),
        // Dual-era (advertised) is a part of modern, drawn as its own mark without a line: a lower bound.
        Plot.dot(dual, { x: 'date', y: 'share', stroke: '#8250df', strokeWidth: 1.5, fill: 'white', r: 4.5, symbol: 'diamond', className: 'era-dual' }),
      ],
    },
    options,
  );
}
