// The feeds under hostile registry text: every string that enters a feed goes through xmlText, the
// RSS parses with a strict XML 1.0 parser (strict-rss.ts), descriptions are HTML text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BodyFindingView, ChangeView } from '../../src/loader/load-archive.ts';
import { bodyFindingSummary, bodyFindingTitle, changeSummary, changeSummaryHtml, changeTitle, driftChannel, jsonFeed, levelChannel, rssFeed, serverChannel, type FeedChannel } from '../../src/outputs/feeds.ts';
import { TEST_PUBLICATION } from '../helpers/publication.ts';
import { xmlText } from '../../src/outputs/xml-text.ts';
import { BIDI, CONTROLS, hostileChange, hostileText, LONE_SURROGATES } from '../helpers/hostile-text.ts';
import { parseRss } from '../helpers/strict-rss.ts';

const CHANNEL: FeedChannel = { title: 'drift', description: 'all changes', homePath: '/drift/', feedPath: '/drift.json' };

function change(over: Partial<ChangeView> & { added?: string[]; message?: string }): ChangeView {
  const { added = ['search'], message = 'Tool search was removed.', ...rest } = over;
  return {
    id: '2026-01-01-bbbbbbbbbbbb', target: 'io.github.x/y', slug: 'io.github.x_y', day: '2026-01-01', observedAt: '2026-01-01T03:15:00Z', runId: 'run',
    beforeSha256: 'a'.repeat(64), afterSha256: 'b'.repeat(64), beforeBody: null, afterBody: null, revert: false, compatibility: 'ERR', security: null,
    diff: { added, removed: [], changed: [], returned: [] }, diffProblem: null, protocolMigration: false,
    findings: [{ rule: 'tool-removed', axis: 'compatibility', level: 'ERR', tool: 'search', path: '', before: null, after: null, fingerprint: '0123456789ab', message }],
    ...rest,
  };
}

/** What a reader shows for a description: HTML text, `<br>` a line break. */
function rendered(descriptionHtml: string): string {
  return descriptionHtml
    .split('<br>\n')
    .map((line) => line.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!))
    .join('\n');
}

describe('xmlText(s)', () => {
  it.each(CONTROLS.map((c) => [`U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`, c]))('replaces %s unless XML text keeps it (tab, LF, CR)', (_, c) => {
    expect(xmlText(`a${c}b`)).toBe(['\t', '\n', '\r'].includes(c) ? `a${c}b` : 'a\ufffdb');
  });

  it('replaces lone surrogates, U+FFFE and U+FFFF one for one, and keeps pairs, U+FFFD and bidi controls', () => {
    for (const s of LONE_SURROGATES) expect(xmlText(`x${s}y`)).toBe('x\ufffdy');
    expect(xmlText('\udfff\ud800')).toBe('\ufffd\ufffd');
    expect(xmlText('\ufffe\uffff\ufffd')).toBe('\ufffd\ufffd\ufffd');
    expect(xmlText('\u{1f600} \u{10ffff}')).toBe('\u{1f600} \u{10ffff}');
    for (const b of BIDI) expect(xmlText(b)).toBe(b);
  });

  it('makes any string parse as XML 1.0 text, is the identity on text XML allows, and is idempotent', () => {
    fc.assert(
      fc.property(hostileText(300), (s) => {
        const safe = xmlText(s);
        const parsed = parseRss(`<rss><channel><title>${safe.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</title></channel></rss>`);
        expect(parsed.channel.title).toBe(safe.replace(/\r\n?/g, '\n')); // XML parsers normalise line ends (§2.11)
        expect([...safe].length).toBe([...s].length);
        expect(xmlText(safe)).toBe(safe);
      }),
    );
  });
});

