// A server's pages and per-server files change only when the server does (DESIGN "Incremental server
// pages"). Two halves, both here so the page and its fingerprint cannot read different things:
//
// What a page shows in place of what moved every day. A server probed daily used to change its page
// every day with nothing new to say: "(2026-11-30)" after its status, "observed … to <today>", "last OK
// <today>", the last-seen day of the contract it still serves, "every successful answer from … to
// <today>", the status strip's newest run (its width, its count and the axis' end), "As last answered
// on <today>", the badge's "unchanged for N days" and the footer's "Data as of". A page now says the
// day the server's current state began (`stateSince`: the first day of its newest strip run), draws
// that run as "since <day>, ongoing" (`pageStrip`), and leaves the archive's date to the site-wide
// pages (the dashboard). A state that ends (an error after answers, an answer after errors) is a new
// strip run, so the page changes that day.
//
// The fingerprint: SHA-256 (src/lib canonicalJson and sha256Hex, the one implementation) of every input
// the server's page, change pages, feeds, badge and JSON Patches show — `serverPageInputs` — with the
// site-wide key the build passes (the sources that render them, the publication's settings, the
// headline's methodology the footer names). Equal fingerprints: the same bytes, so a build with
// MCP_SCHEMA_SERVER_PAGES=changed renders and writes only the servers whose fingerprint moved.
// Descriptors, tools files and set files are not behind it: they are written for every server, but
// (descriptor format 2) name neither the latest run nor a rolling window, which are in the status files
// (status-files.ts), so their bytes move only when the server does and publish-files uploads only those.
import { canonicalJson, sha256Hex } from '../lib/index.ts';
import type { Archive, ServerView, StripSegment, VersionView } from '../loader/views.ts';
import type { ListCachingView } from '../loader/v2-summary.ts';
import { bodyUrl } from './linked-objects.ts';
import { stableBadgeText } from './server-badge.ts';

/** The day the server's current state began: the first day of its newest strip run; null before its first observation. */
export function stateSince(s: Pick<ServerView, 'strip'>): string | null {
  return s.strip.at(-1)?.firstDay ?? null;
}

/** The status strip as a page draws it: closed runs as they were, the newest (ongoing) run cut to its first day. */
export function pageStrip(s: Pick<ServerView, 'strip'>): StripSegment[] {
  const last = s.strip.at(-1);
  if (!last) return [];
  return [...s.strip.slice(0, -1), { ...last, count: 1, lastDay: last.firstDay }];
}

/** Whether `v` is the contract the server served at its latest run (its last-seen day is then "the latest run", not a date). */
export function servedNow(s: Pick<ServerView, 'status' | 'head'>, v: Pick<VersionView, 'toolsSha256' | 'firstSeen'>): boolean {
  return s.status === 'ok' && s.head !== null && v.toolsSha256 === s.head.toolsSha256 && v.firstSeen === s.head.firstSeen;
}

/** A version's last-seen day as a page shows it: null while it is served (see servedNow). */
export function shownLastSeen(s: Pick<ServerView, 'status' | 'head'>, v: VersionView): string | null {
  return servedNow(s, v) ? null : v.lastSeen.slice(0, 10);
}

/** The day of the server's last successful answer as a page shows it: null when that is the latest run (status ok). */
export function shownLastOk(s: Pick<ServerView, 'status' | 'lastOk'>): string | null {
  return s.status === 'ok' ? null : (s.lastOk?.slice(0, 10) ?? null);
}

/** What the site-wide key of a build covers besides the sources: passed by src/site/changed-servers.ts. */
export interface RenderKeyParts {
  /** SHA-256 of the sources that render the pages (src/, content/, public/, astro.config.mjs, package-lock.json). */
  sources: string;
  /** The publication's settings the pages read (site URL, base, file host, objects URL, simulated). */
  settings: Record<string, unknown>;
}

/** The site-wide part of every fingerprint: the sources, the settings, and the headline's methodology each page's footer names. */
export function renderKey(a: Pick<Archive, 'headline'>, parts: RenderKeyParts): string {
  return sha256Hex(canonicalJson(plain({ format: 1, sources: parts.sources, settings: parts.settings, headline: a.headline })));
}

/** What a page shows from the site-wide facts of one server beyond its view (the caller computes these once per server). */
export interface PageExtras {
  /** The quality summary the page counts (pass, fail, unknown). */
  quality: unknown;
  /** The registry entry the page describes (as read from the archive), or null. */
  entry: unknown;
  /** The contract family line the page shows (its memberships, each family's id, size and platform); absent: none. */
  family?: unknown;
}

/**
 * Every input the server's page, change pages, feeds, badge and JSON Patches show, with what moves daily
 * replaced by what the page shows instead (stateSince, pageStrip, shownLastSeen, shownLastOk).
 */
