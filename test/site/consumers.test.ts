// The built site as tools no one here wrote read it: every page through html-validate's
// recommended preset, a page-weight budget for the busiest server page (its older changes on pages of
// their own), the server list in pages by name, and the /data/ page's verification recipe (the key it
// names is served; no claim that a demo key is in the repository). One fixture build, shared with the
// other site tests (test/site/shared.ts).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { HtmlValidate, type ConfigData } from 'html-validate';
import { beforeAll, describe, expect, it } from 'vitest';
import { changePagePath, FULL_CHANGES, INLINE_CHANGES } from '../../src/outputs/linked-objects.ts';
import { serverListPages, SERVERS_PER_PAGE } from '../../src/site/server-list.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { builtSite, fixtureArchive, fixtureKeyFile, type BuiltSite } from './shared.ts';

let site: BuiltSite;
let archive: string;
const read = (p: string) => readFileSync(path.join(site.out, p), 'utf8');
// Every HTML file (a server named `index.html` has a folder of that name: files only).
const pages = (): string[] => (readdirSync(site.out, { recursive: true }) as string[]).filter((f) => f.endsWith('.html') && !f.startsWith('pagefind') && statSync(path.join(site.out, f)).isFile());

beforeAll(async () => {
  archive = await fixtureArchive();
  site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
}, 900_000);

/**
 * html-validate's recommended preset, with three rules changed, each for a reason a reader never meets:
 *   - no-inline-style: off. The charts (Observable Plot's SVG) and the status strip draw data-driven
 *     widths, positions and colours as style attributes; the CSP allows them, and a stylesheet class
 *     per value would say nothing more.
 *   - no-trailing-whitespace: off. Whitespace at line ends is Astro's markup formatting, or text inside
 *     <pre> (recipes, diffs): invisible to a reader, and in <pre> it is content.
 *   - valid-id: relaxed. HTML5 allows an id that begins with a digit: /lookup/ anchors each set hash
 *     by itself (hex), the form every link to it uses.
 * Everything else stays on: landmarks with unique names, labels, ARIA use, form submit buttons (WCAG
 * H32), the doctype's case, native elements over roles.
 */
const CONFIG: ConfigData = {
  extends: ['html-validate:recommended'],
  rules: { 'no-inline-style': 'off', 'no-trailing-whitespace': 'off', 'valid-id': ['error', { relaxed: true }] },
};

describe('every built page, by html-validate (recommended preset)', () => {
  it('has no error', async () => {
    const validator = new HtmlValidate(CONFIG);
    const files = pages();
    expect(files.length).toBeGreaterThan(100);
    // The edition pages are written once by the cut (src/editions/edition-files.ts), not by Astro: in the list too.
    expect(files.some((f) => f.startsWith(`editions${path.sep}2025-12${path.sep}`))).toBe(true);
    const problems: string[] = [];
    for (const f of files) {
      const report = await validator.validateString(read(f), f);
      for (const r of report.results) for (const m of r.messages) problems.push(`${f}:${m.line}:${m.column} ${m.ruleId}: ${m.message}`);
    }
    expect(problems.slice(0, 40), `${problems.length} problems`).toEqual([]);
  }, 300_000);
});

describe('the busiest server page', () => {
  const busiest = async () => {
    const { loadArchive } = await import('../../src/loader/load-archive.ts');
    const a = await loadArchive(archive);
    return [...a.servers].sort((x, y) => y.changes.length - x.changes.length)[0]!;
  };

  it('stays under 200 KB of HTML: the newest INLINE_CHANGES changes drawn, each with its whole diff on a page of its own, the next ones a line each', async () => {
    const s = await busiest();
    expect(s.changes.length).toBeGreaterThan(INLINE_CHANGES);
    const html = read(`servers/${s.slug}/index.html`);
    expect(Buffer.byteLength(html)).toBeLessThan(200_000);
    expect(html.match(/<article class="change"/g)).toHaveLength(INLINE_CHANGES);
    // Every change stays reachable: its anchor on the server page, and for the newest FULL_CHANGES a page with the diff.
    for (const c of s.changes) expect(html).toContain(`id="change-${c.id}"`);
    // No change past them has a page (change pages were the site's next hundreds of MB).
    for (const c of s.changes.slice(FULL_CHANGES)) expect(existsSync(path.join(site.out, `${changePagePath(c).slice(1)}index.html`))).toBe(false);
    for (const c of s.changes.slice(0, FULL_CHANGES)) {
      expect(html).toContain(`href="${changePagePath(c)}"`);
      const page = read(`${changePagePath(c).slice(1)}index.html`);
      expect(page).toContain(`<article class="change" id="change-${c.id}"`);
      expect(Buffer.byteLength(page)).toBeLessThan(250_000);
      // Readable without script: the diff is HTML on the page (a table per tool), not fetched.
      if (c.diff && c.diff.changed.length > 0) expect(page).toContain('<table class="diff">');
    }
  });

  it('no server page outgrows the budget', () => {
    const dir = path.join(site.out, 'servers');
    const sizes = readdirSync(dir).filter((d) => statSync(path.join(dir, d)).isDirectory()).map((d) => [d, statSync(path.join(dir, d, 'index.html')).size] as const);
    expect(sizes.filter(([, n]) => n >= 200_000)).toEqual([]);
  });
});

