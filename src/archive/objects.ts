// Reading raw objects (objects/<aa>/<sha256>): the name is checked before any path is built, so a
// name taken from a row cannot leave objects/, and the bytes must hash to the name — a mismatch is
// corruption, and corrupt bytes are never shown or re-derived from.
//
// A raw listing page may be packed: no objects/<sha256> of its own, but a manifest
// pages/<aa>/<sha256>.json whose entries are objects (src/lib/page-parts.ts). Every reader here joins
// it transparently and checks the join against the page's name, so a reader asking for a page's
// SHA-256 gets the page's exact bytes either way, or null.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { joinPage, manifestObjects, parseManifest, sha256Hex } from '../lib/index.ts';
import { isObjectName, objectKey, objectPath, pageKey, pagePath } from './layout.ts';
import { FsObjectStore, type ObjectStore } from './object-store.ts';

/** Per archive folder (resolved): the store its objects are read through, when it is not the folder alone. */
const stores = new Map<string, ObjectStore>();

/**
 * From now on, readObject(dir, …) reads through `store` (a remote store cached in `dir`, as
 * src/archive/store-config.ts opens it): the site build and the CLIs call this once, so a build from a
 * checkout whose objects live in a bucket reads them from there. Without it, the folder alone.
 */
export function useObjectStore(dir: string, store: ObjectStore): void {
  stores.set(resolve(dir), store);
}

/** The store registered for `dir` with useObjectStore, if any. */
export function registeredStore(dir: string): ObjectStore | undefined {
  return stores.get(resolve(dir));
}

/** The store readObject reads `dir`'s objects through: the registered one, else the folder itself. */
export function storeFor(dir: string): ObjectStore {
  return registeredStore(dir) ?? new FsObjectStore(dir);
}

/** An object's bytes, or null when the name is not a sha256, the object is absent, or its bytes do not hash to its name. */
export async function readObject(dir: string, sha256: string): Promise<Buffer | null> {
  if (!isObjectName(sha256)) return null;
  const store = stores.get(resolve(dir));
  if (store) return readObjectFrom(store, sha256);
  const whole = await readOrNull(objectPath(dir, sha256));
  if (whole !== null) return verified(sha256, whole);
  const manifest = await readOrNull(pagePath(dir, sha256));
  if (manifest === null) return null;
  return joinedPage(sha256, manifest, async (name) => readOrNull(objectPath(dir, name)));
}

/** readObject, synchronously (restate reads a body per distinct hash inside a row loop). */
export function readObjectSync(dir: string, sha256: string): Buffer | null {
  if (!isObjectName(sha256)) return null;
  const whole = readOrNullSync(objectPath(dir, sha256));
  if (whole !== null) return verified(sha256, whole);
  const manifest = readOrNullSync(pagePath(dir, sha256));
  if (manifest === null) return null;
  const parsed = parseManifest(manifest);
  if (parsed === null || parsed.sha256 !== sha256) return null;
  const joined = joinPage(parsed, (name) => {
    const bytes = isObjectName(name) ? readOrNullSync(objectPath(dir, name)) : null;
    return bytes === null ? null : verified(name, bytes);
  });
  return joined.ok ? joined.bytes : null;
}

/** readObject from any object store (a bucket, a cache in front of one): the same checks, the same joins. */
export async function readObjectFrom(store: ObjectStore, sha256: string): Promise<Buffer | null> {
  if (!isObjectName(sha256)) return null;
  const whole = await store.get(objectKey(sha256));
  if (whole !== null) return verified(sha256, whole);
  const manifest = await store.get(pageKey(sha256));
  if (manifest === null) return null;
  return joinedPage(sha256, manifest, (name) => store.get(objectKey(name)));
}

/**
 * Whether the object is there and sound, and why not: what verify and the scrub report. A packed page
 * is sound when its manifest parses, names it, and its entries join to its bytes.
 */
/**
 * Verified entry bytes by name, least recently used dropped first once over `maxBytes`: a page of one
 * day repeats almost every entry of the day before, so a verify that joins every stored page reads each
 * entry once instead of once per page naming it (≈ 100 reads a page, 1,150 pages a day at the
 * registry's size: ≈ 210 million reads of a bucket for five years). Only bytes that hashed to their
 * name go in; entries are content-addressed, so a cached one is still right for as long as it is held.
 */
export class EntryCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  hits = 0;
  misses = 0;
  constructor(readonly maxBytes = 256 * 1024 * 1024) {}
  get(name: string): Buffer | undefined {
    const b = this.entries.get(name);
    if (b === undefined) return undefined;
    this.entries.delete(name);
    this.entries.set(name, b);
    return b;
  }
  set(name: string, bytes: Buffer): void {
    if (bytes.length > this.maxBytes || this.entries.has(name)) return;
    this.entries.set(name, bytes);
    this.bytes += bytes.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }
}

export async function checkObjectIn(store: ObjectStore, sha256: string, cache?: EntryCache): Promise<{ ok: true; packed: boolean } | { ok: false; missing: boolean; message: string }> {
  if (!isObjectName(sha256)) return { ok: false, missing: false, message: 'not an object name' };
  const whole = await store.get(objectKey(sha256));
  if (whole !== null) {
    const actual = sha256Hex(whole);
    return actual === sha256 ? { ok: true, packed: false } : { ok: false, missing: false, message: `bytes hash to ${actual.slice(0, 12)}…, not to the name` };
  }
  const manifest = await store.get(pageKey(sha256));
  if (manifest === null) return { ok: false, missing: true, message: `object ${sha256.slice(0, 12)}… is missing` };
  const parsed = parseManifest(manifest);
  if (parsed === null) return { ok: false, missing: false, message: `page manifest ${sha256.slice(0, 12)}… does not parse` };
  if (parsed.sha256 !== sha256) return { ok: false, missing: false, message: `page manifest ${sha256.slice(0, 12)}… names another page` };
  const parts = await entriesOf(manifestObjects(parsed), (name) => store.get(objectKey(name)), cache);
  const joined = joinPage(parsed, (name) => parts.get(name) ?? null);
  return joined.ok ? { ok: true, packed: true } : { ok: false, missing: false, message: joined.message };
}

/** SHA-256 of a file, streamed (objects can be megabytes; verify hashes every one). */
export function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}

async function joinedPage(sha256: string, manifestBytes: Buffer, get: (name: string) => Promise<Buffer | null>): Promise<Buffer | null> {
  const parsed = parseManifest(manifestBytes);
  if (parsed === null || parsed.sha256 !== sha256) return null;
  const parts = await entriesOf(manifestObjects(parsed), get);
  const joined = joinPage(parsed, (name) => parts.get(name) ?? null);
  return joined.ok ? joined.bytes : null;
}

/** The verified bytes of each named entry that is present and sound (through `cache` when given). */
async function entriesOf(names: string[], get: (name: string) => Promise<Buffer | null>, cache?: EntryCache): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const name of names) {
    if (!isObjectName(name) || out.has(name)) continue;
    const held = cache?.get(name);
    if (held !== undefined) {
      cache!.hits++;
      out.set(name, held);
      continue;
    }
    const bytes = await get(name);
    if (bytes !== null && sha256Hex(bytes) === name) {
      out.set(name, bytes);
      if (cache) {
        cache.misses++;
        cache.set(name, bytes);
      }
    }
  }
  return out;
}

function verified(sha256: string, bytes: Buffer): Buffer | null {
  return sha256Hex(bytes) === sha256 ? bytes : null;
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

function readOrNullSync(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'ENOENT';
}
