// The v2 row contract (methodology v2, "Rows"): what it accepts is what readers of
// data/observations-v2/ may rely on. Every rule of the superRefine is tested with the row that just
// passes and the one that just fails, starting from the valid rows of test/lib/helpers/rows-v2.ts and
// breaking one field at a time.
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/lib/canonical.ts';
import { AUTH_METADATA_SOURCES, ObservationV2, OUTCOMES_V2, PROBE_STEPS_V2, V2_REQUEST_BUDGET } from '../../../src/lib/contract/observation-v2.ts';
import { CACHING_TEXT_MAX } from '../../../src/lib/list-caching.ts';
import { rowV2, type V2Kind } from '../helpers/rows-v2.ts';

const day = '2026-12-03';
const hex = sha256Hex('x');
const H = (c: string) => c.repeat(64);
const row = (kind: V2Kind, over: Record<string, unknown> = {}): Record<string, unknown> => ({ ...rowV2(day, kind, { target: 'io.example/t' }), ...over });
const issues = (value: unknown) => {
  const r = ObservationV2.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};
const modernOk = (over: Record<string, unknown> = {}) => row({ ok: 'modern' }, { list_cache_scope: 'public', ...over });
const legacyOk = (over: Record<string, unknown> = {}) => row({ ok: 'legacy' }, over);

describe('ObservationV2: the rows the collector writes', () => {
  it.each<[string, V2Kind]>([
    ['a modern ok row', { ok: 'modern' }],
    ['a legacy ok row', { ok: 'legacy' }],
    ['an ok row without a canary', { ok: 'legacy', canary: null }],
    ['an unreachable row', { status: 'unreachable' }],
    ['a handshake_only row of a modern server', { status: 'handshake_only', era: 'modern' }],
    ['a handshake_only row of a legacy server', { status: 'handshake_only', era: 'legacy' }],
    ['a modern_rejected row', { status: 'modern_rejected' }],
    ['a jsonrpc_error row', { status: 'jsonrpc_error', era: 'legacy' }],
    ['a payment_required row', { status: 'payment_required' }],
    ['a server_error row', { status: 'server_error' }],
    ['a not_mcp row', { status: 'not_mcp' }],
    ['an auth_compliant row', { auth: 'compliant' }],
    ['an auth_noncompliant row', { auth: 'noncompliant' }],
    ['an auth_noncompliant row with a Bearer challenge and no valid metadata', { auth: 'noncompliant', bearer: true }],
    ['a legacy_sse row', { status: 'legacy_sse' }],
    ['a no_endpoint row', 'no_endpoint'],
    ['a retired row', 'retired'],
    ['an excluded row', 'excluded'],
    ['a not_attempted row', 'not_attempted'],
  ])('accepts %s', (_what, kind) => {
    expect(issues(row(kind))).toEqual([]);
  });

  it('accepts rows with every text and list field filled, as the collector writes them', () => {
    const auth = row({ auth: 'noncompliant', bearer: true }, {
      step: 'initialize', detail: 'http 401 from initialize', http_status: 401, www_authenticate: 'Bearer realm="x", resource_metadata="https://a.example/.well-known/oauth-protected-resource"',
      retry_after: '120', final_url: 'https://a.example/mcp', redirects: 1, auth_http_status: 401, auth_schemes: ['bearer'], auth_bearer: true, auth_metadata_valid: false,
      auth_metadata_url: 'https://a.example/.well-known/oauth-protected-resource', auth_metadata_problem: 'hint: http 404',
    });
    const ok = modernOk({
      capabilities: ['tools'], server_name: 'srv', server_version: '1.0.0', session: false, handshake_content_type: 'application/json', body_content_type: 'text/event-stream',
      instructions_sha256: hex, tools_set_hash: hex, handshake_latency_ms: 12.5, canary_http_status: 200, canary_jsonrpc_code: -32602,
    });
    const sse = row({ status: 'legacy_sse' }, { legacy_sse_endpoint: '/messages?sessionId=1' });
    for (const r of [auth, ok, sse]) expect(issues(r)).toEqual([]);
  });

  it('accepts every outcome, probe step and metadata source it names, and nothing else', () => {
    expect(OUTCOMES_V2).toEqual(['ok', 'error', 'no_endpoint', 'retired', 'excluded', 'not_attempted']);
    for (const step of PROBE_STEPS_V2) expect(issues(row({ status: 'not_mcp' }, { step }))).toEqual([]);
    expect(PROBE_STEPS_V2).toEqual(['roster', 'address', 'discover', 'initialize', 'initialized', 'tools/list', 'sse']);
    expect(ObservationV2.safeParse(row({ status: 'not_mcp' }, { step: 'canary' })).success).toBe(false);
    for (const source of AUTH_METADATA_SOURCES) expect(issues(row({ auth: 'compliant' }, { auth_metadata_source: source }))).toEqual([]);
    expect(AUTH_METADATA_SOURCES).toEqual(['hint', 'well_known_path', 'well_known_root']);
    expect(ObservationV2.safeParse(row({ auth: 'compliant' }, { auth_metadata_source: 'guess' })).success).toBe(false);
  });

  it('accepts an instant with an offset, and refuses a day that is not YYYY-MM-DD', () => {
    expect(issues(row({ ok: 'legacy' }, { observed_at: `${day}T08:00:00.5+02:00` }))).toEqual([]);
    for (const bad of [`x${day}`, `${day}x`, '2026-12-3', '26-12-03', 'yyyy-mm-dd']) {
      expect(ObservationV2.safeParse(row({ ok: 'legacy' }, { day: bad })).success).toBe(false);
    }
  });

  it('caps requests at the budget: the budget passes, one more is refused', () => {
    expect(V2_REQUEST_BUDGET).toBe(8);
    expect(issues(legacyOk({ requests: V2_REQUEST_BUDGET }))).toEqual([]);
    expect(ObservationV2.safeParse(legacyOk({ requests: V2_REQUEST_BUDGET + 1 })).success).toBe(false);
  });

  it('refuses an unknown field and another methodology version', () => {
    expect(ObservationV2.safeParse(legacyOk({ note: 'x' })).success).toBe(false);
    expect(ObservationV2.safeParse(legacyOk({ methodology_version: 'v1' })).success).toBe(false);
    expect(ObservationV2.safeParse(legacyOk({ tools_sha256: `x${hex}` })).success).toBe(false);
  });
});

