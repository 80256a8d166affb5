// The era zoo is faithful: each case is sent the raw requests the methodology-v2 probe will send
// (undici.request, exact headers and bodies) and answers as its CASE_NOTES say. For the SDK v2 and
// conformance cases these are the packages' real answers — discover result fields, -32020 on a missing
// Mcp-Name, -32022 on initialize — so a change of SDK behaviour fails here before it misleads a probe test.
// Loopback only: the private-address cases are read, never followed.
import { createRequire } from 'node:module';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CASE_NOTES,
  EMPTY_FIRST_CURSORS,
  ERA_CASES,
  FUTURE_ONLY_SUPPORTED,
  LEGACY_ONLY_SUPPORTED,
  PAGE_CURSORS,
  startEraZoo,
  TOOL_PAGES,
  type EraCase,
  type EraZoo,
} from '../../sandbox/era-servers.ts';
import { HINTED_METADATA_PATH, LINK_LOCAL_METADATA_URL, PRIVATE_METADATA_URL, WELL_KNOWN } from '../../sandbox/era-auth.ts';
import { INSTRUCTIONS, SDK_V1_INFO, SDK_V2_INFO } from '../../sandbox/era-sdk.ts';

const MODERN = '2026-07-28';
const OVERSIZED = 300_000;
const CANARY = '__mcp_schema_probe_nonexistent_tool__';
const CLIENT_INFO = { name: 'mcp-schema-probe', version: '0.0.0-test' };
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': {},
};
const ACCEPT = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let zoo: EraZoo;
beforeAll(async () => {
  zoo = await startEraZoo({ oversizedMetadataBytes: OVERSIZED });
});
afterAll(async () => {
  await zoo?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The JSON-RPC message: the JSON body, or the first SSE `message` event carrying result/error. */
  msg: { id?: unknown; result?: Record<string, any>; error?: { code: number; message: string; data?: any } } | undefined;
}

async function send(url: string, method: 'POST' | 'GET' | 'DELETE', headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const r = await request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
  const text = await r.body.text();
  return { status: r.statusCode, headers: r.headers, text, msg: jsonRpc(text, String(r.headers['content-type'] ?? '')) };
}

function jsonRpc(text: string, contentType: string): Answer['msg'] {
  if (contentType.startsWith('text/event-stream')) {
    let found: Answer['msg'];
    const parser = createParser({
      onEvent(e: EventSourceMessage) {
        if (found || !e.data) return;
        const m = JSON.parse(e.data);
        if ('result' in m || 'error' in m) found = m;
      },
    });
    parser.feed(text);
    return found;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The v2 probe's modern request: MCP-Protocol-Version, Mcp-Method (and Mcp-Name for tools/call), `_meta`. */
const modern = (url: string, method: string, params: Record<string, unknown> = {}, extra: Record<string, string> = {}) =>
  send(
    url,
    'POST',
    { ...ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(method === 'tools/call' ? { 'mcp-name': String(params.name) } : {}), ...extra },
    { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } },
  );
const discover = (url: string) => modern(url, 'server/discover');
const canaryCall = (url: string) => modern(url, 'tools/call', { name: CANARY, arguments: {} });

const initialize = (url: string, version = '2025-11-25') =>
  send(url, 'POST', ACCEPT, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO } });

/** Legacy headers after initialize: the session id if one was issued; MCP-Protocol-Version only from 2025-06-18 on. */
function legacyHeaders(init: Answer, version: string): Record<string, string> {
  const sid = init.headers['mcp-session-id'];
  return { ...ACCEPT, ...(typeof sid === 'string' ? { 'mcp-session-id': sid } : {}), ...(version >= '2025-06-18' ? { 'mcp-protocol-version': version } : {}) };
}
const legacy = (url: string, headers: Record<string, string>, method: string, params?: unknown, id: number | null = 2) =>
  send(url, 'POST', headers, { jsonrpc: '2.0', ...(id === null ? {} : { id }), method, ...(params === undefined ? {} : { params }) });

const names = (a: Answer) => (a.msg?.result?.tools as Array<{ name: string }>).map((t) => t.name);

