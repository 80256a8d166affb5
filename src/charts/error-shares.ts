// Error-class shares over time: for each full run, how the targets it
// contacted fared — answered, or failed with one of the error classes — as one stacked bar per run
// day summing to 100%; past MAX_DAILY_MARKS days, one bar a week of the runs' mean shares. Partial runs never appear (they never feed published shares). Input is the
// loader's ErrorSharePoint rows (src/loader/timelines.ts, wilson over the run rows); this draws.
import * as Plot from '@observablehq/plot';
import { plotSvg, utcDay, type ChartSize, type ChartText } from './plot-svg.ts';
import { byWeek, weekly } from './time-buckets.ts';

export interface RunShares {
  day: string;
  classes: Record<string, { p: number }>;
}

/** Classes bottom to top, with colours distinguishable without red–green alone; the legend reads this table. */
export const SHARE_COLOURS: Record<string, string> = {
  ok: '#2da44e',
  auth: '#8250df',
  http_4xx: '#d4a72c',
  http_5xx: '#b42318',
  timeout: '#57606a',
  tls: '#0b5cad',
  rate_limited: '#bf3989',
  parse: '#1b1f24',
};

export function errorSharesChart(rows: readonly RunShares[], options: ChartSize & ChartText & { classes: readonly string[] }): string | null {
  if (rows.length === 0) return null;
  const order = options.classes;
  // Past MAX_DAILY_MARKS days, a bar a week: each class's mean share over the week's full runs (the
  // runs' shares each sum to 1, so the means do too).
  const week = weekly(rows);
  const bars = week ? byWeek(rows, (day, g) => ({ day, classes: Object.fromEntries(order.map((c) => [c, { p: g.reduce((n, r) => n + (r.classes[c]?.p ?? 0), 0) / g.length }])) })) : rows;
  const data = bars.flatMap((r) => order.map((c) => ({ date: utcDay(r.day), cls: c, p: r.classes[c]?.p ?? 0 })));
  return plotSvg(
    {
      width: options.width,
      height: options.height,
      marginLeft: 48,
      marginRight: 16,
      x: { type: 'utc', label: null },
      y: { label: 'share of servers contacted', domain: [0, 1], grid: true, tickFormat: '.0%' },
      color: { domain: [...order], range: order.map((c) => SHARE_COLOURS[c] ?? '#8c959f') },
      marks: [Plot.rectY(data, { x: 'date', interval: week ? 'monday' : 'day', y: 'p', fill: 'cls', order: [...order] }), Plot.ruleY([0])],
    },
    options,
  );
}
