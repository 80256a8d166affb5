// What a reader sees on the built fixture site: the defects found on the way, each checked
// on the files the build wrote — footers, "data as of", raw bodies typed by extension, file sizes on
// /data/, social tags, a JSON Patch per change that really turns before into after, badges, the
// wording of never-answering and retired servers, reverts and level filters with their feeds, the
// strip's dates, and the views over time with their CSVs.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import fastJsonPatch from 'fast-json-patch';
import { beforeAll, describe, expect, it } from 'vitest';
import { toolsByName } from '../../src/lib/index.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { DRIFT_FILTERS } from '../../src/site/drift-filters.ts';
import { bytes } from '../../src/site/format.ts';
import { TREND_NAMES } from '../../src/outputs/trend-csv.ts';
import { RETIRED_NAME, REVERT_NAME } from '../helpers/archive.ts';
import { parseRss } from '../helpers/strict-rss.ts';
import { builtSite, fixtureArchive, type BuiltSite } from './shared.ts';

let site: BuiltSite;
let a: Archive;
const read = (p: string) => readFile(path.join(site.out, p), 'utf8');
const text = (html: string) => html.replace(/<wbr>/g, '').replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&quot;|&#34;/g, '"').replace(/&amp;/g, '&').replace(/\s+/g, ' ');

beforeAll(async () => {
  a = await loadArchive(await fixtureArchive());
  site = await builtSite('fixture', { MCP_SCHEMA_SIMULATED: '1' });
}, 600_000);

describe('every page of a full archive', () => {
  it.each(['methodology/index.html', 'methodology/v1/index.html', 'methodology/rules/index.html', 'search/index.html', '404.html', 'trends/index.html'])('%s gives the data date in its footer, to the minute, never "nothing observed"', async (page) => {
    const html = await read(page);
    expect(html).not.toContain('Nothing has been observed yet');
    expect(html).toMatch(/Data as of <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
  });

  it('carries social preview tags whose image is a 1200 × 630 PNG of the site', async () => {
    const html = await read('index.html');
    const image = /<meta property="og:image" content="([^"]+)"/.exec(html)![1]!;
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image"');
    expect(html).toMatch(/<meta property="og:title" content="Dashboard · mcp-schema"/);
    const png = await readFile(path.join(site.out, new URL(image).pathname));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
  });
});

