// The site build's settings: every environment variable and the working directory are read here and
// nowhere else in src/ (test/layout.test.ts holds the tree to it; astro.config.mjs reads the out
// folder, site URL and base itself, see there). Everything below reads at call time, so a test can
// set a variable and build.
//   MCP_SCHEMA_DATA         the archive directory (default: ./data)
//   MCP_SCHEMA_CACHE        the build cache (default: ./.cache/mcp-schema; safe to delete)
//   MCP_SCHEMA_WORKERS      day-summary worker threads for a first build (default: min(4, cores); 0: none)
//   MCP_SCHEMA_SIMULATED    "1" shows the simulated-data banner on every page (demo builds)
//   MCP_SCHEMA_SITE_URL     the permanent base URL used in citations, feeds and the API (also astro.config.mjs)
//   MCP_SCHEMA_BASE         the path the site is served under (GitHub Pages project sites: /<repo>/)
//   MCP_SCHEMA_RELEASE_DIR  where the big bundles go, to be published as release assets (unset: all on the site)
//   MCP_SCHEMA_RELEASE_URL  the public base URL of that folder (default: <site>/data/release/)
//   MCP_SCHEMA_OBJECTS_URL  the public base URL of the object store's objects/ folder (<base><aa>/<sha256>): with it the site
//                           keeps only the raw bodies its pages show and links older ones there (default: every body on the site, /objects/)
//   MCP_SCHEMA_FILES_DIR, MCP_SCHEMA_FILES_URL  the file host (both or neither): the build writes the machine-readable
//                           files (src/lib/file-host.ts onFileHost: /api/, /objects/, per-server badges, feeds and patches,
//                           the data bundles) to that folder instead of the site, and every link to them points to the URL;
//                           npm run publish-files uploads the folder (default: everything on the site)
//   MCP_SCHEMA_SERVER_PAGES  where each server's page and change pages go, and which are rendered (src/site/changed-servers.ts):
//                           unset: on the site, every server (as before); "all": on the file host (it must be configured),
//                           every server; "changed": on the file host, only the servers whose fingerprint differs from the
//                           published one (new servers included), the per-server files likewise. With either, every link to
//                           a site page is absolute (a page on the file host links back to the site)
//   MCP_SCHEMA_PUBLISHED_FINGERPRINTS  with "changed": the fingerprints last published (a file written by
//                           npm run publish-files -- --fingerprints-out <file>); required with "changed"; a missing file
//                           means nothing was published yet (every server renders)
//   MCP_SCHEMA_PUBLISHED_BUNDLES  with a file host and MCP_SCHEMA_RELEASE=parts: the sealed-months record last published
//                           (npm run publish-files -- --sealed-out <file>); its closed months' bundles are not written again
//                           (src/outputs/sealed-months.ts). Unset or a missing file: every month the site carries is written
//   MCP_SCHEMA_TIMINGS      a file the build appends its stage timings to (bench/build.ts)
//   MCP_SCHEMA_SEARCH       "after": the Astro build leaves the search index to src/site/search-step.ts, run once
//                           Astro has exited (npm run build, src/site/build.ts, sets it), so the build's peak memory is the larger of
//                           the two processes, not their sum (default: indexed inside the Astro build)
//   MCP_SCHEMA_OUT          the site folder (default ./dist; astro.config.mjs reads it too)
//   MCP_SCHEMA_PUBLIC_KEY   the public key the chain is signed with, shown on /data/ (default: keys/mcp-schema-ed25519.pub; the demo's DEMO key)
//   MCP_SCHEMA_STORE, MCP_SCHEMA_STORE_ENDPOINT, MCP_SCHEMA_STORE_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
//                           the S3-compatible store objects are read from (src/archive/store-config.ts; unset: data/ alone)
//   MCP_SCHEMA_BRIDGE_DAYS  the bridge's length the headline waits for (default 14, BRIDGE_DAYS; only local worlds and demos, like the collector's --bridge-days)
//   MCP_SCHEMA_SERVERS_PER_PAGE  servers one page of /servers/ lists (default 500, SERVERS_PER_PAGE; a small fixture sets fewer to build several pages)
//   MCP_SCHEMA_SHARDS       the loader's shards (src/loader/shards.ts): a positive integer forces that many (tests, operators
//                           bounding memory further); unset: by the archive's size, ⌈targets ÷ 20,000⌉. The site's bytes do not depend on it
// The build runs from the repository root (npm run build): sourceRoot() is that folder (the keys, the
// server.json schemas registry entries are checked against, the day-summary workers' sources).
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { keyIdOf, onFileHost, publicKeyFromPem } from '../lib/index.ts';
import { DOI_PATTERN, type Publication } from '../outputs/publication.ts';
import type { StoreEnv } from '../archive/store-config.ts';

