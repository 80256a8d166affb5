// How many marks a chart over days draws (after five years of daily runs the views over time
// were 5.1 MB of one page, and the dashboard 1.1 MB — a mark a day per class, at two sizes). Up to
// MAX_DAILY_MARKS days a chart draws a mark a day; past it, a mark a week (its Monday, UTC), said in
// its description. The tables show the newest TABLE_ROWS rows; the CSVs keep every row.
import { group } from 'd3-array';
import { weekMonday } from '../lib/index.ts';

/** Days a chart draws one mark each for, at most; past it, one a week. */
export const MAX_DAILY_MARKS = 400;
/** Rows a chart's table shows on the page (the newest); its CSV has them all. */
export const TABLE_ROWS = 100;

/** Whether rows spanning these days are drawn a week a mark. */
export function weekly(rows: readonly { day: string }[]): boolean {
  if (rows.length < 2) return false;
  const span = (Date.parse(`${rows.at(-1)!.day}T00:00:00Z`) - Date.parse(`${rows[0]!.day}T00:00:00Z`)) / 86_400_000 + 1;
  return span > MAX_DAILY_MARKS;
}

/** Rows grouped by the Monday of their day's week, in order, each group combined into one. */
export function byWeek<T extends { day: string }, U>(rows: readonly T[], combine: (week: string, rows: T[]) => U): U[] {
  // d3-array's group keeps the keys in first-seen order, so the weeks stay in the rows' order.
  return [...group(rows, (r) => weekMonday(r.day))].map(([w, g]) => combine(w, g));
}

/** Every k-th row (k the least that keeps at most `max`), and always the last one. */
export function thin<T>(rows: readonly T[], max: number = MAX_DAILY_MARKS): T[] {
  if (rows.length <= max) return [...rows];
  const k = Math.ceil(rows.length / max);
  const out = rows.filter((_, i) => i % k === 0);
  if (out.at(-1) !== rows.at(-1)) out.push(rows.at(-1)!);
  return out;
}

/** The newest `n` rows of a table, and how many were left out. */
export function newest<T>(rows: readonly T[], n: number = TABLE_ROWS): { rows: T[]; left: number } {
  return { rows: rows.slice(-n), left: Math.max(0, rows.length - n) };
}

/** A step curve's rows where it moves: the first row, every row whose `keys` differ from the row before, and the last (drawn step-after, the same curve). */
export function changePoints<T>(rows: readonly T[], keys: readonly (keyof T)[]): T[] {
  return rows.filter((r, i) => i === 0 || i === rows.length - 1 || keys.some((k) => r[k] !== rows[i - 1]![k]));
}
