// Which servers a build renders (MCP_SCHEMA_SERVER_PAGES, settings.ts): every server, or with
// "changed" only those whose fingerprint (src/outputs/server-pages-incremental.ts) differs from the
// one last published — new servers included. The per-server routes' getStaticPaths and the
// per-server file writers (post-build.ts) ask here, so the pages and the files follow one selection.
//
// The published fingerprints live in the file host's manifest (collector/ops/publish-files.ts), which
// is replaced only after every upload succeeded: a publish that failed half-way leaves the old
// fingerprints, so the next build renders those servers again and the next publish finishes the job.
// The build reads them from a file (MCP_SCHEMA_PUBLISHED_FINGERPRINTS, written by
// `npm run publish-files -- --fingerprints-out <file>`) and writes this build's into the file host's
// folder (FINGERPRINTS_FILE), which publish-files records in the manifest last.
//
// Not in the build cache: the cache says what was built, not what was published, and a cache lost or
// restored from another run would skip servers the bucket never received.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson, SERVER_FINGERPRINTS_FILE, sha256Hex } from '../lib/index.ts';
import type { Archive, ServerRow, ServerView } from '../loader/views.ts';
import { eachServer } from '../loader/shards.ts';
import { familiesOf } from '../loader/families.ts';
import { qualityBlock } from '../outputs/descriptor.ts';
import { changedSlugs, renderKey, serverFingerprint, serverPageInputs, type FingerprintsFile } from '../outputs/server-pages-incremental.ts';
import { basePath, fileHost, objectsUrl, partsOnly, publication, publishedFingerprintsFile, serverPagesMode, simulated, siteUrl, sourceRoot } from './settings.ts';
import { siteArchive, siteRegistrySchemas } from './site-archive.ts';

/** This build's fingerprints, in the file host's folder: publish-files records them in its manifest, never as a file of the site. */
export const FINGERPRINTS_FILE = SERVER_FINGERPRINTS_FILE;

/** What the build renders: null for every server, else the slugs whose fingerprint moved. */
export interface ServerSelection {
  mode: 'site' | 'all' | 'changed';
  /** null: every server. */
  rendered: Set<string> | null;
  /** This build's fingerprints (empty in mode "site": nothing is published incrementally). */
  fingerprints: FingerprintsFile | null;
  /** Whether a published fingerprints file was found (mode "changed"). */
  published: boolean;
}

/** The sources a server page is rendered from: a change to any of them renders every page again. */
const SOURCES = ['src', 'content', 'public', 'astro.config.mjs', 'package-lock.json'];

function sourcesHash(root: string): string {
  const files: string[] = [];
  const walk = (rel: string): void => {
    const abs = path.join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) for (const e of readdirSync(abs).sort()) walk(path.join(rel, e));
    else files.push(rel);
  };
  for (const s of SOURCES) walk(s);
  const h = new Map<string, string>();
  for (const f of files.sort()) h.set(f.split(path.sep).join('/'), sha256Hex(readFileSync(path.join(root, f))));
  return sha256Hex(canonicalJson(Object.fromEntries(h)));
}

/** Read a published fingerprints file: a missing file is "nothing published"; anything else that is not one is refused. */
export function readPublishedFingerprints(file: string): FingerprintsFile | null {
  if (!existsSync(file)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`MCP_SCHEMA_PUBLISHED_FINGERPRINTS (${file}) is not JSON: write it again with npm run publish-files -- --fingerprints-out, or remove it to render every server`);
  }
  const p = parsed as Partial<FingerprintsFile> | null;
  const ok = p !== null && typeof p === 'object' && p.format === 1 && typeof p.key === 'string' && typeof p.servers === 'object' && p.servers !== null && !Array.isArray(p.servers) && Object.values(p.servers).every((v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v));
  if (!ok) throw new Error(`MCP_SCHEMA_PUBLISHED_FINGERPRINTS (${file}) is not {"format": 1, "key": …, "servers": {slug: sha256}}: remove it to render every server`);
  return p as FingerprintsFile;
}

