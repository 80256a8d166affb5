// `npm run build` on the headline archive (test/site/shared.ts headlineArchive: v1 alone, a three-day
// bridge, then v2 alone): the headline statement, the changelog's generated note and sensitivity
// series, and protocol_migration on the server page, in the feeds and in the changes bundle. What
// the pages must say is read from the archive's own rows here, not from the loader.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildWorld } from '../../sandbox/world.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { builtSite, HEADLINE_ARCHIVE, headlineArchive, type BuiltSite } from './shared.ts';

const H = HEADLINE_ARCHIVE;
const world = buildWorld({ seed: H.seed, size: H.size });
const SEAM = world.date(H.firstDay + H.v1Days);
const SINCE = world.date(H.firstDay + H.v1Days + H.bridgeDays - 1);
const MIGRATES = world.targets[56]!.name;
const MIGRATION_DAY = world.date(H.firstDay + 8);
const INSTRUCTIONS = world.targets[58]!.name;

let site: BuiltSite;
let dir: string;
const read = (p: string) => readFile(path.join(site.out, p), 'utf8');

beforeAll(async () => {
  dir = await headlineArchive();
  site = await builtSite('headline');
}, 600_000);

describe('npm run build on an archive past the bridge', () => {
  it('says on the dashboard and the methodology page which series the headline uses, and since when', async () => {
    const runs = readFileSync(path.join(dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { day: string; methodology_version: string });
    // The day the third bridge day (a day with both series) was recorded.
    const bridge = [...new Set(runs.filter((r) => runs.some((o) => o.day === r.day && o.methodology_version !== r.methodology_version)).map((r) => r.day))].sort();
    expect(bridge).toEqual([SEAM, world.date(H.firstDay + 4), SINCE]);
    for (const page of ['index.html', 'methodology/index.html']) {
      const html = await read(page);
      const statement = /<p class="headline-series"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '';
      expect(statement).toContain('Headline series: methodology v2');
      expect(statement).toContain(SINCE);
      expect(statement).toContain(SEAM);
      // No validation gate in this archive: the switch says plainly that it happened without one.
      expect(statement.replace(/<[^>]+>/g, '')).toContain('The switch happened without a passed validation gate: the v2 figures are not yet validated.');
    }
  });

  it('names the method the figures rest on in every citation form: footer, dashboard, /data/CITATION.cff, the live chart\'s source line and citation', async () => {
    const method = `v2, stitched onto v1 before ${SEAM}`;
    for (const page of ['index.html', 'data/index.html', 'servers/index.html', 'methodology/index.html']) expect(await read(page), page).toContain(`data-testid="footer-methodology">Methodology ${method}</a>`);
    expect(await read('index.html')).toContain(`Methodology ${method}, prober`);
    expect(await read('data/CITATION.cff')).toContain(`Methodology ${method}.`);
    expect((JSON.parse(await read('data/datapackage.json')) as { description: string }).description).toContain(`the headline figures): methodology ${method}.`);
    expect(await read('data/index.html')).toContain(`(schema half-life). Methodology ${method}.`);
    expect(await read('charts/schema-survival/schema-survival.svg')).toContain(`Methodology ${method}`);
    expect(await read('charts/schema-survival/index.html')).toContain(`Methodology ${method}.`);
    for (const page of ['index.html', 'data/CITATION.cff', 'charts/schema-survival/schema-survival.svg', 'charts/schema-survival/index.html']) expect(await read(page), page).not.toMatch(/Methodology v1\b(?!,)/);
  });

  it('adds the generated "headline moves to v2" note and the v2-without-migrations series to the changelog', async () => {
    const html = await read('methodology/changelog/index.html');
    const note = /<article id="headline-moves-to-v2"[\s\S]*?<\/article>/.exec(html)?.[0] ?? '';
    expect(note).toContain(`<time datetime="${SINCE}">${SINCE}</time>`);
    const sens = /<article class="restatement" id="series-v2-without-migrations"[\s\S]*?<\/article>/.exec(html)?.[0] ?? '';
    expect(sens).toContain('data-testid="half-life-headline"');
    expect(sens).toContain('data-testid="half-life-without-migrations"');
    expect(sens).toMatch(/>1 of \d+ changes is a protocol migration; 1 series seam \(/);
  });

  it('flags the protocol migration on the server page, in the feeds and in the changes bundle (its last column)', async () => {
    const slug = slugFor(MIGRATES);
    const page = await read(`servers/${slug}/index.html`);
    const entry = new RegExp(`<article class="change" id="change-${MIGRATION_DAY}-[0-9a-f]{12}"[^>]*>\\s*<h3>[\\s\\S]*?</h3>`).exec(page)?.[0] ?? '';
    expect(entry).toContain('>protocol migration</span>');
    // The server's other changes (none in this window) carry no such badge.
    expect(page.match(/>protocol migration<\/span>/g)).toHaveLength(1);
    const feed = JSON.parse(await read('drift.json')) as { items: { title: string; tags: string[]; _mcp_schema: { target: string; protocol_migration?: boolean } }[] };
    const flagged = feed.items.filter((i) => i._mcp_schema.protocol_migration);
    expect(flagged.map((i) => i._mcp_schema.target)).toEqual([MIGRATES]);
    expect(flagged[0]!.title).toContain('in a protocol migration');
    expect(flagged[0]!.tags).toContain('protocol-migration');
    const rss = await read(`servers/${slug}/feed.xml`);
    expect(rss).toContain('<category>protocol-migration</category>');
    const lines = gunzipSync(readFileSync(path.join(site.out, 'data', 'changes.jsonl.gz'))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // protocol_migration comes after every v1 column; private_scope_list after it.
    expect(lines.every((l) => Object.keys(l).slice(-2).join() === 'protocol_migration,private_scope_list')).toBe(true);
    expect(lines.filter((l) => l.protocol_migration === true).map((l) => [l.target, l.day])).toEqual([[MIGRATES, MIGRATION_DAY]]);
    const dp = JSON.parse(await read('data/datapackage.json')) as { resources: { name: string; schema?: { fields: { name: string; description: string }[] } }[] };
    const fields = dp.resources.find((r) => r.name === 'changes')!.schema!.fields;
    expect(fields.slice(-2).map((f) => f.name)).toEqual(['protocol_migration', 'private_scope_list']);
  });

  it('lists the instructions change (no tools change) on the server page, in the drift feed and in the server feed, and its rule on the rules page', async () => {
    const slug = slugFor(INSTRUCTIONS);
    const page = await read(`servers/${slug}/index.html`);
    const section = /<section aria-labelledby="instructions-heading"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
    expect(section).toContain(`<li id="${MIGRATION_DAY}-instructions-`);
    expect(section).toMatch(/The server(&#39;|')s instructions changed \(sha256 [0-9a-f]{12} → [0-9a-f]{12}\)/);
    for (const file of ['drift.json', `servers/${slug}/feed.json`]) {
      const feed = JSON.parse(await read(file)) as { items: { title: string; tags: string[]; _mcp_schema: { kind: string; target: string } }[] };
      const items = feed.items.filter((i) => i._mcp_schema.kind === 'instructions-changed');
      expect(items.map((i) => [i._mcp_schema.target, i.title.includes('changed its instructions'), i.tags])).toEqual([[INSTRUCTIONS, true, ['security-WARN', 'instructions-changed']]]);
    }
    expect(await read(`servers/${slug}/feed.xml`)).toContain('<category>instructions-changed</category>');
    expect(await read('methodology/rules/index.html')).toContain('<tr id="server-instructions-changed">');
  });
});
