// collector/probe-v2/index.ts: what the v2 probe keeps of a handshake (server name and version,
// capabilities, instructions — each cut to its bound, from `_meta` on 2026-07-28), where it was
// answered after redirects, and the notes a row's detail carries. One raw loopback server per test
// (test/collector/loopback.ts); the zoo (probe-v2.test.ts) covers the SDKs' own answers.
import { describe, expect, it } from 'vitest';
import { probeV2, type ProbeV2Limits, type ProbeV2Result } from '../../collector/probe-v2/index.ts';
import { initializedBody, legacyToolsListBody, modernHeaders, modernToolsListBody } from '../../collector/probe-v2/requests.ts';
import { instructionsHash } from '../../src/lib/index.ts';
import { json, result, rpcError, withLoopback, type Handler, type Msg } from './loopback.ts';

const MODERN = '2026-07-28';
const TOOLS = [{ name: 'a', inputSchema: { type: 'object' } }];
const run = (h: Handler, limits: Partial<ProbeV2Limits> = {}) => withLoopback(h, limits, async (l) => ({ r: await probeV2(l.wire.ctx, l.url, l.wire.limits), l }));

/** A 2026-07-28 server: discover answers `discover` (a result's fields), tools/list one page, the canary an error. */
const modern =
  (discover: Record<string, unknown>, over: Partial<Record<string, Handler>> = {}): Handler =>
  (msg, req, res, body) => {
    const m = msg?.method ?? '';
    if (over[m]) return over[m]!(msg, req, res, body);
    if (m === 'server/discover') return json(res, 200, result(msg, { supportedVersions: [MODERN], capabilities: { tools: {} }, ...discover }));
    if (m === 'tools/list') return json(res, 200, result(msg, { tools: TOOLS }));
    return json(res, 200, rpcError(msg, -32602, 'Unknown tool'));
  };
/** A legacy server: discover 404, initialize answers `init` (a result's fields). */
const legacy =
  (init: Record<string, unknown>, over: Partial<Record<string, Handler>> = {}): Handler =>
  (msg, req, res, body) => {
    const m = msg?.method ?? '';
    if (over[m]) return over[m]!(msg, req, res, body);
    if (m === 'server/discover') return json(res, 404, rpcError(msg, -32601, 'Method not found'));
    if (m === 'initialize') return json(res, 200, result(msg, { protocolVersion: '2025-11-25', capabilities: { tools: {} }, ...init }));
    if (m.startsWith('notifications/')) return res.writeHead(202).end();
    if (m === 'tools/list') return json(res, 200, result(msg, { tools: TOOLS }));
    return json(res, 200, rpcError(msg, -32602, 'Unknown tool'));
  };
const facts = (r: ProbeV2Result) => ({ serverName: r.serverName, serverVersion: r.serverVersion, capabilities: r.capabilities, instructions: r.instructions, instructionsSha256: r.instructionsSha256 });

