// A remote store with the archive folder as its cache: the remote (an S3ObjectStore) is
// where a key lives for good, `<data>/` only keeps copies close by.
//
//   - put: remote first, then local, so a key is never only local (a crash between the two leaves it
//     remote only, which the next get brings back).
//   - get: the local copy when it is there and verifies; otherwise the remote's bytes, which are then
//     copied into the cache when they verify. A local copy that does not verify is moved to
//     quarantine/ (never silently lost) before the remote's bytes take its place; when the remote has
//     nothing either, the local bytes are returned as they are, so the caller's own hash check names
//     them as corrupt rather than missing.
//   - has: local, else remote. list: the remote's keys (the cache may hold any part of them).
//
// "Verifies" is the caller's check when it gives one; by default an objects/ key's bytes must hash
// to its name, and a pages/ key need only be present (its name is the hash of the listing it stands
// for, not of its own bytes).
import fs from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../lib/index.ts';
import { LAYOUT } from './layout.ts';
import { checkKey, type FsObjectStore, type ObjectStore } from './object-store.ts';

export interface CachedStoreOptions {
  /** Whether bytes read for `key` may be served (and cached); default: defaultVerify. */
  verify?: (key: string, bytes: Uint8Array) => boolean;
}

/** objects/<aa>/<sha256>: the bytes hash to the name; pages/…: present is enough. */
export function defaultVerify(key: string, bytes: Uint8Array): boolean {
  return key.startsWith(`${LAYOUT.objects}/`) ? sha256Hex(bytes) === key.slice(key.lastIndexOf('/') + 1) : true;
}

export class CachedStore implements ObjectStore {
  readonly description: string;
  readonly #verify: (key: string, bytes: Uint8Array) => boolean;

  constructor(
    readonly remote: ObjectStore,
    readonly local: FsObjectStore,
    options: CachedStoreOptions = {},
  ) {
    this.description = `${remote.description}, cached in ${local.dir}`;
    this.#verify = options.verify ?? defaultVerify;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    checkKey(key);
    await this.remote.put(key, bytes);
    await this.local.put(key, bytes);
  }

  async get(key: string): Promise<Buffer | null> {
    checkKey(key);
    const here = await this.local.get(key);
    if (here && this.#verify(key, here)) return here;
    const there = await this.remote.get(key);
    if (!there) return here;
    if (!this.#verify(key, there)) return there; // not cached: the caller's check will say what it is
    if (here) this.#quarantine(key);
    await this.local.put(key, there);
    return there;
  }

  async has(key: string): Promise<boolean> {
    return (await this.local.has(key)) || this.remote.has(key);
  }

  list(prefix: string): AsyncIterable<string> {
    return this.remote.list(prefix);
  }

  /** Move a local copy that does not verify to quarantine/<key with _ for />.<ms>.corrupt. */
  #quarantine(key: string): void {
    const dir = join(this.local.dir, LAYOUT.quarantine);
    fs.mkdirSync(dir, { recursive: true });
    try {
      fs.renameSync(join(this.local.dir, key), join(dir, `${key.replaceAll('/', '_')}.${Date.now()}.corrupt`));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // another reader moved it first
    }
  }
}
