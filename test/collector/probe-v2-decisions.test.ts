// The v2 probe's own decisions where the specification and the study leave room (methodology v2,
// "Decisions"), each against a raw loopback server that plays exactly that case: the zoo covers the
// SDKs and the study's cases, these are the corners between them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpContext, type HttpContext } from '../../collector/http.ts';
import { DEFAULT_PROBE_V2_LIMITS, probeV2, type ProbeV2Limits } from '../../collector/probe-v2/index.ts';
import { probeV2Row } from '../../collector/rows-v2.ts';
import { ObservationV2, sha256Hex } from '../../src/lib/index.ts';

type Msg = { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown> };
type Handler = (msg: Msg | undefined, req: IncomingMessage, res: ServerResponse) => void;

const LIMITS: ProbeV2Limits = { ...DEFAULT_PROBE_V2_LIMITS, timeoutMs: 800, sseGraceMs: 100, sseDetectMs: 800 };
const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const result = (msg: Msg | undefined, r: unknown) => ({ jsonrpc: '2.0', id: msg?.id ?? null, result: r });
const error = (msg: Msg | undefined, code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0', id: msg?.id ?? null, error: data === undefined ? { code, message } : { code, message, data } });
const initResult = (msg: Msg | undefined, version = '2025-11-25') => result(msg, { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '0' } });
const TOOLS = [{ name: 'a', inputSchema: { type: 'object' } }];

/** A legacy server (no discover) whose answers to the other methods are `over`'s, else plain and correct. */
const legacy =
  (over: Partial<Record<string, Handler>> = {}): Handler =>
  (msg, req, res) => {
    const m = msg?.method ?? req.method ?? '';
    const h = over[m];
    if (h) return h(msg, req, res);
    if (m === 'server/discover') return json(res, 404, error(msg, -32601, 'Method not found'));
    if (m === 'initialize') return json(res, 200, initResult(msg));
    if (m.startsWith('notifications/')) return res.writeHead(202).end();
    if (m === 'tools/list') return json(res, 200, result(msg, { tools: TOOLS }));
    if (m === 'tools/call') return json(res, 200, error(msg, -32602, 'Unknown tool'));
    res.writeHead(405).end();
  };

const CASES: Record<string, Handler> = {
  'discover-429': (msg, _req, res) => json(res, 429, { error: 'slow down' }, { 'retry-after': '120' }),
  'discover-503': (msg, _req, res) => res.writeHead(503, { 'retry-after': '30', 'content-type': 'text/plain' }).end('maintenance'),
  'discover-500-then-legacy': legacy({ 'server/discover': (msg, _req, res) => json(res, 500, { error: 'boom' }) }),
  'discover-401-then-anonymous-initialize': legacy({ 'server/discover': (_m, _req, res) => res.writeHead(401, { 'www-authenticate': 'Bearer realm="x"' }).end() }),
  'canary-401': legacy({ 'tools/call': (_m, _req, res) => res.writeHead(401, { 'www-authenticate': 'Bearer realm="x"' }).end() }),
  'tools-list-401': legacy({ 'tools/list': (_m, _req, res) => res.writeHead(401, { 'www-authenticate': 'Bearer realm="x"' }).end() }),
  'initialize-401-jsonrpc-body': legacy({
    'server/discover': (msg, _req, res) => json(res, 401, error(msg, -32001, 'Unauthorized'), { 'www-authenticate': 'Bearer' }),
    initialize: (msg, _req, res) => json(res, 401, error(msg, -32001, 'Unauthorized'), { 'www-authenticate': 'Bearer' }),
  }),
  'discover-stalls': (_msg, _req, res) => {
    // Headers, then keep-alive comments only: the answer never comes.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const t = setInterval(() => res.write(': keepalive\n\n'), 50);
    res.on('close', () => clearInterval(t));
  },
  'initialize-modern-error': legacy({
    'server/discover': (msg, _req, res) => json(res, 500, { error: 'flaky' }),
    initialize: (msg, _req, res) => json(res, 400, error(msg, -32022, 'Unsupported protocol version', { supported: ['2026-07-28'], requested: '2025-11-25' })),
  }),
  'discover-32022-without-list': legacy({ 'server/discover': (msg, _req, res) => json(res, 400, error(msg, -32022, 'Unsupported protocol version')) }),
  'discover-draft-32004': legacy({ 'server/discover': (msg, _req, res) => json(res, 400, error(msg, -32004, 'Unsupported protocol version', { supported: ['2026-07-28'] })) }),
  'legacy-empty-cursor-ends': legacy({ 'tools/list': (msg, _req, res) => json(res, 200, result(msg, { tools: TOOLS, nextCursor: '' })) }),
  'legacy-page-2-fails': legacy({
    'tools/list': (msg, _req, res) => (msg?.params?.cursor === undefined ? json(res, 200, result(msg, { tools: TOOLS, nextCursor: 'p2' })) : json(res, 200, error(msg, -32602, 'Invalid cursor'))),
  }),
  'legacy-repeated-cursor': legacy({ 'tools/list': (msg, _req, res) => json(res, 200, result(msg, { tools: [{ name: `t${String(msg?.params?.cursor ?? 0)}`, inputSchema: { type: 'object' } }], nextCursor: 'same' })) }),
  'jsonrpc-500-twice': (msg, _req, res) => json(res, 500, error(msg, -32603, 'Internal error')),
  'result-without-protocol-version': legacy({ initialize: (msg, _req, res) => json(res, 200, result(msg, { capabilities: {} })) }),
};

