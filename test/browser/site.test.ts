// The built fixture site in Debian's Chromium (playwright-core, no browser download).
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { slugFor } from '../../src/lib/slug.ts';
import { builtSite, ROOT, TMP } from '../site/shared.ts';
import { CONTROL_NAME, HOSTILE_NAME, LONG_NAME, RETIRED_NAME, REVERT_NAME, SITE_FILE_NAMES } from '../helpers/archive.ts';
import { measureLegibility, type Legibility } from './legibility.ts';
import { browserSuite, launchChromium } from './chromium.ts';
import { serveStatic, type StaticSite } from './serve.ts';

const SHOTS = path.join(TMP, 'screenshots');

browserSuite('the fixture site in Chromium', () => {
  let browser: Browser;
  let site: StaticSite;
  /** Script errors and console errors of every page a test opened: checked after each test. */
  let errors: string[] = [];

  beforeAll(async () => {
    const built = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
    site = await serveStatic(built.out);
    browser = await launchChromium();
    await mkdir(SHOTS, { recursive: true });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  afterEach(() => {
    const seen = errors;
    errors = [];
    expect(seen, 'script or console errors on the pages this test opened').toEqual([]);
  });

  async function open(pathname: string, width = 1200): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(site.origin + pathname, { waitUntil: 'load' });
    return page;
  }

  it('dashboard shows the half-life tile and a survival chart whose tail is dashed', async () => {
    const page = await open('/');
    await expect(page.locator('#half-life').textContent()).resolves.toMatch(/Schema half-life/);
    await expect(page.getByTestId('half-life-value').textContent()).resolves.toMatch(/^(—|(more than )?\d+(\.\d)? days?)$/);
    await expect(page.getByTestId('server-half-life-value').textContent()).resolves.toMatch(/^(—|(more than )?\d+(\.\d)? days?)$/);
    const tail = page.locator('[data-testid=survival-chart] svg g.km-tail path');
    await expect(tail.count()).resolves.toBe(1);
    await expect(tail.evaluate((el) => getComputedStyle(el).strokeDasharray)).resolves.not.toBe('none');
    const solid = page.locator('[data-testid=survival-chart] svg g.km-solid path');
    await expect(solid.evaluate((el) => getComputedStyle(el).strokeDasharray)).resolves.toBe('none');
    await expect(page.locator('[data-testid=survival-chart] svg > title').count()).resolves.toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard.png'), fullPage: true });
    await page.close();
  });

  it('a server page shows each changed tool as a unified diff: colour and +/− per line, hunk paths, findings under their lines', async () => {
    const page = await open(`/servers/${slugFor('io.github.github/github-mcp-server')}/`);
    const changes = page.getByTestId('change');
    expect(await changes.count()).toBeGreaterThan(0);
    const text = await page.locator('main').textContent();
    expect(text).toMatch(/Added \(\d+\)|Changed \(\d+\)|Removed \(\d+\)/);
    const look = await page.evaluate(() => {
      const row = (kind: string) => document.querySelector<HTMLTableRowElement>(`table.diff tr.${kind}`);
      const sign = (kind: string) => row(kind)?.querySelector('td.sign [aria-hidden]')?.textContent ?? null;
      const bg = (kind: string) => (row(kind) ? getComputedStyle(row(kind)!).backgroundColor : null);
      const finding = document.querySelector('table.diff tr.finding-row');
      return {
        add: sign('add'), del: sign('del'), addBg: bg('add'), delBg: bg('del'), ctxBg: bg('ctx'),
        spoken: row('add')?.querySelector('td.sign .visually-hidden')?.textContent ?? null,
        hunk: document.querySelector('table.diff tr.hunk')?.textContent ?? '',
        findingAfter: finding?.previousElementSibling?.className ?? null,
        folds: document.querySelectorAll('table.diff tr.fold').length,
      };
    });
    expect(look.add).toBe('+');
    expect(look.spoken).toBe('added');
    expect(look.addBg).not.toBe(look.ctxBg);
    expect(look.hunk).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@ at \//);
    expect(['add', 'del', 'ctx', 'finding-row']).toContain(look.findingAfter);
    expect(look.folds).toBeGreaterThan(0);
    const patch = await page.getByTestId('patch-link').first().getAttribute('href');
    const res = await page.request.get(site.origin + patch!);
    expect(res.headers()['content-type']).toBe('application/json');
    expect(Array.isArray(await res.json())).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'server-github.png'), fullPage: false });
    await page.close();
  });

  it('a revert shows removed lines in their own colour with a − sign', async () => {
    const page = await open(`/servers/${slugFor(REVERT_NAME)}/`);
    const look = await page.evaluate(() => {
      const del = document.querySelector<HTMLTableRowElement>('table.diff tr.del');
      const add = document.querySelector<HTMLTableRowElement>('table.diff tr.add');
      return { sign: del?.querySelector('td.sign [aria-hidden]')?.textContent, delBg: del && getComputedStyle(del).backgroundColor, addBg: add && getComputedStyle(add).backgroundColor };
    });
    expect(look.sign).toBe('−');
    expect(look.delBg).not.toBe(look.addBg);
    await page.close();
  });

  it('a tool description containing <script> shows as text and runs nothing', async () => {
    const page = await open(`/servers/${slugFor(HOSTILE_NAME)}/`);
    await expect(page.locator('h1').textContent()).resolves.toBe(HOSTILE_NAME);
    await page.locator('details').first().evaluate((d) => ((d as HTMLDetailsElement).open = true));
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toContain('<script>window.__pwned = 1</script>');
    expect(main).toContain('</pre><script>window.__pwned = 3</script>');
    await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    await expect(page.locator('main script').count()).resolves.toBe(0);
    // The only image is our README badge; nothing the registry wrote became an <img>.
    await expect(page.locator('main img:not(.server-badge)').count()).resolves.toBe(0);
    await expect(page.locator('a[href^="javascript:"]').count()).resolves.toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'server-hostile.png'), fullPage: true });
    await page.close();
  });

  it('servers named like the site\'s own files get their own pages; the server list stays the list', async () => {
    const list = await open('/servers/');
    const rows = await list.locator('main table tbody tr').count();
    expect(rows).toBeGreaterThan(SITE_FILE_NAMES.length);
    for (const name of SITE_FILE_NAMES) await expect(list.locator('main a', { hasText: new RegExp(`^${name.replace(/\./g, '\\.')}$`) }).count(), name).resolves.toBe(1);
    await list.close();
    for (const name of ['index.html', 'feed.xml', 'data']) {
      const page = await open(`/servers/${slugFor(name)}/`);
      await expect(page.locator('h1').textContent()).resolves.toBe(name);
      const feed = await page.request.get(`${site.origin}/servers/${slugFor(name)}/feed.xml`);
      expect(feed.status()).toBe(200);
      await page.close();
    }
  });

  it('a server whose name and tool names hold control characters: its page opens and its feed parses as XML', async () => {
    const page = await open(`/servers/${slugFor(CONTROL_NAME)}/`);
    // HTML drops U+0000 from text; everything else of the name is shown as text.
    await expect(page.locator('h1').textContent()).resolves.toBe(CONTROL_NAME.replace('\u0000', ''));
    await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    // The name holds U+202E (right-to-left override): it is isolated in a <bdi>, whose direction the
    // browser resolves on its own, so the override cannot reach past the name into our text.
    await expect(page.locator('h1 > bdi').count()).resolves.toBe(1);
    await expect(page.locator('h1 > bdi').evaluate((e) => getComputedStyle(e).unicodeBidi)).resolves.toBe('isolate');
    const xml = await (await page.request.get(`${site.origin}/servers/${slugFor(CONTROL_NAME)}/feed.xml`)).text();
    const items = await page.evaluate((x) => {
      const doc = new DOMParser().parseFromString(x, 'application/xml');
      return doc.querySelector('parsererror') ? -1 : doc.querySelectorAll('rss > channel > item').length;
    }, xml);
    expect(items).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('cuts a very long description and links the raw artifact', async () => {
    const page = await open(`/servers/${slugFor(LONG_NAME)}/`);
    // Current tools: one line a tool, its description cut (CurrentTools.astro).
    const note = page.locator('[data-testid=current-tools] ul.tools .truncated').first();
    await expect(note.textContent()).resolves.toMatch(/shortened: [\d,]+ characters/);
    const raw = await note.locator('a').getAttribute('href');
    const res = await page.request.get(site.origin + raw!);
    expect(res.status()).toBe(200);
    expect((await res.body()).toString('utf8')).toContain('END');
    await page.close();
  });

  it('the feeds parse: RSS as XML, JSON Feed 1.1 as JSON, per server too', async () => {
    const page = await open('/');
    const rss = await page.request.get(`${site.origin}/drift.xml`);
    const items = await page.evaluate((xml) => {
      const doc = new DOMParser().parseFromString(xml, 'application/xml');
      return doc.querySelector('parsererror') ? -1 : doc.querySelectorAll('rss > channel > item').length;
    }, await rss.text());
    expect(items).toBeGreaterThan(0);
    const json = (await (await page.request.get(`${site.origin}/drift.json`)).json()) as { version: string; items: { id: string; url: string }[] };
    expect(json.version).toBe('https://jsonfeed.org/version/1.1');
    expect(json.items.length).toBe(items);
    const one = (await (await page.request.get(`${site.origin}/servers/${slugFor(HOSTILE_NAME)}/feed.json`)).json()) as { items: { title: string }[] };
    expect(one.items.length).toBe(1);
    expect(one.items[0]!.title).toContain('<script>alert(1)</script>');
    await page.close();
  });

  it('every file listed in SHA256SUMS downloads with that checksum', async () => {
    const page = await open('/data/');
    const sums = (await (await page.request.get(`${site.origin}/data/SHA256SUMS`)).text()).trim().split('\n');
    expect(sums.length).toBeGreaterThan(10);
    const links = await page.locator('main a[download]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const line of sums) {
      const [hash, name] = line.split('  ');
      expect(links).toContain(`/data/${name}`);
      const body = await (await page.request.get(`${site.origin}/data/${name}`)).body();
      expect(createHash('sha256').update(body).digest('hex'), name).toBe(hash);
    }
    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!) as { '@type': string; license: string };
    expect(ld['@type']).toBe('Dataset');
    expect(ld.license).toContain('creativecommons.org/licenses/by/4.0');
    await page.close();
  });

  // What a reader meets at a desktop width and on a phone. Text (charts included) is at
  // least 11 px on screen, no word is broken inside, and the page never scrolls sideways (wide
  // tables and diffs scroll inside their own boxes). A screenshot of each is kept to look at.
  const READER_PAGES = ['/', '/trends/', '/drift/', '/drift/revert/', '/servers/', `/servers/${slugFor('io.github.github/github-mcp-server')}/`, `/servers/${slugFor(REVERT_NAME)}/`, `/servers/${slugFor(RETIRED_NAME)}/`, `/servers/${slugFor(HOSTILE_NAME)}/`, '/data/', '/methodology/', '/methodology/rules/', '/methodology/quality/', '/charts/schema-survival/', '/lookup/', '/statistics/', '/methodology/changelog/'];
  it.each([1280, 390].flatMap((w) => READER_PAGES.map((p) => [w, p] as const)))('at %d px, %s is legible: text ≥ 11 px, charts unshrunk, words whole, no sideways scroll', async (width, pathname) => {
    const page = await open(pathname, width);
    const l: Legibility = await measureLegibility(page);
    expect(l.textNodes).toBeGreaterThan(10);
    expect(l.small, 'text under 11 px').toEqual([]);
    expect(l.smallChartText, 'chart text under 11 px on screen').toEqual([]);
    expect(l.brokenWords, 'words broken across lines').toEqual([]);
    expect(l.wrappedDates, 'dates broken across lines').toEqual([]);
    expect(l.overflow, 'page wider than the viewport').toBeLessThanOrEqual(0);
    if (pathname === '/' || pathname === '/trends/' || pathname === '/statistics/') expect(l.visibleCharts, 'one size of each chart shown').toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, `${width}-${pathname.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '') || 'home'}.png`), fullPage: false });
    await page.close();
  });

  it('at 390 px the dashboard shows the phone-sized survival chart, with its dashed tail', async () => {
    const page = await open('/', 390);
    await expect(page.getByTestId('survival-chart').isVisible()).resolves.toBe(false);
    const narrow = page.getByTestId('survival-chart-narrow');
    await expect(narrow.isVisible()).resolves.toBe(true);
    const tail = narrow.locator('svg g.km-tail path');
    await expect(tail.evaluate((el) => getComputedStyle(el).strokeDasharray)).resolves.not.toBe('none');
    const box = (await tail.boundingBox())!;
    expect(box.width).toBeGreaterThan(10);
    await page.close();
  });

  it('/statistics/ at 390 px: the phone-sized era chart is shown, the wide one hidden, and every figure table scrolls in its own box', async () => {
    const page = await open('/statistics/', 390);
    await expect(page.getByTestId('era-adoption-chart').isVisible()).resolves.toBe(false);
    await expect(page.getByTestId('era-adoption-chart-narrow').isVisible()).resolves.toBe(true);
    for (const q of ['RQ1', 'RQ2', 'RQ3', 'RQ4', 'RQ5', 'RQ6']) {
      const table = page.getByTestId(`figures-${q}`);
      await expect(table.isVisible(), q).resolves.toBe(true);
      // The first number (the count) is on screen beside its measure: the label column wraps.
      const count = (await table.locator('tbody tr').first().locator('td').first().boundingBox())!;
      expect(count.x + count.width, q).toBeLessThanOrEqual(390);
    }
    await page.screenshot({ path: path.join(SHOTS, 'statistics-390-full.png'), fullPage: true });
    await page.close();
  });

  it('the editions list links the frozen edition page, which shows its chart, tiles and citation with no script and no error', async () => {
    const list = await open('/editions/');
    const link = list.getByTestId('editions').locator('a', { hasText: /^2025-12$/ });
    await expect(link.getAttribute('href')).resolves.toBe('/editions/2025-12/');
    await list.close();
    const page = await open('/editions/2025-12/');
    await expect(page.locator('h1').textContent()).resolves.toBe('mcp-schema, edition 2025-12');
    await expect(page.locator('.sim').textContent()).resolves.toMatch(/^SIMULATED DATA/);
    await expect(page.locator('.chart > svg').count()).resolves.toBe(1);
    await expect(page.locator('.chart > svg text.title').textContent()).resolves.toMatch(/^Schema survival/);
    await expect(page.getByTestId('edition-tiles').locator('tr').count()).resolves.toBe(6);
    await expect(page.getByTestId('edition-citation').textContent()).resolves.toContain('edition 2025-12, data as of 2025-12-15');
    await expect(page.locator('script').count()).resolves.toBe(0);
    // Every relative link of the frozen page resolves on the site it was copied into.
    const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href).filter((h) => h.startsWith(location.origin)));
    expect(hrefs.length).toBeGreaterThan(10);
    for (const h of hrefs) expect((await page.request.get(h)).status(), h).toBe(200);
    await page.screenshot({ path: path.join(SHOTS, 'edition.png'), fullPage: true });
    await page.close();
  });

  it('the chart page cites the edition and offers the zip; the exported SVG carries its source line', async () => {
    const page = await open('/charts/schema-survival/');
    await expect(page.getByTestId('cite-edition').locator('a').first().getAttribute('href')).resolves.toBe('https://mcp-schema.example.org/editions/2025-12/');
    const zip = await page.getByTestId('chart-zip').getAttribute('href');
    expect(zip).toBe('/charts/schema-survival/schema-survival-SIMULATED.zip');
    expect((await page.request.get(site.origin + zip!)).status()).toBe(200);
    const svg = await (await page.request.get(`${site.origin}/charts/schema-survival/schema-survival.svg`)).text();
    const texts = await page.evaluate((x) => [...new DOMParser().parseFromString(x, 'image/svg+xml').querySelectorAll('text')].map((t) => t.textContent), svg);
    expect(texts).toContain('Source: mcp-schema — https://mcp-schema.example.org/charts/schema-survival/');
    expect(texts[0]).toMatch(/^SIMULATED DATA/);
    await page.close();
  });

  it.each(['/', '/servers/', '/trends/', `/servers/${slugFor(HOSTILE_NAME)}/`, `/servers/${slugFor('io.github.github/github-mcp-server')}/`, `/servers/${slugFor(REVERT_NAME)}/`, `/servers/${slugFor(RETIRED_NAME)}/`, '/drift/', '/drift/revert/', '/methodology/', '/methodology/v1/', '/methodology/rules/', '/methodology/quality/', '/data/', '/charts/schema-survival/', '/search/', '/lookup/', '/editions/', '/editions/2025-12/', '/statistics/', '/methodology/changelog/'])(
    'axe-core finds no serious or critical violation on %s',
    async (pathname) => {
      const page = await open(pathname);
      // The CSP forbids inline script (as it should), so axe comes in through evaluate, not a <script> tag.
      await page.evaluate(await readFile(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
      const result = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
        return axe.run(document, { resultTypes: ['violations'] });
      });
      const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
      expect(serious).toEqual([]);
      await page.close();
    },
  );
});

