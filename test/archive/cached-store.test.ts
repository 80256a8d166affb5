// CachedStore with a real S3-compatible server as its remote (test/helpers/s3-server.ts) and a temp
// folder as its cache: a key is never only local, a local copy is served only when it verifies, and a
// corrupt one is set aside in quarantine/ and replaced by the remote's bytes.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedStore, defaultVerify } from '../../src/archive/cached-store.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const objectKey = (bytes: Uint8Array) => `objects/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;
const pageKey = (seed: string) => `pages/${sha(Buffer.from(seed)).slice(0, 2)}/${sha(Buffer.from(seed))}.json`;

let server: S3TestServer;
const remotes: S3ObjectStore[] = [];
const folders: string[] = [];
let n = 0;

function remoteOn(endpoint: string, prefix = `cache${++n}`): S3ObjectStore {
  const remote = new S3ObjectStore({ endpoint, bucket: server.bucket, prefix, credentials: server.credentials, maxAttempts: 1 });
  remotes.push(remote);
  return remote;
}
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcps-cache-'));
  folders.push(dir);
  return dir;
}
function cached(): { store: CachedStore; remote: S3ObjectStore; local: FsObjectStore } {
  const remote = remoteOn(server.endpoint);
  const local = new FsObjectStore(folder(), { durable: false });
  return { store: new CachedStore(remote, local), remote, local };
}

beforeAll(async () => {
  server = await startS3Server();
});
afterAll(async () => {
  for (const r of remotes) r.destroy();
  for (const d of folders) rmSync(d, { recursive: true, force: true });
  await server?.close();
});

describe('CachedStore', () => {
  it('puts to the remote and the folder; has and get see both; list is the remote', async () => {
    const { store, remote, local } = cached();
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    const key = objectKey(bytes);
    await store.put(key, bytes);
    expect((await remote.get(key))!.equals(bytes)).toBe(true);
    expect(readFileSync(join(local.dir, key)).equals(bytes)).toBe(true);
    expect(await store.has(key)).toBe(true);
    // A key only the remote has (another machine pushed it): listed, had, and fetched into the cache.
    const elsewhere = Buffer.from('pushed from elsewhere');
    await remote.put(objectKey(elsewhere), elsewhere);
    const keys: string[] = [];
    for await (const k of store.list('objects/')) keys.push(k);
    expect(keys.sort()).toEqual([key, objectKey(elsewhere)].sort());
    expect(await store.has(objectKey(elsewhere))).toBe(true);
    expect(existsSync(join(local.dir, objectKey(elsewhere)))).toBe(false);
    expect((await store.get(objectKey(elsewhere)))!.equals(elsewhere)).toBe(true);
    expect(readFileSync(join(local.dir, objectKey(elsewhere))).equals(elsewhere)).toBe(true);
    expect(store.description).toBe(`${remote.description}, cached in ${local.dir}`);
  });

  it('puts to the remote first: a remote that fails leaves nothing local, a folder that fails leaves the remote written', async () => {
    const bytes = Buffer.from('remote first');
    const key = objectKey(bytes);
    const doomed = await startS3Server();
    const deadRemote = remoteOn(doomed.endpoint);
    await doomed.close();
    const local = new FsObjectStore(folder(), { durable: false });
    await expect(new CachedStore(deadRemote, local).put(key, bytes)).rejects.toThrow(/^s3 put /);
    expect(await local.has(key)).toBe(false);

    const remote = remoteOn(server.endpoint);
    const notAFolder = join(folder(), 'file');
    writeFileSync(notAFolder, 'a file where the cache folder should be');
    await expect(new CachedStore(remote, new FsObjectStore(notAFolder, { durable: false })).put(key, bytes)).rejects.toThrow();
    expect(await remote.has(key)).toBe(true);
  });

  it('a corrupt local object is moved to quarantine/ and fetched again from the remote', async () => {
    const { store, local } = cached();
    const bytes = Buffer.from('the true bytes of an object');
    const key = objectKey(bytes);
    await store.put(key, bytes);
    writeFileSync(join(local.dir, key), 'bit rot');
    const back = await store.get(key);
    expect(back!.equals(bytes)).toBe(true);
    expect(readFileSync(join(local.dir, key)).equals(bytes)).toBe(true);
    const aside = readdirSync(join(local.dir, 'quarantine'));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(new RegExp(`^${key.replaceAll('/', '_')}\\.\\d+\\.corrupt$`));
    expect(readFileSync(join(local.dir, 'quarantine', aside[0]!), 'utf8')).toBe('bit rot');
  });

  it('a local object that verifies is served without asking the remote', async () => {
    const bytes = Buffer.from('only here');
    const local = new FsObjectStore(folder(), { durable: false });
    await local.put(objectKey(bytes), bytes);
    const doomed = await startS3Server();
    const deadRemote = remoteOn(doomed.endpoint);
    await doomed.close();
    const store = new CachedStore(deadRemote, local);
    expect((await store.get(objectKey(bytes)))!.equals(bytes)).toBe(true);
    expect(await store.has(objectKey(bytes))).toBe(true);
    // A key the folder lacks does go to the (dead) remote.
    await expect(store.get(objectKey(Buffer.from('not here')))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('remote bytes that do not verify are returned but not cached; corrupt local bytes with no remote copy are returned as they are', async () => {
    const { store, remote, local } = cached();
    const key = objectKey(Buffer.from('what the name promises'));
    await remote.put(key, Buffer.from('something else')); // the remote does not check names
    expect((await store.get(key))!.toString()).toBe('something else');
    expect(await local.has(key)).toBe(false);

    const lonely = objectKey(Buffer.from('lonely'));
    await local.put(lonely, Buffer.from('rotten'));
    expect((await store.get(lonely))!.toString()).toBe('rotten');
    expect(existsSync(join(local.dir, 'quarantine'))).toBe(false);
    expect(await store.get(objectKey(Buffer.from('nowhere')))).toBeNull();
  });

  it('a page manifest is served from the folder when present; a caller-supplied check overrides that', async () => {
    const { remote, local } = cached();
    const key = pageKey('a listing');
    await remote.put(key, Buffer.from('{"remote":true}'));
    await local.put(key, Buffer.from('{"local":true}'));
    expect((await new CachedStore(remote, local).get(key))!.toString()).toBe('{"local":true}');
    const strict = new CachedStore(remote, local, { verify: (k, bytes) => defaultVerify(k, bytes) && Buffer.from(bytes).toString().includes('remote') });
    expect((await strict.get(key))!.toString()).toBe('{"remote":true}');
    expect(readFileSync(join(local.dir, key), 'utf8')).toBe('{"remote":true}');
  });

  it('refuses a hostile key before touching either side', async () => {
    const { store, local } = cached();
    for (const key of ['../../x', 'objects/aa/../../../etc/passwd', 'quarantine/x']) {
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/^not a store key/);
      await expect(store.get(key)).rejects.toThrow(/^not a store key/);
      await expect(store.has(key)).rejects.toThrow(/^not a store key/);
    }
    expect(readdirSync(local.dir)).toEqual([]);
  });
});

describe('defaultVerify', () => {
  it('an object must hash to its name; a page manifest need only be there', () => {
    const bytes = Buffer.from('x');
    expect(defaultVerify(objectKey(bytes), bytes)).toBe(true);
    expect(defaultVerify(objectKey(bytes), Buffer.from('y'))).toBe(false);
    expect(defaultVerify(pageKey('p'), Buffer.from('anything'))).toBe(true);
  });
});
