// The CSV beside each reader chart (the ever-changed share and the views over time) and the
// era-adoption chart the views over time show too (the same CSV as /statistics/'s): the rows
// the chart draws, one per line, under the column names the page's table uses. Cells go through csvLine
// (src/outputs/members.ts), the one CSV rule of the site.
import { ATTEMPT_CLASSES, CHANGE_LEVELS } from '../loader/timelines.ts';
import type { Archive } from '../loader/views.ts';
import { csvLine } from './members.ts';
import { SIMULATED_MARK } from './publication.ts';
import { eraAdoptionCsv } from './v2-figures.ts';

export type TrendName = 'coverage' | 'changes-per-week' | 'error-shares' | 'roster-flow' | 'era-adoption';
export const TREND_NAMES: readonly TrendName[] = ['coverage', 'changes-per-week', 'error-shares', 'roster-flow', 'era-adoption'];

export function everChangedCsv(a: Pick<Archive, 'everChanged'>, simulated = false): string {
  return csv(simulated,
    
    ['days', 'share_changed', 'lower_95', 'upper_95', 'at_risk', 'observed', 'observed_changed', 'observed_share', 'constant_rate'],
    a.everChanged.map((r) => [r.days, r.share, r.lower, r.upper, r.at_risk, r.observed, r.changed, r.observed_share, r.linear]),
  );
}

export function trendCsv(a: Pick<Archive, 'timelines' | 'v2'>, name: TrendName, simulated = false): string {
  const t = a.timelines;
  switch (name) {
    case 'coverage':
      return csv(simulated, ['day', 'run_id', 'status', 'eligible', 'attempts', 'coverage', 'degraded', 'partial'], t.runs.map((r) => [r.day, r.run_id, r.status, r.eligible, r.attempts, r.coverage, r.degraded, r.partial]));
    case 'changes-per-week':
      return csv(simulated, ['week_starting', ...CHANGE_LEVELS.map((l) => `level_${l}`), 'security_HIGH', 'reverts', 'total'], t.weeks.map((w) => [w.week, ...CHANGE_LEVELS.map((l) => w.levels[l]), w.securityHigh, w.reverts, w.total]));
    case 'error-shares':
      return csv(simulated, 
        ['day', 'run_id', 'attempts', ...ATTEMPT_CLASSES.flatMap((c) => [`${c}_count`, `${c}_share`, `${c}_lower_95`, `${c}_upper_95`])],
        t.errorShares.map((p) => [p.day, p.run_id, p.attempts, ...ATTEMPT_CLASSES.flatMap((c) => [p.classes[c].count, p.classes[c].p, p.classes[c].lower, p.classes[c].upper])]),
      );
    case 'roster-flow':
      return csv(simulated, ['day', 'listed', 'joined', 'left', 'archive_first_day'], t.roster.map((d) => [d.day, d.listed, d.joined, d.left, d.first]));
    case 'era-adoption':
      return eraAdoptionCsv(a.v2?.adoption ?? [], simulated);
    default: {
      const never: never = name;
      throw new RangeError(`unknown trend ${String(never)}`);
    }
  }
}

/** In a simulated build a first column `simulated` says SIMULATED on every row (as survival-csv.ts does). */
function csv(simulated: boolean, head: readonly string[], rows: readonly (readonly unknown[])[]): string {
  if (simulated) return csvLine(['simulated', ...head]) + rows.map((r) => csvLine([SIMULATED_MARK, ...r])).join('');
  return csvLine(head) + rows.map(csvLine).join('');
}
