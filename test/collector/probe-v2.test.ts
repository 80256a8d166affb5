// The v2 probe against every case of the era zoo (sandbox/era-servers.ts: real SDK v1/v2 servers, the
// conformance suite's modern mock, raw servers for every status and fallback). For each case: the
// status, era, revision, supported versions, pages, canary and auth facts — and, from what the zoo
// recorded, exactly what the probe SENT: headers, `_meta`, Mcp-Name on the canary, Mcp-Session-Id only
// where issued and never to another origin, the DELETE, the User-Agent, at most 8 requests. Every
// result also becomes a row that must validate as ObservationV2. Loopback only, under policy
// public+loopback: the private and link-local metadata URLs are refused with no connection attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpContext, type HttpContext } from '../../collector/http.ts';
import { CANARY_TOOL_NAME, DEFAULT_PROBE_V2_LIMITS, probeV2, type ProbeV2Limits, type ProbeV2Result } from '../../collector/probe-v2/index.ts';
import { excludedRowV2, noEndpointRowV2, notAttemptedRowV2, probeV2Row, retiredRowV2 } from '../../collector/rows-v2.ts';
import { USER_AGENT } from '../../collector/version.ts';
import { ObservationV2, sha256Hex, toolSetHash, toolsSha256, type RosterTarget } from '../../src/lib/index.ts';
import { HINTED_METADATA_PATH, PRIVATE_METADATA_URL, WELL_KNOWN } from '../../sandbox/era-auth.ts';
import { INSTRUCTIONS, SDK_V1_INFO, SDK_V2_INFO } from '../../sandbox/era-sdk.ts';
import { ERA_CASES, FUTURE_ONLY_SUPPORTED, startEraZoo, TOOL_PAGES, type EraCase, type EraZoo, type Recorded } from '../../sandbox/era-servers.ts';

const MODERN = '2026-07-28';
const LIMITS: ProbeV2Limits = { ...DEFAULT_PROBE_V2_LIMITS, timeoutMs: 5000, sseGraceMs: 200, sseDetectMs: 2000 };

type Canary = { httpStatus: number | null; inChannel: boolean | null; jsonrpcCode: number | null };
interface Want {
  status: ProbeV2Result['status'];
  era: ProbeV2Result['era'];
  protocolVersion: string | null;
  supportedVersions: string[] | null;
  pages: number;
  truncated?: ProbeV2Result['truncated'];
  canary: Canary | null;
  auth?: { httpStatus: 401 | 403; bearer: boolean; valid: boolean; source: 'hint' | 'well_known_path' | 'well_known_root' | null; matches: boolean | null; problems: RegExp[] };
  requests: number;
  session?: boolean;
  /** The v1 class of the failing step (null for ok). */
  failure: string | null;
}

const legacyCanary: Canary = { httpStatus: 200, inChannel: true, jsonrpcCode: null }; // SDK v1 McpServer: result.isError
const modernCanary: Canary = { httpStatus: 200, inChannel: true, jsonrpcCode: -32602 };
const modern = (o: Partial<Want> = {}): Want => ({ status: 'ok', era: 'modern', protocolVersion: MODERN, supportedVersions: [MODERN], pages: 1, canary: modernCanary, requests: 3, failure: null, ...o });
const legacy = (o: Partial<Want> = {}): Want => ({ status: 'ok', era: 'legacy', protocolVersion: '2025-11-25', supportedVersions: null, pages: 1, canary: legacyCanary, requests: 5, session: false, failure: null, ...o });
const wall = (auth: Want['auth'], requests: number, status: Want['status'] = auth!.valid && auth!.bearer && auth!.httpStatus === 401 ? 'auth_compliant' : 'auth_noncompliant'): Want => ({
  status,
  era: 'none',
  protocolVersion: null,
  supportedVersions: null,
  pages: 0,
  canary: null,
  auth,
  requests,
  failure: 'auth',
});
const bearer = (source: NonNullable<Want['auth']>['source'], problems: RegExp[] = [], o: Partial<NonNullable<Want['auth']>> = {}): NonNullable<Want['auth']> => ({
  httpStatus: 401,
  bearer: true,
  valid: source !== null,
  source,
  matches: source === null ? null : true,
  problems,
  ...o,
});