export function serverPageInputs(a: Archive, s: ServerView, extras: PageExtras, objectsUrl: string | null): unknown {
  const strip = pageStrip(s);
  const [from, to] = [strip[0]?.firstDay ?? null, strip.at(-1)?.lastDay ?? null];
  const bodies = new Set<string>();
  for (const v of s.versions) if (v.bodySha256) bodies.add(v.bodySha256);
  for (const c of s.changes) for (const b of [c.beforeBody, c.afterBody]) if (b) bodies.add(b);
  const l = s.latest;
  return plain({
    name: s.name,
    slug: s.slug,
    endpoint: s.endpoint,
    status: s.status,
    errorClass: s.errorClass,
    notAttemptedReason: s.notAttemptedReason,
    latest: { http_status: l.http_status, detail: l.detail, registry_version: l.registry_version, registry_status: l.registry_status, server_name: l.server_name, server_version: l.server_version, protocol_version: l.protocol_version },
    registry: s.registryRow && { registry_version: s.registryRow.registry_version, registry_status: s.registryRow.registry_status },
    entry: extras.entry === null || extras.entry === undefined ? null : sha256Hex(canonicalJson(plain(extras.entry))),
    retiredOn: s.status === 'retired' ? s.lastObserved.slice(0, 10) : null,
    firstObserved: s.firstObserved.slice(0, 10),
    stateSince: stateSince(s),
    lastOk: shownLastOk(s),
    answered: s.lastOk !== null,
    toolCount: s.toolCount,
    head: s.head && { ...s.head, lastSeen: shownLastSeen(s, s.head) },
    versions: s.versions.map((v) => ({ ...v, lastSeen: shownLastSeen(s, v) })),
    changes: s.changes,
    instructionChanges: s.instructionChanges,
    lastChange: s.lastChange,
    repeatMover: s.repeatMover,
    current: s.current && { ...s.current, observedAt: undefined },
    strip,
    degraded: from && to ? archiveIndex(a).degradedDays.filter((d) => d >= from && d <= to) : [],
    bodyFindings: archiveIndex(a).findingsOf.get(s.name) ?? [],
    caching: stableCaching(a.v2?.cachingByTarget.get(s.name) ?? null),
    quality: extras.quality,
    family: extras.family ?? null,
    badge: stableBadgeText(s, a.asOfDay),
    // Where each body the pages link lives (on the site, or in the object store): it depends on what
    // every page shows (linked-objects.ts siteBodies), so a link can move without this server changing.
    bodyLinks: [...bodies].sort().map((sha) => bodyUrl(a, sha, objectsUrl, (p) => p)),
  });
}

/** Per archive, what every server's inputs look up: built once, not searched per server (535,000 servers at year 5). */
const INDEXES = new WeakMap<Archive, { degradedDays: string[]; findingsOf: Map<string, Archive['bodyFindings']> }>();
function archiveIndex(a: Archive) {
  let x = INDEXES.get(a);
  if (!x) {
    const findingsOf = new Map<string, Archive['bodyFindings']>();
    for (const b of a.bodyFindings) {
      let list = findingsOf.get(b.target);
      if (!list) findingsOf.set(b.target, (list = []));
      list.push(b);
    }
    INDEXES.set(a, (x = { degradedDays: a.runs.filter((r) => r.degraded).map((r) => r.day), findingsOf }));
  }
  return x;
}

/**
 * What the page shows of a server's list caching: its values, never the run they were read on (the latest
 * full v2 run is a new one every day, so its id and day would render every such server daily).
 */
function stableCaching(c: ListCachingView | null): Omit<ListCachingView, 'run_id' | 'day' | 'observed_at'> | null {
  if (c === null) return null;
  const { run_id: _run, day: _day, observed_at: _at, ...values } = c;
  return values;
}

/** The fingerprint of a server's pages and files: SHA-256 of the site-wide key and its inputs (canonical JSON). */
export function serverFingerprint(key: string, inputs: unknown): string {
  return sha256Hex(canonicalJson({ key, inputs: plain(inputs) }));
}

/** The fingerprints a publish records: format, the site-wide key they were computed under, and one per server slug. */
export interface FingerprintsFile {
  format: 1;
  key: string;
  servers: Record<string, string>;
}

/** Servers whose fingerprint differs from the published one, or that have none (new): the ones to render. */
export function changedSlugs(current: ReadonlyMap<string, string>, published: Readonly<Record<string, string>> | null): Set<string> {
  const out = new Set<string>();
  for (const [slug, fp] of current) if (published?.[slug] !== fp) out.add(slug);
  return out;
}

/** JSON's own view of a value (undefined fields dropped, dates as strings): what canonicalJson accepts. */
function plain(v: unknown): unknown {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}
