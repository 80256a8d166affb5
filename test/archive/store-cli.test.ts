// npm run store -- push|check|offload|pull, run as the operator runs it (tsx, the environment, exit codes) against
// a real S3-compatible server on 127.0.0.1: push uploads what the bucket lacks and never a corrupt
// object, check names local keys the bucket lacks (and remote keys not cached).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { runCli } from '../helpers/cli.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const objectKey = (bytes: Uint8Array) => `objects/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;
const pageKey = (seed: string) => `pages/${sha(Buffer.from(seed)).slice(0, 2)}/${sha(Buffer.from(seed))}.json`;

let server: S3TestServer;
const dirs: string[] = [];
const remotes: S3ObjectStore[] = [];
let n = 0;

/** The CLI with only the variables given (never the machine's own AWS_*). */
const store = (args: string[], env: Record<string, string>) => runCli('collector/ops/store-cli.ts', args, env);

function setup() {
  const prefix = `cli${++n}`;
  const env = {
    MCP_SCHEMA_STORE: `s3://${server.bucket}/${prefix}`,
    MCP_SCHEMA_STORE_ENDPOINT: server.endpoint,
    AWS_ACCESS_KEY_ID: server.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: server.credentials.secretAccessKey,
  };
  const remote = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix, credentials: server.credentials });
  remotes.push(remote);
  const dir = mkdtempSync(path.join(tmpdir(), 'mcps-store-cli-'));
  dirs.push(dir);
  return { env, remote, dir, local: new FsObjectStore(dir, { durable: false }) };
}

beforeAll(async () => {
  server = await startS3Server();
});
afterAll(async () => {
  for (const r of remotes) r.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await server?.close();
});

