// Sealed months (src/outputs/sealed-months.ts): with a file host and the site's recent months only, the
// first build after a month closed writes its bundles and records them; a build handed that record
// describes the same files (SHA256SUMS and datapackage.json byte for byte) without reading the month's
// days or writing its files. The archive is the collector's, across a month's end (2025-12-30 to
// 2026-01-01, both series), migrated and offloaded to a real S3-compatible server on 127.0.0.1; each
// build reads a checkout without day files, as the deploy job does, through the real S3 store with
// its reads counted, so a day fetched is a day read; what the build fetched it removes again.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateArchive } from '../../collector/ops/migrate.ts';
import { CachedStore } from '../../src/archive/cached-store.ts';
import { listDays } from '../../src/archive/day-files.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { useObjectStore } from '../../src/archive/objects.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { offload, readStoredIndex } from '../../src/archive/stored-files.ts';
import { objectKey } from '../../src/archive/layout.ts';
import { parseSealedBundles, SEALED_BUNDLES_FILE, type SealedBundles } from '../../src/lib/index.ts';
import { forgetArchive, loadArchive } from '../../src/loader/load-archive.ts';
import { writeBundles } from '../../src/outputs/bundles.ts';
import type { Publication } from '../../src/outputs/publication.ts';
import { closedMonths, readSealRecord, sealableMonth, sealedNames } from '../../src/outputs/sealed-months.ts';
import { bundledArchive, SITE_MONTHS } from '../../src/outputs/catalogue.ts';
import { monthView } from '../../src/loader/month-view.ts';
import type { Archive } from '../../src/loader/views.ts';
import { collectArchive } from '../helpers/archive.ts';
import { TEST_PUBLICATION } from '../helpers/publication.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const temp = scratchDirs();
const BULK = /[/\\](objects|pages|rosters|observations(-[\w.-]+)?)([/\\]|$)/;
const CLOSED = '2025-12';
let server: S3TestServer;
let remote: S3ObjectStore;
let full: string;
let loaderCache: string;

/** A checkout as the deploy job sees it: no day files, rosters or objects, reading through the bucket; `gets` collects the keys it reads. */
function checkout(gets: string[] = []): string {
  const dir = temp('mcps-sealed-');
  cpSync(full, dir, { recursive: true, filter: (src) => !BULK.test(src.slice(full.length)) });
  const counted = new Proxy(remote, {
    get(target, prop) {
      if (prop === 'get') return async (key: string) => (gets.push(key), target.get(key));
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
    },
  });
  useObjectStore(dir, new CachedStore(counted, new FsObjectStore(dir)));
  return dir;
}

const hosted = (files: string): Publication => ({ ...TEST_PUBLICATION, partsOnly: true, fileHost: { dir: files, url: 'https://files.example.org/' } });

/** Build the bundles of a fresh checkout (the loader's summaries from a shared cache, so the loader brings no day). */
async function build(pub: (files: string) => Publication, sealed: SealedBundles | null) {
  const gets: string[] = [];
  const dir = checkout(gets);
  forgetArchive();
  const a = await loadArchive(dir, { cache: { dir: loaderCache, sourceRoot: process.cwd() } });
  const loaded = gets.length;
  const out = temp('mcps-sealed-out-');
  const files = join(out, 'files');
  const bundleCache = temp('mcps-sealed-bundle-cache-');
  const written = await writeBundles(a, out, { pub: pub(files), cacheDir: bundleCache, sealed });
  const record = existsSync(join(files, SEALED_BUNDLES_FILE)) ? parseSealedBundles(JSON.parse(readFileSync(join(files, SEALED_BUNDLES_FILE), 'utf8'))) : null;
  // The days whose stored file the bundles read (the loader read none: its summaries are cached).
  const fetched = new Set(gets.slice(loaded));
  const readDays = [...readStoredIndex(full).files.values()].filter((l) => /^observations/.test(l.path) && fetched.has(objectKey(l.sha256))).map((l) => l.path.replace(/^.*\//, '').slice(0, 10));
  const leftDays = [...listDays(dir), ...listDays(dir, 'observations-v2')].map((d) => d.day);
  const leftRosters = existsSync(join(dir, 'rosters')) ? readdirSync(join(dir, 'rosters')) : [];
  const members = existsSync(join(bundleCache, 'members')) ? readdirSync(join(bundleCache, 'members')) : [];
  const data = (name: string) => join(out, 'data', name);
  return { written, record, loaderReads: loaded, readDays, leftDays, leftRosters, members, data, sums: readFileSync(data('SHA256SUMS'), 'utf8'), pkg: readFileSync(data('datapackage.json'), 'utf8') };
}

beforeAll(async () => {
  server = await startS3Server();
  full = await collectArchive({ seed: 'sealed-months', size: 12, days: 3, firstDay: 15, methodology: 'v1,v2' });
  await migrateArchive(full); // every finished day and roster gzipped: December is closed
  remote = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix: 'sealed', credentials: server.credentials });
  const local = new FsObjectStore(full);
  for (const top of ['objects/', 'pages/']) for await (const key of local.list(top)) await remote.put(key, (await local.get(key))!);
  await offload(full, remote);
  loaderCache = temp('mcps-sealed-loader-');
  forgetArchive();
  await loadArchive(checkout(), { cache: { dir: loaderCache, sourceRoot: process.cwd() } });
}, 240_000);
afterAll(async () => {
  forgetArchive();
  remote?.destroy();
  await server?.close();
  if (full) rmSync(full, { recursive: true, force: true });
});

