// Servers joining and leaving the registry (issue 16, "Views over time"): per day, names seen for the
// first time (up) and names that left the complete roster (down, their `retired` rows). The archive's
// first day is left out of the bars — every name "joins" then — and said in the description. Input is
// the loader's RosterPoint rows (src/loader/timelines.ts); this module draws.
import * as Plot from '@observablehq/plot';
import { ticks } from 'd3-array';
import { plotSvg, utcDay, type ChartSize, type ChartText } from './plot-svg.ts';

export interface RosterDay {
  day: string;
  joined: number;
  left: number;
  first: boolean;
}

export function rosterFlowChart(rows: readonly RosterDay[], options: ChartSize & ChartText): string | null {
  const days = rows.filter((r) => !r.first);
  if (days.length === 0) return null;
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
      y: { label: '↑ joined · left ↓ (servers per day)', grid: true, ticks: ticks(-bottom, top, 6).filter(Number.isInteger), tickFormat: (d: number) => String(Math.abs(d)) },
      color: { domain: ['joined', 'left'], range: ['#2da44e', '#24292f'] },
      marks: [Plot.rectY(data, { x: 'date', interval: 'day', y: 'n', fill: 'what', inset: 0.5 }), Plot.ruleY([0])],
    },
    options,
  );
}
