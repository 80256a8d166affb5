// Server pages on the file host, rendered only when their server changed (MCP_SCHEMA_SERVER_PAGES,
// DESIGN "Incremental server pages"), published to a real S3-compatible server on 127.0.0.1 (the
// suite's s3rver) as the deploy does it: build, `publish-files --fingerprints-out`, build with
// "changed", publish. The archive is the collector's, run against the local world: day D, then day D+1
// on the same world (same endpoints), on which BREAKS_NAME answers HTTP 503 where it answered before.
//
// What is checked:
//   - day D, nothing published yet: every server renders and is uploaded, with its fingerprint;
//   - day D+1, "changed": the servers rendered are exactly those whose page bytes differ between a full
//     build of D+1 and what was published for D (independently of the fingerprints), the breaking
//     server among them, and fewer than all; exactly their pages, change pages, badges, feeds and patches
//     are uploaded;
//   - the same day again after that publish: nothing renders and nothing is uploaded (the near miss);
//   - a store that fails in the middle of an upload leaves the manifest's fingerprints where they were,
//     so the next build renders those servers again and the next publish finishes the job;
//   - every link of the pages of both hosts resolves (a page on the file host links the site absolutely).
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedFingerprints, publishFiles, type PublishTarget } from '../../collector/ops/publish-files.ts';
import { s3Client } from '../../src/archive/s3-store.ts';
import { nameMatches, SERVER_FINGERPRINTS_FILE, shardFor } from '../../src/lib/index.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { BREAKS_NAME, collectArchive } from '../helpers/archive.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { ROOT, TMP } from './shared.ts';

const run = promisify(execFile);
const FILES_URL = 'http://files.invalid/mcp-schema/';
const SITE_URL = 'http://site.invalid';
const WORK = path.join(TMP, 'incremental');
const BREAKS = slugFor(BREAKS_NAME);

/** Day D's and day D+1's archives, copied as the collector left them after each run. */
const ARCHIVE = { seed: 'incremental-pages', size: 12, days: 6, breaksOnDay: 5, timeoutMs: 3000 } as const;

interface Build {
  out: string;
  files: string;
  log: string;
}

async function build(name: string, data: string, env: Record<string, string>): Promise<Build> {
  const out = path.join(WORK, `dist-${name}`);
  const files = path.join(WORK, `files-${name}`);
  rmSync(out, { recursive: true, force: true });
  rmSync(files, { recursive: true, force: true });
  const { stdout, stderr } = await run('npm', ['run', 'build'], {
    cwd: ROOT,
    env: { ...process.env, MCP_SCHEMA_DATA: data, MCP_SCHEMA_OUT: out, MCP_SCHEMA_CACHE: path.join(WORK, `cache-${name}`), MCP_SCHEMA_SITE_URL: SITE_URL, MCP_SCHEMA_FILES_URL: FILES_URL, MCP_SCHEMA_FILES_DIR: files, MCP_SCHEMA_WORKERS: '0', ASTRO_TELEMETRY_DISABLED: '1', ...env },
    maxBuffer: 64 << 20,
  });
  return { out, files, log: stdout + stderr };
}

async function filesUnder(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  return (await readdir(dir, { withFileTypes: true, recursive: true })).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/')).sort();
}

/** The slugs whose server page is in a folder. */
const pageSlugs = (files: string[]) => new Set(files.filter((f) => /^servers\/[^/]+\/index\.html$/.test(f)).map((f) => f.split('/')[1]!));
/** The per-server files behind the fingerprint: pages, change pages, badges, feeds, patches. */
const perServer = (f: string) => /^servers\/[^/]*[_~][^/]*\//.test(f);

let s3: S3TestServer;
let client: S3Client;
let target: PublishTarget;
let dayD: string;
let dayD1: string;
const fpFile = path.join(WORK, 'published-fingerprints.json');

async function pullFingerprints(): Promise<void> {
  const f = await publishedFingerprints(target);
  rmSync(fpFile, { force: true });
  if (f) writeFileSync(fpFile, JSON.stringify(f));
}

async function bucketText(key: string): Promise<string | null> {
  try {
    const a = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return Buffer.from(await a.Body!.transformToByteArray()).toString('utf8');
  } catch (e) {
    if ((e as Error).name === 'NoSuchKey') return null;
    throw e;
  }
}

const changed = { MCP_SCHEMA_SERVER_PAGES: 'changed', MCP_SCHEMA_PUBLISHED_FINGERPRINTS: fpFile };

beforeAll(async () => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  dayD = path.join(WORK, 'archive-D');
  dayD1 = path.join(WORK, 'archive-D1');
  await collectArchive(
    {
      ...ARCHIVE,
      afterRun: async (day, dir) => {
        if (day === ARCHIVE.days - 2) cpSync(dir, dayD, { recursive: true });
        if (day === ARCHIVE.days - 1) cpSync(dir, dayD1, { recursive: true });
      },
    },
    path.join(WORK, 'collecting'),
  );
  s3 = await startS3Server();
  client = s3Client({ endpoint: s3.endpoint, credentials: s3.credentials });
  target = { client, bucket: s3.bucket, prefix: 'site/', description: 'the test bucket' };
}, 300_000);

