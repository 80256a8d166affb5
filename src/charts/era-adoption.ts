// Era adoption over time (issue 13, "On the site"): for each full methodology v2 run, how many probed
// endpoints spoke each era — modern (2026-07-28), legacy (initialize), or only the deprecated HTTP+SSE
// transport — as lines of shares, with dual-era (advertised) as its own mark: modern servers whose
// supportedVersions name a legacy revision, a lower bound (SDK v2 dual-era servers advertise only
// 2026-07-28). Input is src/lib eraAdoption's points (the loader's v2 summary); this module draws.
import * as Plot from '@observablehq/plot';
import type { EraAdoptionPoint } from '../lib/index.ts';
import { plotSvg, utcDay, type ChartSize, type ChartText } from './plot-svg.ts';

/** Each series, its colour and its mark; the page's legend reads this table. */
export const ERA_SERIES = [
  { key: 'modern', label: 'modern (2026-07-28)', colour: '#0b5cad', symbol: 'circle' },
  { key: 'legacy', label: 'legacy (initialize)', colour: '#9a6700', symbol: 'square' },
  { key: 'legacy_sse', label: 'HTTP+SSE only', colour: '#57606a', symbol: 'triangle' },
  { key: 'dualEraAdvertised', label: 'dual-era (advertised, a lower bound)', colour: '#8250df', symbol: 'diamond' },
] as const;

export function eraAdoptionChart(points: readonly EraAdoptionPoint[], options: ChartSize & ChartText): string | null {
  const drawn = points.filter((p) => p.n > 0);
  if (drawn.length === 0) return null;
  const data = drawn.flatMap((p) => ERA_SERIES.map((s) => ({ date: utcDay(p.day), series: s.key, share: p.counts[s.key] / p.n })));
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