describe('ObservationV2: outcome, reason, era and requests', () => {
  it('not_attempted_reason goes with outcome not_attempted, and only with it', () => {
    const msg = 'not_attempted_reason goes with outcome not_attempted, and only with it';
    expect(issues(row('not_attempted', { not_attempted_reason: 'host_unresponsive' }))).toEqual([]);
    expect(issues(row('not_attempted', { not_attempted_reason: null }))).toEqual([msg]);
    expect(issues(row({ status: 'unreachable' }, { not_attempted_reason: 'run_deadline' }))).toEqual([msg]);
  });

  it.each<[V2Kind, string]>([
    ['no_endpoint', 'no_endpoint'],
    ['retired', 'retired'],
    ['excluded', 'excluded'],
    ['not_attempted', 'not_attempted'],
  ])('a %s row has era none and sent no request', (kind, outcome) => {
    expect(issues(row(kind, { era: 'none', requests: 0 }))).toEqual([]);
    expect(issues(row(kind, { era: 'legacy' }))).toEqual([`${outcome} row must have era none`]);
    expect(issues(row(kind, { requests: 1 }))).toEqual([`${outcome} row sent no request`]);
  });

  it('a probed row (ok or error) has an era and counts its requests', () => {
    expect(issues(legacyOk({ requests: 4 }))).toEqual([]);
    expect(issues(row({ status: 'handshake_only', era: 'legacy' }, { requests: 3 }))).toEqual([]);
    expect(issues(row({ status: 'unreachable' }, { requests: 0 }))).toEqual([]);
  });
});