afterAll(async () => {
  client?.destroy();
  await s3?.close();
});

describe('server pages on the file host, rendered and uploaded when their server changed', () => {
  let first: Build;
  let second: Build;
  let full: Build;
  let firstUpload: Awaited<ReturnType<typeof publishFiles>>;
  let secondUpload: Awaited<ReturnType<typeof publishFiles>>;

  it('day D with nothing published: every server renders, is uploaded, and its fingerprint recorded', async () => {
    await pullFingerprints();
    expect(existsSync(fpFile)).toBe(false);
    first = await build('D', dayD, changed);
    const hosted = await filesUnder(first.files);
    const slugs = pageSlugs(hosted);
    expect(slugs.size).toBeGreaterThan(10);
    expect(slugs.has(BREAKS)).toBe(true);
    // No server page is left on the site; the site's own pages are there.
    expect(pageSlugs(await filesUnder(first.out)).size).toBe(0);
    expect(existsSync(path.join(first.out, 'servers', 'index.html'))).toBe(true);
    const stamps = JSON.parse(await readFile(path.join(first.files, SERVER_FINGERPRINTS_FILE), 'utf8')) as { servers: Record<string, string> };
    expect(new Set(Object.keys(stamps.servers))).toEqual(slugs);
    firstUpload = await publishFiles(first.files, target);
    expect(firstUpload.uploaded).toBe(hosted.length - 1);
    expect(firstUpload.fingerprints).toBe(slugs.size);
    expect(await bucketText(`site/${SERVER_FINGERPRINTS_FILE}`)).toBeNull();
    expect(await bucketText(`site/servers/${BREAKS}/index.html`)).toContain('Answers, then breaks.');
  }, 600_000);

  it('day D+1: exactly the servers whose page changed render and upload, the one that only failed a probe among them', async () => {
    await pullFingerprints();
    second = await build('D1', dayD1, changed);
    full = await build('D1-all', dayD1, { MCP_SCHEMA_SERVER_PAGES: 'all' });
    const rendered = pageSlugs(await filesUnder(second.files));
    // Independently of the fingerprints: the servers whose page bytes (page or change pages) moved between
    // what was published for D and a full build of D+1.
    const allD1 = await filesUnder(full.files);
    const moved = new Set<string>();
    for (const f of allD1.filter((x) => perServer(x) && x.endsWith('.html'))) {
      const before = existsSync(path.join(first.files, f)) ? await readFile(path.join(first.files, f)) : null;
      if (!before || !before.equals(await readFile(path.join(full.files, f)))) moved.add(f.split('/')[1]!);
    }
    expect(rendered).toEqual(moved);
    expect(rendered.has(BREAKS)).toBe(true);
    expect(rendered.size).toBeLessThan(pageSlugs(allD1).size);
    // What was rendered is what the full build wrote, byte for byte.
    for (const f of (await filesUnder(second.files)).filter(perServer)) expect((await readFile(path.join(second.files, f))).equals(await readFile(path.join(full.files, f))), f).toBe(true);
    const page = await readFile(path.join(second.files, 'servers', BREAKS, 'index.html'), 'utf8');
    expect(page).toContain('HTTP 503');
    const upload = (secondUpload = await publishFiles(second.files, target));
    const sent = (await filesUnder(second.files)).filter(perServer);
    expect(new Set(sent.map((f) => f.split('/')[1]!))).toEqual(rendered);
    // Every per-server file the build wrote differs from the published one or is new, so all of them go up.
    expect(upload.uploaded).toBeGreaterThanOrEqual(sent.length);
    expect(upload.uploaded).toBeLessThan(firstUpload.uploaded);
    process.stdout.write(`incremental: day D ${pageSlugs(await filesUnder(first.files)).size} servers rendered, ${firstUpload.uploaded} files uploaded; day D+1 ${rendered.size} rendered (${[...rendered].join(', ')}), ${sent.length} per-server files, ${upload.uploaded} uploaded in all (${upload.bytes} bytes)\n`);
  }, 900_000);

  it('the same day again after its publish: no server renders and nothing is uploaded', async () => {
    await pullFingerprints();
    const again = await build('D1-again', dayD1, changed);
    const hosted = await filesUnder(again.files);
    expect(hosted.filter(perServer)).toEqual([]);
    expect(again.log).toMatch(/server pages on the file host: 0 of \d+ servers/);
    const upload = await publishFiles(again.files, target);
    expect(upload.uploaded).toBe(0);
  }, 600_000);

  it('a store that fails half-way leaves the fingerprints where they were; the next build and publish finish the job', async () => {
    // A fresh prefix: day D published, then day D+1's upload through a proxy that stops the store after 3 writes.
    const fresh: PublishTarget = { ...target, prefix: 'site-failing/' };
    await publishFiles(first.files, fresh);
    const published = await publishedFingerprints(fresh);
    const proxy = await failingProxy(new URL(s3.endpoint), 3);
    const viaProxy = s3Client({ endpoint: proxy.url, credentials: s3.credentials, maxAttempts: 1 });
    try {
      await expect(publishFiles(second.files, { ...fresh, client: viaProxy }, { concurrency: 1 })).rejects.toThrow(/put .* failed/);
    } finally {
      viaProxy.destroy();
      await proxy.close();
    }
    expect(proxy.puts()).toBe(4);
    expect(await publishedFingerprints(fresh)).toEqual(published);
    // The next run sends what day D+1 changed against what the manifest says was published for day D:
    // as much as the uninterrupted publish of the same folder sent (the three that went up are sent again).
    const rerun = await publishFiles(second.files, fresh);
    expect(rerun.uploaded).toBe(secondUpload.uploaded);
    const after = await publishedFingerprints(fresh);
    expect(after).not.toEqual(published);
    expect(after!.servers[BREAKS]).toBe(JSON.parse(await readFile(path.join(second.files, SERVER_FINGERPRINTS_FILE), 'utf8')).servers[BREAKS]);
  }, 600_000);

  it('every link of the pages on both hosts resolves: site pages on the site, server pages and files on the file host', async () => {
    const broken: string[] = [];
    let checked = 0;
    const resolve = (url: string): string | null => {
      if (url.startsWith(FILES_URL)) return path.join(full.files, decodeURIComponent(new URL(url).pathname.slice(new URL(FILES_URL).pathname.length)));
      if (url.startsWith(`${SITE_URL}/`)) return path.join(full.out, decodeURIComponent(new URL(url).pathname));
      return null;
    };
    for (const [dir, base] of [[full.out, `${SITE_URL}/`], [full.files, FILES_URL]] as const) {
      for (const f of (await filesUnder(dir)).filter((x) => x.endsWith('.html'))) {
        const html = await readFile(path.join(dir, f), 'utf8');
        for (const m of html.matchAll(/<(?:a|link|img|script)\b[^>]*?\s(?:href|src)="([^"#]*)/g)) {
          const url = new URL(m[1]!.replace(/&amp;/g, '&'), base + f.replace(/index\.html$/, '')).href;
          const file = resolve(url);
          if (file === null) continue;
          checked++;
          if (!existsSync(url.endsWith('/') ? path.join(file, 'index.html') : file)) broken.push(`${f} → ${url}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect([...new Set(broken)]).toEqual([]);
    // A server page on the file host finds its stylesheet there, and links the site absolutely.
    const page = await readFile(path.join(full.files, 'servers', BREAKS, 'index.html'), 'utf8');
    expect(page).toMatch(new RegExp(`<link rel="stylesheet" href="${FILES_URL}_astro/[^"]+\\.css"`));
    expect(page).toContain(`href="${SITE_URL}/servers/"`);
    expect(page).toContain(`<link rel="canonical" href="${FILES_URL}servers/${BREAKS}/"`);
    // The site's server list links each server on the file host.
    const list = await readFile(path.join(full.out, 'servers', 'index.html'), 'utf8');
    expect(list).toContain(`href="${FILES_URL}servers/${BREAKS}/"`);
    // The search page finds servers by name from the shards on the file host: the breaking server from its word "breaks".
    const search = await readFile(path.join(full.out, 'search', 'index.html'), 'utf8');
    expect(search).toContain(`data-names="${FILES_URL}api/server-names/"`);
    expect(search).toContain(`data-pages="${FILES_URL}servers/"`);
    const names = JSON.parse(await readFile(path.join(full.files, 'api', 'server-names', 'index.json'), 'utf8')) as { prefixes: string[] };
    const at = shardFor('breaks', new Set(names.prefixes));
    expect(at && 'shard' in at).toBe(true);
    const shard = JSON.parse(await readFile(path.join(full.files, 'api', 'server-names', `${(at as { shard: string }).shard}.json`), 'utf8')) as { servers: [string, string][] };
    expect(shard.servers.filter(([n]) => nameMatches(n, 'breaks later'))).toEqual([[BREAKS_NAME, BREAKS]]);
    // Pagefind indexes the site-wide pages instead of server pages (none are on the site).
    expect(full.log).toMatch(/search over ([1-9]\d*) pages/);
    // The 404 page says where server pages went, for a reader without script.
    const notFound = await readFile(path.join(full.out, '404.html'), 'utf8');
    expect(notFound).toContain('data-testid="server-pages-elsewhere"');
    expect(notFound).toContain('data-server-pages="1"');
  });
});

/** A raw node:http proxy in front of the store that forwards `okPuts` PUTs and then answers every request 503: a store gone mid-upload. */
async function failingProxy(upstream: URL, okPuts: number): Promise<{ url: string; puts: () => number; close: () => Promise<void> }> {
  let puts = 0;
  const server: Server = createServer((req, res) => {
    const isPut = req.method === 'PUT';
    if (isPut) puts++;
    if (isPut && puts > okPuts) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>ServiceUnavailable</Code><Message>stopped</Message></Error>');
      return;
    }
    const fwd = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, puts: () => puts, close: () => new Promise<void>((r) => server.close(() => r())) };
}