export const DEFAULT_SITE_URL = 'https://mcp-schema.example.org';

export function dataDir(): string {
  return path.resolve(process.env.MCP_SCHEMA_DATA || 'data');
}

/** The variables that name the archive's object store (read by src/archive/store-config.ts). */
export function storeEnv(): StoreEnv {
  return process.env;
}

/** Whether the Astro build indexes the search itself (default) or leaves it to src/site/search-step.ts. */
export function searchAfterBuild(): boolean {
  return process.env.MCP_SCHEMA_SEARCH === 'after';
}

/** The built site's folder (astro.config.mjs outDir). */
export function outDir(): string {
  return path.resolve(process.env.MCP_SCHEMA_OUT || 'dist');
}

export function cacheDir(): string {
  return path.resolve(process.env.MCP_SCHEMA_CACHE || path.join('.cache', 'mcp-schema'));
}

export function workers(): number {
  return Number(process.env.MCP_SCHEMA_WORKERS ?? Math.min(4, availableParallelism()));
}

/** The repository root: day-summary workers import the loader from source there, and src/lib is fingerprinted there. */
export function sourceRoot(): string {
  return process.cwd();
}

/** The official server.json schemas registry entries are checked against (fixtures/registry/spec/, with their PROVENANCE.md; src/outputs/registry-schemas.ts). */
export function registrySchemaDir(): string {
  return path.join(sourceRoot(), 'fixtures', 'registry', 'spec');
}

/** Servers a page of /servers/ lists (MCP_SCHEMA_SERVERS_PER_PAGE, a positive integer), or undefined for the default. */
export function serversPerPage(): number | undefined {
  const v = process.env.MCP_SCHEMA_SERVERS_PER_PAGE;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`MCP_SCHEMA_SERVERS_PER_PAGE must be a positive integer, got ${JSON.stringify(v.slice(0, 40))}`);
  return n;
}

/** The loader's shards (MCP_SCHEMA_SHARDS, a positive integer), or 'auto': by the archive's size (shardCount). */
export function shards(): number | 'auto' {
  const v = process.env.MCP_SCHEMA_SHARDS;
  if (v === undefined || v === '' || v === 'auto') return 'auto';
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`MCP_SCHEMA_SHARDS must be a positive integer or "auto", got ${JSON.stringify(v.slice(0, 40))}`);
  return n;
}

/** The bridge's length in days (MCP_SCHEMA_BRIDGE_DAYS, a positive integer), or undefined for the default. */
export function bridgeDays(): number | undefined {
  const v = process.env.MCP_SCHEMA_BRIDGE_DAYS;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`MCP_SCHEMA_BRIDGE_DAYS must be a positive integer, got ${JSON.stringify(v.slice(0, 40))}`);
  return n;
}

export function simulated(): boolean {
  return process.env.MCP_SCHEMA_SIMULATED === '1';
}

export function siteUrl(): string {
  return (process.env.MCP_SCHEMA_SITE_URL || DEFAULT_SITE_URL).replace(/\/+$/, '');
}