describe('startEraZoo()', () => {
  it('serves every case on 127.0.0.1 and documents each one', () => {
    expect(Object.keys(zoo.urls).sort()).toEqual([...ERA_CASES].sort());
    for (const c of ERA_CASES) {
      expect(new URL(zoo.urls[c]).hostname, c).toBe('127.0.0.1');
      expect(CASE_NOTES[c].length, c).toBeGreaterThan(20);
    }
  });

  it('starts only the cases asked for', async () => {
    const small = await startEraZoo({ cases: ['payment-required'] });
    try {
      expect(Object.keys(small.urls)).toEqual(['payment-required']);
      expect((await discover(small.urls['payment-required'])).status).toBe(402);
      expect(small.requests('payment-required')).toHaveLength(1);
    } finally {
      await small.close();
    }
  });
});

describe('dependency layout', () => {
  it('SDK v2 gets its own zod 4 while the project (and SDK v1) keep zod 3', () => {
    const fromHere = createRequire(import.meta.url);
    const version = (req: NodeRequire) => (req('zod/package.json') as { version: string }).version;
    expect(version(fromHere)).toMatch(/^3\./);
    expect(version(createRequire(fromHere.resolve('@modelcontextprotocol/server')))).toMatch(/^4\./);
    expect(version(createRequire(fromHere.resolve('@modelcontextprotocol/sdk/server/index.js')))).toMatch(/^3\./);
  });
});

describe('sdk-v2-modern-only (SDK v2, legacy: reject)', () => {
  const url = () => zoo.urls['sdk-v2-modern-only'];

  it('answers server/discover with a DiscoverResult: versions, capabilities, serverInfo in _meta, instructions, cache hints', async () => {
    const a = await discover(url());
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    expect(a.msg?.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      resultType: 'complete',
      cacheScope: expect.stringMatching(/^(public|private)$/),
      _meta: { 'io.modelcontextprotocol/serverInfo': SDK_V2_INFO },
    });
    expect(a.msg?.result?.ttlMs).toBeTypeOf('number');
    expect(a.msg?.result).not.toHaveProperty('serverInfo');
  });

  it('lists tools the modern way, with resultType, ttlMs and cacheScope', async () => {
    const a = await modern(url(), 'tools/list');
    expect(a.status).toBe(200);
    expect(names(a)).toEqual(['echo']);
    expect(a.msg?.result).toMatchObject({ resultType: 'complete', cacheScope: expect.any(String), ttlMs: expect.any(Number) });
    expect(a.msg?.result?.nextCursor).toBeUndefined();
  });

  it('answers the canary tools/call in-channel: HTTP 200, JSON-RPC -32602', async () => {
    const a = await canaryCall(url());
    expect(a.status).toBe(200);
    expect(a.msg?.error?.code).toBe(-32602);
    expect(zoo.requests('sdk-v2-modern-only').at(-1)?.headers['mcp-name']).toBe(CANARY);
  });

  it('rejects a tools/call without Mcp-Name with 400 -32020 (HeaderMismatch) before looking at the tool', async () => {
    const a = await send(url(), 'POST', { ...ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' }, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: CANARY, arguments: {}, _meta: META } });
    expect(a.status).toBe(400);
    expect(a.msg?.error?.code).toBe(-32020);
  });

  it('rejects server/discover without Mcp-Method with 400 -32020', async () => {
    const a = await send(url(), 'POST', { ...ACCEPT, 'mcp-protocol-version': MODERN }, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
    expect(a.status).toBe(400);
    expect(a.msg?.error?.code).toBe(-32020);
  });

  it('rejects a revision it does not speak with 400 -32022 listing what it supports', async () => {
    const a = await send(url(), 'POST', { ...ACCEPT, 'mcp-protocol-version': '2027-01-01', 'mcp-method': 'server/discover' }, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } } });
    expect(a.status).toBe(400);
    expect(a.msg?.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2027-01-01' } });
  });

  it('answers a legacy initialize with 400 -32022 naming only 2026-07-28, and GET with 405', async () => {
    const a = await initialize(url());
    expect(a.status).toBe(400);
    expect(a.msg?.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2025-11-25' } });
    const g = await send(url(), 'GET', { accept: 'text/event-stream' });
    expect(g.status).toBe(405);
  });

  it('answers an unknown method with 404 and JSON-RPC -32601', async () => {
    const a = await modern(url(), 'nothing/here');
    expect(a.status).toBe(404);
    expect(a.msg?.error?.code).toBe(-32601);
  });
});

describe('sdk-v2-dual-era (SDK v2, default legacy fallback)', () => {
  const url = () => zoo.urls['sdk-v2-dual-era'];

  it('answers server/discover like the modern-only endpoint: supportedVersions names only 2026-07-28', async () => {
    const a = await discover(url());
    expect(a.status).toBe(200);
    expect(a.msg?.result?.supportedVersions).toEqual([MODERN]);
    expect(a.msg?.result?._meta?.['io.modelcontextprotocol/serverInfo']).toEqual(SDK_V2_INFO);
  });

  it('also completes a legacy initialize (SSE answer, instructions, no session) and serves legacy tools/list', async () => {
    const init = await initialize(url());
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    expect(init.msg?.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: SDK_V2_INFO, instructions: INSTRUCTIONS });
    const h = legacyHeaders(init, '2025-11-25');
    expect((await legacy(url(), h, 'notifications/initialized', undefined, null)).status).toBe(202);
    const list = await legacy(url(), h, 'tools/list', {});
    expect(names(list)).toEqual(['echo']);
    expect(list.msg?.result).not.toHaveProperty('resultType');
    const call = await legacy(url(), h, 'tools/call', { name: CANARY, arguments: {} });
    expect(call.msg?.error?.code).toBe(-32602);
  });
});

