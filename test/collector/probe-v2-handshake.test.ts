// collector/probe-v2/index.ts: what the v2 probe keeps of a handshake (server name and version,
// capabilities, instructions — each cut to its bound, from `_meta` on 2026-07-28), where it was
// answered after redirects, and the notes a row's detail carries. One raw loopback server per test
// (test/collector/loopback.ts); the zoo (probe-v2.test.ts) covers the SDKs' own answers.
import { describe, expect, it } from 'vitest';
import { probeV2, type ProbeV2Limits, type ProbeV2Result } from '../../collector/probe-v2/index.ts';
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
