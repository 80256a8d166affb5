// The survival chart as files that carry their context: the framed SVG (title, subtitle, legend, source
// line, the simulated stamp), the PNG (its size and its text chunks), the citation and the zip.
import { unzipSync } from 'fflate';
import { saxes } from '../helpers/xml.ts';
import { describe, expect, it } from 'vitest';
import { readPngText, pngSize, withPngText } from '../../src/charts/png-text.ts';
import { CHART_TITLE, survivalCitation, survivalExportSvg, type ChartContext } from '../../src/outputs/survival-export.ts';
import { survivalFiles, survivalZip } from '../../src/outputs/survival-files.ts';
import { halfLife, kaplanMeier } from '../../src/lib/index.ts';

const km = kaplanMeier([1, 2, 2, 3, 5, 5, 5, 8, 10, 12, 12, 15], [true, true, false, true, true, true, false, true, false, false, false, false]);
const d = { km, halfLife: halfLife(km) };
const ctx: ChartContext = { url: 'https://mcp-schema.example.org/editions/2026-01/', edition: '2026-01', asOfDay: '2026-01-01', methodology: 'v1', simulated: false };
const sim: ChartContext = { ...ctx, simulated: true };

/** The text content of every <text> element, in document order (a strict XML parse: the file must be well-formed). */
function svgTexts(svg: string): string[] {
  return saxes(svg).texts;
}

describe('survivalExportSvg(data, context)', () => {
  const svg = survivalExportSvg(d, ctx)!;
  const texts = svgTexts(svg);

  it('carries the title, a subtitle with the half-life and date, and the source line as SVG text', () => {
    expect(texts[0]).toBe(CHART_TITLE);
    expect(texts[1]).toBe(`Kaplan–Meier estimate over 12 contracts; half-life ${d.halfLife!.median} days; data as of 2026-01-01`);
    expect(texts).toContain('Source: mcp-schema, edition 2026-01 — https://mcp-schema.example.org/editions/2026-01/');
    expect(texts).toContain('Data as of 2026-01-01 · Licence CC BY 4.0 · Methodology v1');
  });

  it('has a legend entry for every mark the chart draws', () => {
    for (const label of ['Kaplan–Meier estimate', 'pointwise 95% band', 'after the last observed change', 'contracts changed', 'censored (still unchanged)', 'S = 0.5 (half-life where crossed)']) expect(texts).toContain(label);
  });

  it('is one standalone SVG: xmlns once, title and desc on the outer element, the plot nested', () => {
    expect(svg.match(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g)).toHaveLength(1);
    expect(svg).toMatch(/^<svg [^>]*role="img"[^>]*><title>[^<]+<\/title><desc>[^<]+<\/desc>/);
    expect(svg.match(/<title>/g)).toHaveLength(1);
    expect(texts.some((t) => /simulated/i.test(t))).toBe(false);
  });

  it('stamps SIMULATED DATA on a simulated build: a banner, a watermark, the source line and the title', () => {
    const s = survivalExportSvg(d, sim)!;
    const t = svgTexts(s);
    expect(t[0]).toBe('SIMULATED DATA — a local test world, not the official MCP registry');
    expect(t).toContain('SIMULATED DATA');
    expect(t.at(-1)).toMatch(/SIMULATED DATA$/);
    expect(s).toMatch(/<title>SIMULATED DATA\. /);
  });
});

describe('the PNG and its text chunks', () => {
  it('is twice the SVG size and carries title, source, copyright, date (and the simulated note)', async () => {
    const f = await survivalFiles(d, sim);
    const svgSize = /width="(\d+)" height="(\d+)"/.exec(f.svg)!;
    expect(pngSize(f.png)).toEqual({ width: Number(svgSize[1]) * 2, height: Number(svgSize[2]) * 2 });
    const text = readPngText(f.png);
    expect(text.get('Title')).toBe(`SIMULATED DATA. ${CHART_TITLE}`);
    expect(text.get('Source')).toBe(ctx.url);
    expect(text.get('Copyright')).toMatch(/CC BY 4\.0/);
    expect(text.get('Creation Time')).toBe('2026-01-01');
    expect(text.get('Comment')).toMatch(/^SIMULATED DATA/);
    expect(text.get('Description')).toMatch(/Kaplan–Meier/); // not Latin-1: written as iTXt
  });

  it('withPngText(png, entries) inserts chunks a PNG decoder still accepts', async () => {
    const { default: sharp } = await import('sharp');
    const png = await sharp({ create: { width: 3, height: 2, channels: 3, background: '#fff' } }).png().toBuffer();
    const tagged = withPngText(png, [['Title', 'ä'], ['Source', '→ unicode']]);
    expect((await sharp(tagged).metadata()).width).toBe(3);
    expect([...readPngText(tagged)]).toEqual([['Title', 'ä'], ['Source', '→ unicode']]);
    expect(() => withPngText(Buffer.from('nope'), [])).toThrow(/not a PNG/);
  });
});

describe('survivalCitation(context) and the zip', () => {
  it('cites the edition and its permanent URL', () => {
    const c = survivalCitation(ctx);
    expect(c.plain).toBe('mcp-schema (2026). Schema survival of MCP tool contracts (Kaplan–Meier), edition 2026-01, data as of 2026-01-01. Methodology v1. https://mcp-schema.example.org/editions/2026-01/ (licence CC BY 4.0).');
    expect(c.bibtex).toContain('howpublished = {\\url{https://mcp-schema.example.org/editions/2026-01/}}');
    expect(survivalCitation(sim).plain).toMatch(/^SIMULATED DATA/);
  });

  it('zips SVG, PNG, CSV, metadata and README with the same bytes for the same chart', async () => {
    const f = await survivalFiles(d, ctx);
    const zip = survivalZip(f);
    expect(survivalZip(await survivalFiles(d, ctx)).equals(zip)).toBe(true);
    const files = unzipSync(new Uint8Array(zip));
    expect(Object.keys(files)).toEqual(['schema-survival.svg', 'schema-survival.png', 'schema-survival.csv', 'metadata.json', 'README.md']);
    const meta = JSON.parse(Buffer.from(files['metadata.json']!).toString()) as Record<string, unknown>;
    expect(Object.keys(meta)).toEqual(expect.arrayContaining(['title', 'description', 'units', 'source', 'licence', 'methodology_version', 'data_as_of', 'citation']));
    expect(Buffer.from(files['schema-survival.csv']!).toString().split('\n')[0]).toBe('time_days,at_risk,events,censored,survival,std_err,lower_95,upper_95');
  });
});
