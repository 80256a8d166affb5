// Where an archive's bulk lives (DESIGN "Where the record lives"): the content-addressed
// objects (objects/<aa>/<sha256>) and the page manifests that reassemble raw listing pages
// (pages/<aa>/<sha256>.json). Keys are archive-relative paths, the same on every backend, so an object
// has one name whether it sits in data/, in an S3-compatible bucket, or in a monthly pack.
//
//   - FsObjectStore (here): the embedded default, `<data>/<key>`; `npm run demo`, the tests and
//     `--data dir` use it, exactly as before the store existed.
//   - S3ObjectStore (s3-store.ts): an S3-compatible bucket through @aws-sdk/client-s3.
//
// Every key is written once and never replaced: its name is the SHA-256 of what it stands for, so a
// second put of the same key is the same bytes and is skipped.
import fs from 'node:fs';
import { join } from 'node:path';
import { nodeFs, writeAtomicAsync, type FsEffects } from './atomic.ts';

/** An archive-relative key a store holds: objects/<aa>/<sha256> or pages/<aa>/<sha256>.json. */
export const STORE_KEY = /^(objects\/[0-9a-f]{2}\/[0-9a-f]{64}|pages\/[0-9a-f]{2}\/[0-9a-f]{64}\.json)$/;
/**
 * A scrub listing the daily verify records (collector/ops/verify-listings.ts): scrub/<shard>/<sha256>.txt.gz,
 * named by the SHA-256 of its bytes and written once. Not an archive object: no list() yields it (only
 * STORE_KEY keys are listed), so no check, copy or size counts it; put, get and has accept it.
 */
export const SCRUB_KEY = /^scrub\/[0-9a-f]{2}\/[0-9a-f]{64}\.txt\.gz$/;

export interface ObjectStore {
  /** One line for logs and errors: `filesystem <dir>`, `s3://<bucket>/<prefix> at <endpoint>`. */
  readonly description: string;
  /** Write `bytes` under `key` once; a key that exists is left as it is (keys are content-addressed). */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes under `key`, or null when it is absent (never unchecked: callers hash what they read). */
  get(key: string): Promise<Buffer | null>;
  has(key: string): Promise<boolean>;
  /** Every key under `prefix` (`objects/`, `pages/`, `objects/ab/`), in no promised order. */
  list(prefix: string): AsyncIterable<string>;
  /**
   * Replace a key's bytes: only `npm run store -- repair` calls it, and only with bytes it has checked
   * against the key (and against stored.jsonl for a stored file). Stores that cannot be repaired lack it.
   */
  replace?(key: string, bytes: Uint8Array): Promise<void>;
}

/**
 * A failure of the store itself (it did not answer, refused, or answered nonsense), as opposed to a
 * bad key or bytes that do not hash: the operation, the key or prefix, what went wrong and the store,
 * in one line. Never a credential, never the SDK's error as its cause (it holds the signed request).
 * The collector stops on one with its own exit code (collector/cli-error.ts EXIT.store): the rows
 * written so far stay, and a re-run with the same --now resumes. Nothing retries it as something else
 * (the roster's loop rethrows it at once: a bucket that is down is not a registry that is down).
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly op: string,
    readonly key: string,
    readonly store: string,
    readonly detail: string,
    /** How the message starts: 's3 ' for a bucket, '' for the folder. */
    kind = '',
  ) {
    super(`${kind}${op} ${key}: ${detail} (${store})`);
  }
}

export function isStoreError(e: unknown): e is StoreError {
  return e instanceof StoreError;
}

/** A key the store may hold (an archive object or a scrub listing); anything else (a path from a hostile row, `..`) is refused before any I/O. */
export function checkKey(key: string): string {
  if (!STORE_KEY.test(key) && !SCRUB_KEY.test(key)) throw new Error(`not a store key: ${JSON.stringify(key.slice(0, 200))}`);
  return key;
}

export interface FsStoreOptions {
  /** fsync before the rename (default true); false only for the benches' throwaway archives. */
  durable?: boolean;
  fx?: FsEffects;
}

/** The embedded default: keys are files under the archive folder. */
export class FsObjectStore implements ObjectStore {
  readonly description: string;
  readonly #durable: boolean;
  readonly #fx: FsEffects;

  constructor(
    readonly dir: string,
    options: FsStoreOptions = {},
  ) {
    this.description = `filesystem ${dir}`;
    this.#durable = options.durable ?? true;
    this.#fx = options.fx ?? nodeFs;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const path = join(this.dir, checkKey(key));
    if (fs.existsSync(path)) return;
    // Same bytes under the same name: a concurrent writer is harmless.
    try {
      await writeAtomicAsync(path, bytes, { durable: this.#durable, fx: this.#fx });
    } catch (error) {
      throw new StoreError('write', key, this.description, oneLineOf(error));
    }
  }

  /**
   * Replace what `key` holds (repair only, after the bytes were checked against the key: the one
   * exception to written-once). The bytes it held, if any, are moved to quarantine/ first, never lost.
   */
  async replace(key: string, bytes: Uint8Array): Promise<void> {
    const path = join(this.dir, checkKey(key));
    try {
      if (fs.existsSync(path)) {
        const aside = join(this.dir, 'quarantine', `${key.replaceAll('/', '_')}.${Date.now()}.replaced`);
        fs.mkdirSync(join(this.dir, 'quarantine'), { recursive: true });
        fs.renameSync(path, aside);
      }
      await writeAtomicAsync(path, bytes, { durable: this.#durable, fx: this.#fx });
    } catch (error) {
      throw new StoreError('replace', key, this.description, oneLineOf(error));
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.promises.readFile(join(this.dir, checkKey(key)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new StoreError('read', key, this.description, oneLineOf(error));
    }
  }

  async has(key: string): Promise<boolean> {
    return fs.existsSync(join(this.dir, checkKey(key)));
  }

  async *list(prefix: string): AsyncIterable<string> {
    const top = prefix.split('/')[0]!;
    if (top !== 'objects' && top !== 'pages') throw new Error(`not a store prefix: ${JSON.stringify(prefix.slice(0, 200))}`);
    const root = join(this.dir, top);
    let shards: string[];
    try {
      shards = (await fs.promises.readdir(root)).sort();
    } catch {
      return;
    }
    const wanted = /^(?:objects|pages)\/([0-9a-f]{2})\//.exec(prefix)?.[1];
    for (const shard of shards) {
      if (!/^[0-9a-f]{2}$/.test(shard) || (wanted !== undefined && shard !== wanted)) continue; // a shard's prefix reads that shard only
      for (const name of (await fs.promises.readdir(join(root, shard)).catch(() => [] as string[])).sort()) {
        const key = `${top}/${shard}/${name}`;
        if (STORE_KEY.test(key) && key.startsWith(prefix)) yield key;
      }
    }
  }
}

function oneLineOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return `${e?.code ? `${e.code}: ` : ''}${(error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200)}`;
}
