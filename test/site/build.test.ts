// `npm run build` on an empty archive and on the collector-made fixture archive.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CSV_NOTE } from '../../src/outputs/catalogue.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { statusPath, statusShard, StatusShard } from '../../src/lib/index.ts';
import { xmlText } from '../../src/outputs/xml-text.ts';
import { CONTROL_NAME, CONTROL_TOOLS, SITE_FILE_NAMES } from '../helpers/archive.ts';
import { builtSite, fixtureArchive, type BuiltSite } from './shared.ts';
import { parseRss } from '../helpers/strict-rss.ts';
import { runCli } from '../helpers/cli.ts';
import { pngSize, readPngText } from '../../src/charts/png-text.ts';

const read = (site: BuiltSite, p: string) => readFile(path.join(site.out, p), 'utf8');

async function sums(site: BuiltSite): Promise<Map<string, string>> {
  const text = await read(site, 'data/SHA256SUMS');
  return new Map(text.trim().split('\n').filter(Boolean).map((l) => { const [h, n] = l.split('  '); return [n!, h!]; }));
}

describe('npm run build on an empty archive', () => {
  let site: BuiltSite;
  beforeAll(async () => {
    site = await builtSite('empty');
  }, 300_000);

  it.each(['index.html', 'servers/index.html', 'drift/index.html', 'methodology/index.html', 'data/index.html', 'charts/schema-survival/index.html', 'search/index.html'])('%s says plainly that nothing has been observed yet', async (page) => {
    const html = await read(site, page);
    expect(html.startsWith('<!DOCTYPE html>') || html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<meta charset="utf-8"');
    expect(html).toContain('Content-Security-Policy');
    expect(html).toContain('Nothing has been observed yet');
  });

  it('writes valid, empty feeds and a datapackage whose files match SHA256SUMS', async () => {
    expect(JSON.parse(await read(site, 'drift.json')).items).toEqual([]);
    expect(await read(site, 'drift.xml')).toContain('<rss');
    const s = await sums(site);
    expect([...s.keys()]).toContain('observations.jsonl.gz');
    for (const [name, hash] of s) expect(createHash('sha256').update(await readFile(path.join(site.out, 'data', name))).digest('hex')).toBe(hash);
    expect(gunzipSync(await readFile(path.join(site.out, 'data/observations.jsonl.gz'))).length).toBe(0);
  });
});

describe('npm run build on the fixture archive', () => {
  let site: BuiltSite;
  let archive: string;
  beforeAll(async () => {
    archive = await fixtureArchive();
    site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
  }, 600_000);

  it('renders one page and one API answer per observed server, two feeds per server with a contract, with collision-free slugs', async () => {
    const targets = await archiveTargets(archive);
    const dirs = (await readdir(path.join(site.out, 'servers'), { withFileTypes: true })).filter((d) => d.isDirectory());
    expect(dirs.length).toBe(targets.size);
    let withFeeds = 0;
    for (const d of dirs) {
      expect(existsSync(path.join(site.out, 'servers', d.name, 'index.html'))).toBe(true);
      const api = JSON.parse(await read(site, `api/servers/${d.name}.json`)) as { _meta: Record<string, { tools_sha256: string | null }> };
      const contract = api._meta['org.mcp-schema/schema-history']!.tools_sha256 !== null;
      for (const f of ['feed.xml', 'feed.json']) expect(existsSync(path.join(site.out, 'servers', d.name, f)), `${d.name}/${f}`).toBe(contract);
      if (contract) withFeeds++;
    }
    expect(withFeeds).toBeGreaterThan(0);
  });

  it('keeps server paths apart from the site: every name under servers/ and api/servers/ is a slug (holds _ or ~) or a site file (holds neither)', async () => {
    const slugs = new Set([...(await archiveTargets(archive))].map(slugFor));
    for (const e of await readdir(path.join(site.out, 'servers'), { withFileTypes: true })) {
      if (slugs.has(e.name)) expect(e.isDirectory(), e.name).toBe(true);
      else expect(e.name, `site file servers/${e.name}`).not.toMatch(/[_~]/);
    }
    for (const dir of ['servers', 'tools']) {
      for (const e of await readdir(path.join(site.out, 'api', dir), { withFileTypes: true })) {
        expect(e.isFile(), `api/${dir}/${e.name} is a file`).toBe(true);
        const slug = e.name.replace(/\.json$/, '');
        if (!slugs.has(slug)) expect(e.name, `site file api/${dir}/${e.name}`).not.toMatch(/[_~]/);
      }
    }
    for (const name of [...SITE_FILE_NAMES, CONTROL_NAME]) {
      const slug = slugFor(name);
      // Line-break opportunities (<wbr>, our markup) sit after separators; the name itself is all text.
      expect((await read(site, `servers/${slug}/index.html`)).replace(/<wbr>/g, ''), name).toContain(`"><bdi>${name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</bdi></h1>`);
      const api = JSON.parse(await read(site, `api/servers/${slug}.json`)) as { server: { name: string } };
      expect(api.server.name).toBe(name);
      // A simulated build marks every feed's title (Publication.simulated).
      expect(parseRss(await read(site, `servers/${slug}/feed.xml`)).channel.title).toBe(xmlText(`[SIMULATED] mcp-schema: changes of ${name}`));
    }
    expect(await read(site, 'servers/index.html')).toContain('<h1');
  });

  it('writes feeds a strict XML parser accepts, the control-character change included, its tool names as text', async () => {
    const feeds = ['drift.xml', ...(await readdir(path.join(site.out, 'servers'))).filter((d) => existsSync(path.join(site.out, 'servers', d, 'feed.xml'))).map((d) => `servers/${d}/feed.xml`)];
    expect(feeds.length).toBeGreaterThan(SITE_FILE_NAMES.length);
    for (const f of feeds) expect(() => parseRss(readFileSync(path.join(site.out, f), 'utf8')), f).not.toThrow();
    const item = parseRss(await read(site, 'drift.xml')).items.find((i) => i.title.startsWith(xmlText(`[SIMULATED] ${CONTROL_NAME}`)));
    expect(item).toBeDefined();
    expect(item!.description).toContain(`added ${xmlText(CONTROL_TOOLS[1]).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')}`);
    expect(item!.description).toContain(`removed ${xmlText(CONTROL_TOOLS[0])}`);
    expect(item!.description.replace(/<br>\n/g, '')).not.toMatch(/[<>]/);
  });

  it('ships observations whose row count matches the archive, per month and whole', async () => {
    const s = await sums(site);
    // A simulated build's data files carry -SIMULATED in their names.
    const whole = gunzipSync(await readFile(path.join(site.out, 'data/observations-SIMULATED.jsonl.gz'))).toString('utf8').split('\n').filter(Boolean);
    const monthly = [...s.keys()].filter((n) => /^observations-\d{4}-\d{2}-SIMULATED\.jsonl\.gz$/.test(n));
    let monthRows = 0;
    for (const m of monthly) monthRows += gunzipSync(await readFile(path.join(site.out, 'data', m))).toString('utf8').split('\n').filter(Boolean).length;
    expect(whole.length).toBeGreaterThan(0);
    expect(monthRows).toBe(whole.length);
    const csv = gunzipSync(await readFile(path.join(site.out, 'data/observations-SIMULATED.csv.gz'))).toString('utf8').trim().split('\r\n');
    expect(csv[0]).toMatch(/^run_id,day,observed_at,target,/);
    const pkg = JSON.parse(await read(site, 'data/datapackage.json')) as { notes: string; resources: { path: string; hash: string; schema: { fields: { description: string }[] } }[] };
    // The data page and datapackage.json say what csvLine does to registry text, in the same words.
    expect(pkg.notes).toBe(CSV_NOTE);
    const page = (await read(site, 'data/index.html')).replace(/&#34;|&quot;/g, '"').replace(/&#39;/g, "'");
    expect(page).toContain(`<h2 id="csv">CSV and spreadsheets</h2> <p>${CSV_NOTE}</p>`);
    for (const r of pkg.resources) {
      // Files outside /data/ (the bulk descriptors under /api/) are listed by URL, hashed as the site serves them.
      const served = r.path.startsWith('https://') ? createHash('sha256').update(await readFile(path.join(site.out, new URL(r.path).pathname))).digest('hex') : s.get(r.path);
      expect(r.hash).toBe(`sha256:${served}`);
      for (const f of r.schema.fields) expect(f.description.length).toBeGreaterThan(5);
    }
  });

  it('answers for every name the archive has seen, retired and opted-out ones included, in one bulk file too, and looks up every set hash', async () => {
    const targets = await archiveTargets(archive);
    const bulk = JSON.parse(await read(site, 'api/servers.json')) as { servers: { server: { name: string }; _meta: Record<string, { status?: string; set_sha256?: string | null }> }[]; metadata: { count: number } };
    expect(bulk.metadata.count).toBe(targets.size);
    expect(new Set(bulk.servers.map((d) => d.server.name))).toEqual(targets);
    const statuses = new Set(bulk.servers.map((d) => d._meta['org.mcp-schema/schema-history']!.status));
    for (const st of ['ok', 'error', 'no_endpoint', 'retired', 'excluded']) expect(statuses, st).toContain(st);
    const s = await sums(site);
    // The fixture build is simulated: the bundle's name says so, like every data bundle's.
    expect(s.get('servers-SIMULATED.jsonl.gz')).toBe(createHash('sha256').update(await readFile(path.join(site.out, 'data/servers-SIMULATED.jsonl.gz'))).digest('hex'));
    expect(existsSync(path.join(site.out, 'data/servers.jsonl.gz'))).toBe(false);
    expect(await read(site, 'data/index.html')).toContain('href="/data/servers-SIMULATED.jsonl.gz"');
    // servers.json's checksum file says it on a comment line sha256sum -c skips, then checks the file.
    const [note, line] = (await read(site, 'api/servers.json.sha256')).trimEnd().split('\n');
    expect(note).toMatch(/^# SIMULATED DATA/);
    expect(line).toBe(`${createHash('sha256').update(await readFile(path.join(site.out, 'api/servers.json'))).digest('hex')}  servers.json`);
    const setHashes = new Set(bulk.servers.map((d) => d._meta['org.mcp-schema/schema-history']!.set_sha256).filter((h): h is string => typeof h === 'string'));
    expect(setHashes.size).toBeGreaterThan(0);
    for (const h of setHashes) {
      expect(existsSync(path.join(site.out, 'api', 'sets', `${h}.json`)), h).toBe(true);
      // Its row on the index without JavaScript: the file, how many servers, the first and last day of any.
      const set = JSON.parse(await read(site, `api/sets/${h}.json`)) as { servers_total: number; servers: { name: string; descriptor_url: string; first_seen: string; last_seen: string | null; still_serving: boolean }[] };
      const row = (await read(site, `lookup/${h.slice(0, 2)}/index.html`)).match(new RegExp(`<tr>(<td><a href="[^"]*/api/sets/${h}\\.json">.*?)</tr>`))?.[1];
      expect(row, h).toBeDefined();
      const first = set.servers.map((x) => x.first_seen).sort()[0]!.slice(0, 10);
      // A server still serving the set has no last-seen day in the file: it was last seen at its latest ok answer (its status file).
      const lastOf = async (x: (typeof set.servers)[number]): Promise<string> => {
        if (!x.still_serving) return x.last_seen!;
        const slug = x.descriptor_url.match(/\/api\/servers\/([^/]+)\.json$/)![1]!;
        const shard = StatusShard.parse(JSON.parse(await read(site, statusPath(statusShard(slug)).slice(1))));
        return shard.servers.find((e) => e.slug === slug)!.last_ok_at!;
      };
      const last = (await Promise.all(set.servers.map(lastOf))).sort().at(-1)!.slice(0, 10);
      expect(row).toBe(`<td><a href="/api/sets/${h}.json"><code>${h}</code></a></td><td>${set.servers_total}</td><td>${first}</td><td>${last}</td>`);
    }
    // The lookup form works without inline script (the CSP), and says what to do without JavaScript.
    const lookup = await read(site, 'lookup/index.html');
    expect(lookup).toMatch(/<script type="module" src="[^"]+\.js"><\/script>/);
    expect(lookup).not.toMatch(/<script(?![^>]*(src=|application\/ld\+json))[^>]*>/);
    expect(lookup).toContain('Without JavaScript');
    expect(JSON.parse(await read(site, 'api/schema/descriptor.json'))).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' });
    expect(await read(site, 'data/index.html')).toContain('id="descriptors"');
  });

  it('indexes the search after the Astro build has exited (npm run build\'s second step): every server page, and the size check after it', async () => {
    // The Astro step leaves the index to src/site/search-step.ts (its memory then comes after the
    // loaded archive's, not on top of it); the step indexes every server page and checks the size.
    expect(site.log).toContain('the search index and the size check follow (src/site/search-step.ts)');
    const serverPages = (readdirSync(path.join(site.out, 'servers'), { withFileTypes: true }) as Dirent[]).filter((e) => e.isDirectory() && existsSync(path.join(site.out, 'servers', e.name, 'index.html'))).length;
    expect(serverPages).toBeGreaterThan(10);
    expect(site.log).toMatch(new RegExp(`search over ${serverPages} pages; site [0-9.]+ MB in [0-9]+ files`));
    expect(existsSync(path.join(site.out, 'pagefind', 'pagefind-entry.json'))).toBe(true);
    // Near miss: the step alone, before any build, says what to run instead of indexing nothing.
    const alone = await runCli('src/site/search-step.ts', [], { MCP_SCHEMA_OUT: path.join(site.out, 'no-such-site') });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('does not exist: run astro build first (npm run build runs both)');
  });

  it('shows the simulated-data banner and never emits registry markup as HTML', async () => {
    const html = await read(site, 'index.html');
    expect(html).toContain('Simulated data');
    for (const file of await htmlFiles(site.out)) {
      const text = await readFile(file, 'utf8');
      expect(text).not.toContain('<script>window.__pwned');
      expect(text).not.toMatch(/<img src=x/i);
      expect(text).not.toMatch(/href="javascript:/i);
    }
  });

  it('says SIMULATED in every file it publishes: in its name, its text, or its metadata', async () => {
    // What needs no mark, each with its reason.
    const waived: [RegExp, string][] = [
      [/^_astro\//, "the site's own styles and scripts: no data"],
      [/^pagefind\//, 'the search index of pages that each carry the banner'],
      [/^objects\//, 'raw bytes as the servers sent them, named by their SHA-256: a mark would break the name'],
      [/^favicon\.svg$/, 'the site icon'],
      [/^methodology\/vectors\.json$/, "the methodology's canonical-JSON test vectors: the same in every build, about no server"],
      [/^api\/schema\/mcp-lock\.v1\.json$/, "the lockfile format's JSON Schema: the same in every build, about no server"],
      [/(^|\/)SHA256SUMS\.sig$/, 'an Ed25519 signature of the SHA256SUMS beside it, which names every file with its mark'],
    ];
    const unmarked: string[] = [];
    const seen = new Set<string>();
    for (const e of await readdir(site.out, { withFileTypes: true, recursive: true })) {
      if (!e.isFile()) continue;
      const rel = path.relative(site.out, path.join(e.parentPath, e.name));
      const waiver = waived.find(([re]) => re.test(rel));
      if (waiver) {
        seen.add(waiver[1]);
        continue;
      }
      if (e.name.includes('SIMULATED')) continue;
      const bytes = await readFile(path.join(site.out, rel));
      const ext = path.extname(e.name);
      let marked: boolean;
      if (ext === '.png') marked = /SIMULATED/.test(readPngText(bytes).get('Comment') ?? '') && /SIMULATED/.test(readPngText(bytes).get('Title') ?? '');
      else if (['.gz', '.zip', '.parquet'].includes(ext)) marked = false; // binary: only its name can say it
      else marked = ext === '.html' ? bytes.toString('utf8').includes('Simulated data') || bytes.toString('utf8').includes('SIMULATED DATA') : /simulated/i.test(bytes.toString('utf8'));
      if (!marked) unmarked.push(rel);
    }
    expect(unmarked).toEqual([]);
    // A waiver nothing matched is stale.
    expect([...seen].sort()).toEqual(waived.map((w) => w[1]).sort());
  });

  it('publishes its edition verbatim at /editions/<id>/, and the chart page and CITATION.cff cite it', async () => {
    const { readEditions } = await import('../../src/archive/editions.ts');
    const { editions } = readEditions(archive);
    expect(editions.map((e) => e.id)).toEqual(['2025-12']);
    for (const e of await readdir(editions[0]!.dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const rel = path.relative(editions[0]!.dir, path.join(e.parentPath, e.name));
      expect((await readFile(path.join(site.out, 'editions', '2025-12', rel))).equals(await readFile(path.join(e.parentPath, e.name))), rel).toBe(true);
    }
    const url = 'https://mcp-schema.example.org/editions/2025-12/';
    expect(await read(site, 'editions/index.html')).toContain('href="/editions/2025-12/"');
    expect(await read(site, 'charts/schema-survival/index.html')).toContain(`edition 2025-12, data as of 2025-12-15. Methodology v1. ${url}`);
    expect(await read(site, 'data/CITATION.cff')).toContain(`url: "${url}"`);
    expect(await read(site, 'index.html')).toContain(`href="${url}"`);
  });

  it('carries the chain head in SHA256SUMS and shows the DEMO key and the commands to verify', async () => {
    const s = await sums(site);
    const head = JSON.parse(await read(site, 'data/chain-head-SIMULATED.json')) as { sha256: string; manifest: { signature: { key_id: string } } };
    expect(s.has('chain-head-SIMULATED.json')).toBe(true);
    expect(head.manifest.signature.key_id).toMatch(/^DEMO-ed25519-/);
    const page = await read(site, 'data/index.html');
    expect(page).toContain(head.sha256);
    expect(page).toContain('npm run verify');
    expect(page).toContain('-----BEGIN PUBLIC KEY-----');
    expect(page.replace(/&#39;/g, "'")).toMatch(/read_parquet\(\[\s*'https:\/\/mcp-schema\.example\.org\/data\/observations-2025-12-SIMULATED\.parquet'/);
  });

  it('draws a standalone survival SVG with xmlns, title and desc', async () => {
    const svg = await read(site, 'charts/schema-survival/schema-survival.svg');
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(svg).toMatch(/<title>[^<]+<\/title><desc>[^<]+<\/desc>/);
    expect(svg).toContain('Source: mcp-schema — https://mcp-schema.example.org/charts/schema-survival/');
    const png = await readFile(path.join(site.out, 'charts/schema-survival/schema-survival.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(pngSize(png).width).toBe(1440);
    expect(readPngText(png).get('Source')).toBe('https://mcp-schema.example.org/charts/schema-survival/');
  });
});

async function archiveTargets(archive: string): Promise<Set<string>> {
  const lines = (await Promise.all((await readdir(path.join(archive, 'observations'))).map((f) => readFile(path.join(archive, 'observations', f), 'utf8'))))
    .flatMap((t) => t.split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as { target: string });
  return new Set(lines.map((r) => r.target));
}

async function htmlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile() && e.name.endsWith('.html')) out.push(path.join(e.parentPath, e.name));
  return out;
}
