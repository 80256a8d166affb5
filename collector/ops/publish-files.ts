// Upload the file host's folder (src/lib/file-host.ts says what is in it, the site build
// writes it with MCP_SCHEMA_FILES_DIR) to its public bucket, under the same relative paths.
//
// Unlike the archive's store (content-addressed keys, written once), these are the site's files: a
// descriptor or a feed is rewritten when its server changes. So each file is put with the type a
// browser and a feed reader need, its MD5 (the store refuses a corrupted upload), and a Cache-Control
// that matches how it changes: raw bodies are named by their SHA-256 and never change (a year,
// immutable), everything else for five minutes. Only what changed is uploaded: a manifest of every
// published path and its SHA-256 sits in the bucket (`.published.json.gz`) and is replaced last, after
// every upload succeeded, so an interrupted run is re-done by the next one. Nothing is ever deleted:
// a URL that was published keeps answering (a server's descriptor, a month's bundle), as the site
// promises of its links.
//
// With server pages on the file host (the site's MCP_SCHEMA_SERVER_PAGES), the build also leaves its
// per-server fingerprints in the folder (SERVER_FINGERPRINTS_FILE). They are not a file of the site:
// they go into the same manifest, written last, so the fingerprints a build compares against are
// always those of files that were uploaded — a run that failed half-way leaves the old ones, and the
// next build renders those servers again (`--fingerprints-out` hands them to the build).
//
// The build's sealed months (SEALED_BUNDLES_FILE: closed months whose /data/ bundles it wrote, so the
// next build need not write them again) travel the same way: never uploaded as a file, laid over the
// manifest's record month by month, and written into the manifest only when every file the record
// names is in the bucket with those bytes — a record the bucket does not back would have the next
// build skip a month whose files are missing (`--sealed-out` hands it to the build).
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { mergeSealedBundles, parseSealedBundles, SEALED_BUNDLES_FILE, SERVER_FINGERPRINTS_FILE, type SealedBundles, unpublishedSealedFiles } from '../../src/lib/index.ts';

export const MANIFEST_KEY = '.published.json.gz';

/** The Content-Type a file is served with, from its name. */
export function contentTypeOf(file: string): string {
  const name = path.basename(file);
  if (name === 'feed.json') return 'application/feed+json; charset=utf-8';
  if (name === 'feed.xml') return 'application/rss+xml; charset=utf-8';
  const types: [RegExp, string][] = [
    [/\.json$/, 'application/json; charset=utf-8'],
    [/\.svg$/, 'image/svg+xml'],
    [/\.gz$/, 'application/gzip'],
    [/\.parquet$/, 'application/vnd.apache.parquet'],
    [/\.csv$/, 'text/csv; charset=utf-8'],
    [/\.jsonl$/, 'application/jsonl; charset=utf-8'],
    [/\.xml$/, 'application/xml; charset=utf-8'],
    // Server pages and their assets, with server pages on the file host (the site's MCP_SCHEMA_SERVER_PAGES).
    [/\.html$/, 'text/html; charset=utf-8'],
    [/\.css$/, 'text/css; charset=utf-8'],
    [/\.m?js$/, 'text/javascript; charset=utf-8'],
    [/(\.txt|\.cff|\.pub|^SHA256SUMS)$/, 'text/plain; charset=utf-8'],
  ];
  return types.find(([re]) => re.test(name))?.[1] ?? 'application/octet-stream';
}

/** How long a file may be cached: raw bodies (named by their SHA-256) and the build's assets (/_astro/, named by their content) forever, the rest briefly. */
export function cacheControlOf(rel: string): string {
  return /^objects\/[0-9a-f]{2}\/[0-9a-f]{64}\.(json|txt)$/.test(rel) || /^_astro\/[^/]+$/.test(rel) ? 'public, max-age=31536000, immutable' : 'public, max-age=300';
}

export interface PublishTarget {
  client: S3Client;
  bucket: string;
  /** '' or a folder ending in '/'. */
  prefix: string;
  description: string;
}

export interface PublishSummary {
  files: number;
  uploaded: number;
  bytes: number;
  unchanged: number;
  /** Paths the manifest had that this folder does not (kept, never deleted). */
  kept: number;
  /** Server fingerprints recorded in the manifest from the folder's SERVER_FINGERPRINTS_FILE (null: the folder had none). */
  fingerprints: number | null;
  /** Sealed months recorded in the manifest from the folder's SEALED_BUNDLES_FILE (null: the folder had none). */
  sealed: number | null;
}