describe('rssFeed(changes, channel, pub)', () => {
  it.each([
    ['a server name', change({ target: 'io.github.x/\u0001bad' }), 'io.github.x/\ufffdbad'],
    ['a tool name', change({ added: ['\u001b[31mred'] }), '\ufffd[31mred'],
    ['a finding message', change({ message: 'nul \u0000 here' }), 'nul \ufffd here'],
    ['a tool name (lone surrogate)', change({ added: ['half \ud83d'] }), 'half \ufffd'],
  ])('stays XML when %s holds a character XML forbids, and shows U+FFFD in its place', async (_, c, shown) => {
    const feed = parseRss(await rssFeed([c], CHANNEL, TEST_PUBLICATION));
    expect(feed.items).toHaveLength(1);
    expect(`${feed.items[0]!.title}\n${feed.items[0]!.description}`).toContain(shown);
  });

  it('escapes a description as HTML text: a tool named <img onerror> reaches the reader as text', async () => {
    const feed = parseRss(await rssFeed([change({ added: ['<img src=x onerror=alert(1)>'], message: 'a & b "c"' })], CHANNEL, TEST_PUBLICATION));
    const d = feed.items[0]!.description;
    expect(d).toBe('On 2026-01-01: added &lt;img src=x onerror=alert(1)&gt;.<br>\nERR tool-removed: a &amp; b &quot;c&quot;');
    expect(feed.items[0]!.title).toBe('io.github.x/y changed its tools (ERR)');
  });

  it('passes the per-server channel title (a registry name) through xmlText', async () => {
    const feed = parseRss(await rssFeed([change({})], serverChannel('io.github.x/\u0002<b>bold</b>\udc00', 'io.github.x_y'), TEST_PUBLICATION));
    expect(feed.channel.title).toBe('mcp-schema: changes of io.github.x/\ufffd<b>bold</b>\ufffd');
  });

  it('for arbitrary text in every field, parses strictly, titles are that text and descriptions render as exactly that text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileChange(), { minLength: 1, maxLength: 4 }), hostileText(), async (changes, name) => {
        const feed = parseRss(await rssFeed(changes, serverChannel(name, 'io.github.x_y'), TEST_PUBLICATION));
        expect(feed.items).toHaveLength(changes.length);
        const eol = (s: string) => s.replace(/\r\n?/g, '\n');
        changes.forEach((c, i) => {
          const item = feed.items[i]!;
          expect(item.title).toBe(eol(xmlText(changeTitle(c))));
          expect(item.description).toBe(eol(xmlText(changeSummaryHtml(c))));
          // The only markup a reader gets is our <br>; everything else is text.
          expect(item.description.replace(/<br>\n/g, '')).not.toMatch(/[<>]/);
          expect(rendered(item.description)).toBe(eol(xmlText(changeSummary(c))));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('parses strictly with 50,000-character names, tool names and messages', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileChange(hostileText(50_000).filter((s) => s.length > 0).map((s) => s.repeat(Math.ceil(50_000 / s.length)).slice(0, 50_000))), { minLength: 1, maxLength: 2 }), async (changes) => {
        const feed = parseRss(await rssFeed(changes, serverChannel(changes[0]!.target, 'io.github.x_y'), TEST_PUBLICATION));
        expect(feed.items).toHaveLength(changes.length);
        expect(feed.channel.title.length).toBeLessThan(300);
      }),
      { numRuns: 8 },
    );
  });
});

describe('changeTitle(change) and the feeds\' self links', () => {
  it('says "reverted" for a revert and names the level, "no rule fired" when none did', () => {
    expect(changeTitle(change({ revert: true }))).toBe('io.github.x/y reverted its tools to an earlier contract (ERR)');
    expect(changeTitle(change({ compatibility: null, findings: [] }))).toBe('io.github.x/y changed its tools (no rule fired)');
    expect(changeTitle(change({ compatibility: 'INFO', security: 'HIGH' }))).toBe('io.github.x/y changed its tools (INFO, security HIGH)');
  });

  it.each([
    ['the drift feed', driftChannel(false), '/drift.xml'],
    ['a level feed', levelChannel('err', 'ERR: breaks callers'), '/drift/err.xml'],
    ['a server feed', serverChannel('io.github.x/y', 'io.github.x_y'), '/servers/io.github.x_y/feed.xml'],
  ])('%s carries an atom:link rel="self" to its own address', async (_, channel, rss) => {
    const xml = await rssFeed([change({})], channel, TEST_PUBLICATION);
    expect(xml).toContain('xmlns:atom="http://www.w3.org/2005/Atom"');
    expect(xml).toContain(`<atom:link href="${TEST_PUBLICATION.permalink(rss)}" rel="self" type="application/rss+xml"/>`);
    expect(() => parseRss(xml)).not.toThrow();
  });

  it('tags a revert and a change with no compatibility finding in the JSON Feed', () => {
    const feed = JSON.parse(jsonFeed([change({ revert: true, compatibility: null })], CHANNEL, TEST_PUBLICATION)) as { items: { tags: string[] }[] };
    expect(feed.items[0]!.tags).toEqual(['no-rule-fired', 'revert']);
  });
});

