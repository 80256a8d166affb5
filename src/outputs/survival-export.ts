// The survival chart as a file that carries its own context: the standalone SVG and PNG
// add a title, a one-line subtitle, a legend for every mark and a source line (name, URL, data as of,
// licence, methodology) around the plot src/charts/survival.ts draws; a simulated build stamps
// "SIMULATED DATA" on the image. The PNG also carries that text as PNG text chunks (png-text.ts). The
// suggested citation, the metadata JSON and the README of the chart's zip come from the same context,
// so a file saved alone, the page and an edition (src/editions/) say the same thing.
//
// Plot returns a <figure> when given a title, subtitle or legend (field notes), so the frame is
// composed here as SVG text around Plot's <svg>, nested at an offset.
import type { HalfLife, KMRow } from '../lib/index.ts';
import { CONCEPT_DOI_NOTE, SIMULATED_MARK, SIMULATED_NOTE, SITE_NAME } from './publication.ts';
import { survivalChart, survivalText } from '../charts/survival.ts';
import { withPngText } from '../charts/png-text.ts';

export const CHART_SIZE = { width: 720, height: 380 };
export const CHART_PATH = '/charts/schema-survival/';
export const CHART_TITLE = 'Schema survival: how long MCP tool contracts stay unchanged';
export const LICENCE = 'CC BY 4.0';
export const LICENCE_URL = 'https://creativecommons.org/licenses/by/4.0/';

/** Everything a chart file says about itself. */
export interface ChartContext {
  /** The permanent URL the chart is cited at: its edition's page, or the live chart page. */
  url: string;
  /** The edition this chart belongs to (`2026-01`, `2026-01-r1`), or null for the live chart. */
  edition: string | null;
  asOfDay: string | null;
  methodology: string;
  simulated: boolean;
  /** The dataset's concept DOI (Publication.conceptDoi); null or absent: the citation names no DOI. */
  doi?: string | null;
}

/** What the chart is drawn from: the Kaplan–Meier table and its half-life. */
export interface ChartData {
  km: readonly KMRow[];
  halfLife: HalfLife | null;
}

const TOP = 64;
const LEGEND = 54;
const SOURCE = 44;

/** The chart with its frame, as a standalone SVG (null when there is no curve). */
export function survivalExportSvg(d: ChartData, ctx: ChartContext): string | null {
  const text = survivalText(d.km, ctx.asOfDay);
  const plot = survivalChart(d.km, { ...CHART_SIZE, ...text, median: d.halfLife?.median ?? null });
  if (!plot) return null;
  const { width } = CHART_SIZE;
  const stamp = ctx.simulated ? 28 : 0;
  const height = stamp + TOP + CHART_SIZE.height + LEGEND + SOURCE;
  // The plot's own <title>/<desc> move to the outer SVG; its other attributes stay on the nested <svg>.
  const inner = plot.replace(/<title>[\s\S]*?<\/title><desc>[\s\S]*?<\/desc>/, '').replace(/^<svg /, `<svg x="0" y="${stamp + TOP}" `).replace(/ role="img"/, '').replace(/ xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, '');
  const s = source(ctx);
  const y0 = stamp + TOP + CHART_SIZE.height;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" font-family="system-ui, sans-serif">`,
    `<title>${esc(`${ctx.simulated ? `${SIMULATED_MARK} DATA. ` : ''}${text.title}`)}</title><desc>${esc(`${text.description} ${s.join(' ')}`)}</desc>`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  if (ctx.simulated) parts.push(`<rect width="${width}" height="${stamp}" fill="#b42318"/>`, `<text class="stamp" x="${width / 2}" y="19" text-anchor="middle" font-size="13" font-weight="700" fill="white">${esc(`${SIMULATED_MARK} DATA — a local test world, not the official MCP registry`)}</text>`);
  parts.push(
    `<text class="title" x="16" y="${stamp + 26}" font-size="18" font-weight="700" fill="#24292f">${esc(CHART_TITLE)}</text>`,
    `<text class="subtitle" x="16" y="${stamp + 48}" font-size="13" fill="#57606a">${esc(subtitle(d, ctx))}</text>`,
    inner,
  );
  if (ctx.simulated) parts.push(`<text class="watermark" x="${width / 2}" y="${stamp + TOP + CHART_SIZE.height / 2}" text-anchor="middle" font-size="44" font-weight="700" fill="#b42318" fill-opacity="0.14" transform="rotate(-18 ${width / 2} ${stamp + TOP + CHART_SIZE.height / 2})">${SIMULATED_MARK} DATA</text>`);
  parts.push(...legend(y0 + 14), ...s.map((line, i) => `<text class="source" x="16" y="${y0 + LEGEND + 14 + i * 15}" font-size="11" fill="#57606a">${esc(line)}</text>`), '</svg>');
  return parts.join('');
}