const WANT: Record<EraCase, Want> = {
  'sdk-v1-stateful': legacy({ requests: 6, session: true }),
  'sdk-v1-stateless': legacy(),
  'sdk-v2-modern-only': modern(),
  'sdk-v2-dual-era': modern(),
  'conformance-modern': modern({ canary: { httpStatus: 500, inChannel: true, jsonrpcCode: -32603 } }),
  'discover-404-then-legacy': legacy({ requests: 6, session: true }),
  'discover-unsupported-legacy-only': legacy(),
  'discover-unsupported-future-only': { status: 'modern_rejected', era: 'modern', protocolVersion: null, supportedVersions: FUTURE_ONLY_SUPPORTED, pages: 0, canary: null, requests: 1, failure: 'http_4xx' },
  'initialize-rejects-2025-11-25': legacy({ protocolVersion: '2025-03-26', requests: 7, session: true }),
  'payment-required': { status: 'payment_required', era: 'none', protocolVersion: null, supportedVersions: null, pages: 0, canary: null, requests: 3, failure: 'http_4xx' },
  'http-sse-legacy': { status: 'legacy_sse', era: 'legacy_sse', protocolVersion: null, supportedVersions: null, pages: 0, canary: null, requests: 3, failure: 'http_4xx' },
  'auth-header-metadata': wall(bearer('hint'), 3),
  'auth-wellknown-path': wall(bearer('well_known_path'), 3),
  'auth-wellknown-root': wall(bearer('well_known_root', [/^http 404$/]), 4),
  'auth-no-metadata': wall(bearer(null, [/^http 404$/, /^http 404$/]), 4),
  'auth-not-bearer': wall(bearer('well_known_path', [], { bearer: false }), 3),
  'auth-multi-challenge': wall(bearer('hint'), 3),
  'auth-403-challenge': wall(bearer('hint', [], { httpStatus: 403 }), 3),
  // The hint is refused before any request (it costs none); the well-known URLs on loopback are asked.
  'auth-metadata-private': wall(bearer(null, [/^refused address: 10\.0\.0\.1 is private$/, /^http 404$/, /^http 404$/]), 4),
  'auth-metadata-link-local': wall(bearer(null, [/^refused address: 169\.254\.169\.254 is linkLocal$/, /^http 404$/, /^http 404$/]), 4),
  'auth-metadata-redirect-private': wall(bearer(null, [/^refused address: 10\.0\.0\.1 is private$/, /^refused address: 169\.254\.169\.254 is linkLocal$/, /^http 404$/]), 5),
  'auth-metadata-oversized': wall(bearer(null, [/^metadata over 64 KiB cap$/, /^http 404$/, /^http 404$/]), 5),
  'auth-metadata-not-json': wall(bearer(null, [/^not json$/, /^http 404$/, /^http 404$/]), 5),
  'auth-metadata-no-resource': wall(bearer(null, [/^no resource$/, /^http 404$/, /^http 404$/]), 5),
  'auth-metadata-empty-authorization-servers': wall(bearer(null, [/^authorization_servers is empty$/, /^http 404$/, /^http 404$/]), 5),
  // Valid as the study counts validity; RFC 9728 §3.3's stricter rule recorded apart.
  'auth-metadata-resource-mismatch': wall(bearer('hint', [], { matches: false }), 3),
  'legacy-paginated': legacy({ pages: 3, requests: 6, session: true, canary: { httpStatus: 200, inChannel: true, jsonrpcCode: -32602 } }),
  'legacy-cursor-loop': legacy({ pages: 50, truncated: 'pages', canary: { httpStatus: 200, inChannel: true, jsonrpcCode: -32602 } }),
  'modern-paginated': modern({ pages: 3 }),
  'modern-paginated-empty-cursor': modern({ pages: 3 }),
  'modern-cursor-loop': modern({ pages: 50, truncated: 'pages' }),
  'modern-canary-is-error': modern({ pages: 3, canary: { httpStatus: 200, inChannel: true, jsonrpcCode: null } }),
  'modern-canary-http-500': modern({ canary: { httpStatus: 500, inChannel: false, jsonrpcCode: null } }),
  'legacy-session-redirect': legacy({ requests: 6, session: true }),
  'shared-origin-modern': modern(),
  'shared-origin-legacy': legacy(),
};

let zoo: EraZoo;
let ctx: HttpContext;
const connects: string[] = [];
const results = new Map<EraCase, ProbeV2Result>();
const sent = new Map<EraCase, Recorded[]>();