browserSuite('static search', () => {
  it('finds a server by a word from its tool description and shows the hit as text', async () => {
    const built = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
    const site = await serveStatic(built.out);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      await page.goto(`${site.origin}/search/`);
      await page.fill('#search-q', 'github');
      await page.click('button[type=submit]');
      await page.waitForFunction(() => /result/.test(document.getElementById('search-status')?.textContent ?? ''));
      expect(await page.locator('#search-results li').count()).toBeGreaterThan(0);
      await expect(page.locator('#search-results a').first().getAttribute('href')).resolves.toMatch(/^\/servers\//);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await site.close();
    }
  }, 600_000);
});

browserSuite('set hash lookup', () => {
  it('takes a pasted set hash to its file, and says so when the archive has not seen one', async () => {
    const built = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
    const site = await serveStatic(built.out);
    const browser = await launchChromium();
    try {
      const bulk = JSON.parse(await readFile(path.join(built.out, 'api', 'servers.json'), 'utf8')) as { servers: { _meta: Record<string, { set_sha256?: string | null }> }[] };
      const known = bulk.servers.map((d) => d._meta['org.mcp-schema/schema-history']!.set_sha256).find((h): h is string => typeof h === 'string')!;
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // An unknown hash is a 404 the browser logs as a console error: that one is the answer, not a fault.
      page.on('console', (m) => { if (m.type() === 'error' && !/status of 404/.test(m.text())) errors.push(m.text()); });
      await page.goto(`${site.origin}/lookup/`);
      await page.fill('#lookup-hash', 'not a hash');
      await page.click('#lookup-form button[type=submit]');
      await expect(page.locator('#lookup-status').textContent()).resolves.toContain('64 hexadecimal characters');
      await page.fill('#lookup-hash', '0'.repeat(64));
      await page.click('#lookup-form button[type=submit]');
      await page.waitForFunction(() => /has not seen/.test(document.getElementById('lookup-status')?.textContent ?? ''));
      await page.fill('#lookup-hash', `  ${known.toUpperCase()} `);
      await Promise.all([page.waitForURL(`**/api/sets/${known}.json`), page.click('#lookup-form button[type=submit]')]);
      expect((JSON.parse((await page.locator('body').textContent())!) as { set_sha256: string }).set_sha256).toBe(known);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await site.close();
    }
  }, 600_000);
});