type Manifest = Record<string, string>;

/** Per-server fingerprints as the site build writes them and the manifest keeps them. */
export interface Fingerprints {
  format: 1;
  key: string;
  servers: Record<string, string>;
}

/** What the bucket's manifest records besides its files, for the next build. */
export interface PublishedRecords {
  fingerprints: Fingerprints | null;
  sealed: SealedBundles | null;
}

interface Published extends PublishedRecords {
  files: Manifest;
}

const SEALED_SHAPE = '{"format": 1, "months": {"YYYY-MM": {"key": sha256, "files": [{name, resource, rows, sha256, bytes}]}}}';

const isHexMap = (v: unknown): v is Record<string, string> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string' && /^[0-9a-f]{64}$/.test(x));

function fingerprintsOf(v: unknown): Fingerprints | null {
  const f = v as Partial<Fingerprints> | null;
  return f !== null && typeof f === 'object' && f.format === 1 && typeof f.key === 'string' && /^[0-9a-f]{64}$/.test(f.key) && isHexMap(f.servers) ? (f as Fingerprints) : null;
}

/** Every file of the folder as a relative path with '/' (sorted). */
async function filesOf(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out.push(path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  return out.filter((rel) => rel !== SERVER_FINGERPRINTS_FILE && rel !== SEALED_BUNDLES_FILE).sort();
}

/** A record the build left in the folder, through `check`; null when there is none, an Error when it is not one. */
async function folderRecord<T>(dir: string, name: string, check: (v: unknown) => T | null, shape: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path.join(dir, name), 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const record = check(parsed);
  if (!record) throw new Error(`publish-files: ${name} in ${dir} is not ${shape}: build the folder again`);
  return record;
}

/** The fingerprints the bucket's manifest records (null: none yet), for the next build's MCP_SCHEMA_PUBLISHED_FINGERPRINTS. */
export async function publishedFingerprints(t: PublishTarget): Promise<Fingerprints | null> {
  return (await readManifest(t)).fingerprints;
}

/** The sealed months the bucket's manifest records (null: none yet), for the next build to skip. */
export async function publishedSealed(t: PublishTarget): Promise<SealedBundles | null> {
  return (await readManifest(t)).sealed;
}

/** Both records of the bucket's manifest, from one read. */
export async function publishedRecords(t: PublishTarget): Promise<PublishedRecords> {
  const { fingerprints, sealed } = await readManifest(t);
  return { fingerprints, sealed };
}

async function readManifest(t: PublishTarget): Promise<Published> {
  let bytes: Uint8Array;
  try {
    const answer = await t.client.send(new GetObjectCommand({ Bucket: t.bucket, Key: `${t.prefix}${MANIFEST_KEY}` }));
    bytes = await answer.Body!.transformToByteArray();
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return { files: {}, fingerprints: null, sealed: null };
    throw new Error(`publish-files: could not read ${MANIFEST_KEY} from ${t.description}: ${(error as Error).message.split('\n')[0]}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(gunzipSync(bytes).toString('utf8'));
  } catch {
    throw new Error(`publish-files: ${MANIFEST_KEY} in ${t.description} is not gzipped JSON: remove it to upload every file again`);
  }
  const files = (parsed as { files?: unknown } | null)?.files;
  if (!isHexMap(files)) {
    throw new Error(`publish-files: ${MANIFEST_KEY} in ${t.description} is not {"files": {path: sha256}}: remove it to upload every file again`);
  }
  const servers = (parsed as { fingerprints?: unknown }).fingerprints;
  const fingerprints = servers === undefined ? null : fingerprintsOf(servers);
  if (servers !== undefined && fingerprints === null) throw new Error(`publish-files: ${MANIFEST_KEY} in ${t.description} has fingerprints that are not {"format": 1, "key": sha256, "servers": {slug: sha256}}: remove it to upload every file again`);
  const months = (parsed as { sealed?: unknown }).sealed;
  const sealed = months === undefined ? null : parseSealedBundles(months);
  if (months !== undefined && sealed === null) throw new Error(`publish-files: ${MANIFEST_KEY} in ${t.description} has a sealed-months record that is not ${SEALED_SHAPE}: remove it to upload every file again`);
  return { files, fingerprints, sealed };
}

async function put(t: PublishTarget, key: string, body: Uint8Array, contentType: string, cacheControl: string): Promise<void> {
  const md5 = createHash('md5').update(body).digest('base64');
  try {
    await t.client.send(new PutObjectCommand({ Bucket: t.bucket, Key: `${t.prefix}${key}`, Body: body, ContentType: contentType, CacheControl: cacheControl, ContentMD5: md5 }));
  } catch (error) {
    throw new Error(`publish-files: put ${key} failed: ${(error as Error).message.split('\n')[0]!.slice(0, 200)} (${t.description})`);
  }
}

/**
 * Upload every file of `dir` whose SHA-256 differs from the bucket manifest's (all of them with
 * `all`), `concurrency` at a time, then the manifest. Throws on the first failed upload, or when the
 * sealed-months record names a file the bucket then does not hold with its SHA-256, before the
 * manifest is replaced.
 */
export async function publishFiles(dir: string, t: PublishTarget, o: { concurrency?: number; all?: boolean; onProgress?: (done: number, total: number) => void } = {}): Promise<PublishSummary> {
  const files = await filesOf(dir);
  if (files.includes(MANIFEST_KEY)) throw new Error(`publish-files: ${dir} holds a file named ${MANIFEST_KEY}, the bucket's manifest: not a build's folder`);
  const stamps = await folderRecord(dir, SERVER_FINGERPRINTS_FILE, fingerprintsOf, '{"format": 1, "key": sha256, "servers": {slug: sha256}}');
  const seals = await folderRecord(dir, SEALED_BUNDLES_FILE, parseSealedBundles, SEALED_SHAPE);
  const published: Published = o.all ? { files: {}, fingerprints: null, sealed: null } : await readManifest(t);
  const before = published.files;
  const after: Manifest = { ...published.files };
  const todo: { rel: string; bytes: Buffer; sha: string }[] = [];
  let unchanged = 0;
  for (const rel of files) {
    const bytes = await readFile(path.join(dir, rel));
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (before[rel] === sha) unchanged++;
    else todo.push({ rel, bytes, sha });
  }
  let next = 0;
  let done = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < todo.length) {
      const f = todo[next++]!;
      await put(t, f.rel, f.bytes, contentTypeOf(f.rel), cacheControlOf(f.rel));
      after[f.rel] = f.sha;
      bytes += f.bytes.length;
      o.onProgress?.(++done, todo.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 16, todo.length)) }, worker));
  // The folder's fingerprints over the published ones (a server the folder does not name keeps its own).
  const fingerprints = stamps ? { format: 1 as const, key: stamps.key, servers: sortKeys({ ...(published.fingerprints?.servers ?? {}), ...stamps.servers }) } : published.fingerprints;
  const restamped = stamps !== null && JSON.stringify(fingerprints) !== JSON.stringify(published.fingerprints);
  // The folder's sealed months over the published ones; the manifest never records a month whose files the bucket does not hold.
  const sealed = seals ? mergeSealedBundles(published.sealed, seals) : published.sealed;
  const missing = sealed ? unpublishedSealedFiles(sealed, after) : [];
  if (missing.length > 0) {
    const more = missing.length > 3 ? ` and ${missing.length - 3} more` : '';
    throw new Error(`publish-files: the sealed-months record names files the bucket does not hold with those bytes: ${missing.slice(0, 3).join(', ')}${more}; build the folder again`);
  }
  const resealed = seals !== null && JSON.stringify(sealed) !== JSON.stringify(published.sealed);
  if (todo.length > 0 || o.all || restamped || resealed) {
    const manifest = { format: 1, files: sortKeys(after), ...(fingerprints ? { fingerprints } : {}), ...(sealed ? { sealed } : {}) };
    await put(t, MANIFEST_KEY, gzipSync(JSON.stringify(manifest)), 'application/gzip', 'no-store');
  }
  const present = new Set(files);
  return { files: files.length, uploaded: todo.length, bytes, unchanged, kept: Object.keys(before).filter((k) => !present.has(k)).length, fingerprints: stamps ? Object.keys(stamps.servers).length : null, sealed: seals ? Object.keys(seals.months).length : null };
}

function sortKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}