describe('sdk-v1-stateful and sdk-v1-stateless (SDK v1 McpServer)', () => {
  it('answers server/discover with 400 and -32000, never a result, -32601 or a modern code', async () => {
    const stateful = await discover(zoo.urls['sdk-v1-stateful']);
    expect(stateful.status).toBe(400);
    expect(stateful.msg?.error).toMatchObject({ code: -32000, message: expect.stringContaining('Server not initialized') });
    const stateless = await discover(zoo.urls['sdk-v1-stateless']);
    expect(stateless.status).toBe(400);
    expect(stateless.msg?.error).toMatchObject({ code: -32000, message: expect.stringContaining('Unsupported protocol version: 2026-07-28') });
  });

  it('stateful: issues a session, lists tools with it, answers the canary in the result (isError), ends the session on DELETE', async () => {
    const url = zoo.urls['sdk-v1-stateful'];
    const init = await initialize(url);
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(init.msg?.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: SDK_V1_INFO, instructions: INSTRUCTIONS });
    const sid = init.headers['mcp-session-id'];
    expect(sid).toBeTypeOf('string');
    const h = legacyHeaders(init, '2025-11-25');
    expect((await legacy(url, h, 'notifications/initialized', undefined, null)).status).toBe(202);
    expect(names(await legacy(url, h, 'tools/list', {}))).toEqual(['echo']);
    const call = await legacy(url, h, 'tools/call', { name: CANARY, arguments: {} });
    expect(call.status).toBe(200);
    expect(call.msg?.result).toMatchObject({ isError: true });
    expect(call.msg?.error).toBeUndefined();
    const { 'mcp-session-id': _, ...noSession } = h;
    expect((await legacy(url, noSession, 'tools/list', {})).status).toBe(400);
    expect((await send(url, 'DELETE', { 'mcp-session-id': String(sid), 'mcp-protocol-version': '2025-11-25' })).status).toBe(200);
    expect((await legacy(url, h, 'tools/list', {})).status).toBe(404);
  });

  it('stateless: JSON answers, no session, canary in the result (isError)', async () => {
    const url = zoo.urls['sdk-v1-stateless'];
    const init = await initialize(url);
    expect(init.headers['content-type']).toMatch(/^application\/json/);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    const h = legacyHeaders(init, '2025-11-25');
    expect(names(await legacy(url, h, 'tools/list', {}))).toEqual(['echo']);
    expect((await legacy(url, h, 'tools/call', { name: CANARY, arguments: {} })).msg?.result?.isError).toBe(true);
  });
});