describe('the server list, in pages by name', () => {
  it('cuts any number of servers into pages of at most SERVERS_PER_PAGE, every name once, in name order', () => {
    const names = Array.from({ length: 1234 }, (_, i) => ({ name: `io.example/${(i * 7919) % 1234}`.padEnd(20, 'x') }));
    const list = serverListPages(names, 100);
    expect(list).toHaveLength(13);
    expect(list.map((p) => p.path).slice(0, 3)).toEqual(['/servers/', '/servers/page-2/', '/servers/page-3/']);
    expect(list.every((p) => p.servers.length <= 100)).toBe(true);
    const flat = list.flatMap((p) => p.servers.map((s) => s.name));
    expect(flat).toHaveLength(1234);
    expect(new Set(flat).size).toBe(1234);
    expect(flat).toEqual([...flat].sort((x, y) => (x.toLowerCase() < y.toLowerCase() ? -1 : 1)));
    expect(list[1]!.first).toBe(list[1]!.servers[0]!.name);
    expect(serverListPages([], 100)).toEqual([{ n: 1, path: '/servers/', first: '', last: '', servers: [] }]);
    // A page slug is never a server's: slugs hold `_` or `~`.
    expect(slugFor('page-2')).not.toBe('page-2');
    expect(SERVERS_PER_PAGE * 360).toBeLessThan(300_000);
  });

  it('/servers/ lists every server of the fixture, and its filter form has a submit button that searches every server', async () => {
    const html = read('servers/index.html');
    const rows = html.match(/<tr data-name=/g) ?? [];
    const { loadArchive } = await import('../../src/loader/load-archive.ts');
    const a = await loadArchive(archive);
    expect(rows).toHaveLength(Math.min(a.servers.length, SERVERS_PER_PAGE));
    const form = /<form class="filter" id="server-filter"[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
    expect(form).toContain('action="/search/"');
    expect(form).toMatch(/<button type="submit">Search all [\d,]+ servers<\/button>/);
    // /search/ runs the search the button asks for (its script is bundled under /_astro/).
    const scripts = (readdirSync(path.join(site.out, '_astro')) as string[]).filter((f) => f.endsWith('.js')).map((f) => read(`_astro/${f}`));
    expect(scripts.some((js) => js.includes('location.search') && js.includes('requestSubmit'))).toBe(true);
  });
});

describe('/data/, verify it yourself', () => {
  it('serves the public key its openssl recipes name, and says a demo key is not in the repository', () => {
    const html = read('data/index.html');
    const key = readFileSync(fixtureKeyFile(archive), 'utf8');
    // SIMULATED in its name, as every file of a simulated build.
    expect(read('data/DEMO-ed25519-SIMULATED.pub')).toBe(key);
    expect(html.match(/-inkey DEMO-ed25519-SIMULATED\.pub /g)).toHaveLength(2);
    expect(html).toContain('curl -fLO https://mcp-schema.example.org/data/DEMO-ed25519-SIMULATED.pub');
    const where = /<p data-testid="public-key-where">[\s\S]*?<\/p>/.exec(html)?.[0] ?? '';
    expect(where).not.toContain('also in the repository');
    expect(where).toContain('never kept in the repository');
  });

  it('names the chain file a simulated build publishes, and how a run\'s object set is encoded', () => {
    const html = read('data/index.html');
    expect(html).toContain('href="/data/chain-SIMULATED.jsonl"');
    expect(html).not.toMatch(/href="\/data\/chain\.jsonl"/);
    const enc = /<p data-testid="chain-encoding">[\s\S]*?<\/p>/.exec(html)?.[0] ?? '';
    expect(enc).toContain('sorted, each followed by one LF');
    expect(enc).toContain('lower-case hex');
  });

  it('every page\'s footer names the method the headline rests on (v1 here: no bridge in the fixture)', () => {
    for (const f of ['index.html', 'data/index.html', 'servers/index.html']) expect(read(f)).toContain('data-testid="footer-methodology">Methodology v1</a>');
  });
});
