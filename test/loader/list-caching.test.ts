// What 2026-07-28 servers say about their lists, end to end: the real collector records
// both series against the local world plus the caching servers (test/helpers/archive.ts `caching`: SDK v2
// public and private lists, raw modern servers with no fields, invalid ones, an event-stream answer), and
// the loader's counts, per-target values, private-scope change marks and the descriptor's caching block
// are checked against what those servers were made to say and against counts made here straight from the
// stored objects (JSON.parse of the day files and of each raw answer, an SSE split of our own; no src/lib
// reader, no src/lib statistic).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readObject } from '../../src/archive/objects.ts';
import { reproduceV2 } from '../../collector/ops/restate-v2.ts';
import { forgetArchive, loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { Caching, Descriptor } from '../../src/outputs/descriptor-schema.ts';
import { repositoryIndex, serverDescriptor, serverFacts } from '../../src/outputs/descriptor.ts';
import { listCachingText } from '../../src/site/format.ts';
import { PRIVATE_SCOPE_NOTE, changeSummary } from '../../src/outputs/feeds.ts';
import { changeRecord } from '../../src/outputs/catalogue.ts';
import { CACHING, collectArchive } from '../helpers/archive.ts';
import { TEST_PUBLICATION, TEST_REGISTRY_SCHEMAS } from '../helpers/publication.ts';

type Row = Record<string, any>;
let dir: string;
let a: Archive;
let latestRows: Row[];

const readRows = (folder: string) =>
  readdirSync(join(dir, folder))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) => readFileSync(join(dir, folder, f), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Row));