/** The first build after the month closed (no record): what every later build must describe the same. */
let first: Awaited<ReturnType<typeof build>>;

describe('sealed months', () => {

  it('the archive spans a closed month and an open one', async () => {
    forgetArchive();
    const a = await loadArchive(full);
    expect(a.months).toEqual(['2025-12', '2026-01']);
    expect([...closedMonths(a)]).toEqual([CLOSED]);
  });

  it('the first build writes the closed month, reads its days, and records its raw files with their bytes', async () => {
    first = await build(hosted, null);
    expect(first.loaderReads).toBe(0);
    expect(first.readDays).toContain('2025-12-30');
    // With a file host the days fetched and their members are scratch: gone once in the month's parts.
    expect(first.leftDays).toEqual([]);
    expect(first.leftRosters).toEqual([]);
    expect(first.members).toEqual([]);
    expect(Object.keys(first.record!.months)).toEqual([CLOSED]);
    const files = first.record!.months[CLOSED]!.files;
    expect(files.map((f) => f.name).sort()).toEqual(sealedNames(CLOSED).sort());
    for (const f of files) {
      const bytes = readFileSync(first.data(f.name));
      expect(f.sha256, f.name).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(f.bytes).toBe(bytes.length);
      expect(f.url).toBe(`https://files.example.org/data/${f.name}`);
      expect(first.sums).toContain(`${f.sha256}  ${f.name}\n`);
    }
    // The open month and the derived files are never sealed.
    expect(first.written.site.some((f) => f.name === 'observations-2026-01.jsonl.gz')).toBe(true);
    expect(files.some((f) => f.name.startsWith('changes-') || f.name.includes('2026-01'))).toBe(false);
  });

  it('a build handed the record reads none of the sealed days, writes none of its files, and describes the same files byte for byte', async () => {
    const second = await build(hosted, first.record);
    expect(second.readDays.filter((d) => d.startsWith(CLOSED))).toEqual([]);
    expect(second.readDays).toContain('2026-01-01'); // the open month is still read
    for (const name of sealedNames(CLOSED)) expect(existsSync(second.data(name)), name).toBe(false);
    expect(existsSync(second.data('observations-2026-01.jsonl.gz'))).toBe(true);
    expect(existsSync(second.data(`changes-${CLOSED}.parquet`))).toBe(true);
    expect(second.sums).toBe(first.sums);
    expect(second.pkg).toBe(first.pkg);
    // It hands the record on for the next upload.
    expect(second.record).toEqual(first.record);
  });

  it('near miss: a record whose key is not this month\'s (its days changed) is not used: the month is read and written again', async () => {
    const stale: SealedBundles = { format: 1, months: { [CLOSED]: { ...first.record!.months[CLOSED]!, key: 'f'.repeat(64) } } };
    const again = await build(hosted, stale);
    expect(again.readDays).toContain('2025-12-30');
    for (const name of sealedNames(CLOSED)) expect(existsSync(again.data(name)), name).toBe(true);
    expect(again.record!.months[CLOSED]!.key).toBe(first.record!.months[CLOSED]!.key);
    expect(again.sums).toBe(first.sums);
  });

  it('near miss: without a file host nothing is sealed, whatever record is handed', async () => {
    const plain = await build((files) => ({ ...hosted(files), fileHost: null }), first.record);
    for (const name of sealedNames(CLOSED)) expect(existsSync(plain.data(name)), name).toBe(true);
    expect(plain.record).toBeNull();
    expect(plain.readDays).toContain('2025-12-30');
    // Without a file host the members are the build cache's, kept for the next build; the days it fetched stay too.
    expect(plain.members.some((m) => m.endsWith('.csv.gz'))).toBe(true);
    expect(plain.leftDays).toContain('2025-12-30');
    expect(plain.leftRosters.length).toBeGreaterThan(0);
    expect(plain.members.some((m) => m.endsWith('.roster.gz'))).toBe(true);
  });

  it('a record missing one of the month\'s files is refused with a sentence that says how to start again', async () => {
    const cut: SealedBundles = { format: 1, months: { [CLOSED]: { ...first.record!.months[CLOSED]!, files: first.record!.months[CLOSED]!.files.filter((f) => !f.name.endsWith('.csv.gz')) } } };
    await expect(build(hosted, cut)).rejects.toThrow(/sealed-months record for 2025-12 has no entry for observations-2025-12\.csv\.gz/);
  });
});