describe('probeV2: what it keeps of the handshake', () => {
  it('2026-07-28: server info from _meta (over a serverInfo in the body), capabilities sorted, instructions and their hash', async () => {
    const { r } = await run(
      modern({
        capabilities: { tools: {}, prompts: {}, completions: {} },
        instructions: 'Use the tools.',
        serverInfo: { name: 'body', version: '0' },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'meta-name', version: '2.0.0' } },
      }),
    );
    expect(r.status).toBe('ok');
    expect(facts(r)).toEqual({ serverName: 'meta-name', serverVersion: '2.0.0', capabilities: ['completions', 'prompts', 'tools'], instructions: 'Use the tools.', instructionsSha256: instructionsHash('Use the tools.') });
    expect(r.handshakeLatencyMs).not.toBeNull();
    expect(r.handshake?.contentType).toBe('application/json');
    expect(JSON.parse(r.handshake!.body.toString()).result.instructions).toBe('Use the tools.');
  });

  it('2026-07-28 without server info in _meta: the body’s serverInfo; neither: nulls', async () => {
    expect(facts((await run(modern({ serverInfo: { name: 'body', version: '1' }, _meta: { other: 1 } }))).r)).toMatchObject({ serverName: 'body', serverVersion: '1' });
    expect(facts((await run(modern({ _meta: 'not an object' }))).r)).toMatchObject({ serverName: null, serverVersion: null, instructions: null });
  });

  it('legacy: serverInfo from the initialize result; a name or version that is not a string is null; capabilities that are not an object are null', async () => {
    const ok = (await run(legacy({ serverInfo: { name: 'srv', version: '1.2.3' } }))).r;
    expect(ok).toMatchObject({ status: 'ok', era: 'legacy', serverName: 'srv', serverVersion: '1.2.3', capabilities: ['tools'] });
    const odd = (await run(legacy({ serverInfo: { name: 7, version: ['1'] }, capabilities: 'all', instructions: 5 }))).r;
    expect(facts(odd)).toEqual({ serverName: null, serverVersion: null, capabilities: null, instructions: null, instructionsSha256: null });
  });

  it('cuts what a hostile server sends: name at 512, version at 256, 64 capabilities of 64 characters, the revision at 64', async () => {
    const caps = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`${String(i).padStart(2, '0')}${'c'.repeat(70)}`, {}]));
    const pv = `2025-11-25${'x'.repeat(80)}`;
    const { r } = await run(legacy({ protocolVersion: pv, serverInfo: { name: 'n'.repeat(600), version: 'v'.repeat(300) }, capabilities: caps }));
    expect(r.serverName).toBe('n'.repeat(512));
    expect(r.serverVersion).toBe('v'.repeat(256));
    expect(r.capabilities).toHaveLength(64);
    expect(r.capabilities![0]).toBe(`00${'c'.repeat(62)}`);
    expect(r.capabilities![63]).toBe(`63${'c'.repeat(62)}`);
    expect(r.protocolVersion).toBe(pv.slice(0, 64));
  });

  it('an initialize result whose protocolVersion is empty is no handshake', async () => {
    const { r } = await run(legacy({ protocolVersion: '' }));
    expect(r).toMatchObject({ era: 'none', protocolVersion: null, facts: { handshake: false } });
    expect(r.failure?.error.payload.detail).toBe('initialize result without protocolVersion');
  });
});

describe('probeV2: where it was answered', () => {
  it('the URL that answered the handshake after a redirect, the hops over the whole probe; none without a redirect', async () => {
    const h = modern({});
    const moved: Handler = (msg, req, res, body) => (req.url === '/mcp' ? res.writeHead(307, { location: '/v2/mcp' }).end() : h(msg, req, res, body));
    const { r, l } = await run(moved);
    const at = l.url.replace('/mcp', '/v2/mcp');
    expect(r).toMatchObject({ status: 'ok', finalUrl: at, redirects: 1, requests: 3 });
    // Later steps go to where the handshake was answered.
    expect(l.got.map((g) => g.msg?.method)).toEqual(['server/discover', 'server/discover', 'tools/list', 'tools/call']);
    const direct = (await run(modern({}))).r;
    expect([direct.finalUrl, direct.redirects]).toEqual([null, 0]);
  });

  it('a failing step reached by a redirect names where it failed', async () => {
    const h: Handler = (_m, req, res) => (req.url === '/mcp' ? res.writeHead(308, { location: '/down' }).end() : res.writeHead(502).end());
    const { r, l } = await run(h);
    expect(r.failure).toMatchObject({ url: l.url.replace('/mcp', '/down') });
    expect(r.finalUrl).toBe(l.url.replace('/mcp', '/down'));
  });

  it('a failure without a redirect names no URL', async () => {
    const { r } = await run((_m, _req, res) => res.writeHead(502).end());
    expect(r.failure).toMatchObject({ url: null, step: 'initialize' });
    expect(r.finalUrl).toBeNull();
  });
});