describe('ObservationV2: the caching fields', () => {
  const fields: [string, unknown][] = [
    ['list_cache_scope', 'public'],
    ['list_ttl_ms', 0],
    ['list_result_type', 'complete'],
    ['server_info_name', 'srv'],
    ['server_info_version', '1.0.0'],
    ['caching_missing', []],
  ];
  const msg = 'caching fields (list_cache_scope, …) go with a modern ok row only';

  it.each(fields)('%s alone goes with a modern ok row only', (field, value) => {
    expect(issues(modernOk({ [field]: value }))).toEqual([]);
    expect(issues(legacyOk({ [field]: value }))).toEqual([msg]);
    expect(issues(row({ status: 'modern_rejected' }, { [field]: value }))).toEqual([msg]);
  });

  it('null caching fields, or none at all, are no caching facts: a legacy or error row may carry them', () => {
    const nulls = Object.fromEntries(fields.map(([f]) => [f, null]));
    expect(issues(legacyOk(nulls))).toEqual([]);
    expect(issues(row({ status: 'modern_rejected' }, nulls))).toEqual([]);
    expect(issues(legacyOk())).toEqual([]);
  });

  it('a modern ok row records its list_cache_scope, or leaves the caching fields out (rows from before 2026-12-02)', () => {
    expect(issues(row({ ok: 'modern' }))).toEqual([]);
    expect(issues(modernOk({ list_cache_scope: 'absent' }))).toEqual([]);
    expect(issues(modernOk({ list_cache_scope: null }))).toEqual(['a modern ok row records its list_cache_scope (absent when the answer has none), or leaves the caching fields out']);
    expect(issues(modernOk({ list_cache_scope: null, list_ttl_ms: 5 }))).toEqual(['a modern ok row records its list_cache_scope (absent when the answer has none), or leaves the caching fields out']);
  });

  it('takes every cache scope and every missing field it names, and nothing else', () => {
    for (const scope of ['public', 'private', 'absent', 'invalid']) expect(issues(modernOk({ list_cache_scope: scope }))).toEqual([]);
    expect(ObservationV2.safeParse(modernOk({ list_cache_scope: 'shared' })).success).toBe(false);
    const all = ['discover.ttlMs', 'discover.cacheScope', 'tools/list.ttlMs', 'tools/list.cacheScope'];
    expect(issues(modernOk({ caching_missing: all }))).toEqual([]);
    for (const f of all) expect(issues(modernOk({ caching_missing: [f] }))).toEqual([]);
    expect(ObservationV2.safeParse(modernOk({ caching_missing: ['discover.ttl'] })).success).toBe(false);
    expect(ObservationV2.safeParse(modernOk({ list_ttl_ms: -1 })).success).toBe(false);
  });

  it('bounds the caching texts at CACHING_TEXT_MAX, the length the probe cuts them to', () => {
    const at = (n: number) => 'a'.repeat(n);
    for (const [field, max] of [
      ['list_result_type', CACHING_TEXT_MAX.resultType],
      ['server_info_name', CACHING_TEXT_MAX.serverInfoName],
      ['server_info_version', CACHING_TEXT_MAX.serverInfoVersion],
    ] as const) {
      expect(issues(modernOk({ [field]: at(max) }))).toEqual([]);
      expect(ObservationV2.safeParse(modernOk({ [field]: at(max + 1) })).success).toBe(false);
    }
  });
});

describe('ObservationV2: ok rows', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['a status other than ok', { status: 'handshake_only' }, ['ok row must have status ok']],
    ['an error_class', { error_class: 'timeout' }, ['ok row carries an error_class']],
    ['era none', { era: 'none' }, ['ok row must be modern or legacy']],
    ['no tools_sha256', { tools_sha256: null }, ['ok row lacks hashes or tool_count']],
    ['no body_sha256', { body_sha256: null }, ['ok row lacks hashes or tool_count', 'body_sha256 must be the first page']],
    ['no handshake_sha256', { handshake_sha256: null }, ['ok row lacks hashes or tool_count']],
    ['no tool_count', { tool_count: null }, ['ok row lacks hashes or tool_count']],
    ['no pages read', { tools_pages: 0, tools_pages_sha256: [], tools_pages_content_types: [] }, ['ok row needs one stored body per page read', 'body_sha256 must be the first page']],
    ['tools_pages null', { tools_pages: null }, ['ok row needs one stored body per page read']],
    ['no page hashes', { tools_pages_sha256: null }, ['ok row needs one stored body per page read']],
    ['no page content types', { tools_pages_content_types: null }, ['ok row needs one stored body per page read']],
    ['one page hash short', { tools_pages: 2, tools_pages_content_types: ['application/json', 'text/event-stream'] }, ['ok row needs one stored body per page read']],
    ['one content type short', { tools_pages: 2, tools_pages_sha256: [H('c'), H('d')] }, ['ok row needs one stored body per page read']],
    ['a first page that is not body_sha256', { tools_pages_sha256: [H('d')] }, ['body_sha256 must be the first page']],
    ['tools_truncated null', { tools_truncated: null }, ['ok row must say whether the listing was truncated']],
  ])('refuses an ok row with %s', (_what, change, messages) => {
    expect(issues(legacyOk(change))).toEqual(messages);
  });

  it('era legacy_sse is refused both as an ok era and as a status other than legacy_sse', () => {
    expect(issues(legacyOk({ era: 'legacy_sse' }))).toEqual(['ok row must be modern or legacy', 'era legacy_sse goes with status legacy_sse, and only with it']);
  });

  it.each<[string, Record<string, unknown>]>([
    ['zero tools', { tool_count: 0 }],
    ['a truncated listing', { tools_truncated: true }],
    ['two pages, the first one the body', { tools_pages: 2, tools_pages_sha256: [H('c'), H('d')], tools_pages_content_types: ['application/json', null] }],
  ])('accepts an ok row with %s', (_what, change) => {
    expect(issues(legacyOk(change))).toEqual([]);
    expect(issues(modernOk(change))).toEqual([]);
  });

  it('refuses two pages whose second is the body', () => {
    expect(issues(legacyOk({ tools_pages: 2, tools_pages_sha256: [H('d'), H('c')], tools_pages_content_types: ['application/json', 'application/json'] }))).toEqual(['body_sha256 must be the first page']);
  });
});

