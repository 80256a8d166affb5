// When the bucket fails or loses bytes, against real S3-compatible servers on 127.0.0.1: a storage
// failure is a StoreError the roster does not retry as a registry failure; `npm run store -- repair`
// puts a changed or deleted key back from a good copy (and refuses without one), logging what it
// replaced; the second copy is written as the first is, and `verify --against copy` names a key the
// copy changed or lost.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROSTER_LIMITS, fetchRoster } from '../../collector/roster.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { storeBytes } from '../../collector/ops/verify-plan.ts';
import { MirroredStore } from '../../src/archive/mirrored-store.ts';
import { FsObjectStore, StoreError } from '../../src/archive/object-store.ts';
import { s3Client, S3ObjectStore } from '../../src/archive/s3-store.ts';
import { collectArchive } from '../helpers/archive.ts';
import { runCli } from '../helpers/cli.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const temp = scratchDirs();
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const objectKey = (bytes: Uint8Array) => `objects/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;

let primary: S3TestServer;
let copy: S3TestServer;
const stores: S3ObjectStore[] = [];
let n = 0;

beforeAll(async () => {
  [primary, copy] = await Promise.all([startS3Server({ bucket: 'primary-bucket' }), startS3Server({ bucket: 'copy-bucket' })]);
}, 60_000);
afterAll(async () => {
  for (const s of stores) s.destroy();
  await Promise.all([primary?.close(), copy?.close()]);
});

function bucket(server: S3TestServer, prefix: string, opts: { headBeforePut?: boolean } = {}): S3ObjectStore {
  const store = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix, credentials: server.credentials, ...opts });
  stores.push(store);
  return store;
}

/** A writer that replaces what a key holds (the test server ignores If-None-Match): how bytes get damaged. */
const vandal = (server: S3TestServer, prefix: string) => bucket(server, prefix, { headBeforePut: false });

async function remove(server: S3TestServer, prefix: string, key: string): Promise<void> {
  const client = s3Client({ endpoint: server.endpoint, credentials: server.credentials });
  await client.send(new DeleteObjectCommand({ Bucket: server.bucket, Key: `${prefix}/${key}` }));
  client.destroy();
}

function env(prefix: string, withCopy = false): Record<string, string> {
  return {
    MCP_SCHEMA_STORE: `s3://${primary.bucket}/${prefix}`,
    MCP_SCHEMA_STORE_ENDPOINT: primary.endpoint,
    AWS_ACCESS_KEY_ID: primary.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: primary.credentials.secretAccessKey,
    ...(withCopy
      ? {
          MCP_SCHEMA_STORE_COPY: `s3://${copy.bucket}/${prefix}`,
          MCP_SCHEMA_STORE_COPY_ENDPOINT: copy.endpoint,
          MCP_SCHEMA_STORE_COPY_ACCESS_KEY_ID: copy.credentials.accessKeyId,
          MCP_SCHEMA_STORE_COPY_SECRET_ACCESS_KEY: copy.credentials.secretAccessKey,
        }
      : {}),
  };
}