describe('npm run store', () => {
  it('check, push, check: uploads what the bucket lacks (counts and bytes), never a corrupt object', async () => {
    const { env, remote, dir, local } = setup();
    const objects = [Buffer.from('one'), Buffer.from('two two'), Buffer.from([0, 255, 7])];
    const pages = [pageKey('listing a'), pageKey('listing b')];
    for (const bytes of objects) await local.put(objectKey(bytes), bytes);
    for (const key of pages) await local.put(key, Buffer.from('{"entries":[]}'));
    // Already in the bucket: one local object, and one key this folder has never cached.
    await remote.put(objectKey(objects[0]!), objects[0]!);
    const remoteOnly = Buffer.from('pushed by another machine');
    await remote.put(objectKey(remoteOnly), remoteOnly);
    // A corrupt object (its bytes are not its name) and a writer's temp file: neither is uploaded.
    const corrupt = objectKey(Buffer.from('what it should be'));
    mkdirSync(path.join(dir, path.dirname(corrupt)), { recursive: true });
    writeFileSync(path.join(dir, corrupt), 'bit rot');
    writeFileSync(path.join(dir, `${objectKey(objects[1]!)}.tmp-123-abcd`), 'half');

    const before = await store(['check', '--data', dir], env);
    expect(before.code).toBe(1);
    const missing = [objectKey(objects[1]!), objectKey(objects[2]!), corrupt, ...pages].sort();
    expect(before.stdout).toContain(`remote ${remote.description}: 2 keys; local ${dir}: 6 keys`);
    expect(before.stdout).toContain(`5 local keys missing remotely (not durable yet: npm run store -- push):\n${missing.map((k) => `  ${k}`).join('\n')}\n`);
    expect(before.stdout).toContain(`1 remote keys not cached locally:\n  ${objectKey(remoteOnly)}\n`);

    const push = await store(['push', '--data', dir], env);
    expect(push.stderr).toBe('');
    expect(push.code).toBe(1); // the corrupt object
    const bytes = objects[1]!.length + objects[2]!.length + 2 * '{"entries":[]}'.length;
    expect(push.stdout).toBe(`pushed 4 keys (${bytes} bytes) to ${remote.description}; 1 already there; 1 corrupt, not uploaded:\n  ${corrupt}\n`);
    for (const key of [...objects.map(objectKey), ...pages]) expect(await remote.has(key)).toBe(true);
    expect(await remote.has(corrupt)).toBe(false);
    expect((await remote.get(objectKey(objects[2]!)))!.equals(objects[2]!)).toBe(true);

    const json = await store(['check', '--data', dir, '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ remote: remote.description, local: dir, remote_keys: 6, local_keys: 6, local_only: [corrupt], remote_only: [objectKey(remoteOnly)] });

    rmSync(path.join(dir, corrupt));
    const after = await store(['check', '--data', dir], env);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('0 local keys missing remotely\n');
    const again = await store(['push', '--data', dir, '--json'], env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ uploaded: 0, bytes: 0, already_remote: 5, corrupt: [] });
  });

  it('push never replaces a key the bucket has', async () => {
    const { env, remote, dir } = setup();
    const bytes = Buffer.from('the bucket copy');
    await remote.put(objectKey(bytes), bytes);
    // A local page manifest with other bytes under a key the bucket has (pages are checked by presence only).
    const key = pageKey('same name');
    await remote.put(key, Buffer.from('{"remote":1}'));
    mkdirSync(path.join(dir, path.dirname(key)), { recursive: true });
    writeFileSync(path.join(dir, key), '{"local":1}');
    const push = await store(['push', '--data', dir], env);
    expect(push.code).toBe(0);
    expect(push.stdout).toContain('pushed 0 keys (0 bytes)');
    expect((await remote.get(key))!.toString()).toBe('{"remote":1}');
  });

  it('--help is exit 0 and names the commands and variables; bad usage and no store are exit 2 with one line', async () => {
    const { env, dir } = setup();
    // Independent runs, started together (each is a tsx start-up).
    const [help, none, noSecret, wrong, noData, zero] = await Promise.all([
      store(['--help'], {}),
      store(['check', '--data', dir], {}),
      store(['push', '--data', dir], { ...env, AWS_SECRET_ACCESS_KEY: '' }),
      store(['fetch', '--data', dir], env),
      store(['check', '--data', path.join(dir, 'nope')], env),
      store(['push', '--data', dir, '--concurrency', '0'], env),
    ]);
    expect(help.code).toBe(0);
    for (const word of ['push', 'check', 'MCP_SCHEMA_STORE=s3://<bucket>/<prefix>', 'MCP_SCHEMA_STORE_ENDPOINT', 'MCP_SCHEMA_STORE_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', '--data <dir>', '--concurrency <n>', '--json']) expect(help.stdout).toContain(word);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('store: MCP_SCHEMA_STORE is not set: check needs a remote store (s3://<bucket>/<prefix>; see --help)\n');
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toBe('store: MCP_SCHEMA_STORE is set but AWS_SECRET_ACCESS_KEY is not\n');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('store: expected one command, push, check, offload, pull, copy, repair, keep, restore (see --help)\n');
    expect(noData.code).toBe(2);
    expect(noData.stderr).toBe(`store: no archive at --data ${path.join(dir, 'nope')}\n`);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toBe('store: --concurrency must be an integer from 1 to 64, got "0"\n');
  });

  it('offload names the closed files in stored.jsonl and puts their bytes in the bucket; pull brings a range of days back, checked', async () => {
    const { env, remote, dir } = setup();
    const day = (d: string, text: string) => {
      mkdirSync(path.join(dir, 'observations'), { recursive: true });
      writeFileSync(path.join(dir, 'observations', `${d}.jsonl.gz`), gzipSync(text));
    };
    day('2026-11-01', '{"run_id":"a"}\n');
    day('2026-11-02', '{"run_id":"b"}\n');
    writeFileSync(path.join(dir, 'observations', '2026-11-03.jsonl'), '{"run_id":"open"}\n'); // open: never stored
    const off = await store(['offload', '--data', dir, '--json'], env);
    expect(off.code).toBe(0);
    const added = (JSON.parse(off.stdout) as { added: { path: string; sha256: string }[] }).added;
    expect(added.map((l) => l.path)).toEqual(['observations/2026-11-01.jsonl.gz', 'observations/2026-11-02.jsonl.gz']);
    for (const l of added) expect(await remote.has(`objects/${l.sha256.slice(0, 2)}/${l.sha256}`)).toBe(true);
    expect(readFileSync(path.join(dir, 'stored.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
    rmSync(path.join(dir, 'observations', '2026-11-01.jsonl.gz'));
    rmSync(path.join(dir, 'observations', '2026-11-02.jsonl.gz'));
    const [pull, recentAndFrom, badDay, reversed] = await Promise.all([
      store(['pull', '--data', dir, '--from', '2026-11-02', '--to', '2026-11-02'], env),
      store(['pull', '--data', dir, '--recent', '3', '--from', '2026-11-01'], env),
      store(['pull', '--data', dir, '--from', '2026-13-01'], env),
      store(['pull', '--data', dir, '--from', '2026-11-02', '--to', '2026-11-01'], env),
    ]);
    expect(pull.code).toBe(0);
    expect(pull.stdout).toMatch(/^pulled 1 stored files \(\d+ bytes\) of 2026-11-02\.\.2026-11-02 from /);
    expect(gunzipSync(readFileSync(path.join(dir, 'observations', '2026-11-02.jsonl.gz'))).toString()).toBe('{"run_id":"b"}\n');
    expect(existsSync(path.join(dir, 'observations', '2026-11-01.jsonl.gz'))).toBe(false);
    expect([recentAndFrom.code, badDay.code, reversed.code]).toEqual([2, 2, 2]);
    expect(recentAndFrom.stderr).toBe('store: --recent replaces --from and --to: give one or the other\n');
    expect(badDay.stderr).toBe('store: --from must be a day, YYYY-MM-DD, got "2026-13-01"\n');
    expect(reversed.stderr).toBe('store: --from 2026-11-02 is after --to 2026-11-01\n');
  });

  it('a store that cannot be reached is exit 1 with one line naming it', async () => {
    const { env, dir, local } = setup();
    await local.put(objectKey(Buffer.from('x')), Buffer.from('x'));
    const doomed = await startS3Server();
    await doomed.close();
    const run = await store(['push', '--data', dir], { ...env, MCP_SCHEMA_STORE_ENDPOINT: doomed.endpoint });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^store: s3 list objects\/: .*ECONNREFUSED.* \(s3:\/\/.* at http:\/\/127\.0\.0\.1:\d+\)\n$/);
    expect(run.stderr).not.toContain(server.credentials.secretAccessKey); // (the access key id is the same word)
  });
});