/** Every server's fingerprint under this build's key. */
export async function computeFingerprints(a: Archive): Promise<FingerprintsFile> {
  const pub = publication();
  const key = renderKey(a, {
    sources: sourcesHash(sourceRoot()),
    settings: { site: siteUrl(), base: basePath(), files: fileHost()?.url ?? null, objects: objectsUrl(), simulated: simulated(), partsOnly: partsOnly(), release: pub.releaseDir !== null },
  });
  const bySlug = new Map<string, string>();
  const schemas = siteRegistrySchemas();
  const families = await familiesOf(a);
  for await (const [, s] of eachServer(a)) {
    // The quality summary and registry entry exactly as the server page computes them.
    const current = s.head?.bodySha256 ? await a.tools(s.head.bodySha256, s.head.toolsSha256) : null;
    const entry = s.registryRow ? await a.registryEntry(s.registryRow) : null;
    const quality = qualityBlock(a, s, current, entry && typeof entry === 'object' ? schemas.check((entry as { server?: unknown }).server) : null, pub).summary;
    // The family line (components/FamilyLine.astro) reads the memberships and each family's size and platform.
    const memberships = families.byTarget.get(s.name) ?? [];
    const family = memberships.length === 0 ? null : { memberships, families: memberships.map((m) => { const f = families.byId.get(m.family); return f ? { id: f.id, size: f.size, platform: f.platform } : null; }) };
    bySlug.set(s.slug, serverFingerprint(key, serverPageInputs(a, s, { quality, entry, family }, pub.objectsUrl ?? null)));
  }
  // In name order (Archive.rows), whatever the number of shards: the file's bytes do not depend on it.
  const servers: Record<string, string> = {};
  for (const r of a.rows) if (bySlug.has(r.slug)) servers[r.slug] = bySlug.get(r.slug)!;
  return { format: 1, key, servers };
}

const MEMO = Symbol.for('mcp-schema.server-selection');
type Memo = { archive: Archive; selection: Promise<ServerSelection> };

/** The build's selection, computed once per archive (the pages and the post-build hook load this module separately: the memo is process-wide). */
export function serverSelection(a: Archive): Promise<ServerSelection> {
  const g = globalThis as { [MEMO]?: Memo };
  if (g[MEMO]?.archive === a) return g[MEMO].selection;
  const selection = (async (): Promise<ServerSelection> => {
    const mode = serverPagesMode();
    if (mode === 'site') return { mode, rendered: null, fingerprints: null, published: false };
    const fingerprints = await computeFingerprints(a);
    if (mode === 'all') return { mode, rendered: null, fingerprints, published: false };
    const published = readPublishedFingerprints(publishedFingerprintsFile()!);
    return { mode, rendered: changedSlugs(new Map(Object.entries(fingerprints.servers)), published?.servers ?? null), fingerprints, published: published !== null };
  })();
  g[MEMO] = { archive: a, selection };
  return selection;
}

/**
 * The rows of the servers whose pages this build renders, in shard order (each shard's in name order):
 * a server route's getStaticPaths returns them so, and each page awaits Archive.server(slug), so the
 * pages of one shard render while its views are alive and each shard is derived once.
 */
export async function renderedRows(): Promise<ServerRow[]> {
  const a = await siteArchive();
  const { rendered } = await serverSelection(a);
  const rows = rendered === null ? a.rows : a.rows.filter((s) => rendered.has(s.slug));
  return [...rows].sort((x, y) => x.shard - y.shard);
}

/** The servers whose pages and per-server files this build writes, shard by shard (one shard's views alive at a time). */
export async function* renderedServers(): AsyncGenerator<ServerView> {
  const a = await siteArchive();
  const { rendered } = await serverSelection(a);
  for await (const [, s] of eachServer(a)) if (rendered === null || rendered.has(s.slug)) yield s;
}

/** Write this build's fingerprints beside the file host's files (nothing without server pages on the file host). */
export async function writeFingerprints(a: Archive): Promise<number | null> {
  const { fingerprints } = await serverSelection(a);
  const host = fileHost();
  if (!fingerprints || !host) return null;
  await writeFile(path.join(host.dir, FINGERPRINTS_FILE), `${JSON.stringify(fingerprints)}\n`);
  return Object.keys(fingerprints.servers).length;
}
