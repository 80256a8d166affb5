// Contract families on the built fixture site: the fixture lists twelve registry names on one endpoint
// (the names the site itself writes, test/helpers/archive.ts), which serve one contract and so are one
// family; /statistics/ lists it and counts the server figures both ways, each member's page names it,
// a server in no family has no line, the dashboard shows the family-once tile beside the per-name one,
// and the downloads carry families.csv and families.jsonl with the catalogue's fields (a simulated
// build, as the fixture's editions are: -SIMULATED in the names).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { slugFor } from '../../src/lib/slug.ts';
import { FAMILY_FIELDS } from '../../src/outputs/families-download.ts';
import { LIFECYCLE, SITE_FILE_NAMES } from '../helpers/archive.ts';
import { builtSite, type BuiltSite } from './shared.ts';

let site: BuiltSite;
let familyId = '';
const page = (p: string) => readFile(path.join(site.out, p), 'utf8');

beforeAll(async () => {
  site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
}, 900_000);

describe('contract families on the site', () => {
  it("each member's page names one family; a server in no family has no line", async () => {
    const ids = new Set<string>();
    for (const name of SITE_FILE_NAMES) {
      const html = await page(`servers/${slugFor(name)}/index.html`);
      const m = /data-testid="family-line" data-family="([0-9a-f]{16})"/.exec(html);
      expect(m, name).not.toBeNull();
      ids.add(m![1]!);
      expect(html).toMatch(/One of \d+ registry names serving one template/);
    }
    expect(ids.size).toBe(1);
    familyId = [...ids][0]!;
    expect(await page(`servers/${slugFor(LIFECYCLE.answers)}/index.html`)).not.toContain('family-line');
  });

  it('/statistics/ lists that family (the twelve names and the servers of the same one-tool contract on that host) and counts the server figures both ways', async () => {
    const html = await page('statistics/index.html');
    const rows = [...html.matchAll(/<tr id="family-([0-9a-f]{16})">(.*?)<\/tr>/gs)];
    const cells = (r: RegExpMatchArray) => [...r[2]!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim());
    const row = rows.find((r) => r[1] === familyId);
    expect(row, 'the members\' family on /statistics/').toBeDefined();
    expect(Number(cells(row!)[2])).toBeGreaterThanOrEqual(SITE_FILE_NAMES.length);
    const once = /<table class="families-once" data-testid="families-once">(.*?)<\/table>/s.exec(html)![1]!;
    const units = /Units followed[^<]*<\/th><td class="num">([\d,]+)<\/td><td class="num">([\d,]+)<\/td>/.exec(once)!;
    // Each family counts once: all its members but one drop out of the units.
    const ever = rows.map((r) => Number(cells(r)[2]));
    expect(Number(units[1]!.replace(/,/g, '')) - Number(units[2]!.replace(/,/g, ''))).toBe(ever.reduce((s, n) => s + n - 1, 0));
  });

  it('the dashboard shows the server half-life with each family counted once beside the per-name one', async () => {
    const html = await page('index.html');
    expect(html).toContain('id="server-half-life"');
    expect(html).toContain('id="server-half-life-once"');
  });

  it('the downloads carry families.csv and families.jsonl, a row per membership, the catalogue\'s fields', async () => {
    const csv = await page('data/families-SIMULATED.csv');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe(FAMILY_FIELDS.map((f) => f.name).join(','));
    const jsonl = (await page('data/families-SIMULATED.jsonl')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(jsonl.length).toBe(lines.length - 1);
    expect(Object.keys(jsonl[0]!)).toEqual(FAMILY_FIELDS.map((f) => f.name));
    expect(jsonl.filter((r) => SITE_FILE_NAMES.includes(r.target as string)).length).toBe(SITE_FILE_NAMES.length);
  });
});
