// survival.csv (on /data/ and beside the survival chart): the Kaplan–Meier table as kaplanMeier
// returns it, one row per distinct time, under the column names the catalogue describes. In a
// simulated build a first column `simulated` says SIMULATED on every row: a CSV has no other place a
// reader who opened it alone would see it.
import type { Archive } from '../loader/views.ts';
import { SURVIVAL_FIELDS } from './catalogue.ts';
import { SIMULATED_MARK } from './publication.ts';

export function survivalCsv(a: { km: readonly Archive['km'][number][] }, simulated = false): string {
  const head = [...(simulated ? ['simulated'] : []), ...SURVIVAL_FIELDS.map((f) => f.name)].join(',');
  const rows = a.km.map((r) => [...(simulated ? [SIMULATED_MARK] : []), r.time, r.atRisk, r.events, r.censored, r.survival, Number.isNaN(r.stdErr) ? 'NA' : r.stdErr, r.lower, r.upper].join(','));
  return [head, ...rows].join('\n') + '\n';
}
