// Which object store an archive uses, from the environment the caller passes in (src/
// reads no environment itself: test/layout.test.ts; the CLIs pass their process's).
//
//   nothing set                          FsObjectStore(<data>): the embedded default, as before
//   MCP_SCHEMA_STORE=s3://<bucket>/<prefix>
//   MCP_SCHEMA_STORE_ENDPOINT=https://<account>.r2.cloudflarestorage.com
//   MCP_SCHEMA_STORE_REGION=auto         (the default)
//   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN when the credentials are temporary)
//                                        CachedStore(S3ObjectStore, FsObjectStore(<data>))
//   MCP_SCHEMA_STORE_COPY=s3://<bucket>/<prefix> with MCP_SCHEMA_STORE_COPY_ENDPOINT, _REGION,
//   _ACCESS_KEY_ID, _SECRET_ACCESS_KEY (_SESSION_TOKEN): the second copy, at another provider; every
//                                        put goes to both (mirrored-store.ts)
//
// A setting that cannot work is one line naming the variable; a secret's value is never printed.
import { CachedStore } from './cached-store.ts';
import { MirroredStore } from './mirrored-store.ts';
import { FsObjectStore, type FsStoreOptions, type ObjectStore } from './object-store.ts';
import { normalizePrefix, S3ObjectStore, type S3StoreOptions } from './s3-store.ts';

/** The variables read here, by name (a process's environment fits). */
export type StoreEnv = Readonly<Record<string, string | undefined>>;

export const STORE_ENV = {
  store: 'MCP_SCHEMA_STORE',
  endpoint: 'MCP_SCHEMA_STORE_ENDPOINT',
  region: 'MCP_SCHEMA_STORE_REGION',
  accessKeyId: 'AWS_ACCESS_KEY_ID',
  secretAccessKey: 'AWS_SECRET_ACCESS_KEY',
  sessionToken: 'AWS_SESSION_TOKEN',
} as const;

/** A bucket name S3 and R2 accept (3–63 of a-z, 0-9, '.', '-', starting and ending with a letter or digit). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A setting as an error may show it: cut, and with anything between '//' and '@' (a user and password, up to the last '@') left out. */
function shown(value: string): string {
  return JSON.stringify(value.replace(/\/\/.*@/, '//…@').slice(0, 100));
}

/**
 * The remote store's settings, or null when MCP_SCHEMA_STORE (or `variable`: the file host's
 * MCP_SCHEMA_FILES_STORE, with the same endpoint and keys) is not set. Throws one line on a bad setting.
 */
export function readStoreConfig(env: StoreEnv, variable: string = STORE_ENV.store): S3StoreOptions | null {
  const url = env[variable]?.trim();
  if (!url) return null;
  if (url.includes('@')) throw new Error(`${variable} must not carry credentials (use ${STORE_ENV.accessKeyId} and ${STORE_ENV.secretAccessKey})`);
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (!m) throw new Error(`${variable} must be s3://<bucket>/<prefix>, not ${shown(url)}`);
  const bucket = m[1]!;
  if (!BUCKET.test(bucket)) throw new Error(`${variable}: ${JSON.stringify(bucket.slice(0, 100))} is not a bucket name (3–63 of a-z, 0-9, '.', '-')`);
  let prefix: string;
  try {
    prefix = normalizePrefix(m[2] ?? '');
  } catch (error) {
    throw new Error(`${variable}: ${(error as Error).message}`);
  }
  const endpoint = env[STORE_ENV.endpoint]?.trim();
  if (!endpoint) throw new Error(`${variable} is set but ${STORE_ENV.endpoint} is not (e.g. https://<account>.r2.cloudflarestorage.com)`);
  let parsed: URL;
  try {
    parsed = new URL(endpoint);
  } catch {
    throw new Error(`${STORE_ENV.endpoint} is not a URL: ${shown(endpoint)} (e.g. https://<account>.r2.cloudflarestorage.com)`);
  }
  if (parsed.username || parsed.password) throw new Error(`${STORE_ENV.endpoint} must not carry credentials (use ${STORE_ENV.accessKeyId} and ${STORE_ENV.secretAccessKey})`);
  if (!(parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname)))) {
    throw new Error(`${STORE_ENV.endpoint} must be https:// (http:// only on loopback), not ${JSON.stringify(`${parsed.protocol}//${parsed.host}`)}`);
  }
  const accessKeyId = env[STORE_ENV.accessKeyId]?.trim();
  const secretAccessKey = env[STORE_ENV.secretAccessKey]?.trim();
  const missing = [!accessKeyId && STORE_ENV.accessKeyId, !secretAccessKey && STORE_ENV.secretAccessKey].filter(Boolean);
  if (missing.length > 0) throw new Error(`${variable} is set but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not`);
  const sessionToken = env[STORE_ENV.sessionToken]?.trim();
  return {
    endpoint: parsed.href.replace(/\/$/, ''),
    bucket,
    prefix,
    region: env[STORE_ENV.region]?.trim() || 'auto',
    credentials: { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!, ...(sessionToken ? { sessionToken } : {}) },
  };
}