/** The same as a PNG at twice the size, with its text in PNG text chunks (rendered by sharp, which Astro installs). */
export async function survivalExportPng(svg: string, ctx: ChartContext): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const png = await sharp(Buffer.from(svg), { density: 144 }).flatten({ background: '#ffffff' }).png().toBuffer();
  return withPngText(png, pngText(ctx));
}

/** The PNG's text chunks (registered keywords, PNG spec §11.3.3.4). */
export function pngText(ctx: ChartContext): [string, string][] {
  return [
    ['Title', `${ctx.simulated ? `${SIMULATED_MARK} DATA. ` : ''}${CHART_TITLE}`],
    ['Description', `Kaplan–Meier estimate of the share of MCP tool contracts still unchanged, by days since first seen. Data as of ${ctx.asOfDay ?? 'no data yet'}. Methodology ${ctx.methodology}.`],
    ['Source', ctx.url],
    ['Copyright', `${SITE_NAME} contributors, ${LICENCE} (${LICENCE_URL})`],
    ['Creation Time', ctx.asOfDay ?? 'no data yet'],
    ['Software', SITE_NAME],
    ...(ctx.simulated ? ([['Comment', SIMULATED_NOTE]] as [string, string][]) : []),
  ];
}

/** A placeholder image for an empty archive, so embeds never break. */
export function emptyChartSvg(ctx: ChartContext): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="90" role="img"><title>No data yet</title><rect width="720" height="90" fill="white"/><text x="10" y="35" font-family="sans-serif" font-size="16">Nothing has been observed yet.</text><text x="10" y="65" font-family="sans-serif" font-size="11" fill="#57606a">${esc(`${ctx.simulated ? `${SIMULATED_MARK} DATA. ` : ''}Source: ${SITE_NAME}, ${ctx.url}`)}</text></svg>`;
}

export interface Citation {
  plain: string;
  bibtex: string;
}

/** The suggested citation: the edition and its permanent URL when there is one, else the live chart with its date. */
export function survivalCitation(ctx: ChartContext): Citation {
  const asOf = ctx.asOfDay ?? 'no data yet';
  const year = ctx.asOfDay?.slice(0, 4) ?? '1970';
  const sim = ctx.simulated ? `${SIMULATED_MARK} DATA (a local test world, not the official MCP registry). ` : '';
  const what = ctx.edition ? `edition ${ctx.edition}, data as of ${asOf}` : `data as of ${asOf}`;
  const key = `mcpschema_survival_${(ctx.edition ?? ctx.asOfDay ?? 'none').replace(/-/g, '')}${ctx.simulated ? '_simulated' : ''}`;
  return {
    plain: `${sim}mcp-schema (${year}). Schema survival of MCP tool contracts (Kaplan–Meier), ${what}. Methodology ${ctx.methodology}. ${ctx.url}${ctx.doi ? ` doi:${ctx.doi} (${CONCEPT_DOI_NOTE})` : ''} (licence ${LICENCE}).`,
    bibtex: [
      `@misc{${key},`,
      `  title        = {${ctx.simulated ? `${SIMULATED_MARK} DATA: ` : ''}Schema survival of {MCP} tool contracts ({Kaplan--Meier}), ${what}},`,
      `  author       = {{mcp-schema}},`,
      `  year         = {${year}},`,
      `  howpublished = {\\url{${ctx.url}}},`,
      ...(ctx.doi ? [`  doi          = {${ctx.doi}},`] : []),
      `  note         = {${ctx.edition ? `Edition ${ctx.edition}. ` : ''}Methodology ${ctx.methodology}. Data as of ${asOf}. Licence ${LICENCE}${ctx.simulated ? '. Simulated data' : ''}},`,
      `}`,
    ].join('\n'),
  };
}

/** The metadata JSON of the chart's zip: what it shows, in what units, from where, under which licence. */
export function chartMetadata(d: ChartData, ctx: ChartContext): Record<string, unknown> {
  const text = survivalText(d.km, ctx.asOfDay);
  return {
    title: CHART_TITLE,
    description: text.description,
    ...(ctx.simulated ? { simulated: true, simulated_note: SIMULATED_NOTE } : {}),
    units: { x: 'days since the contract was first seen (whole UTC days)', y: 'share of contracts still unchanged (Kaplan–Meier S(t), 0 to 1)' },
    source: { name: SITE_NAME, url: ctx.url },
    edition: ctx.edition,
    licence: { name: LICENCE, url: LICENCE_URL },
    methodology_version: ctx.methodology,
    data_as_of: ctx.asOfDay,
    half_life_days: d.halfLife?.median ?? null,
    contracts: d.km[0]?.atRisk ?? 0,
    citation: survivalCitation(ctx),
    files: { svg: 'schema-survival.svg', png: 'schema-survival.png', csv: 'schema-survival.csv (the Kaplan–Meier table: time_days, at_risk, events, censored, survival, std_err, lower_95, upper_95)' },
  };
}

/** The README of the chart's zip. */
export function chartReadme(d: ChartData, ctx: ChartContext): string {
  const c = survivalCitation(ctx);
  return [
    `# ${CHART_TITLE}`,
    '',
    ...(ctx.simulated ? [`**${SIMULATED_NOTE}**`, ''] : []),
    subtitle(d, ctx) + '.',
    '',
    `- Source: ${SITE_NAME}, ${ctx.url}`,
    `- Data as of: ${ctx.asOfDay ?? 'no data yet'}${ctx.edition ? ` (edition ${ctx.edition}, frozen)` : ' (the live chart: it changes as the archive grows; cite an edition)'}`,
    `- Licence: ${LICENCE} (${LICENCE_URL})`,
    `- Methodology: ${ctx.methodology}`,
    '',
    'Files: schema-survival.svg (vector), schema-survival.png (raster, with this text in its metadata), schema-survival.csv (the Kaplan–Meier table the chart draws), metadata.json.',
    '',
    '## Cite',
    '',
    c.plain,
    '',
    '```bibtex',
    c.bibtex,
    '```',
    '',
  ].join('\n');
}

