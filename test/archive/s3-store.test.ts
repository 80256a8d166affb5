// S3ObjectStore against a real S3-compatible server on 127.0.0.1 (test/helpers/s3-server.ts): what the
// server itself does first (so a passing store test means what it says), then the store: round trips
// of binary bytes, listing over many pages, write-once, hostile keys refused before any request, and
// a dead or hung server giving one clear line within a bounded time.
import { createHash, randomBytes } from 'node:crypto';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore, type S3StoreOptions } from '../../src/archive/s3-store.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const objectKey = (bytes: Uint8Array) => `objects/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;
const pageKey = (seed: string) => `pages/${sha(Buffer.from(seed)).slice(0, 2)}/${sha(Buffer.from(seed))}.json`;

let server: S3TestServer;
let conditional: S3TestServer;
const stores: S3ObjectStore[] = [];
let prefixes = 0;

/** A store on `on` under a prefix of its own, so tests sharing a bucket do not see each other's keys. */
function storeOn(on: S3TestServer, options: Partial<S3StoreOptions> = {}): S3ObjectStore {
  const store = new S3ObjectStore({ endpoint: on.endpoint, bucket: on.bucket, prefix: `t${++prefixes}/mcp-schema`, credentials: on.credentials, ...options });
  stores.push(store);
  return store;
}

function rawClient(on: S3TestServer): S3Client {
  return new S3Client({ endpoint: on.endpoint, region: 'auto', forcePathStyle: true, credentials: on.credentials, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED', maxAttempts: 1 });
}

async function listAll(store: S3ObjectStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(prefix)) keys.push(key);
  return keys.sort();
}

beforeAll(async () => {
  [server, conditional] = await Promise.all([startS3Server(), startS3Server({ conditionalWrites: true })]);
});
afterAll(async () => {
  for (const s of stores) s.destroy();
  await Promise.all([server?.close(), conditional?.close()]);
});

describe('the test server (what the store relies on, and what it lacks)', () => {
  it('pages ListObjectsV2 with MaxKeys and a continuation token, and answers a missing HEAD with 404', async () => {
    const client = rawClient(server);
    for (const k of ['a', 'b', 'c']) await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: `facts/${k}`, Body: k }));
    const first = await client.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: 'facts/', MaxKeys: 2 }));
    expect(first.IsTruncated).toBe(true);
    expect(first.Contents?.map((o) => o.Key)).toEqual(['facts/a', 'facts/b']);
    const second = await client.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: 'facts/', MaxKeys: 2, ContinuationToken: first.NextContinuationToken }));
    expect(second.IsTruncated).toBe(false);
    expect(second.Contents?.map((o) => o.Key)).toEqual(['facts/c']);
    await expect(client.send(new HeadObjectCommand({ Bucket: server.bucket, Key: 'facts/none' }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    client.destroy();
  });

  it('ignores If-None-Match on PUT (the object is replaced); with conditionalWrites it answers 412 as R2 does', async () => {
    for (const [on, replaced] of [[server, true], [conditional, false]] as const) {
      const client = rawClient(on);
      await client.send(new PutObjectCommand({ Bucket: on.bucket, Key: 'facts/once', Body: 'first' }));
      const second = client.send(new PutObjectCommand({ Bucket: on.bucket, Key: 'facts/once', Body: 'second', IfNoneMatch: '*' }));
      if (replaced) await second;
      else await expect(second).rejects.toMatchObject({ $metadata: { httpStatusCode: 412 } });
      const body = await (await client.send(new GetObjectCommand({ Bucket: on.bucket, Key: 'facts/once' }))).Body!.transformToString();
      expect(body).toBe(replaced ? 'second' : 'first');
      client.destroy();
    }
  });
});