describe('ObservationV2: error rows', () => {
  it.each(['ok', 'excluded'])('refuses an error row with status %s', (status) => {
    expect(issues(row({ status: 'not_mcp' }, { status }))).toEqual(['error row needs a probed non-ok status']);
  });
  it('refuses an error row without a status', () => {
    expect(issues(row({ status: 'not_mcp' }, { status: null }))).toEqual(['error row needs a probed non-ok status']);
  });
  it('refuses an error row without a probe error_class, and takes any probe class', () => {
    expect(issues(row({ status: 'not_mcp' }, { error_class: null }))).toEqual(['error row needs a probe error_class']);
    expect(issues(row({ status: 'not_mcp' }, { error_class: 'no_endpoint' }))).toEqual(['error row needs a probe error_class']);
    for (const c of ['timeout', 'tls', 'http_4xx', 'http_5xx', 'auth', 'rate_limited', 'parse']) expect(issues(row({ status: 'not_mcp' }, { error_class: c }))).toEqual([]);
  });
  it('refuses an error row with tools_sha256, and keeps a handshake hash', () => {
    expect(issues(row({ status: 'handshake_only', era: 'modern' }, { tools_sha256: hex }))).toEqual(['error row carries tools_sha256']);
    expect(issues(row({ status: 'handshake_only', era: 'modern' }, { handshake_sha256: hex }))).toEqual([]);
  });
});

describe('ObservationV2: rows that were never probed', () => {
  it('an excluded row has status excluded and no probe results', () => {
    expect(issues(row('excluded', { status: null }))).toEqual(['excluded row must have status excluded']);
    expect(issues(row('excluded', { status: 'ok' }))).toEqual(['excluded row must have status excluded']);
    expect(issues(row('excluded', { error_class: 'timeout' }))).toEqual(['excluded row carries probe results']);
    expect(issues(row('excluded', { tools_sha256: hex }))).toEqual(['excluded row carries probe results']);
  });
  it('a no_endpoint row has no status and error_class no_endpoint', () => {
    expect(issues(row('no_endpoint', { status: 'excluded' }))).toEqual(['no_endpoint row has no status']);
    expect(issues(row('no_endpoint', { error_class: 'timeout' }))).toEqual(['no_endpoint row must have error_class no_endpoint']);
    expect(issues(row('no_endpoint', { error_class: null }))).toEqual(['no_endpoint row must have error_class no_endpoint']);
  });
  it.each<[V2Kind, string]>([
    ['retired', 'retired'],
    ['not_attempted', 'not_attempted'],
  ])('a %s row has no status and no probe results', (kind, outcome) => {
    expect(issues(row(kind, { status: 'excluded' }))).toEqual([`${outcome} row has no status`]);
    expect(issues(row(kind, { error_class: 'timeout' }))).toEqual([`${outcome} row carries probe results`]);
    expect(issues(row(kind, { error_class: 'no_endpoint' }))).toEqual([`${outcome} row carries probe results`]);
    expect(issues(row(kind, { tools_sha256: hex }))).toEqual([`${outcome} row carries probe results`]);
  });
});