describe('jsonFeed(changes, channel, pub)', () => {
  it('stays JSON with content_text (never content_html): text through xmlText, the exact name in id and _mcp_schema', () => {
    fc.assert(
      fc.property(fc.array(hostileChange(), { minLength: 1, maxLength: 4 }), hostileText(), (changes, name) => {
        const feed = JSON.parse(jsonFeed(changes, serverChannel(name, 'io.github.x_y'), TEST_PUBLICATION)) as { title: string; items: Record<string, unknown>[] };
        expect(feed.title).toBe(xmlText(serverChannel(name, 'x').title));
        changes.forEach((c, i) => {
          const item = feed.items[i]!;
          expect(item.content_text).toBe(xmlText(changeSummary(c)));
          expect(item.title).toBe(xmlText(changeTitle(c)));
          expect(item).not.toHaveProperty('content_html');
          expect((item._mcp_schema as { target: string }).target).toBe(c.target);
        });
      }),
    );
  });
});

/** A body finding as the loader makes one (a repeated member name), with hostile text where registry text goes. */
function bodyFinding(target: string, message: string, observedAt = '2026-01-02T03:15:00Z'): BodyFindingView {
  return {
    id: `${observedAt.slice(0, 10)}-cccccccccccc`, target, slug: 'io.github.x_y', day: observedAt.slice(0, 10), observedAt, runId: 'run', bodySha256: 'c'.repeat(64),
    findings: [{ rule: 'tools-repeated-member-name', axis: 'security', level: 'HIGH', tool: target, path: '/description', before: undefined, after: ['a', 'b'], fingerprint: '0123456789ab', message }],
  };
}

describe('body findings in the feeds (a repeated member name, an item of its own)', () => {
  it('merge with the changes newest first, and each body finding links to its own anchor (RSS guids stay unique)', async () => {
    const older = bodyFinding('io.github.x/y', 'm', '2025-12-31T03:15:00Z');
    const newer = bodyFinding('io.github.x/y', 'm', '2026-01-02T03:15:00Z');
    const feed = parseRss(await rssFeed([change({})], CHANNEL, TEST_PUBLICATION, [newer, older]));
    expect(feed.items.map((i) => i.title)).toEqual([bodyFindingTitle(newer), changeTitle(change({})), bodyFindingTitle(older)]);
    expect(new Set(feed.items.map((i) => i.link)).size).toBe(3);
    expect(feed.items[0]!.categories).toEqual(['security-HIGH']);
    const json = JSON.parse(jsonFeed([change({})], CHANNEL, TEST_PUBLICATION, [newer])) as { items: { _mcp_schema: { kind: string } }[] };
    expect(json.items.map((i) => i._mcp_schema.kind)).toEqual(['body-finding', 'change']);
  });

  it('for arbitrary text in the name and the message, parses strictly and renders as exactly that text', async () => {
    await fc.assert(
      fc.asyncProperty(hostileText(), hostileText(), async (target, message) => {
        const b = bodyFinding(target, message);
        const feed = parseRss(await rssFeed([], serverChannel(target, 'io.github.x_y'), TEST_PUBLICATION, [b]));
        const eol = (x: string) => x.replace(/\r\n?/g, '\n');
        expect(feed.items[0]!.title).toBe(eol(xmlText(bodyFindingTitle(b))));
        expect(feed.items[0]!.description.replace(/<br>\n/g, '')).not.toMatch(/[<>]/);
        expect(rendered(feed.items[0]!.description)).toBe(eol(xmlText(bodyFindingSummary(b))));
        const json = JSON.parse(jsonFeed([], serverChannel(target, 'io.github.x_y'), TEST_PUBLICATION, [b])) as { items: Record<string, unknown>[] };
        expect(json.items[0]!.content_text).toBe(xmlText(bodyFindingSummary(b)));
        expect((json.items[0]!._mcp_schema as { target: string }).target).toBe(target);
      }),
      { numRuns: 200 },
    );
  });
});