describe('probeV2: notes and the budget', () => {
  it('a budget of zero sends nothing and says why', async () => {
    const { r, l } = await run(modern({}), { budget: 0 });
    expect(l.got).toEqual([]);
    expect(r).toMatchObject({ requests: 0, era: 'none', notes: ['probe error: request budget below one'] });
  });

  it('a budget that ends before tools/list: the handshake stands, the note says the listing was not sent', async () => {
    const { r } = await run(modern({}), { budget: 1 });
    expect(r.facts.handshake).toBe(true);
    expect(r.notes).toEqual(['tools/list not sent: request budget spent']);
    expect(r.canary.sent).toBe(false);
  });

  it('a listing cut by a bound is noted with its pages and the bound', async () => {
    const pager: Handler = (msg, req, res, body) =>
      msg?.method === 'tools/list' ? json(res, 200, result(msg, { tools: [{ name: `t${String((msg.params as Msg['params'])?.cursor ?? 0)}`, inputSchema: { type: 'object' } }], nextCursor: `${Number((msg.params as { cursor?: string })?.cursor ?? 0) + 1}` })) : modern({})(msg, req, res, body);
    const { r } = await run(pager, { maxPages: 2 });
    expect(r).toMatchObject({ status: 'ok', truncated: 'pages', toolCount: 2 });
    expect(r.notes).toContain('tools/list cut at 2 pages by the pages bound');
  });

  it('a page with a repeated member name: no set hash, and the note says why', async () => {
    const page = (id: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[{"name":"a","inputSchema":{"type":"object","type":"object"}}]}}`;
    const dup: Handler = (msg, req, res, body) => (msg?.method === 'tools/list' ? json(res, 200, page(msg.id)) : modern({})(msg, req, res, body));
    const { r } = await run(dup);
    expect(r.toolsSetHash).toBeNull();
    expect(r.toolsSha256).not.toBeNull();
    expect(r.notes).toEqual([expect.stringMatching(/^no tool set hash: repeated member name/)]);
  });

  it('initialize refused by both offers is initializeRejected; refused once, then answered, it is not', async () => {
    const both = (await run(legacy({}, { initialize: (msg, _req, res) => json(res, 400, rpcError(msg, -32602, 'Unsupported protocol version')) }))).r;
    expect(both.facts.initializeRejected).toBe(true);
    let n = 0;
    const once = (await run(legacy({}, { initialize: (msg, _req, res) => (n++ === 0 ? json(res, 400, rpcError(msg, -32602, 'no')) : json(res, 200, result(msg, { protocolVersion: '2025-03-26', capabilities: {} }))) }))).r;
    expect(once).toMatchObject({ status: 'ok', protocolVersion: '2025-03-26', facts: { initializeRejected: false } });
  });

  it('a session: its id sent on the later steps, and the session deleted at the end; none issued, no DELETE', async () => {
    const withSession = legacy({}, { initialize: (msg, _req, res) => json(res, 200, result(msg, { protocolVersion: '2025-11-25', capabilities: {} }), { 'mcp-session-id': 's-9' }) });
    const { r, l } = await run(withSession);
    expect(r.session).toBe(true);
    expect(l.got.map((g) => [g.method, g.msg?.method ?? null, g.headers['mcp-session-id'] ?? null])).toEqual([
      ['POST', 'server/discover', null],
      ['POST', 'initialize', null],
      ['POST', 'notifications/initialized', 's-9'],
      ['POST', 'tools/list', 's-9'],
      ['POST', 'tools/call', 's-9'],
      ['DELETE', null, 's-9'],
    ]);
    const none = await run(legacy({}));
    expect(none.r.session).toBe(false);
    expect(none.l.got.map((g) => g.method)).not.toContain('DELETE');
  });
});

// The probe's path through its steps, read from its request log and from what the server saw.
const urls = (h: Handler) => {
  const seen: string[] = [];
  const wrapped: Handler = (msg, req, res, body) => {
    seen.push(`${req.method} ${req.url} ${msg?.method ?? ''}`.trim());
    return h(msg, req, res, body);
  };
  return { seen, wrapped };
};
const pages2: Handler = (msg, req, res, body) =>
  msg?.method === 'tools/list'
    ? json(res, 200, result(msg, (msg.params as { cursor?: string } | undefined)?.cursor === undefined ? { tools: TOOLS, nextCursor: 'p2' } : { tools: [{ name: 'b', inputSchema: { type: 'object' } }] }))
    : modern({})(msg, req, res, body);

describe('probeV2: its steps, as logged and as sent', () => {
  it('modern: discover, the first tools/list, a further page (not counted), the canary — whose status is no protocol status', async () => {
    const canary500: Handler = (msg, req, res, body) => (msg?.method === 'tools/call' ? json(res, 500, rpcError(msg, -32602, 'Unknown tool')) : pages2(msg, req, res, body));
    const t0 = performance.now();
    const { r } = await run(canary500);
    const took = performance.now() - t0;
    expect(r.requestLog.map((e) => [e.kind, e.counted, e.status])).toEqual([
      ['discover', true, 200],
      ['tools/list', true, 200],
      ['tools/list page', false, 200],
      ['tools/call canary', true, 500],
    ]);
    expect(r.facts.httpStatuses).toEqual([200, 200, 200]);
    expect(r).toMatchObject({ status: 'ok', requests: 3, notes: [], failure: null, facts: { excluded: false } });
    expect(r.latencyMs).toBeLessThanOrEqual(Math.ceil(took) + 1);
    expect(r.handshakeLatencyMs!).toBeLessThanOrEqual(r.latencyMs);
  });

  it('legacy with a session: initialize, initialized, the pages and the canary with the session and revision headers, then the DELETE', async () => {
    const h = legacy({}, {
      initialize: (msg, _req, res) => json(res, 200, result(msg, { protocolVersion: '2025-11-25', capabilities: {} }), { 'mcp-session-id': 's-1' }),
      'tools/list': (msg, req, res, body) => pages2(msg, req, res, body),
      'tools/call': (msg, _req, res) => json(res, 500, rpcError(msg, -32602, 'Unknown tool')),
    });
    const { r, l } = await run(h);
    expect(r.requestLog.map((e) => e.kind)).toEqual(['discover', 'initialize', 'initialized', 'tools/list', 'tools/list page', 'tools/call canary', 'delete session']);
    expect(r.facts.httpStatuses).toEqual([404, 200, 202, 200, 200]);
    expect(l.got.slice(2).map((g) => [g.headers['mcp-session-id'], g.headers['mcp-protocol-version']])).toEqual(Array(5).fill(['s-1', '2025-11-25']));
  });

  it('a session id sent twice: the first one is the session', async () => {
    const h = legacy({}, {
      initialize: (msg, _req, res) => {
        res.setHeader('mcp-session-id', ['s-a', 's-b']);
        json(res, 200, result(msg, { protocolVersion: '2025-11-25', capabilities: {} }));
      },
    });
    const { r, l } = await run(h);
    expect(r.session).toBe(true);
    expect(l.got.slice(2).map((g) => g.headers['mcp-session-id'])).toEqual(['s-a', 's-a', 's-a', 's-a']);
  });

  it('legacy 2025-03-26 without a session: neither header on the later steps (that revision defines no version header)', async () => {
    const { r, l } = await run(legacy({ protocolVersion: '2025-03-26' }));
    expect(r).toMatchObject({ status: 'ok', protocolVersion: '2025-03-26', session: false });
    expect(l.got.slice(2).map((g) => [g.headers['mcp-session-id'] ?? null, g.headers['mcp-protocol-version'] ?? null])).toEqual(Array(3).fill([null, null]));
  });

  it('a 2xx result to discover that is not a DiscoverResult, and a DiscoverResult in a 500, fall back to legacy', async () => {
    const notDiscover = (await run(modern({}, { 'server/discover': (msg, _req, res) => json(res, 200, result(msg, { hello: 1 })), initialize: legacy({})! }))).r;
    expect(notDiscover).toMatchObject({ status: 'ok', era: 'legacy' });
    const in500 = (await run(modern({}, { 'server/discover': (msg, _req, res) => json(res, 500, result(msg, { supportedVersions: [MODERN] })), initialize: legacy({})! }))).r;
    expect(in500).toMatchObject({ era: 'legacy' });
  });

  it('a tools/list that fails: no canary', async () => {
    const { r, l } = await run(modern({}, { 'tools/list': (_m, _req, res) => res.writeHead(500).end() }));
    expect(r.canary.sent).toBe(false);
    expect(l.got.map((g) => g.msg?.method)).toEqual(['server/discover', 'tools/list']);
  });

  it('later legacy steps go to where initialize was answered after a redirect', async () => {
    const inner = legacy({});
    const { seen, wrapped } = urls((msg, req, res, body) => (req.url === '/mcp' && msg?.method === 'initialize' ? res.writeHead(307, { location: '/v1/mcp' }).end() : inner(msg, req, res, body)));
    const { r } = await run(wrapped);
    expect(r).toMatchObject({ status: 'ok', era: 'legacy', redirects: 1 });
    expect(seen).toEqual(['POST /mcp server/discover', 'POST /mcp initialize', 'POST /v1/mcp initialize', 'POST /v1/mcp notifications/initialized', 'POST /v1/mcp tools/list', 'POST /v1/mcp tools/call']);
    expect(r.finalUrl).toMatch(/\/v1\/mcp$/);
  });

  it.each([1, 2])('a budget of %i (discover, then initialize) stops cleanly: no note, no failure of its own', async (budget) => {
    const { r, l } = await run(legacy({}), { budget });
    expect(l.got).toHaveLength(budget);
    expect(r.notes).toEqual([]);
    expect(r.requestLog).toHaveLength(budget);
  });

  it('notifications/initialized answered 429: the probe stops there, and that is its failure', async () => {
    const { r, l } = await run(legacy({}, { 'notifications/initialized': (_m, _req, res) => json(res, 429, '', { 'retry-after': '9' }) }));
    expect(l.got.map((g) => g.msg?.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(r.failure).toMatchObject({ step: 'initialized', error: { errorClass: 'rate_limited' } });
    expect(r.throttled).toEqual({ status: 429, retryAfter: '9' });
  });

  it('notifications/initialized answered 401 with a challenge: no listing, the wall is looked into', async () => {
    const { r, l } = await run(legacy({}, { 'notifications/initialized': (_m, _req, res) => res.writeHead(401, { 'www-authenticate': 'Bearer realm="x"' }).end() }));
    expect(l.got.map((g) => g.msg?.method).filter(Boolean)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(r.auth?.httpStatus).toBe(401);
  });

  it('notifications/initialized answered 400, the tools listed after it: ok, and no failure', async () => {
    const { r } = await run(legacy({}, { 'notifications/initialized': (_m, _req, res) => res.writeHead(400).end() }));
    expect(r).toMatchObject({ status: 'ok', failure: null });
  });

  it('a 404 on tools/list after a session is a lost session; without a session, a plain 404', async () => {
    const gone: Handler = (_m, _req, res) => void res.writeHead(404).end();
    const withSession = (await run(legacy({}, { initialize: (msg, _req, res) => json(res, 200, result(msg, { protocolVersion: '2025-11-25', capabilities: {} }), { 'mcp-session-id': 's-2' }), 'tools/list': gone }))).r;
    expect(withSession.failure?.error.payload.detail).toMatch(/^session lost/);
    const without = (await run(legacy({}, { 'tools/list': gone }))).r;
    expect(without.failure?.error.payload.detail).toBe('http 404');
  });

  it('a modern error on the first offer is superseded by the second offer’s legacy handshake', async () => {
    let n = 0;
    const h = legacy({}, {
      initialize: (msg, _req, res) =>
        n++ === 0 ? json(res, 400, { jsonrpc: '2.0', id: msg?.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN, '2025-03-26'] } } }) : json(res, 200, result(msg, { protocolVersion: '2025-03-26', capabilities: {} })),
    });
    const { r } = await run(h);
    expect(r).toMatchObject({ status: 'ok', era: 'legacy', supportedVersions: null, facts: { modernError: false } });
  });

  it('the initialize result without protocolVersion fails at step initialize', async () => {
    const { r } = await run(legacy({ protocolVersion: 5 }));
    expect(r.failure?.error.payload).toMatchObject({ step: 'initialize', detail: 'initialize result without protocolVersion' });
  });
});

describe('the bytes of the requests (requests.ts: the probe and the validation worksheet send the same)', () => {
  it('legacy tools/list: no params on the first page, the cursor alone on the next', () => {
    expect(legacyToolsListBody()).toBe('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
    expect(legacyToolsListBody('c1')).toBe('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c1"}}');
  });
  it('modern tools/list: the cursor before _meta when there is one', () => {
    expect(Object.keys(JSON.parse(modernToolsListBody()).params)).toEqual(['_meta']);
    expect(Object.keys(JSON.parse(modernToolsListBody('')).params)).toEqual(['cursor', '_meta']);
  });
  it('notifications/initialized, and Mcp-Name only on a named request', () => {
    expect(initializedBody()).toBe('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(Object.keys(modernHeaders('tools/list'))).not.toContain('mcp-name');
    expect(modernHeaders('tools/call', 'x')['mcp-name']).toBe('x');
  });
});
