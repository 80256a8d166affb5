// Drift feeds: one item per change (ChangeView), and one per body finding the first time a server
// serves it (BodyFindingView: a repeated member name is a finding of the served answer itself, not of
// a change, so it is an item of its own whether or not the contract hash moved that day). RSS 2.0
// goes through @astrojs/rss; JSON Feed 1.1 is written here because `feed` 5 only writes JSON Feed 1.0.
//
// Registry text (server names, tool names, finding messages) is hostile, and a feed outlives the
// page that showed it in a subscriber's reader:
//   - every string that enters either feed, ours or theirs, goes through `xmlText` (src/outputs/xml-text.ts)
//     in one place (`xmlSafe` below), so a control character in one tool name cannot stop the
//     site-wide feed from being XML;
//   - an RSS `<description>` is HTML to every reader (they XML-decode it, then render it), so the
//     summary is escaped as HTML text and its lines joined with `<br>`: the only markup in a
//     description is the `<br>` we wrote. Titles and categories are plain text;
//   - the JSON Feed carries `content_text` only, never `content_html`.
import { getRssString, type RSSFeedItem } from '@astrojs/rss';
import { clip } from '../lib/index.ts';
import type { BodyFindingView, ChangeView, InstructionsChangeView } from '../loader/views.ts';
import { SIMULATED_MARK, SIMULATED_NOTE, type Publication } from './publication.ts';
import { xmlText } from './xml-text.ts';

/** Items per feed: enough for a weekly reader on a busy day, small enough to fetch often. */
export const FEED_ITEMS = 200;
/**
 * Items per server feed (/servers/<slug>/feed.xml, .json): the site has one per server that answered, so
 * with FEED_ITEMS they would grow with every change for years (the site stays under 1 GB);
 * the drift feeds keep FEED_ITEMS, and every change is in /data/changes.jsonl.gz.
 */
export const SERVER_FEED_ITEMS = 50;

/** What describes a feed: the site-wide drift feed, or one server's. */
export interface FeedChannel {
  title: string;
  description: string;
  /** Site path of the page the feed follows, e.g. `/drift/`. */
  homePath: string;
  /** Site path of the JSON Feed itself. */
  feedPath: string;
  /** Site path of the RSS feed itself: its atom:link rel="self" (RSS Advisory Board's best practice). */
  rssPath?: string;
}

/** The site-wide feed (/drift.xml, /drift.json). */
export function driftChannel(empty: boolean): FeedChannel {
  return {
    title: 'mcp-schema: MCP tool contract changes',
    description: empty ? 'Nothing has been observed yet.' : 'Changes of the tools/list contracts of remote MCP servers in the official registry, and security findings of the answers they serve, newest first.',
    homePath: '/drift/',
    feedPath: '/drift.json',
    rssPath: '/drift.xml',
  };
}

/** A feed of one drift filter (/drift/<key>.xml, /drift/<key>.json): only the changes at that level. */
export function levelChannel(key: string, label: string): FeedChannel {
  return {
    title: `mcp-schema: MCP tool contract changes, ${label}`,
    description: `Changes of the tools/list contracts of remote MCP servers in the official registry filed under "${label}", newest first.`,
    homePath: `/drift/${key}/`,
    feedPath: `/drift/${key}.json`,
    rssPath: `/drift/${key}.xml`,
  };
}

/** One server's feeds (/servers/<slug>/feed.xml, feed.json): its name is registry text like any other. */
export function serverChannel(name: string, slug: string): FeedChannel {
  return {
    title: `mcp-schema: changes of ${clip(name, 200)}`,
    description: "Changes of this server's tools/list contract, and security findings of its answers, newest first.",
    homePath: `/servers/${slug}/`,
    feedPath: `/servers/${slug}/feed.json`,
    rssPath: `/servers/${slug}/feed.xml`,
  };
}

export function changeTitle(c: ChangeView): string {
  const level = [c.compatibility ?? 'no rule fired', c.security && `security ${c.security}`].filter(Boolean).join(', ');
  // A protocol migration (methodology v2) says so in the title; a v1 change's title is as it always was.
  return `${clip(c.target, 200)} ${c.revert ? 'reverted its tools to an earlier contract' : 'changed its tools'}${c.protocolMigration ? ' in a protocol migration' : ''} (${level})`;
}

