// The survival chart's forms for its page and endpoints: the standalone SVG and the suggested
// citation (the CSV of the Kaplan–Meier table is an output: src/outputs/survival-csv.ts).
import type { Archive } from '../loader/views.ts';
import { permalink } from '../site/settings.ts';
import { survivalChart, survivalText } from './survival.ts';

export const CHART_SIZE = { width: 720, height: 380 };
export const CHART_PATH = '/charts/schema-survival/';

export function survivalSvg(a: Archive): string | null {
  return survivalChart(a.km, { ...CHART_SIZE, ...survivalText(a.km, a.asOfDay), median: a.halfLife?.median ?? null });
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
