// Servers joining and leaving the registry: per day, names seen for the
// first time (up) and names that left the complete roster (down, their `retired` rows). The archive's
// first day is left out of the bars — every name "joins" then — and said in the description. Input is
// the loader's RosterPoint rows (src/loader/timelines.ts); this module draws.
import * as Plot from '@observablehq/plot';
import { ticks } from 'd3-array';
import { plotSvg, utcDay, type ChartSize, type ChartText } from './plot-svg.ts';
import { byWeek, weekly } from './time-buckets.ts';

export interface RosterDay {
  day: string;
  joined: number;
  left: number;
  first: boolean;
}

export function rosterFlowChart(rows: readonly RosterDay[], options: ChartSize & ChartText): string | null {
  const daily = rows.filter((r) => !r.first);
  if (daily.length === 0) return null;
  // Past MAX_DAILY_MARKS days, a bar a week: the week's joins and departures summed.
  const week = weekly(daily);
  const days = week ? byWeek(daily, (day, g) => ({ day, joined: g.reduce((n, r) => n + r.joined, 0), left: g.reduce((n, r) => n + r.left, 0), first: false })) : daily;
  const data = days.flatMap((r) => [
    { date: utcDay(r.day), what: 'joined', n: r.joined },
    { date: utcDay(r.day), what: 'left', n: -r.left },
  ]);
  const top = Math.max(1, ...days.map((r) => r.joined));
  const bottom = Math.max(1, ...days.map((r) => r.left));
  return plotSvg(
    {
      width: options.width,
      height: options.height,
      marginLeft: 40,
      marginRight: 16,
      x: { type: 'utc', label: null },
      // Whole servers only: no 0.5 ticks on small days.
      y: { label: `↑ joined · left ↓ (servers per ${week ? 'week' : 'day'})`, grid: true, ticks: ticks(-bottom, top, 6).filter(Number.isInteger), tickFormat: (d: number) => String(Math.abs(d)) },
      color: { domain: ['joined', 'left'], range: ['#2da44e', '#24292f'] },
      marks: [Plot.rectY(data, { x: 'date', interval: week ? 'monday' : 'day', y: 'n', fill: 'what', inset: 0.5 }), Plot.ruleY([0])],
    },
    options,
  );
}
