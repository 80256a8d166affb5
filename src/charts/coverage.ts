// Coverage by run: the share of eligible targets each run contacted,
// with the 90% line below which a run is published as degraded, and degraded runs marked. Input is the
// loader's RunPoint rows (src/loader/timelines.ts); this module draws.
import * as Plot from '@observablehq/plot';
import { plotSvg, utcDay, type ChartSize, type ChartText } from './plot-svg.ts';
import { weekly } from './time-buckets.ts';

export interface CoveragePoint {
  day: string;
  coverage: number;
  degraded: boolean;
  partial: boolean;
}

export function coverageChart(rows: readonly CoveragePoint[], options: ChartSize & ChartText & { degradedBelow: number }): string | null {
  if (rows.length === 0) return null;
  const data = rows.map((r) => ({ ...r, date: utcDay(r.day) }));
  const low = Math.min(options.degradedBelow, ...rows.map((r) => r.coverage));
  return plotSvg(
    {
      width: options.width,
      height: options.height,
      marginLeft: 48,
      marginRight: 16,
      x: { type: 'utc', label: null },
      y: { label: 'share of eligible servers contacted', domain: [Math.max(0, Math.floor(low * 10) / 10 - 0.1), 1], grid: true, tickFormat: '.0%' },
      marks: [
        Plot.ruleY([options.degradedBelow], { stroke: '#9a6700', strokeDasharray: '4,3' }),
        Plot.text([{ y: options.degradedBelow }], { y: 'y', frameAnchor: 'left', text: () => `degraded below ${Math.round(options.degradedBelow * 100)}%`, dy: 9, dx: 4, fill: '#7a5200', fontSize: 11 }),
        Plot.line(data, { x: 'date', y: 'coverage', stroke: '#0b5cad', strokeWidth: 1.5 }),
        // A dot a run while they can be told apart; past MAX_DAILY_MARKS days the line alone (the degraded runs keep theirs).
        ...(weekly(rows) ? [] : [Plot.dot(data.filter((r) => !r.degraded), { x: 'date', y: 'coverage', r: 2.5, fill: '#0b5cad', className: 'coverage-ok' })]),
        Plot.dot(data.filter((r) => r.degraded), { x: 'date', y: 'coverage', r: 4.5, symbol: 'triangle', fill: '#b42318', className: 'coverage-degraded' }),
      ],
    },
    options,
  );
}