beforeAll(async () => {
  zoo = await startEraZoo({ oversizedMetadataBytes: DEFAULT_PROBE_V2_LIMITS.metadataCap + 1 });
  ctx = createHttpContext({ policy: 'public+loopback', timeoutMs: LIMITS.timeoutMs, onConnect: (host, port) => connects.push(`${host}:${port}`) });
}, 120_000);

let queue: Promise<void> = Promise.resolve();
/**
 * Probe the cases not probed yet, one at a time (so each case's recorded requests are its own), from
 * inside the tests rather than in beforeAll: under the collector's mutation config code a hook runs
 * makes every mutant it reaches "static" (run against every test). The per-case tests come first, so
 * each case's probe is counted as covered by its own test.
 */
function probed(cases: readonly EraCase[] = ERA_CASES): Promise<void> {
  queue = queue.then(async () => {
    for (const c of cases) {
      if (results.has(c)) continue;
      results.set(c, await probeV2(ctx, zoo.urls[c], LIMITS));
      sent.set(c, zoo.requests(c));
    }
  });
  return queue;
}
afterAll(async () => {
  await ctx?.dispatcher.close();
  await zoo?.close();
});

const TARGET: RosterTarget = { name: 'io.example/zoo', version: '1.0.0', status: 'active', endpoint: 'http://127.0.0.1/mcp', endpoint_problem: null, page_sha256: sha256Hex('page'), page_index: 0 };
const ROW_CTX = { runId: '2026-12-01T031500Z', day: '2026-12-01', observedAt: '2026-12-01T03:15:00.000Z' };
const rowOf = (c: EraCase) => {
  const r = results.get(c)!;
  return probeV2Row(ROW_CTX, TARGET, r, { handshake: r.handshake ? sha256Hex(r.handshake.body) : null, pages: r.pages.map((p) => sha256Hex(p.body)) });
};
const body = (r: Recorded) => JSON.parse(r.body || 'null') as { method?: string; id?: unknown; params?: Record<string, any> } | null;
const posts = (c: EraCase) => sent.get(c)!.filter((r) => r.method === 'POST');

