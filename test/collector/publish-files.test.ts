// npm run publish-files (collector/ops/publish-files.ts), run as the deploy runs it, against a real
// S3-compatible server on 127.0.0.1: every file of the file host's folder lands under its path with
// its type and caching; a second run sends nothing; a changed file alone is sent again; a file no
// longer built is kept (a published URL keeps answering); a failed upload leaves the manifest as it
// was, so the next run sends what is missing. The build's records (server fingerprints, sealed months)
// go into the manifest, never up as files, and the sealed months only when the bucket holds their files.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../src/archive/s3-store.ts';
import { cacheControlOf, contentTypeOf, MANIFEST_KEY, publishedSealed } from '../../collector/ops/publish-files.ts';
import { SEALED_BUNDLES_FILE, SERVER_FINGERPRINTS_FILE } from '../../src/lib/index.ts';
import { runCli } from '../helpers/cli.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';

const BODY = 'ab'.repeat(32);
let server: S3TestServer;
let client: S3Client;
const dirs: string[] = [];
let n = 0;

/** The CLI with only the variables given (never the machine's own AWS_*). */
const publish = (args: string[], env: Record<string, string>) => runCli('collector/ops/publish-files-cli.ts', args, env);

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcps-files-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

function setup(endpoint = server.endpoint) {
  const prefix = `site${++n}/`;
  const env = { MCP_SCHEMA_FILES_STORE: `s3://${server.bucket}/${prefix}`, MCP_SCHEMA_STORE_ENDPOINT: endpoint, AWS_ACCESS_KEY_ID: server.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: server.credentials.secretAccessKey };
  const get = async (key: string) => {
    try {
      const a = await client.send(new GetObjectCommand({ Bucket: server.bucket, Key: `${prefix}${key}` }));
      const bytes = Buffer.from(await a.Body!.transformToByteArray());
      return { text: bytes.toString('utf8'), bytes, type: a.ContentType, cache: a.CacheControl };
    } catch (e) {
      if ((e as Error).name === 'NoSuchKey') return null;
      throw e;
    }
  };
  const target = { client, bucket: server.bucket, prefix, description: `s3://${server.bucket}/${prefix}` };
  return { env, prefix, get, target };
}

const FILES = {
  'api/servers/io.example_a.json': '{"name":"a"}',
  'servers/io.example_a/badge.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  'servers/io.example_a/feed.xml': '<rss/>',
  'servers/io.example_a/feed.json': '{"version":"https://jsonfeed.org/version/1.1"}',
  [`objects/ab/${BODY}.json`]: '{"result":{}}',
  'data/SHA256SUMS': 'x  y\n',
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A sealed month as the build records it: its key and its files' names and texts. */
function sealedMonth(key: string, files: Record<string, string>) {
  return { key: key.repeat(64), files: Object.entries(files).map(([name, text]) => ({ name, resource: 'observations', rows: 1, sha256: sha256(text), bytes: Buffer.byteLength(text) })) };
}

const JAN = { 'observations-2026-01.jsonl.gz': 'january', 'observations-2026-01.csv.gz': 'january csv' };
const FEB = { 'observations-2026-02.jsonl.gz': 'february' };
const dataFiles = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([name, text]) => [`data/${name}`, text]));

beforeAll(async () => {
  server = await startS3Server();
  client = s3Client({ endpoint: server.endpoint, credentials: server.credentials });
});
afterAll(async () => {
  client?.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await server?.close();
});

