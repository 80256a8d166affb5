// /servers/ in pages by name (src/site/server-list.ts), built for real: the fixture with 20
// servers a page (MCP_SCHEMA_SERVERS_PER_PAGE), so its 60-odd servers take several pages. Every server
// is on exactly one page, each page names every page by its first and last server, and the pages
// pass html-validate like the rest of the site (test/site/consumers.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { HtmlValidate } from 'html-validate';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadArchive } from '../../src/loader/load-archive.ts';
import { builtSite, fixtureArchive, type BuiltSite } from './shared.ts';

const PER_PAGE = 20;
let site: BuiltSite;
let names: string[];
const read = (p: string) => readFileSync(path.join(site.out, p), 'utf8');

beforeAll(async () => {
  names = (await loadArchive(await fixtureArchive())).servers.map((s) => s.name);
  site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1', MCP_SCHEMA_SERVERS_PER_PAGE: String(PER_PAGE) });
}, 900_000);

describe('the server list, paged', () => {
  it('puts every server on exactly one page of at most MCP_SCHEMA_SERVERS_PER_PAGE, in name order, and links every page from every page', () => {
    const count = Math.ceil(names.length / PER_PAGE);
    expect(count).toBeGreaterThan(2);
    const files = Array.from({ length: count }, (_, i) => (i === 0 ? 'servers/index.html' : `servers/page-${i + 1}/index.html`));
    expect(existsSync(path.join(site.out, `servers/page-${count + 1}/index.html`))).toBe(false);
    const listed: string[] = [];
    for (const [i, f] of files.entries()) {
      const html = read(f);
      const rows = [...html.matchAll(/<tr data-name="([^"]*)"/g)].map((m) => m[1]!);
      expect(rows.length, f).toBeLessThanOrEqual(PER_PAGE);
      listed.push(...rows);
      const nav = /<nav class="server-pages"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';
      expect(nav.match(/<li>/g), f).toHaveLength(count);
      expect(nav, f).toContain(`Page ${i + 1} of ${count}`);
      expect(nav.match(/aria-current="page"/g), f).toHaveLength(1);
      for (const [j, other] of files.entries()) if (j !== i) expect(nav, f).toContain(`href="/${path.dirname(other)}/"`);
      expect(html, f).toMatch(/<button type="submit">Search all [\d,]+ servers<\/button>/);
    }
    // Every name once; the rows carry names lower-cased (the filter matches on them).
    expect(listed).toHaveLength(names.length);
    expect([...listed].sort()).toEqual(names.map((n) => n.toLowerCase()).sort());
    expect(listed).toEqual([...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('pages that pass html-validate (recommended)', async () => {
    const v = new HtmlValidate({ extends: ['html-validate:recommended'], rules: { 'no-inline-style': 'off', 'no-trailing-whitespace': 'off', 'valid-id': ['error', { relaxed: true }] } });
    for (const f of ['servers/index.html', 'servers/page-2/index.html']) {
      const report = await v.validateString(read(f), f);
      expect(report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`)), f).toEqual([]);
    }
  });
});