/** The JSON-RPC message with `id` in a stored body: the whole body, or the data of an SSE event (parsed here, line by line). */
function message(bytes: Buffer, contentType: string | null, id: number): Row | null {
  const text = bytes.toString('utf8');
  const candidates = (contentType ?? '').startsWith('text/event-stream')
    ? text.split(/\r?\n\r?\n/).map((ev) => ev.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n')).filter((d) => d !== '')
    : [text];
  for (const c of candidates) {
    try {
      const m = JSON.parse(c) as Row;
      if (m && m.id === id) return m;
    } catch {
      // not this one
    }
  }
  return null;
}

const scopeOf = (result: Row): 'public' | 'private' | 'absent' | 'invalid' => (!Object.hasOwn(result, 'cacheScope') ? 'absent' : result.cacheScope === 'public' || result.cacheScope === 'private' ? result.cacheScope : 'invalid');
const ttlOk = (result: Row) => typeof result.ttlMs === 'number' && result.ttlMs >= 0 && Number.isFinite(result.ttlMs);

beforeAll(async () => {
  dir = await collectArchive({ seed: 'loader-list-caching', size: 24, days: 2, methodology: 'v1,v2', caching: true });
  forgetArchive(dir);
  a = await loadArchive(dir);
  const runs = readFileSync(join(dir, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
  const last = runs.filter((r) => r.methodology_version === 'v2').at(-1)!;
  latestRows = readRows('observations-v2').filter((r) => r.run_id === last.run_id);
}, 240_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('list caching on an archive the collector recorded', () => {
  it('the caching servers answered ok the modern way in the latest full v2 run', () => {
    expect(a.v2!.latest!.run.run_id).toBe(latestRows[0]!.run_id);
    for (const name of [CACHING.public, CACHING.privateDrifts, CACHING.absent, CACHING.invalid, CACHING.sse]) {
      const r = latestRows.find((x) => x.target === name);
      expect(r, name).toMatchObject({ outcome: 'ok', era: 'modern' });
    }
  });

  it('counts public / private / absent / invalid and missing required fields as the stored answers say', async () => {
    const counts = { public: 0, private: 0, absent: 0, invalid: 0 };
    let missing = 0;
    let n = 0;
    for (const r of latestRows.filter((x) => x.outcome === 'ok' && x.era === 'modern')) {
      const discover = message((await readObject(dir, r.handshake_sha256))!, r.handshake_content_type, 1)!.result as Row;
      const pages: Row[] = [];
      for (const [i, sha] of (r.tools_pages_sha256 as string[]).entries()) pages.push(message((await readObject(dir, sha))!, r.tools_pages_content_types[i], 2)!.result as Row);
      n++;
      counts[scopeOf(pages[0]!)]++;
      const lacks = [discover, ...pages].some((x) => !ttlOk(x) || !['public', 'private'].includes(x.cacheScope));
      if (lacks) missing++;
    }
    const c = a.v2!.latest!.caching;
    expect(c.unreadable).toBe(0);
    expect(c.n).toBe(n);
    expect({ public: c.public.count, private: c.private.count, absent: c.absent.count, invalid: c.invalid.count }).toEqual(counts);
    expect(c.missingRequired).toMatchObject({ count: missing, n });
    // Each of the four is there (the world's SDK v2 servers are private; ours add the rest).
    expect(counts.public).toBeGreaterThanOrEqual(2);
    expect(counts.absent).toBeGreaterThanOrEqual(1);
    expect(counts.invalid).toBeGreaterThanOrEqual(1);
    expect(counts.private).toBeGreaterThanOrEqual(1);
    expect(c.private.share.lower).toBeLessThanOrEqual(c.private.share.p);
    // Legacy ok rows are not in the denominator.
    expect(latestRows.some((r) => r.outcome === 'ok' && r.era === 'legacy')).toBe(true);
    expect(n).toBeLessThan(latestRows.filter((r) => r.outcome === 'ok').length);
  });

  it('the collector records each modern ok row\'s caching fields as its stored answers say; other rows record none', async () => {
    let checked = 0;
    for (const r of readRows('observations-v2')) {
      const keys = ['list_cache_scope', 'list_ttl_ms', 'list_result_type', 'server_info_name', 'server_info_version', 'caching_missing'];
      if (!(r.outcome === 'ok' && r.era === 'modern')) {
        for (const k of keys) expect(r[k], `${r.target} ${k}`).toBeUndefined();
        continue;
      }
      checked++;
      const discover = message((await readObject(dir, r.handshake_sha256))!, r.handshake_content_type, 1)!.result as Row;
      const pages: Row[] = [];
      for (const [i, sha] of (r.tools_pages_sha256 as string[]).entries()) pages.push(message((await readObject(dir, sha))!, r.tools_pages_content_types[i], 2)!.result as Row);
      const first = pages[0]!;
      expect(r.list_cache_scope, r.target).toBe(scopeOf(first));
      expect(r.list_ttl_ms, r.target).toBe(ttlOk(first) ? first.ttlMs : null);
      // Text over the row's bound is cut to it, the ellipsis counted (the caching servers' are ASCII).
      const cut = (t: string, max: number) => (t.length <= max ? t : `${t.slice(0, max - 1)}…`);
      expect(r.list_result_type, r.target).toBe(typeof first.resultType === 'string' ? cut(first.resultType, 64) : null);
      const info = (x: Row) => x._meta?.['io.modelcontextprotocol/serverInfo'];
      const named = [info(discover), info(first)].find((x) => typeof x?.name === 'string' && typeof x?.version === 'string');
      expect([r.server_info_name, r.server_info_version], r.target).toEqual(named ? [cut(named.name, 512), cut(named.version, 256)] : [null, null]);
      const lacks = (x: Row) => [...(ttlOk(x) ? [] : ['ttlMs']), ...(['public', 'private'].includes(x.cacheScope) ? [] : ['cacheScope'])];
      expect(r.caching_missing, r.target).toEqual([...lacks(discover).map((f) => `discover.${f}`), ...[...new Set(pages.flatMap(lacks))].map((f) => `tools/list.${f}`)]);
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });

  it('restate re-reads the recorded caching fields from the stored answers, and names a row whose recorded scope its answers do not give', async () => {
    expect(await reproduceV2(dir)).toMatchObject({ unreadable_rows: 0, differing_rows: 0, differing_instructions: 0, differing_caching: 0 });
    const copy = mkdtempSync(join(tmpdir(), 'mcp-schema-caching-restate-'));
    try {
      cpSync(dir, copy, { recursive: true });
      const folder = join(copy, 'observations-v2');
      const file = readdirSync(folder).filter((f) => f.endsWith('.jsonl')).sort().at(-1)!;
      const lines = readFileSync(join(folder, file), 'utf8').split('\n');
      const i = lines.findIndex((l) => l.includes('"list_cache_scope":"public"'));
      expect(i).toBeGreaterThanOrEqual(0);
      lines[i] = lines[i]!.replace('"list_cache_scope":"public"', '"list_cache_scope":"private"');
      writeFileSync(join(folder, file), lines.join('\n'));
      const r = await reproduceV2(copy);
      expect(r).toMatchObject({ differing_rows: 0, differing_caching: 1 });
      expect(r.examples).toEqual([expect.stringMatching(new RegExp(`^observations-v2/${file}:${i + 1}: caching fields differ: recorded \\["private",`))]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("each caching server's list as it was made to answer", () => {
    const by = a.v2!.cachingByTarget;
    expect(by.get(CACHING.public)).toMatchObject({ cacheScope: 'public', ttlMs: CACHING.publicTtlMs, missing: [] });
    expect(by.get(CACHING.privateDrifts)).toMatchObject({ cacheScope: 'private', ttlMs: 0, resultType: 'complete', missing: [] });
    expect(by.get(CACHING.absent)).toMatchObject({ cacheScope: null, cacheScopeInvalid: false, ttlMs: null, ttlMsInvalid: false, resultType: 'complete', missing: ['discover.ttlMs', 'discover.cacheScope', 'tools/list.ttlMs', 'tools/list.cacheScope'] });
    expect(by.get(CACHING.invalid)).toMatchObject({ cacheScope: null, cacheScopeInvalid: true, ttlMs: null, ttlMsInvalid: true, missing: ['tools/list.ttlMs', 'tools/list.cacheScope'] });
    // Its 20,000-character resultType and server name and version: recorded, cut to the row's bounds.
    const invalidRow = latestRows.find((r) => r.target === CACHING.invalid)!;
    expect([invalidRow.list_result_type, invalidRow.server_info_name, invalidRow.server_info_version]).toEqual([`${'r'.repeat(63)}…`, `${'n'.repeat(511)}…`, `${'v'.repeat(255)}…`]);
    expect(by.get(CACHING.sse)).toMatchObject({ cacheScope: 'public', ttlMs: null, ttlMsInvalid: true, missing: ['tools/list.ttlMs'] });
    expect(latestRows.find((r) => r.target === CACHING.sse)!.body_content_type).toMatch(/^text\/event-stream/);
    // Legacy and failing targets have no entry.
    for (const r of latestRows.filter((x) => x.outcome !== 'ok' || x.era !== 'modern')) expect(by.has(r.target), r.target).toBe(false);
  });

  it("a change of a private-scope server is marked, on the change view and in its summary; others are not", () => {
    const changes = a.changes.filter((c) => c.target === CACHING.privateDrifts);
    expect(changes.length).toBeGreaterThanOrEqual(1);
    for (const c of changes) {
      expect(c.privateScopeList).toBe(true);
      expect(changeSummary(c)).toContain("Private-scope list: the change may be the caller's, not the server's.");
      // …and in the changes download (changes.jsonl, changes-<month>.parquet): its last column.
      expect(Object.entries(changeRecord(c)).at(-1)).toEqual(['private_scope_list', true]);
    }
    const server = a.servers.find((s) => s.name === CACHING.privateDrifts)!;
    expect(server.changes.every((c) => c.privateScopeList === true)).toBe(true);
    for (const c of a.changes.filter((x) => a.v2!.cachingByTarget.get(x.target)?.cacheScope !== 'private')) {
      expect(c.privateScopeList, c.target).toBeUndefined();
      expect(changeSummary(c)).not.toContain(PRIVATE_SCOPE_NOTE);
      expect(changeRecord(c).private_scope_list, c.target).toBe(false);
    }
  });

  it("the server page's line and the descriptor's caching block", async () => {
    const line = listCachingText(a.v2!.cachingByTarget.get(CACHING.privateDrifts)!);
    expect(line).toContain("this list may differ per caller; the archive saw an anonymous caller's list");
    expect(line).toContain('not to be reused (ttlMs 0)');
    expect(listCachingText(a.v2!.cachingByTarget.get(CACHING.public)!)).toBe('public-scope: the same list for every caller; may be reused for 5 min (ttlMs 300,000)');
    expect(listCachingText(a.v2!.cachingByTarget.get(CACHING.absent)!)).toContain('lacks what 2026-07-28 requires: discover.ttlMs');

    const repos = await repositoryIndex(a);
    const descriptor = async (name: string) => {
      const s = a.servers.find((x) => x.name === name)!;
      const d = serverDescriptor(a, s, await serverFacts(a, s, TEST_REGISTRY_SCHEMAS), repos, TEST_PUBLICATION);
      expect(Descriptor.safeParse(d).success).toBe(true);
      const block = (d._meta as Record<string, unknown>)['org.mcp-schema/caching'];
      expect(Caching.safeParse(block).success).toBe(true);
      return block as Record<string, unknown>;
    };
    expect(await descriptor(CACHING.privateDrifts)).toMatchObject({ methodology: 'v2', cache_scope: 'private', ttl_ms: 0, missing_required: [], note: null });
    expect(await descriptor(CACHING.invalid)).toMatchObject({ cache_scope: null, cache_scope_invalid: true, ttl_ms_invalid: true, missing_required: ['tools/list.ttlMs', 'tools/list.cacheScope'] });
    const legacy = latestRows.find((r) => r.outcome === 'ok' && r.era === 'legacy')!;
    expect(await descriptor(legacy.target)).toMatchObject({ cache_scope: null, note: expect.stringContaining('not applicable') });
  });

  it('a second load reads the caching figures back from the build cache, equal', async () => {
    forgetArchive(dir);
    const again = await loadArchive(dir);
    expect(again.v2!.latest!.caching).toEqual(a.v2!.latest!.caching);
    expect([...again.v2!.cachingByTarget]).toEqual([...a.v2!.cachingByTarget]);
    expect(again.changes.filter((c) => c.privateScopeList).map((c) => c.id)).toEqual(a.changes.filter((c) => c.privateScopeList).map((c) => c.id));
  });

  it('marks the same changes when the servers are derived in shards: on the change list and on the server view its shard gives on demand', async () => {
    forgetArchive(dir);
    try {
      const sharded = await loadArchive(dir, { shards: 2 });
      expect(sharded.shards).toBe(2);
      expect(sharded.changes.filter((c) => c.privateScopeList).map((c) => c.id)).toEqual(a.changes.filter((c) => c.privateScopeList).map((c) => c.id));
      const held = a.servers.find((s) => s.name === CACHING.privateDrifts)!;
      const view = (await sharded.server(held.slug))!;
      expect(view.changes.length).toBeGreaterThanOrEqual(1);
      expect(view.changes.every((c) => c.privateScopeList === true)).toBe(true);
      expect(JSON.stringify(view)).toBe(JSON.stringify(held));
      // Marked exactly on the private-scope servers, in every shard: not every view a shard gives (near miss).
      let views = 0;
      for (let k = 0; k < sharded.shards; k++) {
        for (const s of await sharded.serversIn(k)) {
          views++;
          const priv = a.v2!.cachingByTarget.get(s.name)?.cacheScope === 'private';
          for (const c of s.changes) expect(c.privateScopeList, s.name).toBe(priv ? true : undefined);
        }
      }
      expect(views).toBe(a.servers.length);
    } finally {
      forgetArchive(dir);
    }
  });
});
