// survival.csv (on /data/ and beside the survival chart): the Kaplan–Meier table as kaplanMeier
// returns it, one row per distinct time, under the column names the catalogue describes.
import type { Archive } from '../loader/views.ts';
import { SURVIVAL_FIELDS } from './catalogue.ts';

export function survivalCsv(a: Pick<Archive, 'km'>): string {
  const head = SURVIVAL_FIELDS.map((f) => f.name).join(',');
  const rows = a.km.map((r) => [r.time, r.atRisk, r.events, r.censored, r.survival, Number.isNaN(r.stdErr) ? 'NA' : r.stdErr, r.lower, r.upper].join(','));
  return [head, ...rows].join('\n') + '\n';
}
