// The schema survival chart (methodology v1, "Survival estimate and half-life"): Observable Plot
// rendered to an SVG string at build time, so the page needs no client JavaScript.
//
// Input is the Kaplan–Meier table exactly as src/lib's kaplanMeier returns it (one row per distinct
// time, no row at t = 0); this module draws, it never estimates. What it draws:
//   - the step curve from (0, 1): R's survfit plots start there and so do we;
//   - the pointwise 95% band (plain, as the table carries it) as a stepped area;
//   - a dot where contracts changed (events), a + where contracts were censored (R's plot convention);
//   - the curve solid up to the last event and dashed after it: past the last event nothing has
//     changed yet, so that stretch says "still unchanged", not "will stay unchanged";
//   - a 0.5 reference line (the half-life is where the curve first reaches it).
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import { finishSvg } from './plot-svg.ts';

/** The fields of a KMRow (src/lib kaplanMeier) the chart reads. */
export interface SurvivalPoint {
  time: number;
  atRisk: number;
  events: number;
  censored: number;
  survival: number;
  lower: number;
  upper: number;
}

export interface SurvivalChartOptions {
  width: number;
  height: number;
  /** Text for the SVG <title> (accessible name). */
  title: string;
  /** Text for the SVG <desc> (what the chart shows and what is censored). */
  description: string;
  /** The median from halfLife(rows), drawn as a marker when known. */
  median?: number | null;
}


/** The chart as a standalone SVG string (carries xmlns, <title> and <desc>), or null for an empty table. */
export function survivalChart(rows: readonly SurvivalPoint[], options: SurvivalChartOptions): string | null {
  if (rows.length === 0) return null;
  const { width, height } = options;
  const start = { time: 0, survival: 1, lower: 1, upper: 1, events: 0, censored: 0, atRisk: rows[0]!.atRisk };
  const steps = [start, ...rows];
  const lastEventIndex = findLastIndex(steps, (r) => r.events > 0);
  // Solid through the last event; the dashed tail repeats that point so the two pieces join.
  const solid = lastEventIndex > 0 ? steps.slice(0, lastEventIndex + 1) : [start];
  const dashed = steps.slice(Math.max(lastEventIndex, 0));
  const maxTime = rows[rows.length - 1]!.time;
  const events = rows.filter((r) => r.events > 0);
  const censored = rows.filter((r) => r.censored > 0);
  const { document } = parseHTML('<!doctype html><html><body></body></html>');

  const marks: Plot.Markish[] = [
    Plot.areaY(steps, { x: 'time', y1: 'lower', y2: 'upper', curve: 'step-after', fill: '#0b5cad', fillOpacity: 0.16 }),
    Plot.ruleY([0.5], { stroke: '#57606a', strokeDasharray: '2,3' }),
    Plot.text([{ x: maxTime, y: 0.5 }], { x: 'x', y: 'y', text: () => 'S = 0.5', textAnchor: 'end', dy: -6, fill: '#57606a', fontSize: 11 }),
    Plot.line(solid, { x: 'time', y: 'survival', curve: 'step-after', stroke: '#0b5cad', strokeWidth: 2, className: 'km-solid' }),
    Plot.line(dashed, { x: 'time', y: 'survival', curve: 'step-after', stroke: '#0b5cad', strokeWidth: 2, strokeDasharray: '6,4', className: 'km-tail' }),
    Plot.dot(events, { x: 'time', y: 'survival', r: 3, fill: '#0b5cad', className: 'km-events' }),
    Plot.dot(censored, { x: 'time', y: 'survival', symbol: 'plus', r: 4, stroke: '#24292f', strokeWidth: 1.2, className: 'km-censored' }),
  ];
  if (options.median != null) {
    marks.push(
      Plot.ruleX([options.median], { y1: 0, y2: 0.5, stroke: '#b42318', strokeDasharray: '3,3' }),
      Plot.text([{ x: options.median, y: 0.02 }], { x: 'x', y: 'y', text: () => `half-life ${formatDays(options.median!)}`, textAnchor: 'start', dx: 4, fill: '#b42318', fontSize: 11 }),
    );
  }

  const svg = Plot.plot({
    document,
    width,
    height,
    marginLeft: 48,
    marginBottom: 40,
    style: { fontFamily: 'system-ui, sans-serif', fontSize: '12px', background: 'white' },
    x: { type: 'linear', label: 'days since the contract was first seen', domain: [0, Math.max(maxTime, 1)], grid: true },
    y: { label: 'share of contracts still unchanged', domain: [0, 1], grid: true, tickFormat: '.0%' },
    marks,
  }) as unknown as Element;

  return finishSvg(svg, document, { title: options.title, description: options.description });
}

/** Replace Plot's process-wide counters (class and clip ids) so snapshots compare across runs. */
export function normaliseSvgIds(svg: string): string {
  return svg.replace(/plot-[0-9a-f]{6,}(-\d+)?/g, 'plot-X').replace(/(clip|marker)\d+/g, '$1N');
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

function formatDays(days: number): string {
  return `${Number.isInteger(days) ? days : days.toFixed(1)} d`;
}

/** The chart's accessible title and description (also used as the standalone SVG's <title>/<desc>). */
export function survivalText(rows: readonly SurvivalPoint[], asOfDay: string | null): { title: string; description: string } {
  const contracts = rows[0]?.atRisk ?? 0;
  const changed = rows.reduce((n, r) => n + r.events, 0);
  const last = rows.at(-1);
  return {
    title: `Schema survival: share of MCP tool contracts still unchanged, by days since first seen${asOfDay ? ` (data as of ${asOfDay})` : ''}`,
    description:
      `Kaplan–Meier estimate over ${contracts} contracts, ${changed} of which changed; the other ${contracts - changed} are censored ` +
      `(still unchanged at their last successful observation). ` +
      (last ? `After ${last.time} days, ${(last.survival * 100).toFixed(1)}% are estimated unchanged. ` : '') +
      `Shaded: pointwise 95% band. Dashed: the stretch after the last observed change. Dotted line: S = 0.5.`,
  };
}