describe('probeV2() against the era zoo: what it records', () => {
  it.each(ERA_CASES.map((c) => [c]))('%s', async (c) => {
    await probed([c]);
    const r = results.get(c)!;
    const w = WANT[c];
    expect({
      status: r.status,
      era: r.era,
      protocolVersion: r.protocolVersion,
      supportedVersions: r.supportedVersions,
      pages: r.pages.length,
      truncated: r.truncated,
      canary: r.canary.sent ? { httpStatus: r.canary.httpStatus, inChannel: r.canary.inChannel, jsonrpcCode: r.canary.jsonrpcCode } : null,
      requests: r.requests,
      failure: r.failure?.error.errorClass ?? null,
    }).toEqual({
      status: w.status,
      era: w.era,
      protocolVersion: w.protocolVersion,
      supportedVersions: w.supportedVersions,
      pages: w.pages,
      truncated: w.truncated ?? null,
      canary: w.canary,
      requests: w.requests,
      failure: w.failure,
    });
    if (w.session !== undefined) expect(r.session).toBe(w.session);
    if (w.auth) {
      expect({ httpStatus: r.auth!.httpStatus, bearer: r.auth!.bearer, valid: r.auth!.metadataValid, source: r.auth!.source, matches: r.auth!.resourceMatches }).toEqual({
        httpStatus: w.auth.httpStatus,
        bearer: w.auth.bearer,
        valid: w.auth.valid,
        source: w.auth.source,
        matches: w.auth.matches,
      });
      expect(r.auth!.problems.map((p) => p.problem)).toHaveLength(w.auth.problems.length);
      r.auth!.problems.forEach((p, i) => expect(p.problem).toMatch(w.auth!.problems[i]!));
    } else {
      expect(r.auth).toBeNull();
    }
    // The study's budget, enforced: never more than 8 counted requests, and the log agrees with the zoo.
    expect(r.requests).toBeLessThanOrEqual(8);
    expect(r.requestLog.filter((l) => l.counted)).toHaveLength(r.requests);
  });

  it('records the handshake of ok rows: server info (from _meta on 2026-07-28), capabilities, instructions and their hash', async () => {
    await probed();
    const v2 = results.get('sdk-v2-modern-only')!;
    expect({ name: v2.serverName, version: v2.serverVersion, caps: v2.capabilities, instructions: v2.instructions }).toEqual({ name: SDK_V2_INFO.name, version: SDK_V2_INFO.version, caps: ['tools'], instructions: INSTRUCTIONS });
    expect(v2.instructionsSha256).toBe(sha256Hex(INSTRUCTIONS));
    expect(JSON.parse(v2.handshake!.body.toString()).result.supportedVersions).toEqual([MODERN]);
    const v1 = results.get('sdk-v1-stateful')!;
    expect({ name: v1.serverName, version: v1.serverVersion, instructions: v1.instructions }).toEqual({ name: SDK_V1_INFO.name, version: SDK_V1_INFO.version, instructions: INSTRUCTIONS });
    expect(v1.handshake!.contentType).toBe('text/event-stream');
    expect(v1.handshakeLatencyMs).not.toBeNull();
    expect(results.get('conformance-modern')!.instructionsSha256).toBeNull(); // the mock sends none
  });

  it('hashes every page: the contract hash is v1 toolsSha256 of all pages concatenated, the set hash reads the raw pages', async () => {
    await probed();
    for (const c of ['legacy-paginated', 'modern-paginated', 'modern-paginated-empty-cursor'] as const) {
      const r = results.get(c)!;
      expect(r.toolCount, c).toBe(6);
      expect(r.toolsSha256, c).toBe(toolsSha256(TOOL_PAGES.flat()));
      expect(r.toolsSetHash, c).toBe(toolSetHash(TOOL_PAGES.map((p) => JSON.stringify(p))));
    }
    // The endless listings stop at the page bound, and say so.
    expect(results.get('modern-cursor-loop')!.toolCount).toBe(50);
    expect(results.get('legacy-cursor-loop')!.notes.join()).toMatch(/cut at 50 pages by the pages bound/);
  });

  it('every result is a valid ObservationV2 row (stored bodies named by their SHA-256)', async () => {
    await probed();
    for (const c of ERA_CASES) {
      const r = results.get(c)!;
      const row = rowOf(c);
      const parsed = ObservationV2.safeParse(row);
      expect(parsed.success, `${c}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(row.status).toBe(r.status);
      expect(row.outcome).toBe(r.status === 'ok' ? 'ok' : 'error');
    }
  });
});

describe('ObservationV2 ties outcome, status and era together (rows the probe wrote, one field changed)', () => {
  it('keeps what it should: the rows of targets never probed', () => {
    for (const row of [noEndpointRowV2(ROW_CTX, { ...TARGET, endpoint: null, endpoint_problem: 'templated_url' }), excludedRowV2(ROW_CTX, TARGET), retiredRowV2(ROW_CTX, TARGET, '2026-11-30.json'), notAttemptedRowV2(ROW_CTX, TARGET, 'run_deadline')]) {
      expect(ObservationV2.safeParse(row).success, row.outcome).toBe(true);
      expect(row.era).toBe('none');
    }
  });

  it.each<[string, EraCase, (row: Record<string, unknown>) => void, RegExp]>([
    ['ok with another status', 'sdk-v1-stateless', (x) => (x.status = 'handshake_only'), /ok row must have status ok/],
    ['ok without its pages', 'modern-paginated', (x) => (x.tools_pages_sha256 = (x.tools_pages_sha256 as string[]).slice(1)), /one stored body per page/],
    ['ok without the handshake body', 'sdk-v2-modern-only', (x) => (x.handshake_sha256 = null), /lacks hashes/],
    ['ok with era none', 'sdk-v2-modern-only', (x) => (x.era = 'none'), /modern or legacy/],
    ['an error row with status ok', 'payment-required', (x) => (x.status = 'ok'), /probed non-ok status/],
    ['an error row without a class', 'payment-required', (x) => (x.error_class = null), /probe error_class/],
    ['modern_rejected that is not modern', 'discover-unsupported-future-only', (x) => (x.era = 'legacy'), /modern_rejected row must be modern/],
    ['era legacy_sse on another status', 'payment-required', (x) => (x.era = 'legacy_sse'), /legacy_sse/],
    ['auth_compliant on a 403', 'auth-header-metadata', (x) => (x.auth_http_status = 403), /auth_compliant needs a 401/],
    ['auth fields on a non-auth row', 'payment-required', (x) => (x.auth_http_status = 401), /auth fields go with auth statuses/],
    ['the canary on an error row', 'payment-required', (x) => (x.canary_sent = true), /canary is sent only/],
    ['more than 8 requests', 'sdk-v1-stateful', (x) => (x.requests = 9), /8/],
    ['not_attempted_reason on a probed row', 'sdk-v1-stateful', (x) => (x.not_attempted_reason = 'run_deadline'), /not_attempted_reason/],
  ])('refuses %s', async (_l, c, mutate, why) => {
    await probed([c]);
    const row = { ...rowOf(c) } as Record<string, unknown>;
    expect(ObservationV2.safeParse(row).success).toBe(true);
    mutate(row);
    const parsed = ObservationV2.safeParse(row);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.message).join(' | ')).toMatch(why);
  });
});

describe('probeV2() against the era zoo: what it sent', () => {
  it('every request names us (User-Agent); every POST accepts JSON and event streams', async () => {
    await probed();
    for (const c of ERA_CASES) {
      for (const q of sent.get(c)!) {
        expect(q.headers['user-agent'], `${c} ${q.method} ${q.path}`).toBe(USER_AGENT);
        if (q.method === 'POST') {
          expect(q.headers['content-type'], c).toBe('application/json');
          expect(q.headers.accept, c).toBe('application/json, text/event-stream');
        }
      }
    }
  });

  it('the first request is always server/discover with MCP-Protocol-Version, Mcp-Method and the three _meta keys', async () => {
    await probed();
    for (const c of ERA_CASES) {
      const first = sent.get(c)![0]!;
      const b = body(first)!;
      expect({ method: first.method, rpc: b.method, version: first.headers['mcp-protocol-version'], mcpMethod: first.headers['mcp-method'], session: first.headers['mcp-session-id'] }, c).toEqual({
        method: 'POST',
        rpc: 'server/discover',
        version: MODERN,
        mcpMethod: 'server/discover',
        session: undefined,
      });
      expect(Object.keys(b.params!._meta).sort(), c).toEqual(['io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/protocolVersion']);
      expect(b.params!._meta['io.modelcontextprotocol/protocolVersion']).toBe(MODERN);
    }
  });

  it.each(ERA_CASES.filter((c) => WANT[c].era === 'modern' && WANT[c].status === 'ok').map((c) => [c]))('%s (modern): every POST carries the 2026-07-28 headers and _meta; the canary Mcp-Name; no session, no DELETE, no GET', async (c) => {
    await probed([c]);
    const all = sent.get(c)!;
    expect(all.every((q) => q.method === 'POST')).toBe(true);
    for (const q of all) {
      const b = body(q)!;
      expect(q.headers['mcp-protocol-version']).toBe(MODERN);
      expect(q.headers['mcp-method']).toBe(b.method);
      expect(q.headers['mcp-session-id']).toBeUndefined();
      expect(b.params!._meta['io.modelcontextprotocol/protocolVersion']).toBe(MODERN);
      expect(b.params!._meta['io.modelcontextprotocol/clientCapabilities']).toEqual({});
      expect(q.headers['mcp-name']).toBe(b.method === 'tools/call' ? CANARY_TOOL_NAME : undefined);
    }
    const calls = all.filter((q) => body(q)!.method === 'tools/call');
    expect(calls).toHaveLength(1);
    expect(body(calls[0]!)!.params).toMatchObject({ name: CANARY_TOOL_NAME, arguments: {} });
    expect(all.map((q) => body(q)!.method)).toEqual(['server/discover', ...Array(WANT[c].pages).fill('tools/list'), 'tools/call']);
  });

  it('modern pagination sends each cursor verbatim, the empty-string cursor included', async () => {
    await probed();
    const cursors = (c: EraCase) => posts(c).filter((q) => body(q)!.method === 'tools/list').map((q) => body(q)!.params?.cursor);
    expect(cursors('modern-paginated')).toEqual([undefined, 'c2 +/=', 'c3 +/=']);
    expect(cursors('modern-paginated-empty-cursor')).toEqual([undefined, '', 'c3']);
    expect(cursors('legacy-paginated')).toEqual([undefined, 'c2 +/=', 'c3 +/=']);
  });

  // legacy-session-redirect spreads over two origins: its own test below.
  it.each(ERA_CASES.filter((c) => WANT[c].era === 'legacy' && c !== 'legacy-session-redirect').map((c) => [c]))('%s (legacy): initialize without the version header; session and version headers only as the revision defines; DELETE iff a session', async (c) => {
    await probed([c]);
    const all = sent.get(c)!;
    const r = results.get(c)!;
    const inits = all.filter((q) => body(q)?.method === 'initialize');
    expect(inits.map((q) => body(q)!.params!.protocolVersion)).toEqual(c === 'initialize-rejects-2025-11-25' ? ['2025-11-25', '2025-03-26'] : ['2025-11-25']);
    for (const q of inits) {
      expect(q.headers['mcp-protocol-version']).toBeUndefined();
      expect(q.headers['mcp-session-id']).toBeUndefined();
      expect(body(q)!.params).toMatchObject({ capabilities: {}, clientInfo: { name: 'mcp-schema' } });
    }
    const after = all.slice(all.indexOf(inits.at(-1)!) + 1);
    expect(after.map((q) => `${q.method} ${body(q)?.method ?? ''}`.trim())).toEqual([
      'POST notifications/initialized',
      ...Array(r.pages.length).fill('POST tools/list'),
      'POST tools/call',
      ...(r.session ? ['DELETE'] : []),
    ]);
    const sessionId = r.session ? after[0]!.headers['mcp-session-id'] : undefined;
    if (r.session) expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    for (const q of after) {
      expect(q.headers['mcp-session-id'], `${c} ${q.method}`).toBe(sessionId);
      expect(q.headers['mcp-protocol-version']).toBe(r.protocolVersion! >= '2025-06-18' ? r.protocolVersion : undefined);
      expect(q.headers['mcp-method']).toBeUndefined();
      expect(q.headers['mcp-name']).toBeUndefined();
      expect(body(q)?.params?._meta).toBeUndefined();
    }
    const canary = after.find((q) => body(q)?.method === 'tools/call')!;
    expect(body(canary)!.params).toEqual({ name: CANARY_TOOL_NAME, arguments: {} });
  });

  it('legacy-session-redirect: A 307s everything but initialize to B; B never sees the session, the DELETE is not followed there', async () => {
    await probed();
    const all = sent.get('legacy-session-redirect')!;
    const a = new URL(zoo.urls['legacy-session-redirect']).origin;
    const on = (mine: boolean) => all.filter((q) => (q.origin === a) === mine);
    const name = (q: Recorded) => body(q)?.method ?? q.method;
    // Each step starts at the listed endpoint (A); discover too was redirected, and B's -32000 meant fall back.
    expect(on(true).map(name)).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'DELETE']);
    expect(on(false).map(name)).toEqual(['server/discover', 'notifications/initialized', 'tools/list', 'tools/call']);
    const sessionId = on(true)[2]!.headers['mcp-session-id'];
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(on(true).slice(2).every((q) => q.headers['mcp-session-id'] === sessionId)).toBe(true);
    expect(on(false).every((q) => q.headers['mcp-session-id'] === undefined)).toBe(true);
    // Nor the revision negotiated with A (no header set from one origin's answer crosses to another).
    expect(on(false).every((q) => q.headers['mcp-protocol-version'] === undefined)).toBe(true);
    expect(on(true).slice(2).every((q) => q.headers['mcp-protocol-version'] === '2025-11-25')).toBe(true);
    const r = results.get('legacy-session-redirect')!;
    expect(r.redirects).toBe(4); // discover, initialized, tools/list, tools/call: one hop each (the DELETE's is not followed)
  });

  it('auth walls: the metadata GETs go to the hint, then the path-form and root well-known URLs, and stop at the first valid document', async () => {
    await probed();
    const gets = (c: EraCase) => sent.get(c)!.filter((q) => q.method === 'GET').map((q) => q.path);
    expect(gets('auth-header-metadata')).toEqual([HINTED_METADATA_PATH]);
    expect(gets('auth-wellknown-path')).toEqual([`${WELL_KNOWN}/tenant/mcp`]);
    expect(gets('auth-wellknown-root')).toEqual([`${WELL_KNOWN}/mcp`, WELL_KNOWN]);
    expect(gets('auth-no-metadata')).toEqual([`${WELL_KNOWN}/mcp`, WELL_KNOWN]);
    expect(gets('auth-metadata-not-json')).toEqual([HINTED_METADATA_PATH, `${WELL_KNOWN}/mcp`, WELL_KNOWN]);
    expect(gets('auth-metadata-redirect-private')).toEqual([HINTED_METADATA_PATH, `${WELL_KNOWN}/mcp`, WELL_KNOWN]);
    for (const c of ['auth-header-metadata', 'auth-no-metadata', 'auth-metadata-redirect-private'] as const) {
      const g = sent.get(c)!.filter((q) => q.method === 'GET');
      expect(g.every((q) => q.headers.accept === 'application/json' && q.headers['mcp-session-id'] === undefined), c).toBe(true);
      // An auth wall's POSTs: discover, then one initialize (no JSON-RPC error in the 401 body: no retry), no SSE detect.
      expect(posts(c).map((q) => body(q)!.method), c).toEqual(['server/discover', 'initialize']);
    }
  });

  it('private and link-local metadata URLs (named, or reached by redirect) were refused with no connection attempt: only 127.0.0.1 was ever connected to', async () => {
    await probed();
    expect(connects.length).toBeGreaterThan(0);
    expect(connects.every((c) => c.startsWith('127.0.0.1:'))).toBe(true);
    expect(results.get('auth-metadata-private')!.requestLog.some((l) => l.url === PRIVATE_METADATA_URL)).toBe(false);
    // The redirecting hint and well-known were each asked once on loopback (counted), their hops refused.
    expect(results.get('auth-metadata-redirect-private')!.requestLog.filter((l) => l.kind === 'metadata').map((l) => [l.status, l.redirects])).toEqual([
      [null, 1],
      [null, 1],
      [404, 0],
    ]);
  });

  it('http-sse-legacy: one GET with Accept text/event-stream after initialize got a 404 page; the endpoint event is recorded', async () => {
    await probed();
    const all = sent.get('http-sse-legacy')!;
    expect(all.map((q) => `${q.method} ${body(q)?.method ?? q.path}`)).toEqual(['POST server/discover', 'POST initialize', 'GET /sse']);
    expect(all[2]!.headers.accept).toBe('text/event-stream');
    expect(results.get('http-sse-legacy')!.sseEndpoint).toMatch(/^\/messages\?sessionId=[0-9a-f-]{36}$/);
  });

  it('modern_rejected stops at discover; payment_required takes discover, initialize and the SSE detect', async () => {
    await probed();
    expect(sent.get('discover-unsupported-future-only')!.map((q) => body(q)?.method)).toEqual(['server/discover']);
    expect(sent.get('payment-required')!.map((q) => `${q.method} ${body(q)?.method ?? ''}`.trim())).toEqual(['POST server/discover', 'POST initialize', 'GET']);
  });

  it('never calls a real tool: the only tools/call ever sent names the canary', async () => {
    await probed();
    for (const c of ERA_CASES) for (const q of posts(c)) if (body(q)?.method === 'tools/call') expect(body(q)!.params!.name, c).toBe(CANARY_TOOL_NAME);
  });
});

describe('the request budget is enforced by a counter', () => {
  let small: EraZoo<'initialize-rejects-2025-11-25' | 'auth-no-metadata'>;
  beforeAll(async () => {
    small = await startEraZoo({ cases: ['initialize-rejects-2025-11-25', 'auth-no-metadata'] });
  });
  afterAll(() => small?.close());

  it('metadata candidates are what is dropped when the budget would be exceeded', async () => {
    const r = await probeV2(ctx, small.urls['auth-no-metadata'], { ...LIMITS, budget: 3 });
    expect(r.requests).toBe(3);
    expect(r.auth!.problems.map((p) => p.problem)).toEqual(['http 404', 'not fetched: request budget spent']);
    expect(small.requests('auth-no-metadata').filter((q) => q.method === 'GET')).toHaveLength(1);
    expect(r.status).toBe('auth_noncompliant');
  });

  it('a budget too small for the whole procedure stops it; the canary and DELETE are what is left out', async () => {
    small.clearRequests();
    const r = await probeV2(ctx, small.urls['initialize-rejects-2025-11-25'], { ...LIMITS, budget: 5 });
    expect(r.requests).toBe(5);
    expect(small.requests('initialize-rejects-2025-11-25')).toHaveLength(5);
    expect(r.status).toBe('ok');
    expect(r.canary.sent).toBe(false);
  });
});
