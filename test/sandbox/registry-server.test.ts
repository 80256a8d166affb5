// The sandbox registry speaks the official list API (fixtures/registry/spec/openapi.yaml and the field
// notes): limits, 422, opaque name:version cursors (with '+'), the trailing empty page, version=latest,
// updated_since, include_deleted, 429. Loopback only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPage, OFFICIAL_META, startRegistry, type RegistryEntry, type RegistryServer } from '../../sandbox/registry-server.ts';
import { startWorld, type RunningWorld } from '../../sandbox/fleet.ts';

const entry = (name: string, version: string, m: Record<string, unknown> = {}): RegistryEntry => ({
  server: { name, version, description: `${name} ${version}` },
  _meta: { [OFFICIAL_META]: { status: 'active', isLatest: false, publishedAt: '2025-10-01T00:00:00Z', updatedAt: '2025-10-01T00:00:00Z', ...m } },
});

// Deliberately out of order: the registry sorts by name, then version, as byte strings.
const ENTRIES: RegistryEntry[] = [
  entry('io.example/b', '1.9.0'),
  entry('io.example/b', '1.10.0', { isLatest: true, updatedAt: '2025-11-02T10:00:00.5Z' }),
  entry('io.example/a', '1.0.0+build.7', { isLatest: true }),
  entry('io.example/a', '1.0.0'),
  entry('io.example/c', '0.1.0', { status: 'deleted', isLatest: true, updatedAt: '2025-11-03T00:00:00Z' }),
  entry('io.example/d', '2.0.0', { isLatest: true, updatedAt: '2025-11-01T00:00:00.123456Z' }),
];

