// A raw listing page packed as its entries and a manifest: the collector's Store writes it
// (entries first), every reader joins it back to the page's exact bytes, verify checks the join, and a
// damaged entry or manifest is caught rather than shown.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../collector/store.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { objectPath, pagePath } from '../../src/archive/layout.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { checkObjectIn, EntryCache, readObject, readObjectFrom, readObjectSync } from '../../src/archive/objects.ts';
import { manifestObjects, parseManifest, sha256Hex } from '../../src/lib/index.ts';

const real = JSON.parse(readFileSync(new URL('../../fixtures/registry/real/official-v0-listing-2025-12-12.json', import.meta.url), 'utf8')) as { servers: unknown[] };
const page = (from: number) => Buffer.from(`{"servers":[${real.servers.slice(from, from + 100).map((s) => JSON.stringify(s)).join(',')}],"metadata":{"nextCursor":"n:1","count":100}}`);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function archive(): string {
  const d = mkdtempSync(join(tmpdir(), 'packed-'));
  dirs.push(d);
  return d;
}

async function withStore<T>(dir: string, f: (s: Store) => Promise<T>): Promise<T> {
  const store = Store.open(dir, new Date().toISOString(), { durable: false });
  try {
    return await f(store);
  } finally {
    store.close();
  }
}

describe('Store.putPage', () => {
  it('writes the entries and a manifest, not the whole page, and every reader joins it back exactly', async () => {
    const dir = archive();
    const raw = page(0);
    const sha = await withStore(dir, (s) => s.putPage(raw));
    expect(sha).toBe(sha256Hex(raw));
    expect(existsSync(objectPath(dir, sha))).toBe(false);
    expect(existsSync(pagePath(dir, sha))).toBe(true);
    const manifest = parseManifest(readFileSync(pagePath(dir, sha)))!;
    for (const entry of manifestObjects(manifest)) expect(existsSync(objectPath(dir, entry))).toBe(true);
    expect((await readObject(dir, sha))!.equals(raw)).toBe(true);
    expect(readObjectSync(dir, sha)!.equals(raw)).toBe(true);
    expect((await readObjectFrom(new FsObjectStore(dir), sha))!.equals(raw)).toBe(true);
    expect(await checkObjectIn(new FsObjectStore(dir), sha)).toEqual({ ok: true, packed: true });
    expect((await verifyArchive(dir)).problems).toEqual([]);
  });

  it('a listing shifted by one entry adds one entry object and one manifest, not a page', async () => {
    const dir = archive();
    await withStore(dir, (s) => s.putPage(page(0)));
    const before = countFiles(dir);
    const next = await withStore(dir, (s) => s.putPage(page(1)));
    expect(countFiles(dir) - before).toBe(2);
    expect((await readObject(dir, next))!.equals(page(1))).toBe(true);
  });

  it('a page that does not split exactly is stored whole, as before', async () => {
    const dir = archive();
    const odd = Buffer.from('{"servers":[1,2,3]}');
    const sha = await withStore(dir, (s) => s.putPage(odd));
    expect(readFileSync(objectPath(dir, sha)).equals(odd)).toBe(true);
    expect(existsSync(pagePath(dir, sha))).toBe(false);
  });

  it('a damaged entry makes the page unreadable, and verify names both the entry and the page', async () => {
    const dir = archive();
    const sha = await withStore(dir, (s) => s.putPage(page(0)));
    const entry = manifestObjects(parseManifest(readFileSync(pagePath(dir, sha)))!)[5]!;
    writeFileSync(objectPath(dir, entry), '{"tampered":true}');
    expect(await readObject(dir, sha)).toBeNull();
    expect(readObjectSync(dir, sha)).toBeNull();
    const problems = (await verifyArchive(dir)).problems;
    expect(problems.map((p) => [p.kind, p.where.split('/')[0]])).toEqual([
      ['object-corrupt', 'objects'],
      ['object-corrupt', 'pages'],
    ]);
    expect(problems[1]!.message).toContain('is missing'); // the damaged entry does not count as present
  });

  it('a manifest that names another page, or does not parse, is refused', async () => {
    const dir = archive();
    const a = await withStore(dir, (s) => s.putPage(page(0)));
    const b = await withStore(dir, (s) => s.putPage(page(100)));
    writeFileSync(pagePath(dir, a), readFileSync(pagePath(dir, b)));
    expect(await readObject(dir, a)).toBeNull();
    expect(await checkObjectIn(new FsObjectStore(dir), a)).toMatchObject({ ok: false, message: expect.stringContaining('names another page') });
    writeFileSync(pagePath(dir, b), '{"format":');
    expect(await checkObjectIn(new FsObjectStore(dir), b)).toMatchObject({ ok: false, message: expect.stringContaining('does not parse') });
    expect((await verifyArchive(dir)).problems.map((p) => p.kind)).toEqual(['object-corrupt', 'object-corrupt']);
  });
});

