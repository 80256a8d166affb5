// The share of servers that have ever changed their contract, by days observed, against the straight
// line a constant rate would give (the headline alone can mislead). Input is src/lib
// everChangedShare's rows as they are; this module draws, it never estimates:
//   - the Kaplan–Meier share (1 − S of the server-level curve) as a step line with its plain 95% band;
//   - the complete-case share (servers followed at least d days) as small dots, for comparison;
//   - the constant-rate line, dashed: the first day's share projected forward, the reader's shortcut
//     the drift census warned against. Where it runs above the curve, a rate read off the first days
//     overstates change.
import * as Plot from '@observablehq/plot';
import { plotSvg, type ChartSize, type ChartText } from './plot-svg.ts';
import { changePoints, thin } from './time-buckets.ts';

/** The fields of an EverChangedRow (src/lib everChangedShare) the chart reads. */
export interface EverChangedPoint {
  days: number;
  share: number;
  lower: number;
  upper: number;
  observed_share: number;
  linear: number | null;
}

export function everChangedChart(rows: readonly EverChangedPoint[], options: ChartSize & ChartText): string | null {
  if (rows.length < 2) return null;
  const maxDays = rows.at(-1)!.days;
  const linear = rows.filter((r) => r.linear !== null);
  const last = rows.at(-1)!;
  const lastLinear = linear.at(-1);
  const narrow = options.width < 480;
  // A row a day observed: the steps are drawn where they move (the same curve), the dots and the
  // straight line thinned to MAX_DAILY_MARKS (five years of days were 1,800 dots at two sizes).
  const band = changePoints(rows, ['lower', 'upper']);
  const steps = changePoints(rows, ['share']);
  const marks: Plot.Markish[] = [
    Plot.areaY(band, { x: 'days', y1: 'lower', y2: 'upper', curve: 'step-after', fill: '#0b5cad', fillOpacity: 0.16 }),
    Plot.dot(thin(rows), { x: 'days', y: 'observed_share', r: 1.6, fill: '#57606a', className: 'ever-observed' }),
    Plot.line(steps, { x: 'days', y: 'share', curve: 'step-after', stroke: '#0b5cad', strokeWidth: 2, className: 'ever-share' }),
    Plot.line(thin(linear), { x: 'days', y: 'linear', stroke: '#b42318', strokeWidth: 2, strokeDasharray: '6,4', className: 'ever-linear' }),
    Plot.text([last], { x: 'days', y: 'share', text: () => 'observed', textAnchor: 'end', dy: -10, fill: '#0b5cad', fontSize: 12, fontWeight: 600 }),
  ];
  if (lastLinear) {
    marks.push(Plot.text([lastLinear], { x: 'days', y: 'linear', text: () => (narrow ? 'constant rate' : 'at a constant rate'), textAnchor: 'end', dx: -4, dy: -8, fill: '#b42318', fontSize: 12, fontWeight: 600 }));
  }
  return plotSvg(
    {
      width: options.width,
      height: options.height,
      marginLeft: 48,
      marginRight: 12,
      marginBottom: 40,
      x: { type: 'linear', label: narrow ? 'days observed' : 'days since the server was first seen answering', domain: [0, Math.max(maxDays, 1)], grid: true },
      y: { label: 'share of servers that changed', domain: [0, 1], grid: true, tickFormat: '.0%' },
      marks,
    },
    options,
  );
}

export function everChangedText(rows: readonly EverChangedPoint[], servers: number, asOfDay: string | null): ChartText {
  const last = rows.at(-1);
  const lastLinear = rows.filter((r) => r.linear !== null).at(-1);
  return {
    title: `Share of MCP servers that changed their tool contract at least once, by days observed${asOfDay ? ` (data as of ${asOfDay})` : ''}`,
    description:
      `Kaplan–Meier estimate over ${servers} servers (each counted once, until its first change). ` +
      (last ? `After ${last.days} days, an estimated ${(last.share * 100).toFixed(1)}% had changed. ` : '') +
      (lastLinear?.linear != null ? `A constant rate taken from the first day would predict ${(lastLinear.linear * 100).toFixed(1)}% by day ${lastLinear.days} (dashed line). ` : '') +
      'Shaded: pointwise 95% band. Dots: the share among servers followed at least that many days.',
  };
}