/** The second copy's variables (another provider: its own endpoint, region and keys). */
export const COPY_ENV = {
  store: 'MCP_SCHEMA_STORE_COPY',
  endpoint: 'MCP_SCHEMA_STORE_COPY_ENDPOINT',
  region: 'MCP_SCHEMA_STORE_COPY_REGION',
  accessKeyId: 'MCP_SCHEMA_STORE_COPY_ACCESS_KEY_ID',
  secretAccessKey: 'MCP_SCHEMA_STORE_COPY_SECRET_ACCESS_KEY',
  sessionToken: 'MCP_SCHEMA_STORE_COPY_SESSION_TOKEN',
} as const;

/** The second copy's settings (COPY_ENV, read by the same rules as the primary's), or null when MCP_SCHEMA_STORE_COPY is not set. */
export function readCopyConfig(env: StoreEnv): S3StoreOptions | null {
  const mapped: Record<string, string | undefined> = {};
  for (const k of Object.keys(STORE_ENV) as (keyof typeof STORE_ENV)[]) mapped[STORE_ENV[k]] = env[COPY_ENV[k]];
  try {
    return readStoreConfig(mapped);
  } catch (error) {
    let message = (error as Error).message;
    for (const k of Object.keys(STORE_ENV) as (keyof typeof STORE_ENV)[]) message = message.replaceAll(STORE_ENV[k], COPY_ENV[k]);
    throw new Error(message);
  }
}

/** The primary bucket alone (verify, repair's target, store check), or null when none is configured. */
export function openPrimaryStore(env: StoreEnv): S3ObjectStore | null {
  const config = readStoreConfig(env);
  return config ? new S3ObjectStore(config) : null;
}

/** The second copy alone (verify --against copy, store copy, repair's source), or null when none is configured. */
export function openCopyStore(env: StoreEnv): S3ObjectStore | null {
  const config = readCopyConfig(env);
  return config ? new S3ObjectStore(config) : null;
}

/**
 * Where writes go: the primary bucket, or the primary and the copy (MirroredStore) when both are
 * configured; null when neither is. A copy without a primary is refused.
 */
export function openRemoteStore(env: StoreEnv): ObjectStore | null {
  const primary = openPrimaryStore(env);
  const copy = openCopyStore(env);
  if (copy && !primary) throw new Error(`${COPY_ENV.store} is set but ${STORE_ENV.store} is not: the copy is of a primary bucket`);
  return primary && copy ? new MirroredStore(primary, copy) : primary;
}

/**
 * The archive's object store: `<dataDir>/` alone, or a remote store with `<dataDir>/` as its cache.
 * `local`: the folder's options (durability, the file-system effects), either way.
 */
export function openObjectStore(dataDir: string, env: StoreEnv, local: FsStoreOptions = {}): ObjectStore {
  const remote = openRemoteStore(env);
  const folder = new FsObjectStore(dataDir, local);
  return remote ? new CachedStore(remote, folder) : folder;
}
