// A DOI for every edition (docs/OPERATIONS.md, "DOI"): with MCP_SCHEMA_CONCEPT_DOI set, every citation
// form names the dataset's concept DOI — the edition's CITATION.cff, citation.bib and citation.txt,
// its edition.json, the chart's source line, /data/CITATION.cff — and with it unset none says anything
// about a DOI. The edition is cut by cutEdition from a collector-made archive on loopback servers.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { survivalCitation, survivalExportSvg } from '../../src/outputs/survival-export.ts';
import { cutEdition } from '../../src/editions/cut-edition.ts';
import { Edition } from '../../src/lib/index.ts';
import { forgetArchive, loadArchive } from '../../src/loader/load-archive.ts';
import { citationCff } from '../../src/outputs/catalogue.ts';
import { conceptDoi } from '../../src/site/settings.ts';
import { collectArchive } from '../helpers/archive.ts';
import { TEST_PUBLICATION } from '../helpers/publication.ts';
import { SOURCE_REPOSITORY } from '../../src/outputs/publication.ts';

const DOI = '10.5281/zenodo.1234567';
let archive: string;
const now = new Date('2025-12-03T12:00:00Z');

beforeAll(async () => {
  archive = await collectArchive({ seed: 'doi', size: 6, days: 2 });
}, 120_000);
afterAll(() => {
  if (archive) rmSync(archive, { recursive: true, force: true });
});

const read = (id: string, name: string) => readFileSync(path.join(archive, 'editions', id, name), 'utf8');

describe('an edition with and without a concept DOI', () => {
  it('without one, no citation form mentions a DOI', async () => {
    expect(await cutEdition(archive, { month: '2025-12', pub: TEST_PUBLICATION, signer: null, cache: null, release: null, now })).toMatchObject({ status: 'cut', id: '2025-12' });
    for (const name of ['CITATION.cff', 'citation.bib', 'citation.txt', 'edition.json', 'README.md', 'index.html', 'schema-survival.svg']) expect(read('2025-12', name).toLowerCase()).not.toContain('doi');
    expect('concept_doi' in Edition.parse(JSON.parse(read('2025-12', 'edition.json')))).toBe(false);
  }, 120_000);

  it('with one, the CFF, BibTeX, plain text, edition.json and the chart source line carry it', async () => {
    const r = await cutEdition(archive, { month: '2025-12', revise: { note: 'cited with its DOI' }, pub: { ...TEST_PUBLICATION, conceptDoi: DOI }, signer: null, cache: null, release: null, now });
    expect(r).toMatchObject({ status: 'cut', id: '2025-12-r1' });
    const cff = read('2025-12-r1', 'CITATION.cff');
    expect(cff).toContain(`doi: "${DOI}"`);
    expect(cff).toMatch(/identifiers:\n {2}- type: doi\n {4}value: "10\.5281\/zenodo\.1234567"\n {4}description: "concept DOI: resolves to the latest version/);
    expect(read('2025-12-r1', 'citation.bib')).toContain(`  doi          = {${DOI}},`);
    expect(read('2025-12-r1', 'citation.txt')).toContain(`doi:${DOI} (concept DOI`);
    expect(Edition.parse(JSON.parse(read('2025-12-r1', 'edition.json'))).concept_doi).toBe(DOI);
    expect(read('2025-12-r1', 'schema-survival.svg')).toContain(`DOI ${DOI}`);
    // The original, cut before, is never rewritten: it still names none.
    expect(read('2025-12', 'CITATION.cff')).not.toContain('doi');
  }, 120_000);

  it('the live /data/CITATION.cff and the live chart name it only when set', async () => {
    forgetArchive(archive);
    const a = await loadArchive(archive);
    expect(citationCff(a, TEST_PUBLICATION)).not.toContain('doi');
    expect(citationCff(a, { ...TEST_PUBLICATION, conceptDoi: DOI })).toContain(`doi: "${DOI}"`);
    const ctx = { url: 'https://mcp-schema.example.org/charts/schema-survival/', edition: null, asOfDay: a.asOfDay, methodology: 'v1', simulated: false };
    expect(survivalCitation(ctx).bibtex).not.toContain('doi');
    expect(survivalCitation({ ...ctx, doi: DOI }).plain).toContain(`doi:${DOI}`);
    expect(survivalExportSvg({ km: a.km, halfLife: a.halfLife }, { ...ctx, doi: null })).not.toContain('DOI');
    expect(survivalExportSvg({ km: a.km, halfLife: a.halfLife }, { ...ctx, doi: DOI })).toContain(`DOI ${DOI}`);
  }, 60_000);
});

describe('MCP_SCHEMA_CONCEPT_DOI', () => {
  const before = process.env.MCP_SCHEMA_CONCEPT_DOI;
  afterEach(() => {
    if (before === undefined) delete process.env.MCP_SCHEMA_CONCEPT_DOI;
    else process.env.MCP_SCHEMA_CONCEPT_DOI = before;
  });

  it('is read as a DOI, unset or empty is none, and anything else is refused, never published', () => {
    delete process.env.MCP_SCHEMA_CONCEPT_DOI;
    expect(conceptDoi()).toBeNull();
    process.env.MCP_SCHEMA_CONCEPT_DOI = '';
    expect(conceptDoi()).toBeNull();
    process.env.MCP_SCHEMA_CONCEPT_DOI = ` ${DOI} `;
    expect(conceptDoi()).toBe(DOI);
    for (const bad of ['https://doi.org/10.5281/zenodo.1', 'zenodo.1234567', '10.5281/zenodo.1"\nlicense: x', '10.12/short']) {
      process.env.MCP_SCHEMA_CONCEPT_DOI = bad;
      expect(() => conceptDoi()).toThrow(/must be a DOI/);
    }
  });
});

describe('.zenodo.json', () => {
  const z = JSON.parse(readFileSync(new URL('../../.zenodo.json', import.meta.url), 'utf8')) as { upload_type: string; license: string; creators: { name: string }[]; keywords: string[]; related_identifiers: { identifier: string; relation: string }[] };

  it('describes a CC-BY-4.0 dataset with creators, keywords, and the site, the methodology and the chain at the site\'s own URLs', () => {
    expect([z.upload_type, z.license]).toEqual(['dataset', 'CC-BY-4.0']);
    expect(z.creators.length).toBeGreaterThan(0);
    expect(z.keywords).toContain('Model Context Protocol');
    const ids = z.related_identifiers.map((r) => r.identifier);
    expect(ids).toEqual(expect.arrayContaining([TEST_PUBLICATION.permalink('/'), TEST_PUBLICATION.permalink('/methodology/'), TEST_PUBLICATION.permalink('/data/chain.jsonl'), SOURCE_REPOSITORY]));
    for (const r of z.related_identifiers) expect(['isDocumentedBy', 'isSupplementedBy']).toContain(r.relation);
  });
});