describe('conformance-modern (the conformance suite 2026-07-28 stateless mock, via a recording proxy)', () => {
  const url = () => zoo.urls['conformance-modern'];

  it('answers server/discover with its DiscoverResult', async () => {
    const a = await discover(url());
    expect(a.status).toBe(200);
    expect(a.msg?.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'conformance-mock-server', version: '1.0.0' } },
    });
  });

  it('lists its scenario tool and answers the canary with HTTP 500 carrying JSON-RPC -32603', async () => {
    expect(names(await modern(url(), 'tools/list'))).toEqual(['add_numbers']);
    const a = await canaryCall(url());
    expect(a.status).toBe(500);
    expect(a.msg?.error).toMatchObject({ code: -32603, message: `Unknown tool: ${CANARY}` });
  });

  it('rejects a request without MCP-Protocol-Version with 400 -32020, but does not check Mcp-Method or Mcp-Name', async () => {
    const noVersion = await send(url(), 'POST', { ...ACCEPT, 'mcp-method': 'server/discover' }, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
    expect(noVersion.status).toBe(400);
    expect(noVersion.msg?.error?.code).toBe(-32020);
    const noName = await send(url(), 'POST', { ...ACCEPT, 'mcp-protocol-version': MODERN }, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } });
    expect(noName.status).toBe(200);
  });

  it('answers a legacy initialize (no MCP-Protocol-Version) with 400 -32020, and the proxy recorded the headers sent', async () => {
    const a = await initialize(url());
    expect(a.status).toBe(400);
    expect(a.msg?.error?.code).toBe(-32020);
    const seen = zoo.requests('conformance-modern');
    expect(seen.some((r) => r.headers['mcp-method'] === 'server/discover' && JSON.parse(r.body).method === 'server/discover')).toBe(true);
  });
});

describe('fallback cases: discover is not answered the modern way, the legacy handshake works', () => {
  it('discover-404-then-legacy: 404 + -32601 on discover, then an SDK v1 session', async () => {
    const url = zoo.urls['discover-404-then-legacy'];
    const d = await discover(url);
    expect(d.status).toBe(404);
    expect(d.msg?.error?.code).toBe(-32601);
    const init = await initialize(url);
    expect(init.headers['mcp-session-id']).toBeTypeOf('string');
    expect(names(await legacy(url, legacyHeaders(init, '2025-11-25'), 'tools/list', {}))).toEqual(['echo']);
  });

  it('discover-unsupported-legacy-only: 400 -32022 naming only legacy revisions, then initialize works', async () => {
    const url = zoo.urls['discover-unsupported-legacy-only'];
    const d = await discover(url);
    expect(d.status).toBe(400);
    expect(d.msg?.error).toMatchObject({ code: -32022, data: { supported: LEGACY_ONLY_SUPPORTED } });
    expect(LEGACY_ONLY_SUPPORTED.length).toBeGreaterThan(0);
    expect(LEGACY_ONLY_SUPPORTED.every((v) => v < MODERN)).toBe(true);
    const init = await initialize(url);
    expect(init.msg?.result?.protocolVersion).toBe('2025-11-25');
  });

  it('discover-unsupported-future-only: -32022 naming only 2027-01-01 on discover and on initialize', async () => {
    const url = zoo.urls['discover-unsupported-future-only'];
    const d = await discover(url);
    expect(d.status).toBe(400);
    expect(d.msg?.error).toMatchObject({ code: -32022, data: { supported: FUTURE_ONLY_SUPPORTED, requested: MODERN } });
    expect(FUTURE_ONLY_SUPPORTED).toEqual(['2027-01-01']);
    const init = await initialize(url);
    expect(init.msg?.error).toMatchObject({ code: -32022, data: { supported: FUTURE_ONLY_SUPPORTED, requested: '2025-11-25' } });
  });

  it('initialize-rejects-2025-11-25: JSON-RPC error for 2025-11-25, a session for 2025-03-26 without MCP-Protocol-Version', async () => {
    const url = zoo.urls['initialize-rejects-2025-11-25'];
    const first = await initialize(url, '2025-11-25');
    expect(first.status).toBe(200);
    expect(first.msg?.error).toMatchObject({ code: -32602, data: { requested: '2025-11-25' } });
    const second = await initialize(url, '2025-03-26');
    expect(second.msg?.result?.protocolVersion).toBe('2025-03-26');
    const h = legacyHeaders(second, '2025-03-26');
    expect(h['mcp-session-id']).toBeTypeOf('string');
    expect(h).not.toHaveProperty('mcp-protocol-version');
    expect(names(await legacy(url, h, 'tools/list', {}))).toEqual(['echo']);
    expect(zoo.requests('initialize-rejects-2025-11-25').at(-1)?.headers).not.toHaveProperty('mcp-protocol-version');
  });

  it('payment-required: 402 on discover, initialize and GET', async () => {
    const url = zoo.urls['payment-required'];
    expect((await discover(url)).status).toBe(402);
    expect((await initialize(url)).status).toBe(402);
    expect((await send(url, 'GET', { accept: 'text/event-stream' })).status).toBe(402);
  });
});

