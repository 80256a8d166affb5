// The collector with a bucket: a real S3-compatible server on 127.0.0.1 as the store. Every
// object and page manifest a run writes is in the bucket; the archive folder holds only a cache of
// them, and a checkout without that cache verifies through the bucket, incremental verify included.
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactArchive } from '../../collector/ops/compact.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { listDays } from '../../src/archive/day-files.ts';
import { offload, pullStored, readStoredIndex } from '../../src/archive/stored-files.ts';
import { CachedStore } from '../../src/archive/cached-store.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { listRosterFiles, readRoster } from '../../src/archive/rosters.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { pageKey } from '../../src/archive/layout.ts';
import { collectArchive } from '../helpers/archive.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const temp = scratchDirs();

let server: S3TestServer;
let remote: S3ObjectStore;
let dir: string;

beforeAll(async () => {
  server = await startS3Server();
  remote = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix: 'collect', credentials: server.credentials });
  dir = await collectArchive({ seed: 'bucket-collect', size: 30, days: 2, remote });
}, 180_000);
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function keys(store: { list(prefix: string): AsyncIterable<string> }, prefix: string): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const k of store.list(prefix)) out.add(k);
  return out;
}

describe('a collection into a bucket', () => {
  it('puts every object and page manifest in the bucket; the folder only caches them', async () => {
    const local = new FsObjectStore(dir);
    const bucketKeys = new Set([...(await keys(remote, 'objects/')), ...(await keys(remote, 'pages/'))]);
    const localKeys = [...(await keys(local, 'objects/')), ...(await keys(local, 'pages/'))];
    expect(localKeys.length).toBeGreaterThan(0);
    for (const k of localKeys) expect(bucketKeys.has(k), k).toBe(true);
    // The listing pages were packed: each roster page has a manifest in the bucket.
    for (const file of listRosterFiles(dir)) {
      const r = readRoster(dir, file);
      if (!r.ok) throw new Error(r.message);
      for (const p of r.value.pages) if (p.sha256) expect(bucketKeys.has(pageKey(p.sha256))).toBe(true);
    }
  });

  it('a checkout without objects/ and pages/ verifies through the bucket (and without it, misses every object)', async () => {
    const checkout = temp('mcps-bucket-checkout-');
    cpSync(dir, checkout, { recursive: true, filter: (src) => !/[/\\](objects|pages)([/\\]|$)/.test(src.slice(dir.length)) });
    expect(readdirSync(checkout)).not.toContain('pages');
    // Without the bucket the checkout is missing every object it names (verified first: reading
    // through the bucket fills the folder's cache).
    const alone = await verifyArchive(checkout);
    expect(alone.problems.map((p) => p.kind)).toContain('object-missing');
    const store = new CachedStore(remote, new FsObjectStore(checkout));
    const full = await verifyArchive(checkout, { objects: store });
    expect(full.problems).toEqual([]);
    expect(full.objects).toBeGreaterThan(0);
  });
});

describe('day after day with a bucket, git carrying only the small files', () => {
  it('collect, compact, offload and verify; the next checkout pulls eight days, collects, and verifies incrementally; a fresh checkout verifies in full', async () => {
    const store = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix: 'cycle', credentials: server.credentials });
    // What git carries once a bucket is set (collect.yml's COMMIT_DAY_EXCLUDE).
    const carried = (from: string) => {
      const to = temp('mcps-cycle-');
      cpSync(from, to, { recursive: true, filter: (src) => !/[/\\](objects|pages|rosters|observations(-[\w.-]+)?)([/\\]|$)/.test(src.slice(from.length)) });
      return to;
    };
    const first = await collectArchive({ seed: 'cycle', size: 20, days: 1, remote: store }, temp('mcps-cycle-first-'));
    const day1 = listDays(first)[0]!.day;
    compactArchive(first, { finished: true });
    expect((await offload(first, store)).length).toBeGreaterThan(1); // the day and its roster
    const v1 = await verifyArchive(first, { objects: store, mode: 'auto', record: true, today: day1 });
    expect(v1.problems).toEqual([]);
    expect(v1.recorded).toBe(true);

    const next = carried(first);
    expect(readdirSync(next).filter((f) => f !== 'quarantine').sort()).toEqual(['chain.jsonl', 'runs.jsonl', 'stored.jsonl', 'verify-state.json'].filter((f) => readdirSync(first).includes(f)).sort());
    expect((await pullStored(next, store, { from: day1, to: null })).fetched.length).toBeGreaterThan(1);
    await collectArchive({ seed: 'cycle', size: 20, days: 1, firstDay: 1, remote: store }, next, true);
    compactArchive(next, { finished: true });
    const added = await offload(next, store);
    expect(added.every((l) => !l.path.includes(day1))).toBe(true);
    const day2 = listDays(next).at(-1)!.day;
    expect(added.some((l) => l.path.includes(day2))).toBe(true);
    const v2 = await verifyArchive(next, { objects: store, mode: 'auto', record: true, today: day2 });
    expect(v2.mode).toBe('incremental');
    expect(v2.problems).toEqual([]);

    const fresh = carried(next);
    const full = await verifyArchive(fresh, { objects: store });
    expect(full.problems).toEqual([]);
    expect(full.runs).toBe(2);
    expect(full.stored.brought).toBe(readStoredIndex(fresh).files.size);
  }, 180_000);
});