describe('server pages', () => {
  it('link raw bodies with an extension hosts type them by (.json, .txt), under the SHA-256 of their bytes', async () => {
    const html = await read(`servers/${slugFor('io.github.github/github-mcp-server')}/index.html`);
    const links = [...html.matchAll(/href="(\/objects\/[^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(1);
    for (const l of links) {
      expect(l).toMatch(/^\/objects\/[0-9a-f]{2}\/[0-9a-f]{64}\.(json|txt)$/);
      const body = await readFile(path.join(site.out, l));
      expect(createHash('sha256').update(body).digest('hex')).toBe(path.basename(l).replace(/\.\w+$/, ''));
    }
  });

  it('offer each change as a JSON Patch that turns the name-keyed before tools into the after tools', async () => {
    let patches = 0;
    for (const c of a.changes) {
      const file = path.join(site.out, 'servers', c.slug, 'changes', `${c.id}-SIMULATED.patch.json`);
      if (c.diff === null) {
        expect(existsSync(file)).toBe(false);
        continue;
      }
      const [before, after] = [await a.tools(c.beforeBody!), await a.tools(c.afterBody!)];
      const ops = JSON.parse(readFileSync(file, "utf8")) as Parameters<typeof fastJsonPatch.applyPatch>[1];
      const applied = fastJsonPatch.applyPatch(toolsByName(before as never), ops, true, false).newDocument;
      expect(applied).toEqual(toolsByName(after as never));
      expect(await read(`servers/${c.slug}/index.html`)).toContain(`/servers/${c.slug}/changes/${c.id}-SIMULATED.patch.json`);
      patches++;
    }
    expect(patches).toBeGreaterThan(5);
  });

  it('show the registry\'s description of the server and an embeddable badge with its snippet', async () => {
    for (const s of a.servers) expect(existsSync(path.join(site.out, 'servers', s.slug, 'badge.svg')), s.name).toBe(true);
    const html = await read(`servers/${slugFor(REVERT_NAME)}/index.html`);
    expect(text(html)).toContain('The registry describes it as: Adds a required input on day 4 and takes it back on day 7.');
    expect(html).toContain(`https://mcp-schema.example.org/servers/${slugFor(REVERT_NAME)}/badge.svg`);
    expect(readFileSync(path.join(site.out, 'servers', slugFor(REVERT_NAME), 'badge.svg'), 'utf8')).toMatch(/aria-label="SIMULATED MCP contract: (unchanged since \d{4}-\d\d-\d\d|changed on \d{4}-\d\d-\d\d)"/);
  });

  it('say plainly that a server never answered, without claiming its answers carried one contract', async () => {
    const never = a.servers.filter((s) => s.head === null && s.status !== 'retired');
    expect(never.length).toBeGreaterThan(0);
    for (const s of never.slice(0, 5)) {
      const t = text(await read(`servers/${s.slug}/index.html`));
      expect(t).toContain('never answered tools/list successfully');
      expect(t).not.toContain('every successful answer');
      expect(t).not.toContain('Current tools');
    }
  });

  it('list a server\'s current tools one line each — name, description, parameters with the required marked — and link the schemas, never print them', async () => {
    const s = a.servers.find((x) => x.head !== null && x.status === 'ok' && x.current)!;
    const tools = (await a.tools(s.head!.bodySha256!, s.head!.toolsSha256)) as { name: string; inputSchema?: { properties?: Record<string, unknown>; required?: string[] } }[];
    const html = await read(`servers/${s.slug}/index.html`);
    const section = html.slice(html.indexOf('data-testid="current-tools"'));
    expect((section.match(/<li>/g) ?? []).length).toBe(tools.length);
    const t = text(section);
    for (const tool of tools) {
      expect(t).toContain(tool.name);
      const req = tool.inputSchema?.required ?? [];
      if (req.length > 0) expect(section).toContain('<abbr title="required">*</abbr>');
    }
    expect(section).not.toContain('inputSchema');
    expect(section).toContain(`href="/api/tools/${s.slug}.json"`);
    expect(section).not.toContain('<pre');
  });

  it('speak of a retired server in the past: the day it left, its last known tools', async () => {
    const s = a.bySlug.get(slugFor(RETIRED_NAME))!;
    expect(s.status).toBe('retired');
    const t = text(await read(`servers/${s.slug}/index.html`));
    expect(t).toContain(`retired: absent from the registry's complete roster on ${s.lastObserved.slice(0, 10)}`);
    expect(t).not.toContain("today's complete roster");
    expect(t).toContain('Last known tools');
    expect(t).not.toContain('Current tools');
    expect(t).toContain('The registry described it as (its last listed entry): Leaves the registry on day 6.');
  });

  it('date each strip cell by its own observations: the run after a change starts the day after it', async () => {
    const html = await read(`servers/${slugFor(REVERT_NAME)}/index.html`);
    const cells = [...html.matchAll(/<li class="k-([a-z_]+)" style="flex-grow:[\d.]+"><span class="tip">(since )?([\d-]{10})(?: to ([\d-]{10}))?:([^<]*)/g)].map((m) => ({ kind: m[1]!, since: Boolean(m[2]), first: m[3]!, last: m[4] ?? m[3]!, rest: m[5]! }));
    expect(cells.map((c) => c.kind)).toEqual(['ok', 'changed', 'ok', 'changed', 'ok']);
    // The newest run is the server's current state, "since" its first day (a page changes only when the state does).
    expect(cells.map((c) => c.since)).toEqual([false, false, false, false, true]);
    expect(cells.at(-1)!.rest).toMatch(/, ongoing$/);
    for (let i = 1; i < cells.length; i++) expect(cells[i]!.first > cells[i - 1]!.last).toBe(true);
  });
});

describe('drift', () => {
  it('gives every change a level badge, so every change is under exactly one compatibility filter', async () => {
    const html = await read('drift/index.html');
    const items = html.split('<ol class="drift-list"')[1]!.split('</ol>')[0]!.split('<li>').slice(1);
    expect(items.length).toBe(a.changes.length);
    for (const li of items) expect(li).toMatch(/class="badge (ERR|WARN|INFO|NONE)"/);
    const counts = ['err', 'warn', 'info', 'none'].map((k) => a.changes.filter(DRIFT_FILTERS.find((f) => f.key === k)!.test).length);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(a.changes.length);
  });

  it('files the revert under Reverts, marks the current filter, and says "reverted" in the feeds', async () => {
    const html = await read('drift/revert/index.html');
    expect(html).toMatch(/aria-current="page"[^>]*>Reverts</);
    expect(text(html)).toContain(REVERT_NAME);
    expect(html).toContain('data-testid="badge-legend"');
    const titles = parseRss(await read('drift/revert.xml')).items.map((i) => i.title);
    expect(titles).toHaveLength(1);
    expect(titles[0]).toMatch(new RegExp(`^\\[SIMULATED\\] ${REVERT_NAME.replace(/[.]/g, '\\.')} reverted its tools to an earlier contract \\((ERR|WARN|INFO|no rule fired)[,)]`));
    expect(parseRss(await read('drift.xml')).items.map((i) => i.title)).toContain(titles[0]);
  });

  it('writes an RSS and a JSON Feed per filter, each with its self link', async () => {
    for (const f of DRIFT_FILTERS.filter((x) => x.key)) {
      const xml = await read(`drift/${f.key}.xml`);
      expect(parseRss(xml).items.length).toBe(a.changes.filter(f.test).length);
      expect(xml).toContain(`<atom:link href="https://mcp-schema.example.org/drift/${f.key}.xml" rel="self"`);
      expect(JSON.parse(await read(`drift/${f.key}.json`)).items.length).toBe(a.changes.filter(f.test).length);
    }
  });
});

describe('/data/', () => {
  it('shows the size of every file it offers, as written', async () => {
    const html = await read('data/index.html');
    const cells = [...html.matchAll(/data-bundle-size="([^"]+)"[^>]*>([^<]*)</g)];
    expect(cells.length).toBeGreaterThan(10);
    for (const [, name, shown] of cells) expect(shown, name).toBe(bytes((await stat(path.join(site.out, 'data', name!))).size));
  });
});

describe('the headline and the views over time', () => {
  it('words the half-life for the public and names the volatile subset', async () => {
    const t = text(await read('index.html'));
    expect(t).toMatch(/Schema half-life: how long a contract lasts (more than \d+ days?|\d+(\.\d)? days?) 95% CI /);
    expect(t).toContain('Time until a server first changes its contract');
    expect(t).toContain('It counts contracts, not servers: its');
    expect(t).toMatch(/The volatile subset ?: \d+ servers? changed more than once/);
    expect(t).toMatch(/io\.github\.github\/github-mcp-server ?— \d+ changes/);
  });

  it('publishes each chart with its data table and a CSV of the same rows', async () => {
    const html = await read('trends/index.html');
    for (const name of TREND_NAMES) {
      const csv = (await read(`trends/${name}.csv`)).split('\r\n').filter(Boolean);
      expect(csv.length, name).toBeGreaterThan(1);
      expect(html).toContain(`href="/trends/${name}.csv"`);
    }
    expect((await read('trends/coverage.csv')).split('\r\n').filter(Boolean).length - 1).toBe(a.runs.length);
    expect(html.match(/<figure class="chart-figure"/g)).toHaveLength(5);
    expect(html.match(/<details class="chart-data"/g)).toHaveLength(5);
    // The era-adoption chart (methodology v2's full runs), as on /statistics/: a row per full v2 run in its CSV.
    expect(html).toContain('data-testid="trends-era-adoption-chart"');
    expect((await read('trends/era-adoption.csv')).split('\r\n').filter(Boolean).length - 1).toBe(a.v2!.adoption.length);
    expect(await read('trends/era-adoption.csv')).toBe(await read('statistics/era-adoption.csv'));
    // Its caption, from the one EraAdoptionFigure: the gate's mark, then a space, then the page's own words.
    expect(html).toMatch(/<figcaption[^>]*><strong>Not yet validated\.<\/strong> For each full /);
    expect(await read('statistics/index.html')).toMatch(/<figcaption[^>]*><strong>Not yet validated\.<\/strong> For each full v2 run/);
    const ever = (await read('charts/ever-changed.csv')).split('\r\n').filter(Boolean);
    // A simulated build (this one) says so in a first column on every row.
    expect(ever[0]).toBe('simulated,days,share_changed,lower_95,upper_95,at_risk,observed,observed_changed,observed_share,constant_rate');
    expect(ever.length - 1).toBe(a.everChanged.length);
    for (const line of ever.slice(1)) expect(line.startsWith('SIMULATED,')).toBe(true);
  });
});

describe('feeds and files under servers/', () => {
  it('keep the server list a list: every entry of servers/ is a slug directory or a site file', async () => {
    const slugs = new Set(a.servers.map((s) => s.slug));
    for (const e of await readdir(path.join(site.out, 'servers'), { withFileTypes: true })) if (e.isDirectory()) expect(slugs.has(e.name), e.name).toBe(true);
  });
});