describe('S3ObjectStore', () => {
  it('puts, gets and has binary bytes byte for byte; a missing key is null and not had', async () => {
    const store = storeOn(server);
    const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const big = randomBytes(300_000);
    for (const bytes of [every, big, Buffer.alloc(0)]) {
      const key = objectKey(bytes);
      expect(await store.has(key)).toBe(false);
      await store.put(key, bytes);
      expect(await store.has(key)).toBe(true);
      const back = await store.get(key);
      expect(back).toBeInstanceOf(Buffer);
      expect(back!.equals(bytes)).toBe(true);
    }
    const missing = objectKey(Buffer.from('never stored'));
    expect(await store.get(missing)).toBeNull();
    expect(await store.has(missing)).toBe(false);
  });

  it('keeps its keys under its prefix in the bucket', async () => {
    const store = storeOn(server);
    const bytes = Buffer.from('where does it go');
    await store.put(objectKey(bytes), bytes);
    const client = rawClient(server);
    const head = await client.send(new HeadObjectCommand({ Bucket: server.bucket, Key: `${store.prefix}${objectKey(bytes)}` }));
    expect(head.ContentLength).toBe(bytes.length);
    expect(store.prefix).toMatch(/^t\d+\/mcp-schema\/$/);
    expect(store.description).toBe(`s3://${server.bucket}/${store.prefix} at ${server.endpoint}`);
    client.destroy();
  });

  it('lists every key under a prefix across pages (ContinuationToken), only store keys, only its own', async () => {
    const store = storeOn(server, { pageSize: 3 });
    const other = storeOn(server);
    const objects = Array.from({ length: 11 }, (_, i) => Buffer.from(`object ${i}`));
    const pages = Array.from({ length: 4 }, (_, i) => pageKey(`page ${i}`));
    for (const bytes of objects) await store.put(objectKey(bytes), bytes);
    for (const key of pages) await store.put(key, Buffer.from('{}'));
    await other.put(objectKey(Buffer.from('elsewhere')), Buffer.from('elsewhere'));
    // Not store keys, under the same prefix: never yielded.
    const client = rawClient(server);
    for (const junk of ['objects/zz/not-a-hash', 'objects/ab/notes.txt', 'pages/00/x.json']) await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${store.prefix}${junk}`, Body: 'x' }));
    client.destroy();

    expect(await listAll(store, 'objects/')).toEqual(objects.map(objectKey).sort());
    expect(await listAll(store, 'pages/')).toEqual([...pages].sort());
    const shard = objectKey(objects[0]!).slice(0, 'objects/aa'.length);
    expect(await listAll(store, shard)).toEqual(objects.map(objectKey).filter((k) => k.startsWith(shard)).sort());
    expect(await listAll(other, 'objects/')).toEqual([objectKey(Buffer.from('elsewhere'))]);
  });

  it('writes a key once: a second put with other bytes leaves the first', async () => {
    const store = storeOn(server);
    const key = objectKey(Buffer.from('the real bytes'));
    await store.put(key, Buffer.from('the real bytes'));
    await store.put(key, Buffer.from('something else'));
    expect((await store.get(key))!.toString()).toBe('the real bytes');
  });

  it('without the HEAD, a 412 from a store that honours If-None-Match is taken as "already there"', async () => {
    const store = storeOn(conditional, { headBeforePut: false });
    const key = objectKey(Buffer.from('first writer'));
    await store.put(key, Buffer.from('first writer'));
    await expect(store.put(key, Buffer.from('second writer'))).resolves.toBeUndefined();
    expect((await store.get(key))!.toString()).toBe('first writer');
    // The same on the plain test server replaces the object: why the HEAD is on by default.
    const plain = storeOn(server, { headBeforePut: false });
    await plain.put(key, Buffer.from('first writer'));
    await plain.put(key, Buffer.from('second writer'));
    expect((await plain.get(key))!.toString()).toBe('second writer');
  });

  it('refuses a hostile key or prefix before any request', async () => {
    // Nothing listens on port 9 of loopback: a request would fail with a connection error instead.
    const store = new S3ObjectStore({ endpoint: 'http://127.0.0.1:9', bucket: 'nowhere', credentials: server.credentials, maxAttempts: 1 });
    stores.push(store);
    const good = objectKey(Buffer.from('x'));
    for (const key of ['../../etc/passwd', `${good}/../../x`, `/${good}`, good.toUpperCase(), `objects/aa/${'a'.repeat(64)}`.replace('aa/', 'aa/../'), `${good}\n`, 'rosters/2026-01-01.json', '']) {
      await expect(store.get(key)).rejects.toThrow(/^not a store key/);
      await expect(store.has(key)).rejects.toThrow(/^not a store key/);
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/^not a store key/);
    }
    for (const prefix of ['', '../', 'objects/../', 'rosters/', 'objects/zz/..']) await expect(listAll(store, prefix)).rejects.toThrow(/^not a store prefix/);
    // The same store does make requests for good keys: the refusals above were not connection errors.
    await expect(store.get(good)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a stopped server: one line naming the key and the store, within a bounded time', async () => {
    const doomed = await startS3Server();
    const store = storeOn(doomed, { maxAttempts: 2 });
    const key = objectKey(Buffer.from('lost'));
    await doomed.close();
    const started = Date.now();
    const error = (await store.get(key).catch((e: unknown) => e)) as Error;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error.message).toContain(`s3 get ${key}:`);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain(store.description);
    expect(error.message).not.toContain('\n');
    await expect(store.put(key, Buffer.from('lost'))).rejects.toThrow(`s3 put ${key}:`);
    await expect(listAll(store, 'objects/')).rejects.toThrow('s3 list objects/:');
  });

  it('a hung server (SIGSTOP: connects, never answers) times out instead of hanging', async () => {
    const hung = await startS3Server();
    try {
      const store = storeOn(hung, { maxAttempts: 2, idleTimeoutMs: 400, requestTimeoutMs: 800 });
      const key = objectKey(Buffer.from('stuck'));
      hung.pause();
      const started = Date.now();
      const error = (await store.has(key).catch((e: unknown) => e)) as Error;
      const took = Date.now() - started;
      expect(took).toBeLessThan(8_000);
      expect(took).toBeGreaterThanOrEqual(400);
      expect(error.message).toMatch(new RegExp(`^s3 has ${key}: .*(TimeoutError|timeout|ETIMEDOUT)`, 'i'));
      expect(error.message).toContain(store.description);
    } finally {
      hung.resume();
      await hung.close();
    }
  });

  it('a wrong secret: a refusal that names the key and the store and prints no credential', async () => {
    const strict = await startS3Server({ checkSignatures: true });
    try {
      const secret = 'not-the-secret-0123456789';
      const good = storeOn(strict);
      const bad = new S3ObjectStore({ endpoint: strict.endpoint, bucket: strict.bucket, prefix: good.prefix, credentials: { accessKeyId: strict.credentials.accessKeyId, secretAccessKey: secret }, maxAttempts: 1 });
      stores.push(bad);
      const bytes = Buffer.from('signed');
      await good.put(objectKey(bytes), bytes); // the right secret is accepted
      expect((await good.get(objectKey(bytes)))!.equals(bytes)).toBe(true);
      for (const attempt of [() => bad.get(objectKey(bytes)), () => bad.has(objectKey(bytes)), () => bad.put(objectKey(Buffer.from('other')), Buffer.from('other'))]) {
        const error = (await attempt().catch((e: unknown) => e)) as Error;
        expect(error.message).toMatch(/^s3 (get|has|put) objects\/[0-9a-f]{2}\/[0-9a-f]{64}: .*HTTP 403/);
        expect(error.message).toContain('check the credentials');
        expect(error.message).toContain(bad.description);
        expect(error.message).not.toContain(secret);
        expect(error.message).not.toContain('\n');
        expect(error.cause).toBeUndefined(); // the SDK's error holds the signed request
      }
    } finally {
      await strict.close();
    }
  });
});