/** Base path the site is served under (GitHub Pages project sites use `/<repo>/`), with a trailing slash. */
export function basePath(): string {
  const base = (process.env.MCP_SCHEMA_BASE || '/').replace(/\/+$/, '');
  return `${base.startsWith('/') ? base : `/${base}`}/`.replace(/^\/\/$/, '/');
}

/**
 * A site-internal link: `href('/servers/')` → `/servers/` or `/<base>/servers/`; a path the file host
 * serves (src/lib/file-host.ts) is its absolute URL there when one is configured.
 */
export function href(pathname: string): string {
  // With server pages on the file host, a link to a site page is absolute: the same link is written
  // into pages the file host serves, where a root-relative one would stay on the file host's origin.
  return onFileHostUrl(pathname) ?? (serverPagesHosted() ? siteUrl() : '') + basePath() + pathname.replace(/^\/+/, '');
}

/** The permanent absolute URL of a site path (citations, feeds, the API): on the file host for its paths. */
export function permalink(pathname: string): string {
  return onFileHostUrl(pathname) ?? siteUrl() + basePath() + pathname.replace(/^\/+/, '');
}

/** The file host's settings (MCP_SCHEMA_FILES_DIR and MCP_SCHEMA_FILES_URL, both or neither), or null: every file on the site. */
export function fileHost(): { dir: string; url: string } | null {
  const dir = process.env.MCP_SCHEMA_FILES_DIR || '';
  const url = process.env.MCP_SCHEMA_FILES_URL || '';
  if (!dir && !url) return null;
  // Read at call time like every setting here, parsed once per value (every link asks).
  const key = `${dir}\0${url}`;
  if (fileHostMemo?.key === key) return fileHostMemo.value;
  if (!dir || !url) throw new Error(`MCP_SCHEMA_FILES_DIR and MCP_SCHEMA_FILES_URL go together (the folder the build writes the file host's files to, and its public URL): ${dir ? 'MCP_SCHEMA_FILES_URL' : 'MCP_SCHEMA_FILES_DIR'} is not set`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`MCP_SCHEMA_FILES_URL is not a URL: ${JSON.stringify(url.slice(0, 100))}`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`MCP_SCHEMA_FILES_URL must be http(s)://, not ${JSON.stringify(u.protocol)}`);
  fileHostMemo = { key, value: { dir: path.resolve(dir), url: u.href.replace(/\/*$/, '/') } };
  return fileHostMemo.value;
}
let fileHostMemo: { key: string; value: { dir: string; url: string } } | null = null;

function onFileHostUrl(pathname: string): string | null {
  const host = fileHost();
  const p = `/${pathname.replace(/^\/+/, '')}`;
  return host && onFileHost(p.replace(/[?#].*$/, ''), { serverPages: serverPagesHosted() }) ? host.url + p.slice(1) : null;
}

export type ServerPagesMode = 'site' | 'all' | 'changed';

/** MCP_SCHEMA_SERVER_PAGES: unset (the site, every server), "all" (the file host, every server) or "changed" (the file host, changed servers only). */
export function serverPagesMode(): ServerPagesMode {
  const v = process.env.MCP_SCHEMA_SERVER_PAGES;
  if (v === undefined || v === '') return 'site';
  if (v !== 'all' && v !== 'changed') throw new Error(`MCP_SCHEMA_SERVER_PAGES must be "all", "changed" or unset, not ${JSON.stringify(v.slice(0, 40))}`);
  if (!fileHost()) throw new Error(`MCP_SCHEMA_SERVER_PAGES=${v} puts server pages on the file host: set MCP_SCHEMA_FILES_DIR and MCP_SCHEMA_FILES_URL too`);
  return v;
}

/** Whether each server's page and change pages are the file host's (MCP_SCHEMA_SERVER_PAGES set). */
export function serverPagesHosted(): boolean {
  return serverPagesMode() !== 'site';
}

/** MCP_SCHEMA_PUBLISHED_FINGERPRINTS, required with MCP_SCHEMA_SERVER_PAGES=changed; null otherwise. */
export function publishedFingerprintsFile(): string | null {
  if (serverPagesMode() !== 'changed') return null;
  const v = process.env.MCP_SCHEMA_PUBLISHED_FINGERPRINTS;
  if (!v) throw new Error('MCP_SCHEMA_SERVER_PAGES=changed renders only what changed since the last publish: set MCP_SCHEMA_PUBLISHED_FINGERPRINTS to the file npm run publish-files -- --fingerprints-out <file> wrote (a missing file renders every server)');
  return path.resolve(v);
}

/** MCP_SCHEMA_PUBLISHED_BUNDLES: the sealed-months record's file, or null when unset. */
export function publishedBundlesFile(): string | null {
  const v = process.env.MCP_SCHEMA_PUBLISHED_BUNDLES;
  return v ? path.resolve(v) : null;
}

export function releaseDir(): string | null {
  return process.env.MCP_SCHEMA_RELEASE_DIR ? path.resolve(process.env.MCP_SCHEMA_RELEASE_DIR) : null;
}

export function releaseUrl(): string {
  return (process.env.MCP_SCHEMA_RELEASE_URL || permalink('/data/release/')).replace(/\/*$/, '/');
}

/** The public base of the object store's objects/ folder with a trailing slash; null (the default): every raw body on the site. */
export function objectsUrl(): string | null {
  const v = process.env.MCP_SCHEMA_OBJECTS_URL;
  return v ? v.replace(/\/*$/, '/') : null;
}

/** MCP_SCHEMA_RELEASE=parts: older months are the monthly parts' (Publication.partsOnly); anything else but unset is refused. */
export function partsOnly(): boolean {
  const v = process.env.MCP_SCHEMA_RELEASE;
  if (v === undefined || v === '') return false;
  if (v === 'parts') return true;
  throw new Error(`MCP_SCHEMA_RELEASE must be "parts" or unset, not ${JSON.stringify(v.slice(0, 40))}`);
}

/**
 * MCP_SCHEMA_CONCEPT_DOI: the concept DOI of the dataset's Zenodo record (docs/OPERATIONS.md, "DOI");
 * unset or empty: no citation names a DOI. Anything that is not a DOI is refused, never published.
 */
export function conceptDoi(): string | null {
  const v = process.env.MCP_SCHEMA_CONCEPT_DOI?.trim();
  if (v === undefined || v === '') return null;
  if (!DOI_PATTERN.test(v)) throw new Error(`MCP_SCHEMA_CONCEPT_DOI must be a DOI such as 10.5281/zenodo.1234567, not ${JSON.stringify(v.slice(0, 60))}`);
  return v;
}

/** How the outputs address the published site (src/outputs/publication.ts). */
export function publication(): Publication {
  return { permalink, releaseDir: releaseDir(), releaseUrl: releaseUrl(), simulated: simulated(), objectsUrl: objectsUrl(), partsOnly: partsOnly(), fileHost: fileHost(), conceptDoi: conceptDoi() };
}

export function timingsFile(): string | null {
  return process.env.MCP_SCHEMA_TIMINGS || null;
}

/** The public key the chain and the editions are signed with, as PEM with its key id; null when there is none yet. */
export function publicKey(): { pem: string; keyId: string; file: string } | null {
  const file = process.env.MCP_SCHEMA_PUBLIC_KEY ? path.resolve(process.env.MCP_SCHEMA_PUBLIC_KEY) : path.join(sourceRoot(), 'keys', 'mcp-schema-ed25519.pub');
  if (!existsSync(file)) return null;
  const pem = readFileSync(file, 'utf8');
  const label = /^(.+)-ed25519\.pub$/.exec(path.basename(file))?.[1] ?? 'mcp-schema';
  return { pem, keyId: keyIdOf(publicKeyFromPem(pem), label), file: path.basename(file) };
}

/** The whole environment, for the build entry (build.ts) to hand its two steps, which read their settings here again. */
export function buildEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}