describe('http-sse-legacy (SDK v1 SSEServerTransport)', () => {
  it('answers POST with a 404 page, and GET with an `endpoint` event naming a relative message URL', async () => {
    const url = zoo.urls['http-sse-legacy'];
    const d = await discover(url);
    expect(d.status).toBe(404);
    expect(d.msg).toBeUndefined();
    expect((await initialize(url)).status).toBe(404);

    const r = await request(url, { method: 'GET', headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(20_000) });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    let endpoint: EventSourceMessage | undefined;
    const parser = createParser({ onEvent: (e) => (endpoint ??= e) });
    for await (const chunk of r.body) {
      parser.feed(chunk.toString());
      if (endpoint) break;
    }
    r.body.destroy();
    expect(endpoint?.event).toBe('endpoint');
    expect(endpoint?.data).toMatch(/^\/messages\?sessionId=[0-9a-f-]{36}$/);
  });
});

describe('auth cases: challenges and RFC 9728 metadata', () => {
  const get = (url: string) => send(url, 'GET', { accept: 'application/json' });
  const origin = (c: EraCase) => new URL(zoo.urls[c]).origin;
  const wellKnownPath = (c: EraCase) => origin(c) + WELL_KNOWN + new URL(zoo.urls[c]).pathname;
  const resourceMetadata = (challenge: unknown) => /resource_metadata="([^"]+)"/.exec(String(challenge))?.[1];
  const validFor = (resource: string) => (a: Answer) => {
    expect(a.status).toBe(200);
    const doc = JSON.parse(a.text);
    expect(doc.resource).toBe(resource);
    expect(doc.authorization_servers.length).toBeGreaterThan(0);
  };

  it.each([
    ['auth-header-metadata', 401, /^Bearer /],
    ['auth-wellknown-path', 401, /^Bearer realm="era-zoo"$/],
    ['auth-wellknown-root', 401, /^Bearer realm="era-zoo"$/],
    ['auth-no-metadata', 401, /^Bearer /],
    ['auth-not-bearer', 401, /^Basic realm/],
    ['auth-multi-challenge', 401, /^Basic realm="era, zoo", Bearer error="invalid_token", resource_metadata="/],
    ['auth-403-challenge', 403, /^Bearer error="insufficient_scope", scope="mcp:tools", resource_metadata="/],
  ] as const)('%s answers discover and initialize with %i and a matching WWW-Authenticate', async (c, status, challenge) => {
    for (const a of [await discover(zoo.urls[c]), await initialize(zoo.urls[c])]) {
      expect(a.status).toBe(status);
      expect(a.headers['www-authenticate']).toMatch(challenge);
    }
  });

  it('auth-header-metadata: valid metadata at the resource_metadata URL only', async () => {
    const c = 'auth-header-metadata';
    const hint = resourceMetadata((await discover(zoo.urls[c])).headers['www-authenticate']);
    expect(hint).toBe(origin(c) + HINTED_METADATA_PATH);
    validFor(zoo.urls[c])(await get(hint!));
    expect((await get(wellKnownPath(c))).status).toBe(404);
    expect((await get(origin(c) + WELL_KNOWN)).status).toBe(404);
  });

  it('auth-wellknown-path: valid metadata at /.well-known/oauth-protected-resource + the endpoint path only', async () => {
    const c = 'auth-wellknown-path';
    expect(wellKnownPath(c)).toBe(`${origin(c)}/.well-known/oauth-protected-resource/tenant/mcp`);
    validFor(zoo.urls[c])(await get(wellKnownPath(c)));
    expect((await get(origin(c) + WELL_KNOWN)).status).toBe(404);
  });

  it('auth-wellknown-root: valid metadata at the root only, its resource the bare origin', async () => {
    const c = 'auth-wellknown-root';
    expect((await get(wellKnownPath(c))).status).toBe(404);
    validFor(origin(c))(await get(origin(c) + WELL_KNOWN));
  });

  it('auth-no-metadata: nothing at the hinted, path or root locations', async () => {
    const c = 'auth-no-metadata';
    for (const u of [origin(c) + HINTED_METADATA_PATH, wellKnownPath(c), origin(c) + WELL_KNOWN]) expect((await get(u)).status, u).toBe(404);
  });

  it.each(['auth-not-bearer', 'auth-multi-challenge', 'auth-403-challenge'] as const)('%s: the metadata itself is valid', async (c) => {
    const hint = resourceMetadata((await discover(zoo.urls[c])).headers['www-authenticate']);
    validFor(zoo.urls[c])(await get(hint ?? wellKnownPath(c)));
  });

  it('auth-metadata-private and -link-local name private addresses (read from the header, never contacted)', async () => {
    expect(resourceMetadata((await discover(zoo.urls['auth-metadata-private'])).headers['www-authenticate'])).toBe(PRIVATE_METADATA_URL);
    expect(resourceMetadata((await discover(zoo.urls['auth-metadata-link-local'])).headers['www-authenticate'])).toBe(LINK_LOCAL_METADATA_URL);
    expect(new URL(PRIVATE_METADATA_URL).hostname).toBe('10.0.0.1');
    expect(new URL(LINK_LOCAL_METADATA_URL).hostname).toBe('169.254.169.254');
  });

  it('auth-metadata-redirect-private: the loopback metadata URLs redirect to private addresses (not followed)', async () => {
    const c = 'auth-metadata-redirect-private';
    const hint = resourceMetadata((await discover(zoo.urls[c])).headers['www-authenticate']);
    expect(new URL(hint!).hostname).toBe('127.0.0.1');
    const hop = await get(hint!);
    expect(hop.status).toBe(302);
    expect(hop.headers.location).toBe(PRIVATE_METADATA_URL);
    const wk = await get(wellKnownPath(c));
    expect(wk.status).toBe(307);
    expect(wk.headers.location).toBe(LINK_LOCAL_METADATA_URL);
  });

  it('auth-metadata-oversized: a valid document of exactly the configured size, with no Content-Length', async () => {
    const c = 'auth-metadata-oversized';
    const a = await get(origin(c) + HINTED_METADATA_PATH);
    expect(a.headers['content-length']).toBeUndefined();
    expect(Buffer.byteLength(a.text)).toBe(OVERSIZED);
    expect(JSON.parse(a.text).authorization_servers).toHaveLength(1);
  });

  it('auth-metadata-not-json / -no-resource / -empty-authorization-servers / -resource-mismatch fail validity each in one way', async () => {
    const doc = async (c: EraCase) => (await get(origin(c) + HINTED_METADATA_PATH)).text;
    const notJson = await doc('auth-metadata-not-json');
    expect(() => JSON.parse(notJson)).toThrow();
    expect(JSON.parse(await doc('auth-metadata-no-resource'))).toEqual({ authorization_servers: [expect.any(String)] });
    expect(JSON.parse(await doc('auth-metadata-empty-authorization-servers'))).toEqual({ resource: zoo.urls['auth-metadata-empty-authorization-servers'], authorization_servers: [] });
    const mismatch = JSON.parse(await doc('auth-metadata-resource-mismatch'));
    expect(mismatch.resource).not.toBe(zoo.urls['auth-metadata-resource-mismatch']);
    expect(mismatch.authorization_servers).toHaveLength(1);
  });
});

