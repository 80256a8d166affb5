// The raw bodies of every contract version and change (what server pages link to), of each server's
// latest successful answer, of each set hash and body finding (what the descriptors, tools, set files
// and feeds link to), copied to the site at their archive path plus an extension from the Content-Type
// they were served with (/objects/<aa>/<sha256>.json, or .txt for text/event-stream and anything else):
// static hosts type files by extension, so JSON is sent as JSON and an SSE body as plain text —
// readable in a browser, never HTML, never an extension-less octet-stream download. The
// name before the extension is still the SHA-256 of the bytes; every link to a raw body goes through
// rawObjectPath.
//
// Bounded (the site stays under 1 GB; DESIGN "The site's size"): every contract change adds a raw body, so over years
// the bodies are most of what grows. With a public object store configured (MCP_SCHEMA_OBJECTS_URL,
// Publication.objectsUrl: the public base of the bucket's objects/ folder) the site copies only the
// bodies its pages show in full — every server's latest answer and the before and after of the
// FULL_CHANGES changes its page shows with a diff — and links every other body (older versions and
// changes, listed one line each) at
// its key in the store, `<objectsUrl><aa>/<sha256>` (the archive's own name, no extension). Without
// one (the default), every linked body is on the site as before.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isObjectName, objectKey } from '../archive/layout.ts';
import { readObject } from '../archive/objects.ts';
import type { Archive, ServerView } from '../loader/views.ts';
import { eachServer } from '../loader/shards.ts';

/** The site path of a raw body: its archive key plus the extension its Content-Type calls for. */
export function rawObjectPath(sha256: string, contentType: string | null): string {
  const json = /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType?.trim() ?? '');
  return `/${objectKey(sha256)}${json ? '.json' : '.txt'}`;
}

/**
 * Changes shown with a diff (a diff per tool, their raw bodies on the site): each has a page of its own,
 * /servers/<slug>/changes/<id>/. The same as INLINE_CHANGES (at 42,000 servers for years the
 * change pages would be hundreds of MB of the 1 GB site): the changes a server page draws, each with its
 * whole diff on its own page; older changes are a line each with their JSON Patch and raw bodies.
 */
export const FULL_CHANGES = 3;
/**
 * Of those, the newest shown in full on the server page itself (a busy server's page was
 * 910 KB); the others are one line each there, their diff on their own page (plain HTML, no script).
 * One: the servers that change are a tenth of the pages and nearly all of the changes'
 * bytes on them — three drawn diffs were ~12 KB of a busy server's page, on the site's 1 GB.
 */
export const INLINE_CHANGES = 1;
/**
 * Diff lines the server page shows over all its inline changes; past it a tool's diff is on the change's
 * own page. A drawn line is about 200 bytes of HTML, an unchanged one about 60: 240 lines, ~50 KB (the
 * demo's github-mcp-server page was 353 KB with 600, 214 KB with 240).
 */
export const SERVER_PAGE_DIFF_LINES = 180;
/** Findings about tools a change does not draw, listed on the server page per change (the rest: counted, on its own page). */
export const SERVER_PAGE_OTHER_FINDINGS = 8;
/** Diff lines a change's own page shows over all its tools; past it, the JSON Patch and the raw bodies have everything. */
export const CHANGE_PAGE_DIFF_LINES = 800;

/**
 * The server page's "Current tools" (the server pages are most of the site at the registry's
 * size): a tool's description is cut at TOOLS_PAGE_DESCRIPTION characters; tools are shown with their
 * description and parameter names until TOOLS_PAGE_CHARS of those are used, then by name only, up to
 * TOOLS_PAGE_NAMES names, then counted. The schemas are in the tools file and the raw body.
 */
export const TOOLS_PAGE_DESCRIPTION = 300;
export const TOOLS_PAGE_CHARS = 4_000;
export const TOOLS_PAGE_NAMES = 200;

/** The site path of a change's own page (its diff and findings in full). */
export function changePagePath(c: { slug: string; id: string }): string {
  return `/servers/${c.slug}/changes/${c.id}/`;
}
/** Contract versions a server page lists (the newest); the rest are in the downloads. */
export const RECENT_VERSIONS = 10;
/**
 * Changes a server page lists (the newest INLINE_CHANGES drawn, the rest one line each, ~770 bytes with
 * their four links); older ones keep only their anchor. 12: a busy server's page was 17 KB of lines at 25.
 */
export const RECENT_CHANGES = 12;
/** Older changes whose anchor (#change-<id>, with its day) the server page keeps; past it they are counted, each in the downloads. */
export const ANCHORED_CHANGES = 300;

/** The bodies a server page shows: its latest answer's, and the before and after of the changes shown in full. */
export function serverPageBodies(s: ServerView): string[] {
  const shas: string[] = [];
  if (s.current) shas.push(s.current.bodySha256);
  if (s.head?.bodySha256) shas.push(s.head.bodySha256);
  for (const c of s.changes.slice(0, FULL_CHANGES)) for (const sha of [c.beforeBody, c.afterBody]) if (sha) shas.push(sha);
  return shas;
}