describe('ObservationV2: statuses and their eras', () => {
  it('a modern_rejected row is modern', () => {
    expect(issues(row({ status: 'modern_rejected', era: 'modern' }))).toEqual([]);
    expect(issues(row({ status: 'modern_rejected' }, { era: 'legacy' }))).toEqual(['modern_rejected row must be modern']);
    expect(issues(row({ status: 'modern_rejected' }, { era: 'none' }))).toEqual(['modern_rejected row must be modern']);
  });
  it('a handshake_only row is modern or legacy', () => {
    expect(issues(row({ status: 'handshake_only', era: 'legacy' }, { era: 'none' }))).toEqual(['handshake_only row must be modern or legacy']);
    expect(issues(row({ status: 'not_mcp', era: 'none' }))).toEqual([]);
    expect(issues(row({ status: 'not_mcp', era: 'modern' }))).toEqual([]);
  });
  it('era legacy_sse goes with status legacy_sse, and only with it', () => {
    const msg = 'era legacy_sse goes with status legacy_sse, and only with it';
    expect(issues(row({ status: 'legacy_sse' }, { era: 'legacy' }))).toEqual([msg]);
    expect(issues(row({ status: 'not_mcp' }, { era: 'legacy_sse' }))).toEqual([msg]);
  });
  it('auth fields go with the auth statuses, and only with them', () => {
    const msg = 'auth fields go with auth statuses, and only with them';
    expect(issues(row({ auth: 'noncompliant' }, { auth_http_status: 403 }))).toEqual([]);
    expect(issues(row({ auth: 'noncompliant' }, { auth_http_status: null }))).toEqual([msg]);
    expect(issues(row({ status: 'not_mcp' }, { auth_http_status: 401 }))).toEqual([msg]);
    expect(issues(row({ status: 'not_mcp' }, { auth_http_status: 403 }))).toEqual([msg]);
  });
  it.each<[string, Record<string, unknown>]>([
    ['a 403', { auth_http_status: 403 }],
    ['no Bearer challenge', { auth_bearer: false }],
    ['an unknown Bearer', { auth_bearer: null }],
    ['invalid metadata', { auth_metadata_valid: false }],
    ['unknown metadata', { auth_metadata_valid: null }],
  ])('auth_compliant needs a 401, a Bearer challenge and valid metadata: refuses %s', (_what, change) => {
    expect(issues(row({ auth: 'compliant' }, change))).toEqual(['auth_compliant needs a 401, a Bearer challenge and valid metadata']);
  });
});

describe('ObservationV2: the canary', () => {
  it('is sent only after a complete tools/list', () => {
    const msg = 'the canary is sent only after a complete tools/list';
    expect(issues(legacyOk({ canary_sent: true }))).toEqual([]);
    expect(issues(legacyOk({ canary_sent: false, canary_in_channel: null }))).toEqual([]);
    expect(issues(row({ status: 'handshake_only', era: 'legacy' }, { canary_sent: true }))).toEqual([msg]);
    expect(issues(row({ status: 'not_mcp' }, { canary_sent: false }))).toEqual([]);
  });
});

describe('ObservationV2: probe_shared_with (from 2026-12-07)', () => {
  it('names another registry name on an ok or error row; absent or null on a row that made its own probe', () => {
    expect(issues(legacyOk({ probe_shared_with: 'io.example/first', requests: 0 }))).toEqual([]);
    expect(issues(row({ status: 'unreachable' }, { probe_shared_with: 'io.example/first', requests: 0 }))).toEqual([]);
    expect(issues(legacyOk({ probe_shared_with: 'io.example/first', requests: 1 }))).toEqual(["a row sharing another name's probe sent no request: requests 0"]);
    expect(issues(legacyOk())).toEqual([]);
    expect(issues(legacyOk({ probe_shared_with: null }))).toEqual([]);
  });

  it('refuses it on a row that made no probe, naming the row itself, empty, or beyond a registry name\'s bound', () => {
    for (const kind of ['not_attempted', 'retired', 'no_endpoint'] as const) {
      expect(issues(row(kind, { probe_shared_with: 'io.example/first' })).some((m) => m.includes('shares no probe')), kind).toBe(true);
    }
    expect(issues(legacyOk({ probe_shared_with: 'io.example/t', requests: 0 }))).toEqual(["probe_shared_with names another registry name, not the row's own"]);
    expect(ObservationV2.safeParse(legacyOk({ probe_shared_with: '', requests: 0 })).success).toBe(false);
    expect(ObservationV2.safeParse(legacyOk({ probe_shared_with: 'x'.repeat(512), requests: 0 })).success).toBe(true);
    expect(ObservationV2.safeParse(legacyOk({ probe_shared_with: 'x'.repeat(513), requests: 0 })).success).toBe(false);
  });
});
