// Changes per week by level: one stacked bar per ISO week (Monday to
// Sunday, UTC), split by the highest compatibility finding of each change — ERR, WARN, INFO, or none
// fired. Input is the loader's WeekPoint rows (src/loader/timelines.ts); this module draws.
import * as Plot from '@observablehq/plot';
import { max, ticks } from 'd3-array';
import { plotSvg, utcDay, type ChartSize, type ChartText } from './plot-svg.ts';

export interface WeekLevels {
  week: string;
  levels: Record<'ERR' | 'WARN' | 'INFO' | 'NONE', number>;
}

/** Level order (bottom to top) and colours; the page's legend reads the same table. */
export const WEEK_LEVELS = [
  { level: 'ERR', label: 'ERR: breaks callers', colour: '#b42318' },
  { level: 'WARN', label: 'WARN', colour: '#d4a72c' },
  { level: 'INFO', label: 'INFO', colour: '#6e9fd6' },
  { level: 'NONE', label: 'no rule fired', colour: '#8c959f' },
] as const;

export function changesPerWeekChart(rows: readonly WeekLevels[], options: ChartSize & ChartText): string | null {
  if (rows.length === 0) return null;
  const data = rows.flatMap((r) => WEEK_LEVELS.map(({ level }) => ({ date: utcDay(r.week), level, n: r.levels[level] })));
  const top = Math.max(1, max(rows, (r) => r.levels.ERR + r.levels.WARN + r.levels.INFO + r.levels.NONE) ?? 1);
  return plotSvg(
    {
      width: options.width,
      height: options.height,
      marginLeft: 40,
      marginRight: 16,
      x: { type: 'utc', label: null },
      y: { label: 'changes per week', grid: true, domain: [0, top], ticks: ticks(0, top, 6).filter(Number.isInteger), tickFormat: 'd' },
      color: { domain: WEEK_LEVELS.map((l) => l.level), range: WEEK_LEVELS.map((l) => l.colour) },
      marks: [
        Plot.rectY(data, { x: 'date', interval: 'monday', y: 'n', fill: 'level', order: WEEK_LEVELS.map((l) => l.level), inset: 1 }),
        Plot.ruleY([0]),
      ],
    },
    options,
  );
}