/** Every body anything on the site links to (versions, changes, latest answers, sets, body findings). */
async function everyLinkedBody(a: Archive): Promise<Set<string>> {
  const shas = new Set<string>();
  // Shard by shard (Archive.serversIn): one shard's views alive at a time.
  for await (const [, s] of eachServer(a)) {
    for (const v of s.versions) if (v.bodySha256) shas.add(v.bodySha256);
    if (s.current) shas.add(s.current.bodySha256);
  }
  for (const c of a.changes) for (const sha of [c.beforeBody, c.afterBody]) if (sha) shas.add(sha);
  for (const set of a.sets) shas.add(set.bodySha256);
  for (const b of a.bodyFindings) shas.add(b.bodySha256);
  return shas;
}

// On globalThis, as the families are (src/loader/families.ts): the pages and the post-build outputs load
// this module as two instances and share one Archive object.
const ON_SITE = Symbol.for('mcp-schema.site-bodies');
type Holder = { [ON_SITE]?: WeakMap<Archive, { done: Set<string> | null; loading: Promise<Set<string>> }> };
const onSiteCache = (): NonNullable<Holder[typeof ON_SITE]> => ((globalThis as Holder)[ON_SITE] ??= new WeakMap());

/**
 * Gather siteBodies once per archive, shard by shard (Archive.serversIn: one shard's views alive at a
 * time); the site's archive does it on load when an object store is set (src/site/site-archive.ts).
 */
export function loadSiteBodies(a: Archive): Promise<Set<string>> {
  const cache = onSiteCache();
  let held = cache.get(a);
  if (!held) {
    const entry: { done: Set<string> | null; loading: Promise<Set<string>> } = { done: null, loading: Promise.resolve(new Set()) };
    entry.loading = (async () => {
      const shas = new Set<string>();
      for await (const [, s] of eachServer(a)) for (const sha of serverPageBodies(s)) shas.add(sha);
      entry.done = shas;
      return shas;
    })();
    cache.set(a, (held = entry));
  }
  return held.loading;
}

/**
 * The bodies copied to the site when an object store holds the rest: what server pages show
 * (serverPageBodies). Gathered by loadSiteBodies first; with one shard it can be gathered here.
 */
export function siteBodies(a: Archive): Set<string> {
  const held = onSiteCache().get(a)?.done;
  if (held) return held;
  if (a.shards > 1) throw new Error('siteBodies: the archive is derived in shards; await loadSiteBodies(archive) first');
  const shas = new Set(a.servers.flatMap(serverPageBodies));
  onSiteCache().set(a, { done: shas, loading: Promise.resolve(shas) });
  return shas;
}

/** Where a raw body is published: a site path (to pass to href or permalink), or an absolute URL in the object store. */
export type BodyLocation = { sitePath: string } | { url: string };

/** The public base of the object store with one trailing slash, or null when every body is on the site. */
export function objectsBase(objectsUrl: string | null | undefined): string | null {
  return objectsUrl ? objectsUrl.replace(/\/*$/, '/') : null;
}

export function bodyLocation(a: Archive, sha256: string, objectsUrl: string | null | undefined): BodyLocation {
  const base = objectsBase(objectsUrl);
  if (base === null || siteBodies(a).has(sha256)) return { sitePath: rawObjectPath(sha256, a.contentType(sha256)) };
  return { url: `${base}${sha256.slice(0, 2)}/${sha256}` };
}

/** A raw body's link from a page (`sitePath` through the site's href) or a file (through permalink). */
export function bodyUrl(a: Archive, sha256: string, objectsUrl: string | null | undefined, site: (pathname: string) => string): string {
  const l = bodyLocation(a, sha256, objectsUrl);
  return 'url' in l ? l.url : site(l.sitePath);
}

/**
 * Copy the linked objects into `outDir` (every one, or with an object store only siteBodies); returns
 * how many were copied (a missing or corrupt object is skipped).
 */
export async function copyLinkedObjects(a: Archive, outDir: string, objectsUrl: string | null = null): Promise<number> {
  const shas = objectsBase(objectsUrl) === null ? await everyLinkedBody(a) : await loadSiteBodies(a);
  let copied = 0;
  const dirs = new Set<string>();
  for (const sha of shas) {
    if (!isObjectName(sha)) continue;
    const to = path.join(outDir, ...rawObjectPath(sha, a.contentType(sha)).split('/').filter(Boolean));
    try {
      if (!dirs.has(path.dirname(to))) {
        await mkdir(path.dirname(to), { recursive: true });
        dirs.add(path.dirname(to));
      }
      // Read through the archive's object store (a bucket when one is configured) and checked against
      // the name: a missing or corrupt object is skipped, never published.
      const bytes = await readObject(a.dir, sha);
      if (bytes === null) continue;
      await writeFile(to, bytes);
      copied++;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
    }
  }
  return copied;
}