describe('sandbox registry: GET /v0.1/servers', () => {
  let reg: RegistryServer;
  beforeAll(async () => {
    reg = await startRegistry({ entries: ENTRIES });
  });
  afterAll(async () => {
    await reg.close();
  });
  const get = async (query: string) => {
    const r = await fetch(`${reg.url}${query}`);
    return { status: r.status, headers: r.headers, body: (await r.json()) as { servers: RegistryEntry[]; metadata: { count: number; nextCursor?: string } } };
  };
  const ids = (servers: RegistryEntry[]) => servers.map((e) => `${e.server.name}:${e.server.version}`);

  it('answers 422 for a limit outside 1..100 or not an integer, with no clamping', async () => {
    for (const bad of ['0', '101', '-1', '2.5', 'ten', '']) expect((await get(`?limit=${bad}`)).status, bad).toBe(422);
    expect((await get('?limit=100')).status).toBe(200);
    expect((await get('?limit=1')).status).toBe(200);
  });

  it('lists every non-deleted version in byte order of name then version (1.10.0 before 1.9.0)', async () => {
    const { body } = await get('');
    expect(ids(body.servers)).toEqual(['io.example/a:1.0.0', 'io.example/a:1.0.0+build.7', 'io.example/b:1.10.0', 'io.example/b:1.9.0', 'io.example/d:2.0.0']);
    expect(body.metadata.count).toBe(5);
    expect(body.metadata.nextCursor).toBeUndefined();
  });

  it('pages with name:version cursors, URL-encoded because versions contain "+"', async () => {
    const p1 = await get('?limit=2');
    expect(p1.body.metadata.nextCursor).toBe('io.example/a:1.0.0+build.7');
    const p2 = await get(`?limit=2&cursor=${encodeURIComponent(p1.body.metadata.nextCursor!)}`);
    expect(ids(p2.body.servers)).toEqual(['io.example/b:1.10.0', 'io.example/b:1.9.0']);
    // Unencoded, '+' arrives as a space: the cursor no longer names a row and silently shifts the page.
    const raw = await get(`?limit=2&cursor=${p1.body.metadata.nextCursor!}`);
    expect(raw.status).toBe(200);
    expect(ids(raw.body.servers)).not.toEqual(ids(p2.body.servers));
  });

  it('ends a full last page with nextCursor, then answers an empty page', async () => {
    const p1 = await get('?limit=3');
    const p2 = await get(`?limit=3&cursor=${encodeURIComponent(p1.body.metadata.nextCursor!)}`);
    expect(p2.body.servers).toHaveLength(2);
    expect(p2.body.metadata.nextCursor).toBeUndefined();
    const full = await get('?limit=5');
    expect(full.body.metadata).toEqual({ count: 5, nextCursor: 'io.example/d:2.0.0' });
    const tail = await get(`?limit=5&cursor=${encodeURIComponent(full.body.metadata.nextCursor!)}`);
    expect(tail.body).toEqual({ servers: [], metadata: { count: 0 } });
  });

  it('a garbage cursor skips to whatever sorts after it instead of failing', async () => {
    const r = await get(`?cursor=${encodeURIComponent('io.example/b')}`);
    expect(r.status).toBe(200);
    expect(ids(r.body.servers)[0]).toBe('io.example/b:1.10.0');
  });

  it('version=latest keeps isLatest rows only (the latest is not always last of its name)', async () => {
    const { body } = await get('?version=latest');
    expect(ids(body.servers)).toEqual(['io.example/a:1.0.0+build.7', 'io.example/b:1.10.0', 'io.example/d:2.0.0']);
  });

  it('updated_since filters on updatedAt (fraction digits vary) and shows deleted rows; include_deleted shows them too', async () => {
    const since = await get(`?updated_since=${encodeURIComponent('2025-11-01T00:00:00.1Z')}`);
    expect(ids(since.body.servers)).toEqual(['io.example/b:1.10.0', 'io.example/c:0.1.0', 'io.example/d:2.0.0']);
    expect((await get('?updated_since=yesterday')).status).toBe(422);
    const all = await get('?include_deleted=true');
    expect(ids(all.body.servers)).toContain('io.example/c:0.1.0');
  });

  it('answers 429 with Retry-After when throttled, and a chosen status on failNext', async () => {
    reg.throttle(2, '7');
    const a = await get('');
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe('7');
    expect((await get('')).status).toBe(429);
    expect((await get('')).status).toBe(200);
    reg.failNext(1, 503);
    expect((await get('')).status).toBe(503);
    expect((await get('')).status).toBe(200);
  });

  it('listPage is the same pure function for sorted and unsorted input', () => {
    const sorted = [...ENTRIES].sort((x, y) => Buffer.compare(Buffer.from(`${x.server.name}\0${x.server.version}`), Buffer.from(`${y.server.name}\0${y.server.version}`)));
    for (const q of ['limit=2', 'limit=2&cursor=io.example%2Fa%3A1.0.0', 'version=latest', 'include_deleted=true&limit=4']) {
      expect(listPage(sorted, new URLSearchParams(q))).toEqual(listPage(ENTRIES, new URLSearchParams(q)));
    }
  });
});

