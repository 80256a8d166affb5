// openObjectStore / readStoreConfig: the archive folder when nothing is set, a CachedStore on an
// S3-compatible bucket when MCP_SCHEMA_STORE is, and one line naming the variable (never a secret's
// value) for a setting that cannot work. The round trip runs against a real server on 127.0.0.1.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedStore } from '../../src/archive/cached-store.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { MirroredStore } from '../../src/archive/mirrored-store.ts';
import { openCopyStore, openObjectStore, openPrimaryStore, openRemoteStore, readCopyConfig, readStoreConfig, type StoreEnv } from '../../src/archive/store-config.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const R2: StoreEnv = {
  MCP_SCHEMA_STORE: 's3://mcp-schema-archive/mcp-schema',
  MCP_SCHEMA_STORE_ENDPOINT: 'https://0123abcd.r2.cloudflarestorage.com',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: SECRET,
};

describe('readStoreConfig', () => {
  it('is null with no MCP_SCHEMA_STORE (credentials alone do not make a remote)', () => {
    expect(readStoreConfig({})).toBeNull();
    expect(readStoreConfig({ ...R2, MCP_SCHEMA_STORE: '' })).toBeNull();
    expect(readStoreConfig({ ...R2, MCP_SCHEMA_STORE: undefined })).toBeNull();
  });

  it('reads bucket, prefix, endpoint, region (default auto) and credentials', () => {
    expect(readStoreConfig(R2)).toEqual({
      endpoint: 'https://0123abcd.r2.cloudflarestorage.com',
      bucket: 'mcp-schema-archive',
      prefix: 'mcp-schema/',
      region: 'auto',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: SECRET },
    });
    const s3 = readStoreConfig({ ...R2, MCP_SCHEMA_STORE: 's3://bucket.example/a/b/', MCP_SCHEMA_STORE_REGION: 'eu-west-1', AWS_SESSION_TOKEN: 'tok' })!;
    expect([s3.prefix, s3.region, s3.credentials.sessionToken]).toEqual(['a/b/', 'eu-west-1', 'tok']);
    expect(readStoreConfig({ ...R2, MCP_SCHEMA_STORE: 's3://mcp-schema-archive' })!.prefix).toBe('');
  });

  it.each([
    ['MCP_SCHEMA_STORE', { MCP_SCHEMA_STORE: 'https://mcp-schema-archive/x' }, /^MCP_SCHEMA_STORE must be s3:\/\/<bucket>\/<prefix>/],
    ['MCP_SCHEMA_STORE', { MCP_SCHEMA_STORE: `s3://AKIDEXAMPLE:${SECRET}@mcp-schema-archive/x` }, /^MCP_SCHEMA_STORE must not carry credentials/],
    ['MCP_SCHEMA_STORE', { MCP_SCHEMA_STORE: `s4://AKIDEXAMPLE:${SECRET}@mcp-schema-archive/x` }, /^MCP_SCHEMA_STORE must not carry credentials/],
    ['MCP_SCHEMA_STORE', { MCP_SCHEMA_STORE: 's3://UPPER_case/x' }, /^MCP_SCHEMA_STORE: "UPPER_case" is not a bucket name/],
    ['MCP_SCHEMA_STORE', { MCP_SCHEMA_STORE: 's3://mcp-schema-archive/../up' }, /^MCP_SCHEMA_STORE: not a bucket prefix/],
    ['MCP_SCHEMA_STORE', { MCP_SCHEMA_STORE: 's3://mcp-schema-archive/a//b' }, /^MCP_SCHEMA_STORE: not a bucket prefix/],
    ['MCP_SCHEMA_STORE_ENDPOINT', { MCP_SCHEMA_STORE_ENDPOINT: undefined }, /^MCP_SCHEMA_STORE is set but MCP_SCHEMA_STORE_ENDPOINT is not/],
    ['MCP_SCHEMA_STORE_ENDPOINT', { MCP_SCHEMA_STORE_ENDPOINT: 'not a url' }, /^MCP_SCHEMA_STORE_ENDPOINT is not a URL/],
    ['MCP_SCHEMA_STORE_ENDPOINT', { MCP_SCHEMA_STORE_ENDPOINT: 'http://0123abcd.r2.cloudflarestorage.com' }, /^MCP_SCHEMA_STORE_ENDPOINT must be https:\/\//],
    ['MCP_SCHEMA_STORE_ENDPOINT', { MCP_SCHEMA_STORE_ENDPOINT: `https://AKIDEXAMPLE:${encodeURIComponent(SECRET)}@host.example` }, /^MCP_SCHEMA_STORE_ENDPOINT must not carry credentials/],
    ['MCP_SCHEMA_STORE_ENDPOINT', { MCP_SCHEMA_STORE_ENDPOINT: `https://AKIDEXAMPLE:${SECRET}@host.example` }, /^MCP_SCHEMA_STORE_ENDPOINT is not a URL: "https:\/\/…@host.example"/],
    ['AWS_SECRET_ACCESS_KEY', { AWS_SECRET_ACCESS_KEY: undefined }, /^MCP_SCHEMA_STORE is set but AWS_SECRET_ACCESS_KEY is not$/],
    ['AWS_ACCESS_KEY_ID', { AWS_ACCESS_KEY_ID: ' ' }, /^MCP_SCHEMA_STORE is set but AWS_ACCESS_KEY_ID is not$/],
    ['both keys', { AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined }, /^MCP_SCHEMA_STORE is set but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not$/],
  ] as const)('a bad %s is one line that names it and prints no secret', (_, change, message) => {
    let error: Error | undefined;
    try {
      readStoreConfig({ ...R2, ...change });
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error!.message).not.toContain(SECRET);
    expect(error!.message).not.toContain(encodeURIComponent(SECRET));
    expect(error!.message).not.toContain('\n');
  });

  it('takes http:// on loopback only (the test server)', () => {
    expect(readStoreConfig({ ...R2, MCP_SCHEMA_STORE_ENDPOINT: 'http://127.0.0.1:9000' })!.endpoint).toBe('http://127.0.0.1:9000');
    expect(readStoreConfig({ ...R2, MCP_SCHEMA_STORE_ENDPOINT: 'http://localhost:9000/' })!.endpoint).toBe('http://localhost:9000');
  });
});