describe('pagination', () => {
  const expectedPages = TOOL_PAGES.map((p) => p.map((t) => t.name));

  it('legacy-paginated: three pages in a session, opaque cursors returned verbatim, an unknown cursor refused with -32602', async () => {
    const url = zoo.urls['legacy-paginated'];
    const init = await initialize(url);
    const h = legacyHeaders(init, '2025-11-25');
    expect(h['mcp-session-id']).toBeTypeOf('string');
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const a = await legacy(url, h, 'tools/list', cursor === undefined ? {} : { cursor });
      pages.push(names(a));
      cursor = a.msg?.result?.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    expect(pages).toEqual(expectedPages);
    const bad = await legacy(url, h, 'tools/list', { cursor: 'not-a-cursor' });
    expect(bad.msg?.error?.code).toBe(-32602);
    expect(zoo.requests('legacy-paginated').map((r) => r.body).filter((b) => b.includes(PAGE_CURSORS[0]))).toHaveLength(1);
  });

  it('modern-paginated: three pages with the modern headers and _meta', async () => {
    const url = zoo.urls['modern-paginated'];
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const a = await modern(url, 'tools/list', cursor === undefined ? {} : { cursor });
      expect(a.status).toBe(200);
      pages.push(names(a));
      cursor = a.msg?.result?.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    expect(pages).toEqual(expectedPages);
  });

  it('modern-paginated-empty-cursor: page 1 says nextCursor "" and the cursor "" is page 2', async () => {
    const url = zoo.urls['modern-paginated-empty-cursor'];
    const first = await modern(url, 'tools/list');
    expect(first.msg?.result?.nextCursor).toBe(EMPTY_FIRST_CURSORS[0]);
    const second = await modern(url, 'tools/list', { cursor: '' });
    expect(names(second)).toEqual(expectedPages[1]);
    expect(second.msg?.result?.nextCursor).toBe(EMPTY_FIRST_CURSORS[1]);
  });

  it.each(['legacy-cursor-loop', 'modern-cursor-loop'] as const)('%s: every page names a new cursor (checked for 5 pages)', async (c) => {
    const url = zoo.urls[c];
    const h = c === 'legacy-cursor-loop' ? legacyHeaders(await initialize(url), '2025-11-25') : undefined;
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const params = cursor === undefined ? {} : { cursor };
      const a = h ? await legacy(url, h, 'tools/list', params) : await modern(url, 'tools/list', params);
      cursor = a.msg?.result?.nextCursor;
      expect(cursor).toBeTypeOf('string');
      expect(seen.has(cursor!)).toBe(false);
      seen.add(cursor!);
    }
  });
});

