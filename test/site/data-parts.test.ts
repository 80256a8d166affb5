// The /data/ page of a build with a release folder (the deploy's): the release folder is not
// uploaded any more, so the page links nothing in it — the whole archive is the monthly parts, listed by
// /data/parts/manifest.json, which deploy.yml writes into the site after the build (npm run months --
// manifest). Without a release folder every file is on the site and the page names no parts.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PARTS_MANIFEST_PATH, PARTS_SUMS_PATH } from '../../src/outputs/month-parts.ts';
import { writePartsManifest } from '../../scripts/month-parts.ts';
import { builtSite, TMP, type BuiltSite } from './shared.ts';

const RELEASE_URL = 'https://github.com/OWNER/mcp-schema/releases/download/data';
const hrefs = (html: string) => [...html.matchAll(/<a\b[^>]*?\shref="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

describe('/data/ with a release folder (the deploy\'s build)', () => {
  let site: BuiltSite;
  let html: string;
  beforeAll(async () => {
    site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1', MCP_SCHEMA_RELEASE_DIR: path.join(TMP, 'release-of-data-parts-test'), MCP_SCHEMA_RELEASE_URL: RELEASE_URL });
    html = readFileSync(path.join(site.out, 'data', 'index.html'), 'utf8');
  }, 600_000);

  it('links nothing in the release folder, which is no longer published', () => {
    expect(hrefs(html).filter((h) => h.startsWith(RELEASE_URL))).toEqual([]);
    expect(html).not.toContain(`${RELEASE_URL}/`);
    // The release folder did get the big files (so the site stays under its host's limit) …
    expect(existsSync(path.join(TMP, 'release-of-data-parts-test', 'observations-SIMULATED.jsonl.gz'))).toBe(true);
    // … and the page lists none of them as a download.
    expect(hrefs(html).filter((h) => /observations(-SIMULATED)?\.(jsonl|csv)\.gz$/.test(h))).toEqual([]);
  });

  it('links the manifest of monthly parts and its checksums, and every other /data/ link is a file of the site', () => {
    const links = hrefs(html);
    expect(links).toContain(PARTS_MANIFEST_PATH);
    expect(links).toContain(PARTS_SUMS_PATH);
    expect(html).toContain('data-testid="data-parts"');
    const local = [...new Set(links.filter((h) => h.startsWith('/data/') && !h.startsWith('/data/parts/')))];
    expect(local.length).toBeGreaterThan(5);
    for (const h of local) expect(existsSync(path.join(site.out, h.split('#')[0]!)), h).toBe(true);
  });

  it('the links resolve once the deploy writes the manifest (here: no month closed yet)', () => {
    writePartsManifest([], path.join(site.out, 'data', 'parts'), { releaseUrl: 'https://github.com/OWNER/mcp-schema/releases/download/{tag}/{name}', siteUrl: 'https://mcp-schema.example.org/data/', notInParts: ['2025-12'], simulated: false });
    for (const p of [PARTS_MANIFEST_PATH, PARTS_SUMS_PATH]) expect(existsSync(path.join(site.out, p)), p).toBe(true);
    expect(JSON.parse(readFileSync(path.join(site.out, PARTS_MANIFEST_PATH), 'utf8'))).toMatchObject({ parts: [], not_in_parts: { months: ['2025-12'] } });
  });
});

describe('/data/ without a release folder', () => {
  it('has every file on the site and names no parts', async () => {
    const site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
    const html = readFileSync(path.join(site.out, 'data', 'index.html'), 'utf8');
    expect(hrefs(html)).not.toContain(PARTS_MANIFEST_PATH);
    expect(hrefs(html)).toContain('/data/observations-SIMULATED.jsonl.gz');
  }, 600_000);
});