describe('the bundles step: the month bundles alone, in a job of their own', () => {
  let stepRecord: SealedBundles;
  let stepFiles: string;

  it('its month view has the site build\'s days: the same keys, rows and problems in both series, read one day at a time', async () => {
    const gets: string[] = [];
    const dir = checkout(gets);
    const view = await monthView(dir, { sourceRoot: process.cwd(), months: SITE_MONTHS });
    forgetArchive();
    // As the site build loads it: under the contract's fingerprint (a build cache), which the keys carry.
    const a = bundledArchive(await loadArchive(full, { cache: { dir: temp('mcps-sealed-view-cache-'), sourceRoot: process.cwd() } }), { partsOnly: true });
    expect(view.months).toEqual(a.months);
    expect(view.dayFiles.map(({ day, rows, problems, key }) => ({ day, rows, problems, key }))).toEqual(a.dayFiles.map(({ day, rows, problems, key }) => ({ day, rows, problems, key })));
    expect(view.v2.dayFiles.map(({ day, rows, problems, key }) => ({ day, rows, problems, key }))).toEqual(a.v2!.dayFiles.map(({ day, rows, problems, key }) => ({ day, rows, problems, key })));
    expect(view.v2.dayFiles.length).toBeGreaterThan(0);
    expect(view.rosterFiles).toEqual(a.rosterFiles);
    // Every day was fetched to be counted, and none is left behind.
    expect(gets.length).toBeGreaterThanOrEqual(view.dayFiles.length + view.v2.dayFiles.length);
    expect([...listDays(dir), ...listDays(dir, 'observations-v2')]).toEqual([]);
  });

  it('writes every month the record lacks, the open one included, and records them all', async () => {
    const dir = checkout();
    const view = await monthView(dir, { sourceRoot: process.cwd(), months: SITE_MONTHS });
    const out = temp('mcps-sealed-step-');
    stepFiles = join(out, 'files');
    const w = await writeBundles(view as unknown as Archive, stepFiles, { pub: hosted(stepFiles), cacheDir: temp('mcps-sealed-step-cache-'), sealed: null, monthsOnly: true });
    stepRecord = parseSealedBundles(JSON.parse(readFileSync(join(stepFiles, SEALED_BUNDLES_FILE), 'utf8')))!;
    expect(Object.keys(stepRecord.months)).toEqual([CLOSED, '2026-01']);
    // Only the months' raw files: nothing site-wide (no changes, runs, SHA256SUMS or datapackage).
    expect(w.site.map((f) => f.name).sort()).toEqual([...sealedNames(CLOSED), ...sealedNames('2026-01')].sort());
    expect(readdirSync(join(stepFiles, 'data')).sort()).toEqual(w.site.map((f) => f.name).sort());
    // The same bytes the site build writes for the closed month.
    for (const f of stepRecord.months[CLOSED]!.files) expect(f, f.name).toEqual(first.record!.months[CLOSED]!.files.find((x) => x.name === f.name));
  });

  it('a site build handed its record writes no month file and reads no day for the bundles, and describes the same files', async () => {
    const site = await build(hosted, stepRecord);
    expect(site.readDays).toEqual([]);
    for (const m of [CLOSED, '2026-01']) for (const name of sealedNames(m)) expect(existsSync(site.data(name)), name).toBe(false);
    expect(site.sums).toBe(first.sums);
    expect(site.pkg).toBe(first.pkg);
  });

  it('handed its own record again (nothing changed), it writes nothing; without a file host it refuses', async () => {
    const view = await monthView(checkout(), { sourceRoot: process.cwd(), months: SITE_MONTHS });
    const files = join(temp('mcps-sealed-step-again-'), 'files');
    const w = await writeBundles(view as unknown as Archive, files, { pub: hosted(files), cacheDir: temp('mcps-sealed-step-cache-'), sealed: stepRecord, monthsOnly: true });
    expect(readdirSync(files).sort()).toEqual([SEALED_BUNDLES_FILE, 'data']);
    expect(readdirSync(join(files, 'data'))).toEqual([]);
    expect(w.site.length).toBe(stepRecord.months[CLOSED]!.files.length + stepRecord.months['2026-01']!.files.length);
    await expect(writeBundles(view as unknown as Archive, files, { pub: { ...hosted(files), fileHost: null }, cacheDir: temp('mcps-sealed-step-cache-'), monthsOnly: true })).rejects.toThrow(/file host with the recent months only/);
  });
});

describe('reading the handed record', () => {
  it('no file is no record; a file that is not one is an error naming the variable', () => {
    expect(readSealRecord(null)).toBeNull();
    expect(readSealRecord(join(temp('mcps-sealed-none-'), 'absent.json'))).toBeNull();
    const bad = join(temp('mcps-sealed-bad-'), 'record.json');
    cpSync(join(import.meta.dirname, 'sealed-months.test.ts'), bad);
    expect(() => readSealRecord(bad)).toThrow(/MCP_SCHEMA_PUBLISHED_BUNDLES .* is not a sealed-months record/);
  });

  it('sealableMonth names the raw per-month files only', () => {
    for (const n of sealedNames('2026-03')) expect(sealableMonth(n), n).toBe('2026-03');
    for (const n of ['changes-2026-03.parquet', 'findings-2026-03.parquet', 'roster-targets-2026-03.jsonl.gz', 'observations.jsonl.gz', 'runs.parquet']) expect(sealableMonth(n), n).toBeNull();
  });
});
