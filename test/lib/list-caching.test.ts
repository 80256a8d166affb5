// resultCaching (MCP 2026-07-28 Caching, SEP-2549) on near misses, read through the same body reader
// the loader uses (answerFromBody: JSON and event-stream bodies), and listCachingCounts' denominators.
import { describe, expect, it } from 'vitest';
import { answerFromBody, TOOLS_LIST_REQUEST_ID } from '../../src/lib/answer-body.ts';
import { ObservationV2 } from '../../src/lib/contract/observation-v2.ts';
import { answerCaching, CACHING_TEXT_MAX, cachingRowFields, combineCaching, listCachingCounts, resultCaching, SERVER_INFO_META } from '../../src/lib/list-caching.ts';
import { rowV2 } from './helpers/rows-v2.ts';
import { wilson } from '../../src/lib/wilson.ts';

const answer = (result: unknown) => ({ jsonrpc: '2.0', id: TOOLS_LIST_REQUEST_ID, result });
const modern = (result: unknown) => resultCaching(answer(result), { modern: true });

describe('resultCaching(message, { modern })', () => {
  it('public and private, with ttlMs, resultType and the server info in _meta: nothing missing', () => {
    const info = { name: 'srv', version: '1.2.3' };
    expect(modern({ tools: [], resultType: 'complete', ttlMs: 60_000, cacheScope: 'public', _meta: { 'io.modelcontextprotocol/serverInfo': info } })).toEqual({
      ttlMs: 60_000, ttlMsInvalid: false, cacheScope: 'public', cacheScopeInvalid: false, resultType: 'complete', serverInfo: info, missing: [],
    });
    const p = modern({ tools: [], ttlMs: 0, cacheScope: 'private' });
    expect(p.cacheScope).toBe('private');
    expect(p.ttlMs).toBe(0);
    expect(p.missing).toEqual([]);
  });

  it('absent fields are missing on a modern answer, and not applicable on a legacy one', () => {
    expect(modern({ tools: [] })).toMatchObject({ ttlMs: null, cacheScope: null, cacheScopeInvalid: false, ttlMsInvalid: false, missing: ['ttlMs', 'cacheScope'] });
    const legacy = resultCaching(answer({ tools: [], ttlMs: 5, cacheScope: 'public' }), { modern: false });
    expect(legacy.missing).toBeNull();
    expect(resultCaching(answer({ tools: [] }), { modern: false }).missing).toBeNull();
    // The values are still read off a legacy answer (a legacy server may send them); only the count is not applicable.
    expect(legacy.cacheScope).toBe('public');
  });

  it('a wrong type or value counts as missing; a scope that is not exactly public or private is invalid', () => {
    for (const bad of ['PUBLIC', 'Private', 'shared', '', ' public', null, 1, true, ['public'], { scope: 'public' }]) {
      const c = modern({ tools: [], ttlMs: 1, cacheScope: bad });
      expect(c.cacheScope, JSON.stringify(bad)).toBeNull();
      expect(c.cacheScopeInvalid, JSON.stringify(bad)).toBe(true);
      expect(c.missing, JSON.stringify(bad)).toEqual(['cacheScope']);
    }
    for (const bad of ['60000', -1, -0.5, null, true, [1], { ms: 1 }, Number.POSITIVE_INFINITY, Number.NaN]) {
      const c = modern({ tools: [], ttlMs: bad, cacheScope: 'public' });
      expect(c.ttlMs, String(bad)).toBeNull();
      expect(c.ttlMsInvalid, String(bad)).toBe(true);
      expect(c.missing, String(bad)).toEqual(['ttlMs']);
    }
  });

  it('huge numbers: a finite one is kept, one JSON cannot hold as a number (1e400 → Infinity) is invalid', () => {
    expect(resultCaching(JSON.parse('{"id":2,"result":{"ttlMs":1e308,"cacheScope":"public"}}'), { modern: true }).ttlMs).toBe(1e308);
    const inf = resultCaching(JSON.parse('{"id":2,"result":{"ttlMs":1e400,"cacheScope":"public"}}'), { modern: true });
    expect(inf.ttlMs).toBeNull();
    expect(inf.missing).toEqual(['ttlMs']);
    expect(modern({ ttlMs: -0, cacheScope: 'public' }).ttlMs).toBe(0);
    expect(Object.is(modern({ ttlMs: -0, cacheScope: 'public' }).ttlMs, -0)).toBe(false);
  });

  it('hostile text is clipped; junk in resultType and serverInfo reads as null; nothing throws', () => {
    const long = 'x'.repeat(100_000);
    const c = modern({ resultType: long, ttlMs: 1, cacheScope: 'public', _meta: { 'io.modelcontextprotocol/serverInfo': { name: long, version: long } } });
    // Cut to the row's bounds with the ellipsis counted (before 2026-12-05 the cut kept 64, 512 and 256
    // units and added '…', one over the contract: the collector refused to write such a row).
    expect(c.resultType).toBe(`${'x'.repeat(63)}…`);
    expect(c.serverInfo!.name).toBe(`${'x'.repeat(511)}…`);
    expect(c.serverInfo!.version).toBe(`${'x'.repeat(255)}…`);
    expect(modern({ resultType: 7, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'n', version: 2 } } })).toMatchObject({ resultType: null, serverInfo: null });
    expect(modern({ _meta: { 'io.modelcontextprotocol/serverInfo': 'srv' } }).serverInfo).toBeNull();
    expect(modern({ _meta: [1, 2] }).serverInfo).toBeNull();
    // Array values have a length like strings do: still not text, so not recorded.
    expect(modern({ resultType: ['complete'] }).resultType).toBeNull();
    const si = (name: unknown, version: unknown) => modern({ _meta: { 'io.modelcontextprotocol/serverInfo': { name, version } } }).serverInfo;
    expect(si(['srv'], ['1'])).toBeNull();
    expect(si(['srv'], '1')).toBeNull();
    expect(si('srv', ['1'])).toBeNull();
    expect(si('srv', '1')).toEqual({ name: 'srv', version: '1' });
    // A junk resultType does not stop the reading: the server info after it is still read.
    expect(modern({ resultType: 7, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'srv', version: '1' } } })).toMatchObject({ resultType: null, serverInfo: { name: 'srv', version: '1' } });
    for (const junk of [null, undefined, 'text', 42, [], [answer({ ttlMs: 1 })], { result: 'x' }, { result: [1] }, { error: { code: -32603 } }]) {
      expect(resultCaching(junk, { modern: true })).toMatchObject({ ttlMs: null, cacheScope: null, missing: ['ttlMs', 'cacheScope'] });
    }
    const throwing = { id: 2, result: Object.defineProperty({ cacheScope: 'public' }, 'ttlMs', { enumerable: true, get: () => { throw new Error('boom'); } }) };
    expect(() => resultCaching(throwing, { modern: true })).not.toThrow();
    expect(resultCaching(throwing, { modern: true }).missing).toContain('ttlMs');
  });

  it('text at its bound is kept whole, one unit more is cut to the bound, a surrogate pair is never split', () => {
    const at = (n: number, ch = 'y') => ch.repeat(n);
    const info = (name: string, version: string) => ({ 'io.modelcontextprotocol/serverInfo': { name, version } });
    const whole = modern({ resultType: at(CACHING_TEXT_MAX.resultType), _meta: info(at(CACHING_TEXT_MAX.serverInfoName), at(CACHING_TEXT_MAX.serverInfoVersion)) });
    expect(whole.resultType).toBe(at(64));
    expect(whole.serverInfo).toEqual({ name: at(512), version: at(256) });
    const over = modern({ resultType: at(65), _meta: info(at(513), at(257)) });
    expect(over.resultType).toBe(`${at(63)}…`);
    expect(over.serverInfo).toEqual({ name: `${at(511)}…`, version: `${at(255)}…` });
    // An emoji (two UTF-16 units) across the cut: dropped whole, so the text is one unit shorter.
    const pair = modern({ resultType: `${at(62)}😀zz` });
    expect(pair.resultType).toBe(`${at(62)}…`);
  });

  it('a modern ok row carrying the longest cut values passes the row contract the collector writes through', () => {
    const long = '\u00e9'.repeat(100_000);
    const answer2 = (result: unknown, id: number) => ({ jsonrpc: '2.0', id, result });
    const meta = { 'io.modelcontextprotocol/serverInfo': { name: long, version: long } };
    const fields = cachingRowFields(answerCaching(answer2({ ttlMs: 1, cacheScope: 'public', _meta: meta }, 1), [answer2({ tools: [], resultType: long, ttlMs: 1, cacheScope: 'public' }, TOOLS_LIST_REQUEST_ID)]));
    expect([fields.list_result_type!.length, fields.server_info_name!.length, fields.server_info_version!.length]).toEqual([64, 512, 256]);
    const row = { ...rowV2('2026-12-05', { ok: 'modern' }, { target: 'io.example/long' }), ...fields };
    expect(ObservationV2.safeParse(row).success).toBe(true);
    // Near miss: one unit over any bound and the contract refuses the row.
    for (const k of ['list_result_type', 'server_info_name', 'server_info_version'] as const) {
      expect(ObservationV2.safeParse({ ...row, [k]: `${row[k]}x` }).success, k).toBe(false);
    }
  });

  it('reads own properties only: an inherited cacheScope is absent', () => {
    const result = Object.create({ cacheScope: 'public', ttlMs: 5 }) as Record<string, unknown>;
    result.tools = [];
    expect(resultCaching({ id: 2, result }, { modern: true }).missing).toEqual(['ttlMs', 'cacheScope']);
    // JSON.parse makes __proto__ an own key: it is not a scope either.
    expect(resultCaching(JSON.parse('{"id":2,"result":{"__proto__":{"cacheScope":"public"}}}'), { modern: true }).cacheScope).toBeNull();
  });

  it('reads own properties only at every level: an inherited result, resultType, _meta or serverInfo is absent', () => {
    const info = { name: 'srv', version: '1' };
    const inheritedResult = Object.create({ result: { ttlMs: 5, cacheScope: 'public', resultType: 'complete' } }) as Record<string, unknown>;
    expect(resultCaching(inheritedResult, { modern: true })).toMatchObject({ ttlMs: null, cacheScope: null, resultType: null, missing: ['ttlMs', 'cacheScope'] });
    const result = Object.create({ resultType: 'complete', _meta: { [SERVER_INFO_META]: info } }) as Record<string, unknown>;
    Object.assign(result, { ttlMs: 1, cacheScope: 'public' });
    expect(resultCaching({ id: 2, result }, { modern: true })).toMatchObject({ resultType: null, serverInfo: null, missing: [] });
    const meta = Object.create({ [SERVER_INFO_META]: info }) as Record<string, unknown>;
    expect(modern({ _meta: meta }).serverInfo).toBeNull();
    // Near miss: the same values as own properties are read.
    expect(modern({ resultType: 'complete', _meta: { [SERVER_INFO_META]: info } })).toMatchObject({ resultType: 'complete', serverInfo: info });
  });

  it('an SSE-wrapped answer reads the same as the JSON one, through answerFromBody', () => {
    const msg = answer({ tools: [], ttlMs: 30_000, cacheScope: 'private', resultType: 'complete' });
    const sse = `: keepalive\n\nid: 0\ndata: \n\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\nevent: message\nid: 1\ndata: ${JSON.stringify(msg)}\n\n`;
    const fromSse = resultCaching(answerFromBody(sse, 'text/event-stream', TOOLS_LIST_REQUEST_ID), { modern: true });
    const fromJson = resultCaching(answerFromBody(JSON.stringify(msg), 'application/json', TOOLS_LIST_REQUEST_ID), { modern: true });
    expect(fromSse).toEqual(fromJson);
    expect(fromSse).toMatchObject({ cacheScope: 'private', ttlMs: 30_000, missing: [] });
  });
});

