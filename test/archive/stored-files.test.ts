// Closed day files and rosters kept in the object store instead of git (src/archive/stored-files.ts).
// A real S3 server on 127.0.0.1 holds the objects; a checkout carries runs.jsonl, chain.jsonl and
// stored.jsonl but no day file, roster, object or page. From it the loader derives the same archive as
// from the full folder, a full verify brings the stored files, checks them and removes them again, a
// stored file whose object is gone is reported, pull brings a range of days checked against the index,
// and bundles written for the monthly parts read no day outside the site's months.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateArchive } from '../../collector/ops/migrate.ts';
import { dayInPart, partShards, SHARDS, verifyArchive } from '../../collector/ops/verify.ts';
import { CachedStore } from '../../src/archive/cached-store.ts';
import { listDays } from '../../src/archive/day-files.ts';
import { LAYOUT, objectKey } from '../../src/archive/layout.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { useObjectStore } from '../../src/archive/objects.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { listDaysWithStored, materialize, offload, pullStored, readStoredIndex, rosterFilesWithStored, STORED_PATH } from '../../src/archive/stored-files.ts';
import { sha256Hex } from '../../src/lib/index.ts';
import { forgetArchive, loadArchive } from '../../src/loader/load-archive.ts';
import { bundledArchive, plannedBundles, SITE_MONTHS } from '../../src/outputs/catalogue.ts';
import type { Publication } from '../../src/outputs/publication.ts';
import { collectArchive } from '../helpers/archive.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { scratchDirs } from '../helpers/scratch.ts';

let server: S3TestServer;
let full: string;
let remote: S3ObjectStore;
const temp = scratchDirs();
const BULK = /[/\\](objects|pages|rosters|observations(-[\w.-]+)?)([/\\]|$)/;

/** A checkout as the jobs see it: no bulk, reading through the bucket with the folder as its cache. */
function checkout(): string {
  const dir = temp('mcps-stored-');
  cpSync(full, dir, { recursive: true, filter: (src) => !BULK.test(src.slice(full.length)) });
  useObjectStore(dir, new CachedStore(remote, new FsObjectStore(dir)));
  return dir;
}

beforeAll(async () => {
  server = await startS3Server();
  full = await collectArchive({ seed: 'stored', size: 24, days: 3 });
  await migrateArchive(full); // every finished day and roster gzipped: closed files
  remote = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix: 'stored', credentials: server.credentials });
  const local = new FsObjectStore(full);
  for (const top of ['objects/', 'pages/']) for await (const key of local.list(top)) await remote.put(key, (await local.get(key))!);
}, 180_000);
afterAll(async () => {
  forgetArchive();
  await server?.close();
  if (full) rmSync(full, { recursive: true, force: true });
});

describe('offload', () => {
  it('names every closed file once, puts its bytes as their object, and adds nothing when run again', async () => {
    const added = await offload(full, remote);
    const days = readdirSync(join(full, LAYOUT.observations)).filter((f) => f.endsWith('.jsonl.gz'));
    const rosters = readdirSync(join(full, LAYOUT.rosters)).filter((f) => f.endsWith('.json.gz'));
    expect(days.length).toBe(3);
    expect(added.map((l) => l.path).filter((p) => p.startsWith(`${LAYOUT.observations}/`))).toEqual(days.map((f) => `${LAYOUT.observations}/${f}`).sort());
    expect(added.filter((l) => l.path.startsWith(`${LAYOUT.rosters}/`)).length).toBe(rosters.length);
    for (const l of added) {
      expect(STORED_PATH.test(l.path)).toBe(true);
      const bytes = readFileSync(join(full, l.path));
      expect(l.sha256).toBe(sha256Hex(bytes));
      expect(l.bytes).toBe(bytes.length);
      expect((await remote.get(objectKey(l.sha256)))!.equals(bytes)).toBe(true);
    }
    expect(await offload(full, remote)).toEqual([]);
    expect(readStoredIndex(full).files.size).toBe(added.length);
  });

  it('a file rewritten after it was stored (a late run merged into its day) gets a new line; the last line wins', async () => {
    const dir = temp('mcps-stored-rewrite-');
    cpSync(full, dir, { recursive: true });
    const store = new FsObjectStore(dir);
    const first = readStoredIndex(dir);
    const rel = [...first.files.keys()].find((p) => p.startsWith(`${LAYOUT.observations}/`))!;
    writeFileSync(join(dir, rel), Buffer.concat([readFileSync(join(dir, rel)), readFileSync(join(dir, rel))]));
    const added = await offload(dir, store);
    expect(added.map((l) => l.path)).toEqual([rel]);
    const after = readStoredIndex(dir);
    expect(after.files.get(rel)!.sha256).toBe(sha256Hex(readFileSync(join(dir, rel))));
    expect(after.files.get(rel)!.sha256).not.toBe(first.files.get(rel)!.sha256);
  });
});