describe('openObjectStore', () => {
  let server: S3TestServer;
  const dirs: string[] = [];
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(async () => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await server?.close();
  });

  it('is the archive folder when nothing is configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcps-cfg-'));
    dirs.push(dir);
    const store = openObjectStore(dir, {});
    expect(store).toBeInstanceOf(FsObjectStore);
    expect(store.description).toBe(`filesystem ${dir}`);
  });

  it('is a CachedStore on the bucket when MCP_SCHEMA_STORE is set, and round-trips through both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcps-cfg-'));
    dirs.push(dir);
    const env: StoreEnv = {
      MCP_SCHEMA_STORE: `s3://${server.bucket}/via-env`,
      MCP_SCHEMA_STORE_ENDPOINT: server.endpoint,
      AWS_ACCESS_KEY_ID: server.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: server.credentials.secretAccessKey,
    };
    const store = openObjectStore(dir, env, { durable: false });
    expect(store).toBeInstanceOf(CachedStore);
    const { remote } = store as CachedStore;
    expect(remote).toBeInstanceOf(S3ObjectStore);
    expect(store.description).toBe(`s3://${server.bucket}/via-env/ at ${server.endpoint}, cached in ${dir}`);
    const bytes = Buffer.from('through the environment');
    const sha = createHash('sha256').update(bytes).digest('hex');
    const key = `objects/${sha.slice(0, 2)}/${sha}`;
    await store.put(key, bytes);
    expect((await remote.get(key))!.equals(bytes)).toBe(true);
    expect(readFileSync(join(dir, key)).equals(bytes)).toBe(true);
    (remote as S3ObjectStore).destroy();
  });
});

describe('the second copy (MCP_SCHEMA_STORE_COPY)', () => {
  const COPY: StoreEnv = {
    MCP_SCHEMA_STORE_COPY: 's3://mcp-schema-copy/archive',
    MCP_SCHEMA_STORE_COPY_ENDPOINT: 'https://s3.eu-central-003.backblazeb2.com',
    MCP_SCHEMA_STORE_COPY_REGION: 'eu-central-003',
    MCP_SCHEMA_STORE_COPY_ACCESS_KEY_ID: 'COPYKEYID',
    MCP_SCHEMA_STORE_COPY_SECRET_ACCESS_KEY: SECRET,
  };

  it('reads its own endpoint, region and keys; writes go to both (MirroredStore), verify reads the primary alone', () => {
    expect(readCopyConfig(R2)).toBeNull();
    expect(readCopyConfig(COPY)).toMatchObject({ bucket: 'mcp-schema-copy', prefix: 'archive/', region: 'eu-central-003', credentials: { accessKeyId: 'COPYKEYID' } });
    const both = openRemoteStore({ ...R2, ...COPY });
    expect(both).toBeInstanceOf(MirroredStore);
    expect(both!.description).toMatch(/^s3:\/\/mcp-schema-archive\/mcp-schema\/ at .*, copied to s3:\/\/mcp-schema-copy\/archive\/ at https:\/\/s3\.eu-central-003\.backblazeb2\.com$/);
    expect(openRemoteStore(R2)).toBeInstanceOf(S3ObjectStore); // near miss: no copy, no mirror
    expect(openPrimaryStore({ ...R2, ...COPY })).toBeInstanceOf(S3ObjectStore);
    expect(openCopyStore({ ...R2, ...COPY })!.description).toContain('mcp-schema-copy');
    for (const s of [both as MirroredStore]) [s.primary, s.copy].forEach((x) => (x as S3ObjectStore).destroy());
  });

  it('a setting that cannot work names the copy variable, never a secret; a copy without a primary is refused', () => {
    expect(() => readCopyConfig({ ...COPY, MCP_SCHEMA_STORE_COPY_ENDPOINT: undefined })).toThrow(/^MCP_SCHEMA_STORE_COPY is set but MCP_SCHEMA_STORE_COPY_ENDPOINT is not/);
    expect(() => readCopyConfig({ ...COPY, MCP_SCHEMA_STORE_COPY_SECRET_ACCESS_KEY: undefined, AWS_SECRET_ACCESS_KEY: SECRET })).toThrow('MCP_SCHEMA_STORE_COPY is set but MCP_SCHEMA_STORE_COPY_SECRET_ACCESS_KEY is not');
    const error = (() => {
      try {
        openRemoteStore(COPY);
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(error?.message).toBe('MCP_SCHEMA_STORE_COPY is set but MCP_SCHEMA_STORE is not: the copy is of a primary bucket');
    expect(error?.message).not.toContain(SECRET);
  });
});
