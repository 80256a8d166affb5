// An S3-compatible bucket as an ObjectStore (object-store.ts says what a store is): Cloudflare
// R2, AWS S3, or anything that speaks the same API, through @aws-sdk/client-s3. Keys sit under a
// prefix inside the bucket (`mcp-schema/objects/ab/ab…`), so one bucket can hold other things too.
//
//   - put: HeadObject, and when the key is absent, PutObject with If-None-Match: * and Content-MD5.
//     The Head is what keeps a key written once on a store that ignores If-None-Match on PUT (the test
//     server does; R2 and S3 honour it) and saves uploading bytes that are already there; the
//     condition closes the gap between the Head and the Put where it is honoured: a 412 (or 409, S3's
//     answer to a concurrent conditional write) means another writer got there first, which for a
//     content-addressed key is the same bytes. A put whose answer carries an MD5-shaped ETag that is
//     not the MD5 of the bytes sent throws.
//   - get: GetObject; a missing key (NoSuchKey) is null. The bytes are not checked here: callers hash.
//   - has: HeadObject (404 is false; S3 answers a HEAD with no body, so a missing bucket looks the same).
//   - list: ListObjectsV2, page after page (ContinuationToken); only names that are store keys are yielded.
// Every key is checked with checkKey before any request. Retries are the SDK's (maxAttempts, with its
// backoff); each attempt is bounded by a connection timeout, an idle-socket timeout and a total time.
// Errors are one line naming the operation, the key and the store, never a credential.
import { createHash } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { checkKey, STORE_KEY, StoreError, type ObjectStore } from './object-store.ts';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3StoreOptions {
  /** e.g. https://<account>.r2.cloudflarestorage.com */
  endpoint: string;
  bucket: string;
  /** Where the keys sit inside the bucket: '' or a folder ('mcp-schema/'; a missing '/' is added). */
  prefix?: string;
  /** Default 'auto' (R2's region; S3 wants the bucket's). */
  region?: string;
  credentials: S3Credentials;
  /** Attempts per request, retries included (default 3: the SDK's own retry strategy). */
  maxAttempts?: number;
  /** Per attempt: connecting (default 5 s), an idle socket (default 30 s), the whole exchange (default 120 s). */
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** MaxKeys of each ListObjectsV2 page (default 1000, S3's largest). */
  pageSize?: number;
  /**
   * HeadObject before each PutObject (default true). Only a store known to honour If-None-Match on
   * PUT (R2, S3) keeps keys written once without it; there it saves a request per new key.
   */
  headBeforePut?: boolean;
}

export class S3ObjectStore implements ObjectStore {
  readonly description: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly #client: S3Client;
  readonly #pageSize: number;
  readonly #headBeforePut: boolean;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix ?? '');
    this.description = `s3://${this.bucket}/${this.prefix} at ${options.endpoint}`;
    this.#pageSize = options.pageSize ?? 1000;
    this.#headBeforePut = options.headBeforePut ?? true;
    this.#client = s3Client(options);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const name = this.#name(checkKey(key));
    if (this.#headBeforePut && (await this.#has('put', key, name))) return;
    const md5 = createHash('md5').update(bytes).digest();
    let etag: string | undefined;
    try {
      const answer = await this.#client.send(new PutObjectCommand({ Bucket: this.bucket, Key: name, Body: bytes, ContentMD5: md5.toString('base64'), IfNoneMatch: '*' }));
      etag = answer.ETag;
    } catch (error) {
      const status = httpStatus(error);
      if (status === 412 || status === 409) return; // written meanwhile: the same name is the same bytes
      throw this.#error('put', key, error);
    }
    const tag = etag?.replace(/^"|"$/g, '').toLowerCase();
    if (tag && /^[0-9a-f]{32}$/.test(tag) && tag !== md5.toString('hex')) {
      throw new StoreError('put', key, this.description, `the store's ETag ${tag} is not the MD5 of the ${bytes.length} bytes sent (${md5.toString('hex')})`, 's3 ');
    }
  }

  /** Put without the written-once condition (repair only: the caller has checked the bytes against the key). */
  async replace(key: string, bytes: Uint8Array): Promise<void> {
    const name = this.#name(checkKey(key));
    const md5 = createHash('md5').update(bytes).digest();
    try {
      await this.#client.send(new PutObjectCommand({ Bucket: this.bucket, Key: name, Body: bytes, ContentMD5: md5.toString('base64') }));
    } catch (error) {
      throw this.#error('replace', key, error);
    }
  }

  async get(key: string): Promise<Buffer | null> {
    const name = this.#name(checkKey(key));
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: name }));
      if (!answer.Body) throw new Error('no body in the answer');
      return Buffer.from(await answer.Body.transformToByteArray());
    } catch (error) {
      if (errorName(error) === 'NoSuchKey') return null;
      throw this.#error('get', key, error);
    }
  }

  async has(key: string): Promise<boolean> {
    return this.#has('has', key, this.#name(checkKey(key)));
  }

  async *list(prefix: string): AsyncIterable<string> {
    for await (const { key } of this.sizes(prefix)) yield key;
  }

  /** Every key under `prefix` with its size in bytes (the same listing as list(); verify --plan-parts sums it). */
  async *sizes(prefix: string): AsyncIterable<{ key: string; size: number }> {
    if (!LIST_PREFIX.test(prefix)) throw new Error(`not a store prefix: ${JSON.stringify(prefix.slice(0, 200))}`);
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.#client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.#name(prefix), MaxKeys: this.#pageSize, ContinuationToken: token }));
      } catch (error) {
        throw this.#error('list', prefix, error);
      }
      for (const object of page.Contents ?? []) {
        const key = object.Key?.startsWith(this.prefix) ? object.Key.slice(this.prefix.length) : undefined;
        if (key && STORE_KEY.test(key) && key.startsWith(prefix)) yield { key, size: object.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      if (page.IsTruncated && !token) throw new StoreError('list', prefix, this.description, 'a truncated page without a continuation token', 's3 ');
    } while (token);
  }

  /** Close the client's sockets (a process that exits need not). */
  destroy(): void {
    this.#client.destroy();
  }

  async #has(op: string, key: string, name: string): Promise<boolean> {
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: name }));
      return true;
    } catch (error) {
      if (httpStatus(error) === 404) return false;
      throw this.#error(op, key, error);
    }
  }

  #name(key: string): string {
    return `${this.prefix}${key}`;
  }

  /**
   * One line: the operation, the key, what went wrong (the SDK's error name, code, HTTP status, the
   * first line of its message), the store. The SDK's error is not kept as the cause: it holds the raw
   * request, Authorization header included, which a logger would print.
   */
  #error(op: string, key: string, error: unknown): StoreError {
    const status = httpStatus(error);
    let message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
    let name = errorName(error);
    if (name === 'Unknown' || message === 'UnknownError') [name, message] = [undefined, message === 'UnknownError' ? '' : message]; // a HEAD's error has no body
    const code = (error as { code?: unknown } | null)?.code;
    const what = [name && name !== 'Error' ? name : null, typeof code === 'string' && code !== name ? code : null, status ? `HTTP ${status}` : null].filter(Boolean).join(', ');
    const hint = status === 401 || status === 403 ? ' (refused: check the credentials and what they may do on the bucket)' : '';
    return new StoreError(op, key, this.description, `${[what, message].filter(Boolean).join(': ') || 'failed'}${hint}`, 's3 ');
  }
}