describe('answerCaching(discover, pages) and cachingRowFields', () => {
  const msg = (id: number, result: unknown) => ({ jsonrpc: '2.0', id, result });
  const info = (name: string) => ({ [SERVER_INFO_META]: { name, version: '1' } });

  it('the list is the first page; missing fields are named by where, discover first, each once over all pages', () => {
    const c = answerCaching(msg(1, { ttlMs: 1 }), [msg(2, { tools: [], cacheScope: 'private' }), msg(3, { tools: [], ttlMs: 2, cacheScope: 'public' }), msg(4, { tools: [] })]);
    expect(c.list).toMatchObject({ cacheScope: 'private', ttlMs: null });
    expect(c.missing).toEqual(['discover.cacheScope', 'tools/list.ttlMs', 'tools/list.cacheScope']);
    expect(cachingRowFields(c)).toMatchObject({ list_cache_scope: 'private', list_ttl_ms: null, caching_missing: c.missing });
  });

  it('no tools/list page: the list reads as absent, and only the discover result can lack a field', () => {
    const c = answerCaching(msg(1, { ttlMs: 0, cacheScope: 'public' }), []);
    expect(c.list).toEqual(resultCaching(null, { modern: true }));
    expect(c.missing).toEqual([]);
    expect(cachingRowFields(c)).toEqual({ list_cache_scope: 'absent', list_ttl_ms: null, list_result_type: null, server_info_name: null, server_info_version: null, caching_missing: [] });
  });

  it('readings of a legacy answer (missing not applicable) add nothing to the missing fields', () => {
    const legacy = resultCaching(msg(1, {}), { modern: false });
    expect(combineCaching(legacy, [legacy]).missing).toEqual([]);
    expect(combineCaching(legacy, [resultCaching(msg(2, {}), { modern: true })]).missing).toEqual(['tools/list.ttlMs', 'tools/list.cacheScope']);
    expect(combineCaching(resultCaching(msg(1, {}), { modern: true }), [legacy]).missing).toEqual(['discover.ttlMs', 'discover.cacheScope']);
  });

  it('the row names the server by the discover result, else by the first page; the list scope is public, private, invalid or absent', () => {
    const page = (extra: object) => [msg(2, { tools: [], ttlMs: 1, cacheScope: 'public', ...extra })];
    expect(cachingRowFields(answerCaching(msg(1, { _meta: info('from-discover') }), page({ _meta: info('from-list') }))).server_info_name).toBe('from-discover');
    expect(cachingRowFields(answerCaching(msg(1, {}), page({ _meta: info('from-list') })))).toMatchObject({ server_info_name: 'from-list', server_info_version: '1' });
    expect(cachingRowFields(answerCaching(msg(1, {}), page({ cacheScope: 'shared' }))).list_cache_scope).toBe('invalid');
    expect(cachingRowFields(answerCaching(msg(1, {}), [msg(2, { tools: [] })])).list_cache_scope).toBe('absent');
    expect(cachingRowFields(answerCaching(msg(1, {}), page({ resultType: 'complete' })))).toMatchObject({ list_cache_scope: 'public', list_ttl_ms: 1, list_result_type: 'complete' });
  });
});

