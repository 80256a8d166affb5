// The survival chart's context on the live site (src/outputs/survival-export.ts ChartContext): the
// live files (SVG, PNG, zip on /charts/schema-survival/) carry the live chart page's URL and the
// latest data date; the citation the site suggests is the latest edition's, whose page and files are
// frozen (/editions/<id>/), and falls back to the live chart before the first edition is cut.
import { CHART_PATH, type ChartContext } from '../outputs/survival-export.ts';
import { headlineMethodology } from '../lib/index.ts';
import type { Archive } from '../loader/views.ts';
import { conceptDoi, permalink, simulated } from './settings.ts';

/** The live chart names what the headline rests on (headlineMethodology), as the dashboard's statement does. */
export function liveChartContext(a: Pick<Archive, 'asOfDay' | 'headline'>): ChartContext {
  return { url: permalink(CHART_PATH), edition: null, asOfDay: a.asOfDay, methodology: headlineMethodology(a.headline), simulated: simulated(), doi: conceptDoi() };
}

/** The context the site cites: the latest edition's when there is one. */
export function citedChartContext(a: Pick<Archive, 'asOfDay' | 'headline' | 'editions'>): ChartContext {
  const e = a.editions.at(-1);
  if (!e) return liveChartContext(a);
  // An edition cut with a concept DOI names it (edition.json concept_doi); one cut before names none.
  return { url: e.url, edition: e.edition, asOfDay: e.data_as_of_day, methodology: e.methodology, simulated: simulated(), doi: e.concept_doi ?? null };
}