function subtitle(d: ChartData, ctx: ChartContext): string {
  const contracts = d.km[0]?.atRisk ?? 0;
  const hl = d.halfLife?.median;
  return `Kaplan–Meier estimate over ${contracts.toLocaleString('en')} contracts; half-life ${hl == null ? 'not reached yet' : `${Number.isInteger(hl) ? hl : hl.toFixed(1)} days`}; data as of ${ctx.asOfDay ?? '—'}`;
}

function source(ctx: ChartContext): string[] {
  return [
    `Source: ${SITE_NAME}${ctx.edition ? `, edition ${ctx.edition}` : ''} — ${ctx.url}`,
    `Data as of ${ctx.asOfDay ?? '—'} · Licence ${LICENCE} · Methodology ${ctx.methodology}${ctx.doi ? ` · DOI ${ctx.doi}` : ''}${ctx.simulated ? ` · ${SIMULATED_MARK} DATA` : ''}`,
  ];
}

/** One legend entry per mark the chart draws (survival.ts), in two rows. */
function legend(y: number): string[] {
  const blue = '#0b5cad';
  const items: [string, string][] = [
    [`<line x1="0" y1="0" x2="22" y2="0" stroke="${blue}" stroke-width="2"/>`, 'Kaplan–Meier estimate'],
    [`<rect x="0" y="-6" width="22" height="12" fill="${blue}" fill-opacity="0.16"/>`, 'pointwise 95% band'],
    [`<line x1="0" y1="0" x2="22" y2="0" stroke="${blue}" stroke-width="2" stroke-dasharray="6,4"/>`, 'after the last observed change'],
    [`<circle cx="11" cy="0" r="3" fill="${blue}"/>`, 'contracts changed'],
    [`<path d="M7 0h8M11 -4v8" stroke="#24292f" stroke-width="1.2"/>`, 'censored (still unchanged)'],
    [`<line x1="0" y1="0" x2="22" y2="0" stroke="#57606a" stroke-dasharray="2,3"/>`, 'S = 0.5 (half-life where crossed)'],
  ];
  return items.map(([mark, label], i) => {
    const x = 16 + (i % 3) * 236;
    const yy = y + Math.floor(i / 3) * 20;
    return `<g class="legend" transform="translate(${x},${yy})">${mark}<text x="28" y="4" font-size="11" fill="#24292f">${esc(label)}</text></g>`;
  });
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
