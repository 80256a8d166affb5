// The site built with a file host (MCP_SCHEMA_FILES_URL, DESIGN "The file host") in Debian's Chromium:
// its pages load what moved (a badge: the CSP allows the file host), and a saved link to a moved file
// (a descriptor at its old site path) lands on the 404 page, which sends the browser on to the same
// path on the file host — the rule of src/lib/file-host.ts, bundled into the page. The file host is
// played by the build's files folder, answered through the browser's request routing.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { builtSite, type BuiltSite } from '../site/shared.ts';
import { browserSuite, launchChromium } from './chromium.ts';
import { serveStatic, type StaticSite } from './serve.ts';

const FILES_URL = 'http://files.invalid/mcp-schema/';

browserSuite('the site with a file host, in Chromium', () => {
  let browser: Browser;
  let site: StaticSite;
  let built: BuiltSite;
  const asked: string[] = [];

  beforeAll(async () => {
    // The same build as test/site/links.test.ts's file host build (same key: built once).
    built = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1', MCP_SCHEMA_FILES_URL: FILES_URL });
    site = await serveStatic(built.out, { notFound: '404.html' });
    browser = await launchChromium();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  async function page() {
    const p = await browser.newPage();
    await p.route(`${FILES_URL}**`, async (route) => {
      const url = new URL(route.request().url());
      asked.push(url.pathname);
      const rel = decodeURIComponent(url.pathname.slice(new URL(FILES_URL).pathname.length));
      const body = await readFile(path.join(built.files!, rel)).catch(() => null);
      await route.fulfill(body ? { status: 200, body, contentType: rel.endsWith('.svg') ? 'image/svg+xml' : rel.endsWith('.json') ? 'application/json' : 'application/octet-stream' } : { status: 404, body: 'not found' });
    });
    const errors: string[] = [];
    p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    return { p, errors };
  }

  it("a server page's badge loads from the file host, within the page's CSP", async () => {
    const index = JSON.parse(await readFile(path.join(built.out, 'api', 'index.json'), 'utf8')) as { urls: { badge: string } };
    expect(index.urls.badge.startsWith(FILES_URL)).toBe(true);
    // A server with a contract (only those show the badge snippet).
    const { readdirSync, readFileSync } = await import('node:fs');
    const slug = readdirSync(path.join(built.out, 'servers')).filter((d) => /[_~]/.test(d)).find((d) => readFileSync(path.join(built.out, 'servers', d, 'index.html'), { encoding: 'utf8', flag: 'r' }).includes('class="server-badge"') )!;
    expect(slug).toBeTruthy();
    const { p, errors } = await page();
    await p.goto(`${site.origin}/servers/${slug}/`, { waitUntil: 'load' });
    const img = p.locator('img.server-badge');
    await expect(img.evaluate((el: HTMLImageElement) => el.naturalWidth)).resolves.toBeGreaterThan(0);
    expect(asked).toContain(`/mcp-schema/servers/${slug}/badge.svg`);
    expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    await p.close();
  });

  it('sends a saved link to a moved file on from the 404 page to the file host; a missing page stays a 404', async () => {
    const descriptors = (await import('node:fs')).readdirSync(path.join(built.files!, 'api', 'servers'));
    const { p } = await page();
    await p.goto(`${site.origin}/api/servers/${descriptors[0]}`);
    await p.waitForURL(`${FILES_URL}api/servers/${descriptors[0]}`);
    await expect(p.textContent('body')).resolves.toContain('"org.mcp-schema/descriptor"');
    // The near miss: a page path is not the file host's, so the 404 page stays and says where files are.
    await p.goto(`${site.origin}/servers/no-such-server/`);
    await expect(p.getByTestId('file-host-elsewhere').textContent()).resolves.toContain(FILES_URL);
    expect(p.url()).toBe(`${site.origin}/servers/no-such-server/`);
    await p.close();
  });
});