describe('canary answers', () => {
  it('modern-canary-is-error: HTTP 200, result.isError true', async () => {
    const a = await canaryCall(zoo.urls['modern-canary-is-error']);
    expect(a.status).toBe(200);
    expect(a.msg?.result).toMatchObject({ isError: true, resultType: 'complete' });
  });

  it('modern-canary-http-500: discover and tools/list work, tools/call is a 500 HTML page', async () => {
    const url = zoo.urls['modern-canary-http-500'];
    expect((await discover(url)).msg?.result?.supportedVersions).toEqual([MODERN]);
    expect(names(await modern(url, 'tools/list'))).toEqual(['echo']);
    const a = await canaryCall(url);
    expect(a.status).toBe(500);
    expect(a.headers['content-type']).toMatch(/^text\/html/);
    expect(a.msg).toBeUndefined();
  });
});

describe('legacy-session-redirect', () => {
  it('issues a session on origin A, redirects later requests (307) to origin B, and records each origin', async () => {
    const url = zoo.urls['legacy-session-redirect'];
    const init = await initialize(url);
    const h = legacyHeaders(init, '2025-11-25');
    expect(h['mcp-session-id']).toBeTypeOf('string');
    const hop = await legacy(url, h, 'tools/list', {});
    expect(hop.status).toBe(307);
    const b = String(hop.headers.location);
    expect(new URL(b).origin).not.toBe(new URL(url).origin);
    const { 'mcp-session-id': _, ...dropped } = h;
    expect(names(await legacy(b, dropped, 'tools/list', {}))).toEqual(['echo']);
    const seen = zoo.requests('legacy-session-redirect');
    const atB = seen.filter((r) => r.origin === new URL(b).origin);
    expect(atB).toHaveLength(1);
    expect(atB[0]!.headers).not.toHaveProperty('mcp-session-id');
    expect(seen.filter((r) => r.origin === new URL(url).origin).map((r) => JSON.parse(r.body).method)).toEqual(['initialize', 'tools/list']);
  });
});

describe('shared-origin-modern / shared-origin-legacy', () => {
  it('share one origin but not an era, and record separately', async () => {
    const m = zoo.urls['shared-origin-modern'];
    const l = zoo.urls['shared-origin-legacy'];
    expect(new URL(m).origin).toBe(new URL(l).origin);
    expect((await discover(m)).msg?.result?.supportedVersions).toEqual([MODERN]);
    const d = await discover(l);
    expect(d.status).toBe(400);
    expect(d.msg?.error?.code).toBe(-32000);
    expect(zoo.requests('shared-origin-modern').every((r) => r.path === '/modern/mcp')).toBe(true);
    expect(zoo.requests('shared-origin-legacy').every((r) => r.path === '/legacy/mcp')).toBe(true);
  });
});