describe('npm run publish-files', () => {
  it('puts every file under its path with its type and caching; a second run sends nothing', async () => {
    const { env, get } = setup();
    const dir = folder(FILES);
    const first = await publish(['--dir', dir], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^published 6 of 6 files \(\d+ bytes\) to s3:\/\/[^ ]+ at http:\/\/127\.0\.0\.1:\d+ in [\d.]+ s; 0 unchanged; 0 published before and kept\n$/);
    for (const [rel, text] of Object.entries(FILES)) {
      const got = await get(rel);
      expect(got?.text, rel).toBe(text);
      expect(got?.type, rel).toBe(contentTypeOf(rel));
      expect(got?.cache, rel).toBe(cacheControlOf(rel));
    }
    expect((await get(`objects/ab/${BODY}.json`))?.cache).toBe('public, max-age=31536000, immutable');
    expect((await get('api/servers/io.example_a.json'))?.cache).toBe('public, max-age=300');
    expect((await get('servers/io.example_a/feed.json'))?.type).toBe('application/feed+json; charset=utf-8');
    expect((await get('servers/io.example_a/badge.svg'))?.type).toBe('image/svg+xml');
    const again = await publish(['--dir', dir, '--json'], env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ files: 6, uploaded: 0, bytes: 0, unchanged: 6, kept: 0 });
  }, 60_000);

  it('sends a changed file alone, keeps a file no longer built, and --all sends everything again', async () => {
    const { env, get } = setup();
    const dir = folder(FILES);
    expect((await publish(['--dir', dir], env)).code).toBe(0);
    const { 'servers/io.example_a/feed.xml': _gone, ...rest } = FILES;
    const next = folder({ ...rest, 'api/servers/io.example_a.json': '{"name":"a","v":2}' });
    const run = await publish(['--dir', next, '--json'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ files: 5, uploaded: 1, unchanged: 4, kept: 1 });
    expect((await get('api/servers/io.example_a.json'))?.text).toBe('{"name":"a","v":2}');
    expect((await get('servers/io.example_a/feed.xml'))?.text).toBe('<rss/>');
    const all = await publish(['--dir', next, '--all', '--json'], env);
    expect(JSON.parse(all.stdout)).toMatchObject({ files: 5, uploaded: 5, unchanged: 0 });
  }, 60_000);

  it('a failed upload exits 1 and leaves the manifest as it was: the next run sends what is missing', async () => {
    const ok = setup();
    const dir = folder(FILES);
    expect((await publish(['--dir', dir], ok.env)).code).toBe(0);
    const manifest = (await ok.get(MANIFEST_KEY))!;
    writeFileSync(path.join(dir, 'api/servers/io.example_a.json'), '{"name":"a","v":3}');
    // The same bucket through an endpoint where nothing listens: every request fails.
    const doomed = await startS3Server();
    const endpoint = doomed.endpoint;
    await doomed.close();
    const failed = await publish(['--dir', dir], { ...ok.env, MCP_SCHEMA_STORE_ENDPOINT: endpoint });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^publish-files: could not read \.published\.json\.gz from s3:\/\/.+\n$/);
    expect((await ok.get(MANIFEST_KEY))?.text).toBe(manifest.text);
    const retried = await publish(['--dir', dir, '--json'], ok.env);
    expect(JSON.parse(retried.stdout)).toMatchObject({ uploaded: 1, unchanged: 5 });
    expect((await ok.get('api/servers/io.example_a.json'))?.text).toBe('{"name":"a","v":3}');
  }, 60_000);

  it("records the build's server fingerprints in the manifest, never as a file, and hands them to the next build with --fingerprints-out", async () => {
    const { env, get } = setup();
    const out = path.join(folder({}), 'published.json');
    // Nothing published yet: no file (the build then renders every server), and a stale one is removed.
    writeFileSync(out, 'stale');
    const none = await publish(['--fingerprints-out', out], env);
    expect(none.code).toBe(0);
    expect(existsSync(out)).toBe(false);
    const stamps = { format: 1, key: 'c'.repeat(64), servers: { io_example_a: 'd'.repeat(64), io_example_b: 'e'.repeat(64) } };
    const dir = folder({ ...FILES, [SERVER_FINGERPRINTS_FILE]: JSON.stringify(stamps) });
    const first = await publish(['--dir', dir, '--json'], env);
    expect(JSON.parse(first.stdout)).toMatchObject({ files: 6, uploaded: 6, fingerprints: 2 });
    expect(await get(SERVER_FINGERPRINTS_FILE)).toBeNull();
    expect((await publish(['--fingerprints-out', out], env)).stdout).toBe(`wrote 2 published fingerprints to ${out}\n`);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(stamps);
    // The next build names one server again (its fingerprint moved): the other keeps its own; no file changed, the manifest still moves.
    const next = folder({ ...FILES, [SERVER_FINGERPRINTS_FILE]: JSON.stringify({ ...stamps, servers: { io_example_b: 'f'.repeat(64) } }) });
    expect(JSON.parse((await publish(['--dir', next, '--json'], env)).stdout)).toMatchObject({ uploaded: 0, fingerprints: 1 });
    await publish(['--fingerprints-out', out], env);
    expect(JSON.parse(readFileSync(out, 'utf8')).servers).toEqual({ io_example_a: 'd'.repeat(64), io_example_b: 'f'.repeat(64) });
    // A fingerprints file that is not one is refused before anything is sent.
    const bad = await publish(['--dir', folder({ ...FILES, [SERVER_FINGERPRINTS_FILE]: '{"format":1,"key":"x","servers":{}}' })], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^publish-files: \.server-fingerprints\.json in .+ is not \{"format": 1, "key": sha256, "servers": \{slug: sha256\}\}: build the folder again\n$/);
    expect((await publish(['--dir', dir, '--fingerprints-out', out], env)).code).toBe(2);
  }, 60_000);

  it("records the build's sealed months in the manifest, never as a file, merges them month by month, and hands them on with --sealed-out", async () => {
    const { env, get, target } = setup();
    const out = path.join(folder({}), 'sealed.json');
    const stamps = path.join(folder({}), 'fingerprints.json');
    // Nothing published yet: no file (the build then writes every month's bundles), and a stale one is removed.
    writeFileSync(out, 'stale');
    const none = await publish(['--sealed-out', out], env);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/ records no sealed months: nothing written \(the build writes every month's bundles\)\n$/);
    expect(existsSync(out)).toBe(false);
    expect(await publishedSealed(target)).toBeNull();
    const first = { format: 1, months: { '2026-01': sealedMonth('a', JAN) } };
    const dir = folder({ ...FILES, ...dataFiles(JAN), [SEALED_BUNDLES_FILE]: JSON.stringify(first) });
    const run = await publish(['--dir', dir], env);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^published 8 of 8 files .*; 1 sealed months recorded\n$/);
    expect(await get(SEALED_BUNDLES_FILE)).toBeNull();
    expect((await get('data/observations-2026-01.jsonl.gz'))?.text).toBe('january');
    expect(await publishedSealed(target)).toEqual(first);
    // Both records from one run; the manifest has no fingerprints, so that file is not written.
    writeFileSync(stamps, 'stale');
    const both = await publish(['--fingerprints-out', stamps, '--sealed-out', out], env);
    expect(both.code).toBe(0);
    expect(both.stdout).toMatch(/records no fingerprints: nothing written .*\nwrote 1 sealed months to .*sealed\.json\n$/);
    expect(existsSync(stamps)).toBe(false);
    expect(readFileSync(out, 'utf8')).toBe(`${JSON.stringify(first)}\n`);
    // The next build seals January again (other bytes, another key) and February; January's new entry replaces the old.
    const jan2 = { 'observations-2026-01.jsonl.gz': 'january, again' };
    const second = { format: 1, months: { '2026-02': sealedMonth('c', FEB), '2026-01': sealedMonth('b', jan2) } };
    const next = folder({ ...FILES, ...dataFiles(jan2), ...dataFiles(FEB), [SEALED_BUNDLES_FILE]: JSON.stringify(second) });
    expect(JSON.parse((await publish(['--dir', next, '--json'], env)).stdout)).toMatchObject({ uploaded: 2, sealed: 2 });
    expect(await publishedSealed(target)).toEqual({ format: 1, months: { '2026-01': sealedMonth('b', jan2), '2026-02': sealedMonth('c', FEB) } });
    // A build that seals only March: January and February keep their entries (their files are in the bucket, not in this folder).
    const mar = { 'observations-2026-03.parquet': 'march' };
    const third = folder({ ...FILES, ...dataFiles(mar), [SEALED_BUNDLES_FILE]: JSON.stringify({ format: 1, months: { '2026-03': sealedMonth('d', mar) } }) });
    expect((await publish(['--dir', third], env)).code).toBe(0);
    expect(Object.keys((await publishedSealed(target))!.months)).toEqual(['2026-01', '2026-02', '2026-03']);
    // Only the record changed (February sealed again under another key, its files already up): nothing is sent, the manifest still moves.
    const rekeyed = folder({ ...FILES, [SEALED_BUNDLES_FILE]: JSON.stringify({ format: 1, months: { '2026-02': sealedMonth('e', FEB) } }) });
    expect(JSON.parse((await publish(['--dir', rekeyed, '--json'], env)).stdout)).toMatchObject({ uploaded: 0, sealed: 1 });
    expect((await publishedSealed(target))!.months['2026-02']!.key).toBe('e'.repeat(64));
    expect((await publish(['--dir', next, '--sealed-out', out], env)).code).toBe(2);
    expect((await publish(['--sealed-out', ''], env)).code).toBe(2);
  }, 60_000);

  it('refuses a sealed-months record that names a file the bucket does not hold with those bytes, and leaves the manifest as it was', async () => {
    const { env, get, target } = setup();
    const first = { format: 1, months: { '2026-01': sealedMonth('a', JAN) } };
    expect((await publish(['--dir', folder({ ...FILES, ...dataFiles(JAN), [SEALED_BUNDLES_FILE]: JSON.stringify(first) })], env)).code).toBe(0);
    const manifest = (await get(MANIFEST_KEY))!.bytes;
    // A file in neither the folder nor the bucket (and a changed file, so something is uploaded first).
    const absent = { format: 1, months: { '2026-02': sealedMonth('b', { 'x.jsonl.gz': 'x', 'y.csv.gz': 'y', 'z.parquet': 'z', 'w.jsonl.gz': 'w' }) } };
    const missing = await publish(['--dir', folder({ ...FILES, 'api/servers/io.example_a.json': '{"v":2}', [SEALED_BUNDLES_FILE]: JSON.stringify(absent) })], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('publish-files: the sealed-months record names files the bucket does not hold with those bytes: data/x.jsonl.gz, data/y.csv.gz, data/z.parquet and 1 more; build the folder again\n');
    expect((await get(MANIFEST_KEY))!.bytes.equals(manifest)).toBe(true);
    // A file the folder holds with other bytes than the record says.
    const feb = { format: 1, months: { '2026-02': sealedMonth('b', FEB) } };
    const other = await publish(['--dir', folder({ ...FILES, 'data/observations-2026-02.jsonl.gz': 'not february', [SEALED_BUNDLES_FILE]: JSON.stringify(feb) })], env);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe('publish-files: the sealed-months record names files the bucket does not hold with those bytes: data/observations-2026-02.jsonl.gz; build the folder again\n');
    expect((await get(MANIFEST_KEY))!.bytes.equals(manifest)).toBe(true);
    expect(await publishedSealed(target)).toEqual(first);
    // Near miss: the record names January's files again, absent from this folder but uploaded by the first run.
    const again = { format: 1, months: { ...first.months, ...feb.months } };
    const ok = await publish(['--dir', folder({ ...FILES, ...dataFiles(FEB), [SEALED_BUNDLES_FILE]: JSON.stringify(again) }), '--json'], env);
    expect(ok.stderr).toBe('');
    expect(JSON.parse(ok.stdout)).toMatchObject({ sealed: 2 });
    expect(await publishedSealed(target)).toEqual(again);
  }, 60_000);

  it('refuses a sealed-months record in the folder that is not one, before anything is sent, and one in the manifest on read', async () => {
    const { env, get, prefix, target } = setup();
    const shape = '{"format": 1, "months": {"YYYY-MM": {"key": sha256, "files": [{name, resource, rows, sha256, bytes}]}}}';
    for (const text of ['{"format":1,"months":', JSON.stringify({ format: 1, months: { '2026-01': { ...sealedMonth('a', JAN), files: [{ ...sealedMonth('a', JAN).files[0], name: '../x' }] } } })]) {
      const dir = folder({ ...FILES, [SEALED_BUNDLES_FILE]: text });
      const bad = await publish(['--dir', dir], env);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toBe(`publish-files: ${SEALED_BUNDLES_FILE} in ${dir} is not ${shape}: build the folder again\n`);
    }
    expect(await get('api/servers/io.example_a.json')).toBeNull();
    expect(await get(MANIFEST_KEY)).toBeNull();
    await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${prefix}${MANIFEST_KEY}`, Body: gzipSync(JSON.stringify({ format: 1, files: {}, sealed: { format: 1, months: { '2026-13': sealedMonth('a', JAN) } } })) }));
    const message = `publish-files: ${MANIFEST_KEY} in s3://${server.bucket}/${prefix} at ${server.endpoint} has a sealed-months record that is not ${shape}: remove it to upload every file again\n`;
    for (const args of [['--dir', folder(FILES)], ['--sealed-out', path.join(folder({}), 'sealed.json')]]) {
      const bad = await publish(args, env);
      expect(bad.code, args[0]).toBe(1);
      expect(bad.stderr, args[0]).toBe(message);
    }
    await expect(publishedSealed(target)).rejects.toThrow(/has a sealed-months record that is not /);
  }, 60_000);

  it('refuses a manifest it cannot read, a missing bucket setting and a missing folder, each in one line', async () => {
    const { env, prefix } = setup();
    await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${prefix}${MANIFEST_KEY}`, Body: gzipSync('{"files":{"a":"not a hash"}}') }));
    const bad = await publish(['--dir', folder(FILES)], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`publish-files: ${MANIFEST_KEY} in s3://${server.bucket}/${prefix} at ${server.endpoint} is not {"files": {path: sha256}}: remove it to upload every file again\n`);
    const none = await publish(['--dir', folder(FILES)], { ...env, MCP_SCHEMA_FILES_STORE: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe("publish-files: MCP_SCHEMA_FILES_STORE is not set: name the file host's bucket (s3://<bucket>/<prefix>; see --help)\n");
    const noDir = await publish(['--dir', path.join(tmpdir(), 'mcps-no-such-folder')], env);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toMatch(/^publish-files: no folder at --dir /);
    const badUrl = await publish(['--dir', folder(FILES)], { ...env, MCP_SCHEMA_FILES_STORE: 'https://bucket' });
    expect(badUrl.stderr).toBe('publish-files: MCP_SCHEMA_FILES_STORE must be s3://<bucket>/<prefix>, not "https://bucket"\n');
    const help = await publish(['--help'], {});
    expect(help.code).toBe(0);
    for (const word of ['--dir <folder>', '--all', 'MCP_SCHEMA_FILES_STORE=s3://<bucket>/<prefix>', MANIFEST_KEY, 'ever deleted']) expect(help.stdout).toContain(word);
  }, 60_000);
});

describe('contentTypeOf, cacheControlOf', () => {
  it('types what readers open by name, and caches only content-addressed bodies for good', () => {
    expect(contentTypeOf('data/observations-2026-01.parquet')).toBe('application/vnd.apache.parquet');
    expect(contentTypeOf('data/observations-2026-01.csv.gz')).toBe('application/gzip');
    expect(contentTypeOf('data/SHA256SUMS')).toBe('text/plain; charset=utf-8');
    expect(contentTypeOf('objects/ab/x.txt')).toBe('text/plain; charset=utf-8');
    expect(contentTypeOf('data/CITATION.cff')).toBe('text/plain; charset=utf-8');
    expect(contentTypeOf('servers/a/changes/c.patch.json')).toBe('application/json; charset=utf-8');
    expect(contentTypeOf('what.bin')).toBe('application/octet-stream');
    expect(cacheControlOf(`objects/ab/${BODY}.txt`)).toBe('public, max-age=31536000, immutable');
    expect(cacheControlOf(`objects/ab/${BODY.slice(1)}.json`)).toBe('public, max-age=300');
    expect(cacheControlOf('api/sets/x.json')).toBe('public, max-age=300');
    // Server pages on the file host: HTML briefly, the build's content-named assets for good.
    expect(contentTypeOf('servers/a_b/index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeOf('_astro/Base.abc.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('_astro/page.abc.js')).toBe('text/javascript; charset=utf-8');
    expect(cacheControlOf('servers/a_b/index.html')).toBe('public, max-age=300');
    expect(cacheControlOf('_astro/Base.abc.css')).toBe('public, max-age=31536000, immutable');
    expect(cacheControlOf('_astro/sub/Base.abc.css')).toBe('public, max-age=300');
  });
});
