// The survival chart's downloadable forms, shared by the chart page, its endpoints and /data/:
// the standalone SVG, the CSV of the Kaplan–Meier table, and the suggested citation.
import type { Archive } from '../loader/load-archive.ts';
import { permalink } from '../site/settings.ts';
import { survivalChart, survivalText } from './survival.ts';

export const CHART_SIZE = { width: 720, height: 380 };
export const CHART_PATH = '/charts/schema-survival/';

export function survivalSvg(a: Archive): string | null {
  return survivalChart(a.km, { ...CHART_SIZE, ...survivalText(a.km, a.asOfDay), median: a.halfLife?.median ?? null });
}

/** One row per distinct time, as kaplanMeier returns it, plus the (0, 1) start the chart draws. */
export function survivalCsv(a: Archive): string {
  const head = 'time_days,at_risk,events,censored,survival,std_err,lower_95,upper_95';
  const rows = a.km.map((r) => [r.time, r.atRisk, r.events, r.censored, r.survival, Number.isNaN(r.stdErr) ? 'NA' : r.stdErr, r.lower, r.upper].join(','));
  return [head, ...rows].join('\n') + '\n';
}

export interface Citation {
  plain: string;
  bibtex: string;
}

export function survivalCitation(a: Archive): Citation {
  const asOf = a.asOfDay ?? 'no data yet';
  const url = permalink(CHART_PATH);
  const year = a.asOfDay?.slice(0, 4) ?? new Date(0).getUTCFullYear().toString();
  const key = `mcpschema_survival_${(a.asOfDay ?? 'none').replace(/-/g, '')}`;
  return {
    plain: `mcp-schema (${year}). Schema survival of MCP tool contracts (Kaplan–Meier), data as of ${asOf}. Methodology v1. ${url} (licence CC BY 4.0).`,
    bibtex: [
      `@misc{${key},`,
      `  title        = {Schema survival of {MCP} tool contracts ({Kaplan--Meier}), data as of ${asOf}},`,
      `  author       = {{mcp-schema}},`,
      `  year         = {${year}},`,
      `  howpublished = {\\url{${url}}},`,
      `  note         = {Methodology v1. Data as of ${asOf}. Licence CC BY 4.0},`,
      `}`,
    ].join('\n'),
  };
}