describe('a checkout without day files, rosters or objects', () => {
  it('lists the stored days and rosters it does not hold', () => {
    const dir = checkout();
    expect(listDays(dir)).toEqual([]);
    const listed = listDaysWithStored(dir);
    expect(listed.map((d) => d.day)).toEqual(listDays(full).map((d) => d.day));
    expect(rosterFilesWithStored(dir).length).toBe(readdirSync(join(full, LAYOUT.rosters)).length);
  });

  it('a full verify brings every stored file, finds nothing wrong, and leaves the folder as it was', async () => {
    const dir = checkout();
    const before = readdirSync(dir).sort();
    const r = await verifyArchive(dir, { objects: remote });
    expect(r.problems).toEqual([]);
    expect(r.stored.named).toBe(readStoredIndex(dir).files.size);
    expect(r.stored.brought).toBe(r.stored.named);
    expect(r.rows).toBeGreaterThan(0);
    expect(r.runs).toBe(3);
    expect(readdirSync(dir).sort()).toEqual(before);
    for (const f of [LAYOUT.observations, LAYOUT.rosters]) expect(existsSync(join(dir, f)) ? readdirSync(join(dir, f)).filter((n) => !n.startsWith('.')) : []).toEqual([]);
  });

  it('a stored file whose object the store lacks is reported, and so are the rows it held', async () => {
    const dir = checkout();
    const index = readFileSync(join(dir, LAYOUT.stored), 'utf8').split('\n');
    const i = index.findIndex((l) => l.includes(`"${LAYOUT.observations}/`));
    const line = JSON.parse(index[i]!) as { path: string; sha256: string };
    index[i] = JSON.stringify({ ...line, sha256: '0'.repeat(64) });
    writeFileSync(join(dir, LAYOUT.stored), index.join('\n'));
    const r = await verifyArchive(dir, { objects: remote });
    expect(r.problems.some((p) => p.kind === 'stored-missing' && p.where === line.path)).toBe(true);
    expect(r.problems.some((p) => p.where.includes(LAYOUT.stored) && /missing/.test(p.message))).toBe(true);
  });

  it('a line that does not parse, or names a path outside the day folders and rosters, is reported', async () => {
    const dir = checkout();
    writeFileSync(join(dir, LAYOUT.stored), `${readFileSync(join(dir, LAYOUT.stored), 'utf8')}${JSON.stringify({ path: '../../etc/passwd.json.gz', sha256: '0'.repeat(64), bytes: 1 })}\n{"torn`);
    const index = readStoredIndex(dir);
    expect(index.problems.map((p) => p.line)).toHaveLength(2);
    expect([...index.files.keys()].every((p) => STORED_PATH.test(p))).toBe(true);
    const r = await verifyArchive(dir, { objects: remote });
    expect(r.problems.filter((p) => p.kind === 'stored-invalid')).toHaveLength(2);
  });

  it('the loader derives the same archive as from the full folder, bringing only what it reads', async () => {
    const dir = checkout();
    const a = await loadArchive(full);
    const b = await loadArchive(dir);
    expect(b.days).toEqual(a.days);
    expect(b.rowCount).toBe(a.rowCount);
    expect(JSON.stringify(b.servers)).toBe(JSON.stringify(a.servers));
    expect(JSON.stringify(b.changes)).toBe(JSON.stringify(a.changes));
    expect(b.rosterFiles).toEqual(a.rosterFiles);
  });

  it('a cached digest needs no day file: a second build from a fresh checkout with the same cache brings no day', async () => {
    const cacheDir = temp('mcps-stored-cache-');
    const opts = { cache: { dir: cacheDir, sourceRoot: process.cwd() } };
    const first = checkout();
    await loadArchive(first, opts);
    forgetArchive();
    const second = checkout();
    const b = await loadArchive(second, opts);
    expect(b.cacheStats.misses).toBe(0);
    expect(b.cacheStats.hits).toBeGreaterThan(0);
    expect(listDays(second)).toEqual([]);
  });

  it('pull brings the days of a range, each checked against the index, and refuses bytes that are not the named ones', async () => {
    const dir = checkout();
    const days = listDaysWithStored(dir).map((d) => d.day);
    const got = await pullStored(dir, remote, { from: days[1]!, to: days[1]! });
    expect(got.fetched.length).toBeGreaterThan(0);
    expect(got.fetched.every((p) => p.includes(days[1]!))).toBe(true);
    expect(listDays(dir).map((d) => d.day)).toEqual([days[1]]);
    const again = await pullStored(dir, remote, { from: days[1]!, to: days[1]! });
    expect(again.fetched).toEqual([]);
    expect(again.local).toBe(got.fetched.length);

    // A store answering other bytes under the object's key: refused, nothing written.
    const index = readStoredIndex(dir);
    const rel = [...index.files.keys()].find((p) => p.includes(days[0]!) && p.startsWith(`${LAYOUT.observations}/`))!;
    const liar = new FsObjectStore(temp('mcps-liar-'));
    const key = objectKey(index.files.get(rel)!.sha256);
    writeFileSync(join(liar.dir, 'x'), '');
    cpSync(join(liar.dir, 'x'), join(liar.dir, key), { force: true });
    await expect(materialize(dir, rel, index, liar)).rejects.toThrow(/hash to/);
    expect(existsSync(join(dir, rel))).toBe(false);
    await expect(materialize(dir, `${LAYOUT.observations}/1999-01-01.jsonl.gz`, index, remote)).rejects.toThrow(/neither in the archive folder nor named/);
  });
});