describe("the world's registry over simulated days", () => {
  let w: RunningWorld;
  beforeAll(async () => {
    w = await startWorld({ seed: 'registry-test', size: 400 });
  });
  afterAll(async () => {
    await w.close();
  });

  async function crawl(query: string): Promise<{ rows: RegistryEntry[]; pages: number }> {
    const rows: RegistryEntry[] = [];
    let cursor: string | undefined;
    for (let pages = 1; pages <= 200; pages++) {
      const r = await fetch(`${w.registryUrl}?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as { servers: RegistryEntry[]; metadata: { nextCursor?: string } };
      rows.push(...body.servers);
      cursor = body.metadata.nextCursor;
      if (!cursor) return { rows, pages };
    }
    throw new Error('pagination did not end');
  }
  const meta = (e: RegistryEntry) => e._meta![OFFICIAL_META]!;

  it('pages through the whole listing: every version, one isLatest per name, loopback remotes only', async () => {
    w.setDay(0);
    const { rows } = await crawl('');
    const truth = w.world.registryEntries(0, w.hostports).filter((e) => meta(e).status !== 'deleted');
    expect(rows.map((e) => `${e.server.name}:${e.server.version}`)).toEqual(truth.map((e) => `${e.server.name}:${e.server.version}`));
    const latest = new Map<string, number>();
    for (const e of rows) if (meta(e).isLatest) latest.set(e.server.name, (latest.get(e.server.name) ?? 0) + 1);
    expect(new Set(rows.map((e) => e.server.name)).size).toBe(latest.size);
    expect([...latest.values()].every((n) => n === 1)).toBe(true);
    for (const e of rows) for (const r of (e.server.remotes as Array<{ url: string }> | undefined) ?? []) expect(new URL(r.url).hostname).toMatch(/^127\./);
    const { rows: latestRows } = await crawl('&version=latest');
    expect(latestRows.length).toBe(latest.size);
  });

  it('changes over days: versions published (isLatest moves), deprecations, departures', async () => {
    const day0 = w.world.registryEntries(0, w.hostports);
    const day60 = w.world.registryEntries(60, w.hostports);
    const latestOf = (rows: RegistryEntry[]) => new Map(rows.filter((e) => meta(e).isLatest && meta(e).status !== 'deleted').map((e) => [e.server.name, e.server.version]));
    const l0 = latestOf(day0);
    const l60 = latestOf(day60);
    const moved = [...l0].filter(([n, v]) => l60.has(n) && l60.get(n) !== v);
    const left = [...l0.keys()].filter((n) => !l60.has(n));
    const joined = [...l60.keys()].filter((n) => !l0.has(n));
    expect(moved.length).toBeGreaterThan(5);
    expect(left.length).toBeGreaterThan(0);
    expect(joined.length).toBeGreaterThan(0);
    expect(day60.some((e) => meta(e).status === 'deprecated')).toBe(true);
    // Departed servers are deleted rows: hidden by default, visible with include_deleted.
    w.setDay(60);
    const { rows: visible } = await crawl('');
    const { rows: withDeleted } = await crawl('&include_deleted=true');
    expect(visible.some((e) => left.includes(e.server.name))).toBe(false);
    expect(withDeleted.some((e) => left.includes(e.server.name))).toBe(true);
    // github-mcp-server publishes its real release tags.
    expect(l0.get('io.github.github/github-mcp-server')).toBe('0.24.1');
    expect(l60.get('io.github.github/github-mcp-server')).toMatch(/^1\.\d+\.\d+$/);
    w.setDay(0);
  });

  it('has bad days of its own: a 429 or a 5xx first thing, or an outage that cuts the listing short', async () => {
    const days = Array.from({ length: 200 }, (_, d) => d);
    const throttled = days.find((d) => w.world.registryWeather(d).throttle > 0)!;
    const failing = days.find((d) => w.world.registryWeather(d).fail > 0)!;
    const outage = days.find((d) => w.world.registryWeather(d).outageFrom !== null)!;
    expect(w.world.registryWeather(0)).toMatchObject({ throttle: 0, fail: 0, outageFrom: null });
    w.setDay(throttled);
    const r1 = await fetch(`${w.registryUrl}?limit=100`);
    expect(r1.status).toBe(429);
    expect(r1.headers.get('retry-after')).toBe('1');
    expect((await fetch(`${w.registryUrl}?limit=100`)).status).toBe(200);
    w.setDay(failing);
    expect((await fetch(`${w.registryUrl}?limit=100`)).status).toBeGreaterThanOrEqual(500);
    expect((await fetch(`${w.registryUrl}?limit=100`)).status).toBe(200);
    w.setDay(outage);
    let cursor: string | undefined;
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      const r = await fetch(`${w.registryUrl}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      status = r.status;
      if (status !== 200) break;
      cursor = ((await r.json()) as { metadata: { nextCursor?: string } }).metadata.nextCursor;
      if (!cursor) break;
    }
    expect(status).toBe(503);
    // Retrying does not help that day.
    expect((await fetch(`${w.registryUrl}?limit=100&cursor=${encodeURIComponent(cursor!)}`)).status).toBe(503);
    w.setDay(0);
  });

  it('control endpoint sets the day', async () => {
    const r = await fetch(`${w.controlUrl}?day=7`, { method: 'POST' });
    expect(((await r.json()) as { day: number }).day).toBe(7);
    expect(w.day).toBe(7);
    expect((await fetch(`${w.controlUrl}?day=-1`, { method: 'POST' })).status).toBe(400);
    w.setDay(0);
  });
});
