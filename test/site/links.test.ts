// A link check of the whole built site (issue 16: two relative links on /methodology/v1/ led to 404s):
// every href and src in every built HTML file, and every link in every feed, resolves to a file the
// build wrote — accounting for the base path, trailing slashes (a directory serves its index.html) and
// permalinks (the site URL + base) — and a #fragment on a page of ours names an id on that page.
// Run on the fixture site, and on an empty site built under a base path, where a link that forgot the
// base (href('/…')) would point outside the site.
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SITE_URL } from '../../src/site/settings.ts';
import { builtSite, type BuiltSite } from './shared.ts';

const ATTR = /<(?:a|link|img|script|source|iframe)\b[^>]*?\s(?:href|src)="([^"]*)"/g;
const ID = /\sid="([^"]*)"/g;

function decode(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" })[e]!);
}

interface Link {
  from: string;
  url: string;
}

/** Every link of the site: attributes of HTML pages (relative ones resolved against their page) and links in feeds. */
async function siteLinks(out: string, base: string): Promise<{ links: Link[]; ids: Map<string, Set<string>> }> {
  const links: Link[] = [];
  const ids = new Map<string, Set<string>>();
  for (const e of await readdir(out, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    const rel = path.relative(out, file).split(path.sep).join('/');
    if (e.name.endsWith('.html')) {
      const html = await readFile(file, 'utf8');
      const page = base + rel.replace(/index\.html$/, '');
      ids.set(page, new Set([...html.matchAll(ID)].map((m) => decode(m[1]!))));
      for (const m of html.matchAll(ATTR)) links.push({ from: rel, url: new URL(decode(m[1]!), `http://site.invalid${page}`).href });
    } else if (/(^|\/)(drift|feed)(\/[a-z]+)?\.(xml|json)$/.test(rel) || /^drift\/[a-z]+\.(xml|json)$/.test(rel)) {
      const text = await readFile(file, 'utf8');
      const found = rel.endsWith('.xml')
        ? [...text.matchAll(/<link>([^<]*)<\/link>|<atom:link href="([^"]*)"/g)].map((m) => decode(m[1] ?? m[2]!))
        : (() => {
            const f = JSON.parse(text) as { home_page_url: string; feed_url: string; items: { url: string }[] };
            return [f.home_page_url, f.feed_url, ...f.items.map((i) => i.url)];
          })();
      for (const url of found) links.push({ from: rel, url });
    }
  }
  return { links, ids };
}

/** Where a link leads on this site: a file under `out` (null when it is not ours: another host, mailto:). */
function target(url: string, out: string, base: string): { file: string | null; page: string; hash: string } | null {
  const u = new URL(url.replace(DEFAULT_SITE_URL, 'http://site.invalid'));
  if (u.host !== 'site.invalid') return null;
  const p = decodeURIComponent(u.pathname);
  if (!p.startsWith(base)) return { file: null, page: p, hash: '' };
  let file = path.join(out, p.slice(base.length));
  if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'index.html');
  return { file: existsSync(file) ? file : null, page: p, hash: decodeURIComponent(u.hash.slice(1)) };
}

async function check(site: BuiltSite, base: string): Promise<{ checked: number; broken: string[] }> {
  const { links, ids } = await siteLinks(site.out, base);
  const broken: string[] = [];
  let checked = 0;
  for (const l of links) {
    const t = target(l.url, site.out, base);
    if (t === null) continue;
    checked++;
    if (t.file === null) broken.push(`${l.from} → ${l.url}`);
    else if (t.hash && t.file.endsWith('.html') && !ids.get(t.page)?.has(t.hash)) broken.push(`${l.from} → ${l.url} (no id "${t.hash}")`);
  }
  return { checked, broken: [...new Set(broken)] };
}

describe('the links of the built fixture site', () => {
  let site: BuiltSite;
  beforeAll(async () => {
    site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
  }, 600_000);

  it('every href and src of every page, and every feed link, leads to a file of the site (and an id that exists)', async () => {
    const { checked, broken } = await check(site, '/');
    expect(checked).toBeGreaterThan(1000);
    expect(broken).toEqual([]);
  });

  it('follows the methodology\'s relative links from its permanent address too', async () => {
    const html = await readFile(path.join(site.out, 'methodology/v1/index.html'), 'utf8');
    expect(html).toContain('href="/methodology/rules/"');
    expect(html).toContain('href="/methodology/vectors.json"');
  });
});

describe('the links of an empty site built under a base path', () => {
  it('lead inside the base path', async () => {
    const site = await builtSite('empty', { MCP_SCHEMA_BASE: '/mcp-schema/' });
    const { checked, broken } = await check(site, '/mcp-schema/');
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  }, 600_000);
});