describe('listCachingCounts(answers)', () => {
  it('missing fields: an answer counts once per field, keys in code-unit order whatever the answers’ order', () => {
    const a = (missing: string[]) => ({ list: { cacheScope: 'public' as const, cacheScopeInvalid: false }, missing });
    const c = listCachingCounts([a(['tools/list.ttlMs', 'tools/list.ttlMs']), a(['discover.ttlMs']), a(['tools/list.cacheScope', 'discover.ttlMs']), a([])]);
    expect(Object.entries(c.missingByField)).toEqual([['discover.ttlMs', 2], ['tools/list.cacheScope', 1], ['tools/list.ttlMs', 1]]);
    expect(c.missingRequired).toEqual({ count: 3, n: 4, share: wilson(3, 4) });
    expect(c.public).toEqual({ count: 4, n: 4, share: wilson(4, 4) });
    expect([c.private.count, c.absent.count, c.invalid.count]).toEqual([0, 0, 0]);
  });

  it('public / private / absent / invalid partition the answers, each over all of them, with Wilson intervals', () => {
    const rows = [
      { list: { cacheScope: 'public' as const, cacheScopeInvalid: false }, missing: [] },
      { list: { cacheScope: 'private' as const, cacheScopeInvalid: false }, missing: ['discover.ttlMs'] },
      { list: { cacheScope: 'private' as const, cacheScopeInvalid: false }, missing: [] },
      { list: { cacheScope: null, cacheScopeInvalid: false }, missing: ['tools/list.cacheScope', 'tools/list.cacheScope'] },
      { list: { cacheScope: null, cacheScopeInvalid: true }, missing: ['tools/list.cacheScope', 'discover.ttlMs'] },
    ];
    const c = listCachingCounts(rows);
    expect(c.n).toBe(5);
    expect([c.public.count, c.private.count, c.absent.count, c.invalid.count]).toEqual([1, 2, 1, 1]);
    expect(c.private.share).toEqual(wilson(2, 5));
    expect(c.missingRequired).toMatchObject({ count: 3, n: 5 });
    expect(c.missingByField).toEqual({ 'discover.ttlMs': 2, 'tools/list.cacheScope': 2 });
  });
  it('absent and invalid are told apart: two invalid scopes and one absent', () => {
    const l = (cacheScope: 'public' | null, cacheScopeInvalid: boolean) => ({ list: { cacheScope, cacheScopeInvalid }, missing: ['tools/list.cacheScope'] });
    const c = listCachingCounts([l(null, true), l(null, true), l(null, false)]);
    expect([c.absent.count, c.invalid.count, c.public.count, c.n]).toEqual([1, 2, 0, 3]);
  });
  it('no answers: every count 0 of 0, share NaN', () => {
    const c = listCachingCounts([]);
    expect(c.n).toBe(0);
    expect(c.public.share.p).toBeNaN();
  });
});
