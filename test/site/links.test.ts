// A link check of the whole built site (two relative links on /methodology/v1/ led to 404s):
// every href and src in every built HTML file, and every link in every feed, resolves to a file the
// build wrote — accounting for the base path, trailing slashes (a directory serves its index.html) and
// permalinks (the site URL + base) — and a #fragment on a page of ours names an id on that page.
// Run on the fixture site, and on an empty site built under a base path, where a link that forgot the
// base (href('/…')) would point outside the site.
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { copiedToFileHost, onFileHost } from '../../src/lib/index.ts';
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

/** The file host's public base in the file host build below, and the folder it was written to. */
const FILES_URL = 'http://files.invalid/mcp-schema/';

/** Where a link leads on this site: a file under `out`, or under the file host's folder (null when it is not ours: another host, mailto:). */
function target(url: string, out: string, base: string, files?: string): { file: string | null; page: string; hash: string } | null {
  if (files && url.startsWith(FILES_URL)) {
    const file = path.join(files, decodeURIComponent(new URL(url).pathname.slice(new URL(FILES_URL).pathname.length)));
    return { file: existsSync(file) && statSync(file).isFile() ? file : null, page: url, hash: '' };
  }
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
    const t = target(l.url, site.out, base, site.files);
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

describe('the fixture site with a file host (MCP_SCHEMA_FILES_URL)', () => {
  let site: BuiltSite;
  beforeAll(async () => {
    site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1', MCP_SCHEMA_FILES_URL: FILES_URL });
  }, 600_000);

  it('every link still leads to a file: a page of the site, or a file in the file host\'s folder', async () => {
    const { checked, broken } = await check(site, '/');
    expect(checked).toBeGreaterThan(1000);
    expect(broken).toEqual([]);
    const { links } = await siteLinks(site.out, '/');
    expect(links.filter((l) => l.url.startsWith(FILES_URL)).length).toBeGreaterThan(100);
  });

  it('moves exactly the file host\'s paths: none is left on the site, no page goes there', async () => {
    const rel = async (dir: string) => (await readdir(dir, { withFileTypes: true, recursive: true })).filter((e) => e.isFile()).map((e) => `/${path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/')}`);
    const [onSite, hosted] = [await rel(site.out), await rel(site.files!)];
    expect(onSite.filter((p) => onFileHost(p))).toEqual([]);
    expect(hosted.filter((p) => !onFileHost(p) && !copiedToFileHost(p))).toEqual([]);
    expect(hosted.filter((p) => p.endsWith('.html'))).toEqual([]);
    for (const kind of [/^\/api\/servers\/.+\.json$/, /^\/api\/tools\//, /^\/api\/sets\//, /^\/api\/tool-names\//, /^\/servers\/[^/]+\/badge\.svg$/, /^\/servers\/[^/]+\/feed\.json$/, /^\/objects\//, /^\/data\/observations-.+\.parquet$/]) {
      expect(hosted.some((p) => kind.test(p)), String(kind)).toBe(true);
    }
    expect(onSite).toContain('/api/index.json');
    expect(onSite.filter((p) => /^\/servers\/[^/]+\/index\.html$/.test(p)).length).toBeGreaterThan(10);
  });

  it("the file host's data/ checks alone against SHA256SUMS, and datapackage.json points its bundles there", async () => {
    const sums = (await readFile(path.join(site.files!, 'data', 'SHA256SUMS'), 'utf8')).trim().split('\n');
    expect(sums.length).toBeGreaterThan(10);
    for (const line of sums) {
      const [sha, name] = line.split(/  /);
      expect(createHash('sha256').update(await readFile(path.join(site.files!, 'data', name!))).digest('hex'), name).toBe(sha);
    }
    const pkg = JSON.parse(await readFile(path.join(site.out, 'data', 'datapackage.json'), 'utf8')) as { resources: { path: string }[] };
    const paths = pkg.resources.map((r) => r.path);
    expect(paths.filter((p) => p.endsWith('.parquet')).every((p) => p.startsWith(`${FILES_URL}data/`))).toBe(true);
    // A small file the site keeps (survival.csv) stays relative: it is beside datapackage.json on both hosts.
    expect(paths.some((p) => /^survival.*\.csv$/.test(p))).toBe(true);
  });

  it('says where its files are in /api/index.json and in every descriptor; pages allow the file host for badges and the lookup', async () => {
    const index = JSON.parse(await readFile(path.join(site.out, 'api', 'index.json'), 'utf8')) as { file_host: string; urls: Record<string, string> };
    expect(index.file_host).toBe(FILES_URL);
    expect(index.urls.descriptor).toBe(`${FILES_URL}api/servers/{slug}.json`);
    expect(index.urls.checksums).toBe(`${DEFAULT_SITE_URL}/data/SHA256SUMS`);
    const descriptors = await readdir(path.join(site.files!, 'api', 'servers'));
    const d = JSON.parse(await readFile(path.join(site.files!, 'api', 'servers', descriptors[0]!), 'utf8')) as { _meta: Record<string, { self_url?: string; page_url?: string }> };
    expect(d._meta['org.mcp-schema/descriptor']!.self_url).toBe(`${FILES_URL}api/servers/${descriptors[0]}`);
    const page = await readFile(path.join(site.out, 'index.html'), 'utf8');
    expect(page).toMatch(/img-src 'self' data: http:\/\/files\.invalid;/);
    expect(page).toMatch(/connect-src 'self' http:\/\/files\.invalid;/);
  });
});

describe('the file host rule (src/lib/file-host.ts)', () => {
  it('sends machine-readable files there and keeps pages, the index and the small /data/ files on the site', () => {
    for (const p of ['/api/servers/a_b.json', '/api/sets/', '/api/tool-names/0a.json', '/objects/ab/' + 'a'.repeat(64) + '.json', '/servers/a_b/badge.svg', '/servers/a_b/feed.xml', '/servers/a_b/feed.json', '/servers/a_b/changes/c1-SIMULATED.patch.json', '/data/observations-2026-01.jsonl.gz', '/data/observations-2026-01.csv.gz', '/data/runs.parquet']) expect(onFileHost(p), p).toBe(true);
    for (const p of ['/api/index.json', '/servers/a_b/', '/servers/a_b/index.html', '/servers/a_b/changes/c1/', '/servers/a_b/changes/c1/index.html', '/servers/a_b/c/badge.svg', '/servers/badge.svg', '/data/', '/data/index.html', '/data/SHA256SUMS', '/data/datapackage.json', '/data/survival.csv', '/drift.xml', '/api.json', '/objects']) expect(onFileHost(p), p).toBe(false);
    expect(copiedToFileHost('/data/SHA256SUMS')).toBe(true);
    expect(copiedToFileHost('/data/datapackage.json')).toBe(true);
    expect(copiedToFileHost('/data/index.html')).toBe(false);
    expect(copiedToFileHost('/data/parts/manifest.json')).toBe(false);
    expect(copiedToFileHost('/data/runs.parquet')).toBe(false);
  });
});