const store = (args: string[], e: Record<string, string>) => runCli('collector/ops/store-cli.ts', args, e);
const repairLog = (dir: string) => (existsSync(path.join(dir, 'repairs.jsonl')) ? readFileSync(path.join(dir, 'repairs.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []);

describe('a storage failure is its own error', () => {
  it('the roster stops at once on a StoreError: the registry is asked for the page exactly once, not five times', async () => {
    let requests = 0;
    const registry = createServer((req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ servers: [{ server: { name: 'io.example/one', version: '1.0.0' } }], metadata: { count: 1 } }));
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
    const dead = await startS3Server();
    const remote = new S3ObjectStore({ endpoint: dead.endpoint, bucket: dead.bucket, credentials: dead.credentials, maxAttempts: 1 });
    await dead.close(); // nothing listens any more: every put is ECONNREFUSED
    const agent = new Agent();
    try {
      const url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/v0/servers`;
      const failed = await fetchRoster(url, { dispatcher: agent, putObject: async (b) => (await remote.put(objectKey(b), b), sha(b)) }, { ...DEFAULT_ROSTER_LIMITS, backoffMs: 1, paceWindowMs: 1_000, timeoutMs: 2_000 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(StoreError);
      expect((failed as StoreError).message).toMatch(/^s3 put objects\/[0-9a-f]{2}\/[0-9a-f]{64}: .*ECONNREFUSED.*\(s3:\/\//);
      expect((failed as StoreError).message).not.toContain('\n');
      expect(requests).toBe(1);
      // Near miss: a registry failure (a 500 with the store fine) is still retried.
      requests = 0;
      registry.removeAllListeners('request');
      registry.on('request', (_req, res) => {
        requests++;
        res.writeHead(500).end();
      });
      const ok = await fetchRoster(url, { dispatcher: agent, putObject: async (b) => sha(b) }, { ...DEFAULT_ROSTER_LIMITS, backoffMs: 1, paceWindowMs: 1_000, timeoutMs: 2_000, maxAttempts: 3 });
      expect(ok.complete).toBe(false);
      expect(requests).toBe(3);
    } finally {
      remote.destroy();
      await agent.close();
      await new Promise<void>((r) => registry.close(() => r()));
    }
  });
});

describe('the folder store fails as a store', () => {
  it('a write it cannot make is a StoreError naming the key and the folder; a bad key is not one (near miss)', async () => {
    const dir = temp('mcps-fs-fail-');
    const bytes = Buffer.from('x');
    const key = objectKey(bytes);
    writeFileSync(path.join(dir, 'objects'), 'a file where the folder should be');
    const error = await new FsObjectStore(dir).put(key, bytes).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(new RegExp(`^write ${key}: (ENOTDIR|EEXIST): .* \\(filesystem ${dir}\\)$`));
    const bad = await new FsObjectStore(dir).put('../escape', bytes).then(() => null, (e: unknown) => e);
    expect(bad).not.toBeInstanceOf(StoreError);
    expect((bad as Error).message).toMatch(/^not a store key/);
  });
});

describe('npm run store -- repair', () => {
  it('a key whose bytes changed: push leaves them, repair replaces them from the folder and logs it; a second repair says it is good and writes nothing', async () => {
    const prefix = `repair${++n}`;
    const dir = temp('mcps-repair-');
    const good = Buffer.from('the bytes the name promises');
    const key = objectKey(good);
    await new FsObjectStore(dir).put(key, good);
    const remote = bucket(primary, prefix);
    await remote.put(key, good);
    await vandal(primary, prefix).put(key, Buffer.from('changed in the bucket'));
    // The operator's first try: push never replaces a key the bucket has.
    const pushed = await store(['push', '--data', dir], env(prefix));
    expect(pushed.code).toBe(0);
    expect((await remote.get(key))!.toString()).toBe('changed in the bucket');

    const fixed = await store(['repair', key, '--data', dir], env(prefix));
    expect(fixed.stderr).toBe('');
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(new RegExp(`^replaced: ${key} was corrupt in s3://primary-bucket/${prefix}/ .*: replaced from filesystem ${dir}`));
    expect(await remote.get(key)).toEqual(good);
    const log = repairLog(dir);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ key, path: null, was: 'corrupt', was_sha256: sha(Buffer.from('changed in the bucket')), was_bytes: 21, sha256: sha(good), bytes: good.length, source: `filesystem ${dir}` });

    const again = await store(['repair', key, '--data', dir], env(prefix));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`good: ${key} is good in`);
    expect(repairLog(dir)).toHaveLength(1);
  });

  it('a deleted key is put back; a stored day file named by stored.jsonl is restored from the second copy, checked against its line', async () => {
    const prefix = `repair${++n}`;
    const dir = temp('mcps-repair-');
    const remote = bucket(primary, prefix);
    const body = Buffer.from('an object the bucket lost');
    await remote.put(objectKey(body), body);
    await new FsObjectStore(dir).put(objectKey(body), body);
    await remove(primary, prefix, objectKey(body));
    expect(await remote.get(objectKey(body))).toBeNull();
    // A closed day file kept only in the store, and (as the mirrored puts do) in the copy.
    const gz = Buffer.from('pretend gz bytes of a day file');
    writeFileSync(path.join(dir, 'stored.jsonl'), `${JSON.stringify({ path: 'observations/2026-11-30.jsonl.gz', sha256: sha(gz), bytes: gz.length })}\n`);
    await bucket(copy, prefix).put(objectKey(gz), gz);

    const fixed = await store(['repair', objectKey(body), 'observations/2026-11-30.jsonl.gz', '--data', dir], env(prefix, true));
    expect(fixed.stderr).toBe('');
    expect(fixed.code).toBe(0);
    expect(await remote.get(objectKey(body))).toEqual(body);
    expect(await remote.get(objectKey(gz))).toEqual(gz);
    const log = repairLog(dir);
    expect(log.map((l) => [l.key, l.path, l.was, l.was_sha256])).toEqual([
      [objectKey(body), null, 'missing', null],
      [objectKey(gz), 'observations/2026-11-30.jsonl.gz', 'missing', null],
    ]);
    expect(String(log[1]!.source)).toContain('s3://copy-bucket/');
  });

  it('no good copy: nothing is replaced, one sentence, exit 1; a name that is no key is refused by name', async () => {
    const prefix = `repair${++n}`;
    const dir = temp('mcps-repair-');
    const good = Buffer.from('nobody kept these bytes');
    const key = objectKey(good);
    const remote = bucket(primary, prefix);
    await vandal(primary, prefix).put(key, Buffer.from('damaged'));
    // The folder's copy is damaged too (a source is only used when its bytes hash to the name).
    mkdirSync(path.join(dir, path.dirname(key)), { recursive: true });
    writeFileSync(path.join(dir, key), 'also damaged');
    const refused = await store(['repair', key, '--data', dir], env(prefix));
    expect(refused.code).toBe(1);
    expect(refused.stdout.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^no-good-copy: ${key} is corrupt in .* and no good copy was found \\(asked: filesystem ${dir}\\): nothing replaced$`))]);
    expect((await remote.get(key))!.toString()).toBe('damaged');
    expect(repairLog(dir)).toEqual([]);
    // A name that is neither a key nor a stored file: refused by name.
    const odd = await store(['repair', '../etc/passwd', '--data', dir], env(prefix));
    expect(odd.code).toBe(1);
    expect(odd.stdout).toContain('not-a-key: "../etc/passwd" is neither a store key');
    const none = await store(['repair', '--data', dir], env(prefix));
    expect(none.code).toBe(2);
  });
});

describe('the second copy', () => {
  it('every put goes to both; verify --against copy passes, then names a key the copy changed and a key it lost (the primary still passing)', async () => {
    const prefix = `copy${++n}`;
    const first = bucket(primary, prefix);
    const second = bucket(copy, prefix);
    const dir = await collectArchive({ seed: 'second-copy', size: 12, days: 1, remote: new MirroredStore(first, second) }, temp('mcps-copy-'));
    const keys: string[] = [];
    for await (const k of first.list('objects/')) keys.push(k);
    const copied: string[] = [];
    for await (const k of second.list('objects/')) copied.push(k);
    expect(keys.length).toBeGreaterThan(5);
    expect(copied.sort()).toEqual(keys.sort());
    expect((await verifyArchive(dir, { objects: second })).problems).toEqual([]);
    // The plan of a full verify sizes a bucket by its listing: the keys' bytes, as the folder's cache holds them.
    const sized = await storeBytes(first);
    const cached = await storeBytes(new FsObjectStore(dir));
    expect(sized).toEqual(cached);
    expect(sized.keys).toBeGreaterThan(keys.length);

    // The lost key is one a row names (a key nothing names is not the record's to miss); the changed one any other.
    const dayFile = readdirSync(path.join(dir, 'observations')).find((f) => f.endsWith('.jsonl'))!;
    const named = readFileSync(path.join(dir, 'observations', dayFile), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { body_sha256: string | null }).body_sha256).find((b) => b !== null)!;
    const lost = `objects/${named.slice(0, 2)}/${named}`;
    expect(keys).toContain(lost);
    const changed = keys.sort().find((k) => k !== lost)!;
    await vandal(copy, prefix).put(changed!, Buffer.from('bit rot at the other provider'));
    await remove(copy, prefix, lost);
    const cli = await runCli('collector/ops/verify-cli.ts', ['--data', dir, '--against', 'copy'], env(prefix, true));
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(`problem: object-corrupt at ${changed}:`);
    expect(cli.stdout).toMatch(new RegExp(`problem: object-missing at observations/${dayFile}:\\d+: object ${named.slice(0, 12)}… is missing`));
    expect(cli.stdout).toContain('mode: full');
    // A reader through the mirrored store is not stopped by a key one bucket lost: the other's bytes.
    const mirrored = new MirroredStore(first, second);
    const body = await first.get(lost);
    await remove(primary, prefix, lost);
    expect(await mirrored.get(lost)).toBeNull(); // lost in both now
    await first.put(lost, body!);
    expect(await mirrored.get(lost)).toEqual(body);
    // store -- copy brings the copy up to the primary: the lost key comes back, the changed one is
    // left (a key the copy has is never replaced: repair is for that), and a second run copies nothing.
    const caught = await store(['copy', '--data', dir], env(prefix, true));
    expect(caught.stderr).toBe('');
    expect(caught.stdout).toMatch(/^pushed 1 keys \(\d+ bytes\) to s3:\/\/copy-bucket\//);
    expect(await second.get(lost)).toEqual(body);
    expect((await store(['copy', '--data', dir], env(prefix, true))).stdout).toMatch(/^pushed 0 keys/);
    const onlyChanged = await runCli('collector/ops/verify-cli.ts', ['--data', dir, '--against', 'copy'], env(prefix, true));
    // What is left is the changed key (at its key, and at a page whose entry it is, if it is one).
    const left = onlyChanged.stdout.split('\n').filter((l) => l.startsWith('problem: '));
    expect(left.length).toBeGreaterThan(0);
    for (const line of left) expect(line).toContain(changed.slice(-64, -52));
    // Near miss: the primary holds both keys as they were.
    const against = await runCli('collector/ops/verify-cli.ts', ['--data', dir, '--full'], env(prefix, true));
    expect(against.stdout).toContain('ok: no problems');
    expect(against.code).toBe(0);
  }, 120_000);
});