let server: Server;
let origin: string;
let ctx: HttpContext;
const seen = new Map<string, string[]>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = (req.url ?? '/').split('/')[1] ?? '';
      const text = Buffer.concat(chunks).toString('utf8');
      let msg: Msg | undefined;
      try {
        msg = text ? (JSON.parse(text) as Msg) : undefined;
      } catch {
        msg = undefined;
      }
      const list = seen.get(name) ?? [];
      list.push(`${req.method} ${msg?.method ?? req.url}`);
      seen.set(name, list);
      const h = CASES[name];
      if (!h) return res.writeHead(404).end();
      h(msg, req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ctx = createHttpContext({ policy: 'public+loopback', timeoutMs: LIMITS.timeoutMs });
});
afterAll(async () => {
  await ctx?.dispatcher.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const probe = (name: string, limits = LIMITS) => probeV2(ctx, `${origin}/${name}/mcp`, limits);
const row = (r: Awaited<ReturnType<typeof probe>>) =>
  ObservationV2.parse(
    probeV2Row({ runId: 'r', day: '2026-12-01', observedAt: '2026-12-01T03:15:00.000Z' }, { name: 'x', version: '1', status: 'active', endpoint: 'http://x/mcp', endpoint_problem: null, page_sha256: sha256Hex('p'), page_index: 0 }, r, {
      handshake: r.handshake ? sha256Hex(r.handshake.body) : null,
      pages: r.pages.map((p) => sha256Hex(p.body)),
    }),
  );

describe('decision 3: any HTTP answer to discover falls back, except 429/503; no answer is unreachable', () => {
  it.each([
    ['discover-429', 429, '120'],
    ['discover-503', 503, '30'],
  ])('%s: stops after one request, server_error, the back-off kept for the scheduler', async (name, status, retryAfter) => {
    const r = await probe(name);
    expect({ status: r.status, requests: r.requests, throttled: r.throttled }).toEqual({ status: 'server_error', requests: 1, throttled: { status, retryAfter } });
    expect(seen.get(name)).toEqual(['POST server/discover']);
    expect(row(r)).toMatchObject({ outcome: 'error', retry_after: retryAfter, step: 'discover', error_class: status === 429 ? 'rate_limited' : 'http_5xx' });
  });

  it('a 500 on discover is an answer: the legacy handshake follows and succeeds', async () => {
    const r = await probe('discover-500-then-legacy');
    expect({ status: r.status, era: r.era }).toEqual({ status: 'ok', era: 'legacy' });
  });

  it('a stream that never brings the answer is no answer: unreachable, and no initialize is sent', async () => {
    const r = await probe('discover-stalls');
    expect({ status: r.status, era: r.era, requests: r.requests, failure: r.failure?.error.errorClass }).toEqual({ status: 'unreachable', era: 'none', requests: 1, failure: 'timeout' });
    expect(seen.get('discover-stalls')).toEqual(['POST server/discover']);
  });
});

describe('decision 2: the -32022 rule, and only -32020/-32021/-32022 are modern', () => {
  it('-32022 without a supported list falls back', async () => {
    expect((await probe('discover-32022-without-list')).status).toBe('ok');
  });
  it('the draft-era -32004 is not modern: falls back', async () => {
    const r = await probe('discover-draft-32004');
    expect({ status: r.status, era: r.era }).toEqual({ status: 'ok', era: 'legacy' });
  });
  it('a modern error on initialize (after a discover that said nothing) is modern_rejected, era modern, with its list', async () => {
    const r = await probe('initialize-modern-error');
    expect({ status: r.status, era: r.era, supported: r.supportedVersions, requests: r.requests }).toEqual({ status: 'modern_rejected', era: 'modern', supported: ['2026-07-28'], requests: 3 });
    expect(row(r)).toMatchObject({ step: 'initialize', jsonrpc_code: -32022 });
  });
});

describe('decision 4: the legacy retry', () => {
  it('initialize refused in JSON-RPC twice (HTTP 500, -32603) is jsonrpc_error, before server_error', async () => {
    const r = await probe('jsonrpc-500-twice');
    expect({ status: r.status, requests: r.requests }).toEqual({ status: 'jsonrpc_error', requests: 3 });
    expect(seen.get('jsonrpc-500-twice')).toEqual(['POST server/discover', 'POST initialize', 'POST initialize']);
  });
  it('no retry after a 401 with a JSON-RPC body: another revision cannot pass an auth wall', async () => {
    const r = await probe('initialize-401-jsonrpc-body');
    expect(seen.get('initialize-401-jsonrpc-body')!.filter((s) => s === 'POST initialize')).toHaveLength(1);
    expect(r.status).toBe('auth_noncompliant');
    expect(r.failure?.step).toBe('initialize');
  });
  it('an initialize "result" without protocolVersion is no handshake (parse, as in v1)', async () => {
    const r = await probe('result-without-protocol-version');
    expect({ status: r.status, failure: r.failure?.error.errorClass }).toEqual({ status: 'not_mcp', failure: 'parse' });
  });
});

describe('decision 5: pagination', () => {
  it('a legacy nextCursor "" is the end (one page, noted)', async () => {
    const r = await probe('legacy-empty-cursor-ends');
    expect({ status: r.status, pages: r.pages.length, truncated: r.truncated }).toEqual({ status: 'ok', pages: 1, truncated: null });
    expect(r.notes.join()).toMatch(/legacy nextCursor "" read as the end/);
  });
  it('a page that fails after the first makes the row handshake_only, its body kept', async () => {
    const r = await probe('legacy-page-2-fails');
    expect({ status: r.status, pages: r.pages.length, hash: r.toolsSha256, canary: r.canary.sent }).toEqual({ status: 'handshake_only', pages: 2, hash: null, canary: false });
    expect(row(r)).toMatchObject({ outcome: 'error', step: 'tools/list', jsonrpc_code: -32602, tools_pages_sha256: expect.any(Array) });
  });
  it('a repeated cursor stops the listing: ok, truncated', async () => {
    const r = await probe('legacy-repeated-cursor');
    expect({ status: r.status, pages: r.pages.length, truncated: r.truncated, tools: r.toolCount }).toEqual({ status: 'ok', pages: 2, truncated: 'repeated cursor', tools: 2 });
    expect(row(r).tools_truncated).toBe(true);
  });
  it('the page and tool bounds are the limits given', async () => {
    const r = await probe('legacy-repeated-cursor', { ...LIMITS, maxPages: 1 });
    expect({ pages: r.pages.length, truncated: r.truncated }).toEqual({ pages: 1, truncated: 'pages' });
  });
});

describe('decision 7: which challenge counts', () => {
  it('a 401 on discover followed by an anonymous initialize result is no wall: ok, no metadata fetched', async () => {
    const r = await probe('discover-401-then-anonymous-initialize');
    expect({ status: r.status, era: r.era, auth: r.auth }).toEqual({ status: 'ok', era: 'legacy', auth: null });
    expect(r.requestLog.some((l) => l.method === 'GET')).toBe(false);
  });
  it("the canary's 401 never counts: the tools were listed anonymously", async () => {
    const r = await probe('canary-401');
    expect({ status: r.status, auth: r.auth, canary: r.canary }).toEqual({ status: 'ok', auth: null, canary: { sent: true, httpStatus: 401, inChannel: false, jsonrpcCode: null } });
  });
  it('a 401 on tools/list after the handshake is a wall (its metadata is looked for)', async () => {
    const r = await probe('tools-list-401');
    expect({ status: r.status, era: r.era, step: r.failure?.step }).toEqual({ status: 'auth_noncompliant', era: 'legacy', step: 'tools/list' });
    expect(r.requestLog.filter((l) => l.kind === 'metadata').map((l) => l.url)).toEqual([`${origin}/.well-known/oauth-protected-resource/tools-list-401/mcp`, `${origin}/.well-known/oauth-protected-resource`]);
  });
});