/** Said beside a change of a server whose list is private-scope (ChangeView.privateScopeList; methodology v2, "What servers say about their lists"). */
export const PRIVATE_SCOPE_NOTE = "private-scope list: the change may be the caller's, not the server's";

/** The change in plain text, one line per fact (the RSS description is this, escaped as HTML). */
export function changeSummary(c: ChangeView): string {
  const d = c.diff;
  const parts: string[] = [];
  if (d) {
    if (d.added.length) parts.push(`added ${list(d.added)}`);
    if (d.removed.length) parts.push(`removed ${list(d.removed)}`);
    if (d.changed.length) parts.push(`changed ${list(d.changed.map((t) => t.name))}`);
    if (d.returned.length) parts.push(`returned ${list(d.returned.map((t) => t.name))}`);
  } else if (c.diffProblem) parts.push(`diff unavailable: ${clip(c.diffProblem, 300)}`);
  const findings = c.findings.slice(0, 10).map((f) => `${f.level} ${f.rule}: ${clip(f.message, 300)}`);
  return [`On ${c.day}: ${parts.join('; ') || 'contract hash changed'}.`, c.privateScopeList ? `${PRIVATE_SCOPE_NOTE[0]!.toUpperCase()}${PRIVATE_SCOPE_NOTE.slice(1)}.` : '', ...findings, c.findings.length > 10 ? `…and ${c.findings.length - 10} more findings.` : '']
    .filter(Boolean)
    .join('\n');
}

/** `changeSummary` as HTML a reader renders as exactly that text: escaped, its lines (LF, CR or CRLF) joined by `<br>`. */
export function changeSummaryHtml(c: ChangeView): string {
  return asHtml(changeSummary(c));
}

/** Plain text as HTML a reader renders as exactly that text: escaped, its lines (LF, CR or CRLF) joined by `<br>`. */
function asHtml(text: string): string {
  return text.split(/\r\n?|\n/).map(htmlText).join('<br>\n');
}

export function changeUrl(c: ChangeView, pub: Pick<Publication, 'permalink'>): string {
  return pub.permalink(`/servers/${c.slug}/`) + `#change-${c.id}`;
}

/** A body finding's title: plain text, the server's name cut at 200 characters. */
export function bodyFindingTitle(b: BodyFindingView): string {
  return `${clip(b.target, 200)} serves a tools/list answer with a security finding (security ${bodyLevel(b)})`;
}

/** The body finding in plain text, one line per fact (the RSS description is this, escaped as HTML). */
export function bodyFindingSummary(b: BodyFindingView): string {
  const findings = b.findings.slice(0, 10).map((f) => `${f.level} ${f.rule}: ${clip(f.message, 300)}`);
  return [`On ${b.day}: the served answer itself, not a change of the contract.`, ...findings, b.findings.length > 10 ? `…and ${b.findings.length - 10} more findings.` : ''].filter(Boolean).join('\n');
}

export function bodyFindingUrl(b: BodyFindingView, pub: Pick<Publication, 'permalink'>): string {
  return pub.permalink(`/servers/${b.slug}/`) + `#body-${b.id}`;
}

/** "Instructions changed" (methodology v2): the server's handshake instructions moved while its tools did not. */
export function instructionsTitle(x: InstructionsChangeView): string {
  return `${clip(x.target, 200)} changed its instructions (security ${instructionsLevel(x)})`;
}

export function instructionsSummary(x: InstructionsChangeView): string {
  return [`On ${x.day}: the instructions the server sends in its handshake, not a change of its tools.`, ...x.findings.map((f) => `${f.level} ${f.rule}: ${clip(f.message, 300)}`)].join('\n');
}

export function instructionsUrl(x: InstructionsChangeView, pub: Pick<Publication, 'permalink'>): string {
  return pub.permalink(`/servers/${x.slug}/`) + `#${x.id}`;
}

