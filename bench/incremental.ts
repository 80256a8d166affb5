// npm run bench:incremental -- [--targets <n>] [--days <n>]
//
// What a day costs with server pages on the file host (MCP_SCHEMA_SERVER_PAGES=changed, DESIGN
// "Incremental server pages"): the collector's world observed for <days> days into a scratch folder,
// then, as the deploy does it against a loopback s3rver bucket:
//   day D     nothing published yet: every server renders and goes up;
//   day D+1   the world's next day: the servers whose fingerprint moved;
//   again     day D+1 once more after its publish: the floor (no server changed).
// Printed per step: servers rendered, per-server files written (pages, change pages, badges, feeds,
// patches), files uploaded and their bytes, and the files written and uploaded by kind, so what still
// goes up every day is visible (an upload is a file whose SHA-256 differs from the one published, as
// publish-files decides it).
// Counts, not times: a shared machine's wall clock is printed only as a hint.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { publishedFingerprints, publishFiles, type PublishTarget } from '../collector/ops/publish-files.ts';
import { s3Client } from '../src/archive/s3-store.ts';
import { collectArchive } from '../test/helpers/archive.ts';
import { startS3Server } from '../test/helpers/s3-server.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FILES_URL = 'http://files.invalid/mcp-schema/';

const { values } = parseArgs({ options: { targets: { type: 'string', default: '60' }, days: { type: 'string', default: '6' } } });
const targets = Number(values.targets);
const days = Number(values.days);
if (!Number.isInteger(targets) || targets < 1 || !Number.isInteger(days) || days < 2) throw new Error('--targets ≥ 1 and --days ≥ 2, whole numbers');

const work = mkdtempSync(path.join(os.tmpdir(), 'mcps-bench-incremental-'));
const fpFile = path.join(work, 'published.json');

function filesOf(dir: string): { rel: string; bytes: number }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => ({ rel: path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'), bytes: statSync(path.join(e.parentPath, e.name)).size }));
}

/** The kind of a file on the file host, for the per-kind counts. */
function kind(rel: string): string {
  if (/^servers\/[^/]+\/index\.html$/.test(rel)) return 'server pages';
  if (/^servers\/[^/]+\/changes\/[^/]+\/index\.html$/.test(rel)) return 'change pages';
  if (/^servers\//.test(rel)) return 'badges, feeds, patches';
  if (/^api\/(servers|tools)\//.test(rel)) return 'descriptors, tools files';
  if (/^api\/sets\//.test(rel)) return 'set files';
  if (/^api\/status\//.test(rel)) return 'status files';
  if (/^api\/(tool-names|endpoints|server-names)\//.test(rel)) return 'name indexes';
  if (/^api\//.test(rel)) return 'other /api/';
  if (/^objects\//.test(rel)) return 'raw bodies';
  if (/^_astro\//.test(rel)) return 'assets';
  return 'data files';
}

/** What the bucket holds, path → SHA-256, as the bench has published it. */
const published = new Map<string, string>();

async function day(name: string, data: string, target: PublishTarget): Promise<void> {
  const f = await publishedFingerprints(target);
  rmSync(fpFile, { force: true });
  if (f) writeFileSync(fpFile, JSON.stringify(f));
  const out = path.join(work, `dist-${name}`);
  const files = path.join(work, `files-${name}`);
  const t0 = Date.now();
  await run('npm', ['run', 'build'], {
    cwd: ROOT,
    env: { ...process.env, MCP_SCHEMA_DATA: data, MCP_SCHEMA_OUT: out, MCP_SCHEMA_CACHE: path.join(work, 'cache'), MCP_SCHEMA_FILES_URL: FILES_URL, MCP_SCHEMA_FILES_DIR: files, MCP_SCHEMA_SERVER_PAGES: 'changed', MCP_SCHEMA_PUBLISHED_FINGERPRINTS: fpFile, ASTRO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 64 << 20,
  });
  const built = (Date.now() - t0) / 1000;
  const written = filesOf(files);
  const rendered = written.filter((x) => kind(x.rel) === 'server pages').length;
  const perServer = written.filter((x) => /^servers\//.test(x.rel)).length;
  const shas = new Map(written.map((x) => [x.rel, createHash('sha256').update(readFileSync(path.join(files, x.rel))).digest('hex')]));
  const summary = await publishFiles(files, target);
  const byKind = new Map<string, { files: number; bytes: number; up: number; upBytes: number }>();
  for (const x of written) {
    const k = byKind.get(kind(x.rel)) ?? { files: 0, bytes: 0, up: 0, upBytes: 0 };
    const up = published.get(x.rel) !== shas.get(x.rel);
    byKind.set(kind(x.rel), { files: k.files + 1, bytes: k.bytes + x.bytes, up: k.up + (up ? 1 : 0), upBytes: k.upBytes + (up ? x.bytes : 0) });
  }
  for (const [rel, sha] of shas) published.set(rel, sha);
  process.stdout.write(`${name.padEnd(7)} rendered ${rendered} of ${summary.fingerprints ?? '?'} servers; ${perServer} per-server files written; uploaded ${summary.uploaded} of ${summary.files} files, ${summary.bytes.toLocaleString('en')} bytes (build ${built.toFixed(0)} s, a hint)\n`);
  for (const [k, v] of [...byKind].sort()) process.stdout.write(`          ${k.padEnd(26)} written ${String(v.files).padStart(5)} files ${v.bytes.toLocaleString('en').padStart(10)} bytes; uploaded ${String(v.up).padStart(5)} files ${v.upBytes.toLocaleString('en').padStart(10)} bytes\n`);
}

const s3 = await startS3Server();
const client = s3Client({ endpoint: s3.endpoint, credentials: s3.credentials });
try {
  const [dayD, dayD1] = [path.join(work, 'archive-D'), path.join(work, 'archive-D1')];
  await collectArchive({ seed: 'bench-incremental', size: targets, days, timeoutMs: 3000, afterRun: async (d, dir) => void (d === days - 2 ? cpSync(dir, dayD, { recursive: true }) : d === days - 1 ? cpSync(dir, dayD1, { recursive: true }) : null) }, path.join(work, 'collecting'));
  mkdirSync(path.join(work, 'cache'), { recursive: true });
  const target: PublishTarget = { client, bucket: s3.bucket, prefix: 'site/', description: 'the bench bucket' };
  process.stdout.write(`world of ${targets} targets, ${days} days; D = day ${days - 2}\n`);
  await day('D', dayD, target);
  await day('D+1', dayD1, target);
  await day('again', dayD1, target);
} finally {
  client.destroy();
  await s3.close();
  rmSync(work, { recursive: true, force: true });
}