describe('the entry cache a verify joins pages through', () => {
  it('reads a shared entry once for pages that repeat it, and still finds a page whose entry is corrupt', async () => {
    const dir = archive();
    const a = await withStore(dir, (s) => s.putPage(page(0)));
    const b = await withStore(dir, (s) => s.putPage(page(1))); // 99 entries shared with a
    const store = new FsObjectStore(dir);
    const cache = new EntryCache();
    expect(await checkObjectIn(store, a, cache)).toEqual({ ok: true, packed: true });
    expect([cache.misses, cache.hits]).toEqual([100, 0]);
    expect(await checkObjectIn(store, b, cache)).toEqual({ ok: true, packed: true });
    expect([cache.misses, cache.hits]).toEqual([101, 99]);
    // An entry of c that no page read before is corrupt: c fails although its neighbours are held.
    const c = await withStore(dir, (s) => s.putPage(page(2)));
    const fresh = manifestObjects(parseManifest(readFileSync(pagePath(dir, c)))!).at(-1)!;
    writeFileSync(objectPath(dir, fresh), 'not the entry');
    expect(await checkObjectIn(store, c, cache)).toMatchObject({ ok: false });
    expect(cache.get(fresh)).toBeUndefined();
    // Nothing unverified is held, and the cache keeps to its byte budget (least recently used out first).
    const small = new EntryCache(3000);
    small.set('x'.repeat(64), Buffer.alloc(1000));
    small.set('y'.repeat(64), Buffer.alloc(1000));
    small.get('x'.repeat(64));
    small.set('z'.repeat(64), Buffer.alloc(1500));
    expect(small.get('y'.repeat(64))).toBeUndefined();
    expect(small.get('x'.repeat(64))).toBeDefined();
    expect(small.get('z'.repeat(64))).toBeDefined();
  });

  it('a full verify reports how many entry reads the cache saved', async () => {
    const dir = archive();
    await withStore(dir, (s) => s.putPage(page(0)));
    await withStore(dir, (s) => s.putPage(page(1)));
    // One object at a time, so the second page's join starts after the first one's (at 16 at once, two joins may both miss).
    const r = await verifyArchive(dir, { concurrency: 1 });
    expect(r.problems).toEqual([]);
    expect(r.pageEntries).toEqual({ read: 101, reused: 99 });
  });
});

function countFiles(dir: string): number {
  let n = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else n++;
    }
  };
  walk(dir);
  return n;
}

describe('Store.rememberPages', () => {
  /** The archive folder's store, counting the puts that reach it. */
  function counting(dir: string): { store: FsObjectStore; puts: string[] } {
    const inner = new FsObjectStore(dir);
    const puts: string[] = [];
    const store = Object.assign(Object.create(FsObjectStore.prototype) as FsObjectStore, {
      description: inner.description,
      dir,
      put: async (key: string, bytes: Uint8Array) => {
        puts.push(key);
        await inner.put(key, bytes);
      },
      get: (key: string) => inner.get(key),
      has: (key: string) => inner.has(key),
      list: (prefix: string) => inner.list(prefix),
    });
    return { store, puts };
  }

  it("after yesterday's pages are remembered, a shifted listing puts only its new entry and its manifest", async () => {
    const dir = archive();
    const yesterday = await withStore(dir, (s) => s.putPage(page(0)));
    const remembered = counting(dir);
    const store = Store.open(dir, new Date().toISOString(), { durable: false, objects: remembered.store });
    try {
      expect(await store.rememberPages([yesterday, 'not-a-sha', 'f'.repeat(64)])).toBe(101); // 100 entries and the manifest
      await store.putPage(page(1));
    } finally {
      store.close();
    }
    expect(remembered.puts.filter((k) => k.startsWith('objects/'))).toHaveLength(1);
    expect(remembered.puts.filter((k) => k.startsWith('pages/'))).toHaveLength(1);
    // Without it, every entry of the page is put (each one asked about: a bucket's HEAD).
    const cold = counting(dir);
    const fresh = Store.open(dir, new Date().toISOString(), { durable: false, objects: cold.store });
    try {
      await fresh.putPage(page(2));
    } finally {
      fresh.close();
    }
    expect(cold.puts.filter((k) => k.startsWith('objects/'))).toHaveLength(100);
    expect((await readObject(dir, sha256Hex(page(1))))!.equals(page(1))).toBe(true);
  });
});