describe('a full verify in parts (--part k/n)', () => {
  it('every day and every object shard is in exactly one part', () => {
    for (const n of [1, 2, 3, 4, 7]) {
      const covered = new Array<number>(SHARDS).fill(0);
      for (let k = 1; k <= n; k++) {
        const { first, last } = partShards({ k, n });
        for (let i = first; i <= last; i++) covered[i]!++;
      }
      expect(covered.every((c) => c === 1)).toBe(true);
      for (const day of ['2025-12-31', '2026-01-01', '2026-02-15', '2030-07-04']) {
        expect(Array.from({ length: n }, (_, i) => dayInPart(day, { k: i + 1, n })).filter(Boolean)).toHaveLength(1);
      }
    }
  });

  it('the parts together check what one full verify checks; an edited row is found by its part only', async () => {
    const days = listDaysWithStored(full).map((d) => d.day);
    const mine = [1, 2].find((k) => dayInPart(days[0]!, { k, n: 2 }))!;
    const other = 3 - mine;
    expect(days.every((d) => dayInPart(d, { k: mine, n: 2 }))).toBe(true); // the fixture's days share a month
    const whole = await verifyArchive(checkout(), { objects: remote });
    const [a, b] = [await verifyArchive(checkout(), { objects: remote, part: { k: mine, n: 2 } }), await verifyArchive(checkout(), { objects: remote, part: { k: other, n: 2 } })];
    expect([whole.problems, a.problems, b.problems]).toEqual([[], [], []]);
    expect(a.rows + b.rows).toBe(whole.rows);
    expect(b.rows).toBe(0);
    expect(a.stored.brought + b.stored.brought).toBe(whole.stored.brought);
    expect(a.chain?.checked).toBe(whole.chain?.checked); // links and signatures: whole in every part

    // One row edited in a stored day (its object replaced in a local store): the part holding it says so.
    const dir = checkout();
    const index = readStoredIndex(dir);
    const rel = [...index.files.keys()].find((p) => p.startsWith(`${LAYOUT.observations}/`))!;
    await materialize(dir, rel, index, remote);
    const text = gunzipSync(readFileSync(join(dir, rel))).toString().replace('"outcome":"ok"', '"outcome":"ok" ');
    writeFileSync(join(dir, rel), gzipSync(text));
    const edited = (part: { k: number; n: number }) => verifyArchive(dir, { objects: remote, part });
    expect((await edited({ k: mine, n: 2 })).problems.some((p) => p.kind === 'chain-digest')).toBe(true);
    expect((await edited({ k: other, n: 2 })).problems).toEqual([]);
  });
});

describe('bundles for the monthly parts (Publication.partsOnly)', () => {
  it('cover only the site months and plan no whole-archive file', async () => {
    const a = await loadArchive(full);
    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05'];
    const day = a.dayFiles[0]!;
    const wide = { ...a, months, dayFiles: months.map((m) => ({ ...day, day: `${m}-01` })), rosterFiles: months.map((m) => `${m}-01.json`) };
    const pub = (partsOnly: boolean): Publication => ({ permalink: (p) => `https://example.org${p}`, releaseDir: null, releaseUrl: 'https://example.org/r/', simulated: false, partsOnly });
    const view = bundledArchive(wide, pub(true));
    expect(view.months).toEqual(months.slice(-SITE_MONTHS));
    expect(view.dayFiles.map((d) => d.day.slice(0, 7))).toEqual(months.slice(-SITE_MONTHS));
    expect(view.rosterFiles).toEqual(months.slice(-SITE_MONTHS).map((m) => `${m}-01.json`));
    const parts = plannedBundles(wide, pub(true)).map((b) => b.name);
    expect(parts).not.toContain('observations.jsonl.gz');
    expect(parts).not.toContain('rosters.jsonl.gz');
    expect(parts).not.toContain(`observations-${months[0]}.jsonl.gz`);
    expect(parts).toContain(`observations-${months.at(-1)}.jsonl.gz`);
    const all = plannedBundles(wide, pub(false)).map((b) => b.name);
    expect(all).toContain('observations.jsonl.gz');
    expect(all).toContain(`observations-${months[0]}.jsonl.gz`);
  });
});