function instructionsLevel(x: InstructionsChangeView): string {
  return x.findings.some((f) => f.level === 'HIGH') ? 'HIGH' : 'WARN';
}

function instructionsItem(x: InstructionsChangeView, pub: FeedPublication) {
  return {
    id: `${x.target}#${x.id}`,
    ...xmlSafe({ url: instructionsUrl(x, pub), title: marked(instructionsTitle(x), pub), content_text: instructionsSummary(x) }),
    date_published: new Date(x.observedAt).toISOString(),
    tags: [`security-${instructionsLevel(x)}`, 'instructions-changed'],
    _mcp_schema: { kind: 'instructions-changed', target: x.target, before_instructions_sha256: x.before, after_instructions_sha256: x.after, findings: x.findings.map(findingFields) },
  };
}

/** One feed item of either kind, newest first. */
type Entry = { kind: 'change'; at: number; c: ChangeView } | { kind: 'body-finding'; at: number; b: BodyFindingView } | { kind: 'instructions'; at: number; x: InstructionsChangeView };

/** Changes, body findings and instructions changes merged newest first (in that order at the same instant), the newest FEED_ITEMS. */
function entries(changes: readonly ChangeView[], bodyFindings: readonly BodyFindingView[], instructions: readonly InstructionsChangeView[] = [], limit = FEED_ITEMS): Entry[] {
  const all: Entry[] = [
    ...changes.slice(0, limit).map((c): Entry => ({ kind: 'change', at: Date.parse(c.observedAt), c })),
    ...bodyFindings.slice(0, limit).map((b): Entry => ({ kind: 'body-finding', at: Date.parse(b.observedAt), b })),
    ...instructions.slice(0, limit).map((x): Entry => ({ kind: 'instructions', at: Date.parse(x.observedAt), x })),
  ];
  // A stable sort: each list is newest first already, and changes come first at a tie.
  return all.sort((x, y) => y.at - x.at).slice(0, limit);
}

/** RSS 2.0 of the newest FEED_ITEMS changes and body findings. */
/** A feed's pub: its links, and whether the build is simulated (then every title and the channel say so). */
type FeedPublication = Pick<Publication, 'permalink' | 'simulated'>;

/** A simulated build's feeds: `[SIMULATED] ` before every title, the note before the channel's description. */
function marked(text: string, pub: FeedPublication): string {
  return pub.simulated ? `[${SIMULATED_MARK}] ${text}` : text;
}

function markedChannel(ch: FeedChannel, pub: FeedPublication): FeedChannel {
  return pub.simulated ? { ...ch, title: marked(ch.title, pub), description: `${SIMULATED_NOTE} ${ch.description}` } : ch;
}

export function rssFeed(changes: readonly ChangeView[], channel: FeedChannel, pub: FeedPublication, bodyFindings: readonly BodyFindingView[] = [], instructions: readonly InstructionsChangeView[] = [], limit = FEED_ITEMS): Promise<string> {
  const ch = markedChannel(channel, pub);
  const items: RSSFeedItem[] = entries(changes, bodyFindings, instructions, limit).map((e) =>
    e.kind === 'change'
      ? { title: marked(changeTitle(e.c), pub), link: changeUrl(e.c, pub), pubDate: new Date(e.c.observedAt), description: changeSummaryHtml(e.c), categories: tags(e.c) }
      : e.kind === 'instructions'
        ? { title: marked(instructionsTitle(e.x), pub), link: instructionsUrl(e.x, pub), pubDate: new Date(e.x.observedAt), description: asHtml(instructionsSummary(e.x)), categories: [`security-${instructionsLevel(e.x)}`, 'instructions-changed'] }
        : { title: marked(bodyFindingTitle(e.b), pub), link: bodyFindingUrl(e.b, pub), pubDate: new Date(e.b.observedAt), description: asHtml(bodyFindingSummary(e.b)), categories: [`security-${bodyLevel(e.b)}`] },
  );
  const self = ch.rssPath ? `<atom:link href="${attr(xmlText(pub.permalink(ch.rssPath)))}" rel="self" type="application/rss+xml"/>` : undefined;
  return getRssString({
    ...xmlSafe({ title: ch.title, description: ch.description, site: pub.permalink(ch.homePath), items }),
    ...(self ? { xmlns: { atom: 'http://www.w3.org/2005/Atom' }, customData: self } : {}),
  });
}