/**
 * The S3 client every bucket of the project is spoken to with (the archive's store here, the file
 * host's uploads in collector/ops/publish-files.ts): path-style addressing, checksums only where the
 * API requires them, the SDK's retries, each attempt bounded.
 */
export function s3Client(options: Pick<S3StoreOptions, 'endpoint' | 'region' | 'credentials' | 'maxAttempts' | 'connectTimeoutMs' | 'idleTimeoutMs' | 'requestTimeoutMs'>): S3Client {
  return new S3Client({
    endpoint: options.endpoint,
    region: options.region ?? 'auto',
    forcePathStyle: true,
    credentials: { ...options.credentials },
    // Since v3.729 the SDK adds CRC32 checksum headers by default, which some S3-compatible stores refuse.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: options.maxAttempts ?? 3,
    requestHandler: {
      connectionTimeout: options.connectTimeoutMs ?? 5_000,
      socketTimeout: options.idleTimeoutMs ?? 30_000,
      requestTimeout: options.requestTimeoutMs ?? 120_000,
      throwOnRequestTimeout: true,
    },
  });
}

/** A prefix list() takes: objects/ or pages/, then the start of a shard and of a name. */
const LIST_PREFIX = /^(objects|pages)(\/([0-9a-f]{0,2}|[0-9a-f]{2}\/[0-9a-f]{0,64}[.jsno]{0,5}))?$/;

/** A prefix inside the bucket: '' or safe folder names ending in '/'. */
export function normalizePrefix(prefix: string): string {
  if (prefix === '' || prefix === '/') return '';
  const withSlash = prefix.endsWith('/') ? prefix : `${prefix}/`;
  const parts = withSlash.slice(0, -1).split('/');
  if (withSlash.startsWith('/') || parts.some((p) => !/^[A-Za-z0-9._-]+$/.test(p) || p === '.' || p === '..') || withSlash.length > 200) {
    throw new Error(`not a bucket prefix: ${JSON.stringify(prefix.slice(0, 200))} (folder names of letters, digits, '.', '_', '-')`);
  }
  return withSlash;
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}