/** JSON Feed 1.1 of the same items. `id` and `_mcp_schema` keep the exact registry name (JSON escapes anything). */
export function jsonFeed(changes: readonly ChangeView[], channel: FeedChannel, pub: FeedPublication, bodyFindings: readonly BodyFindingView[] = [], instructions: readonly InstructionsChangeView[] = [], limit = FEED_ITEMS): string {
  const ch = markedChannel(channel, pub);
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    ...xmlSafe({ title: ch.title, home_page_url: pub.permalink(ch.homePath), feed_url: pub.permalink(ch.feedPath), description: ch.description }),
    language: 'en',
    ...(pub.simulated ? { _mcp_schema: { simulated: true } } : {}),
    items: entries(changes, bodyFindings, instructions, limit).map((e) => (e.kind === 'change' ? changeItem(e.c, pub) : e.kind === 'instructions' ? instructionsItem(e.x, pub) : bodyFindingItem(e.b, pub))),
  };
  return JSON.stringify(feed, null, 2);
}

function changeItem(c: ChangeView, pub: FeedPublication) {
  return {
    id: `${c.target}#${c.id}`,
    ...xmlSafe({ url: changeUrl(c, pub), title: marked(changeTitle(c), pub), content_text: changeSummary(c) }),
    date_published: new Date(c.observedAt).toISOString(),
    tags: xmlSafe(tags(c)),
    _mcp_schema: {
      kind: 'change',
      target: c.target,
      before_tools_sha256: c.beforeSha256,
      after_tools_sha256: c.afterSha256,
      revert: c.revert,
      findings: c.findings.map(findingFields),
      ...(c.protocolMigration ? { protocol_migration: true } : {}),
    },
  };
}

function bodyFindingItem(b: BodyFindingView, pub: FeedPublication) {
  return {
    id: `${b.target}#body-${b.id}`,
    ...xmlSafe({ url: bodyFindingUrl(b, pub), title: marked(bodyFindingTitle(b), pub), content_text: bodyFindingSummary(b) }),
    date_published: new Date(b.observedAt).toISOString(),
    tags: xmlSafe([`security-${bodyLevel(b)}`]),
    _mcp_schema: { kind: 'body-finding', target: b.target, body_sha256: b.bodySha256, findings: b.findings.map(findingFields) },
  };
}

function findingFields(f: ChangeView['findings'][number]) {
  return { rule: f.rule, axis: f.axis, level: f.level, tool: f.tool, path: f.path, fingerprint: f.fingerprint };
}

function bodyLevel(b: BodyFindingView): string {
  return b.findings.some((f) => f.level === 'HIGH') ? 'HIGH' : (b.findings[0]?.level ?? 'WARN');
}

function tags(c: ChangeView): string[] {
  return [c.compatibility ?? 'no-rule-fired', c.security && `security-${c.security}`, c.revert && 'revert', c.protocolMigration && 'protocol-migration'].filter((x): x is string => Boolean(x));
}

function list(names: string[]): string {
  const shown = names.slice(0, 8).map((n) => clip(n, 80));
  return names.length > 8 ? `${shown.join(', ')} and ${names.length - 8} more` : shown.join(', ');
}

/** Every string in a feed's options, however deep, through `xmlText`: one place, so no field is forgotten. */
function xmlSafe<T>(value: T): T {
  if (typeof value === 'string') return xmlText(value) as T;
  if (Array.isArray(value)) return value.map(xmlSafe) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, xmlSafe(v)])) as T;
  }
  return value; // numbers, booleans, Dates
}

/** Text in a double-quoted XML attribute. */
function attr(s: string): string {
  return s.replace(/[&<"]/g, (ch) => HTML_ESCAPES[ch]!);
}

/** Text as HTML that renders as that text (safe in element content and quoted attributes). */
function htmlText(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
