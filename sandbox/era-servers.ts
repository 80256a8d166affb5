// The era zoo: one loopback origin per case the methodology-v2 probe must classify (dual-era probe for
// MCP revision 2026-07-28 with fallback to the legacy `initialize` handshake). Real SDK servers where
// the SDKs can play the part (era-sdk.ts), the conformance suite's own modern mock
// (conformance-mock.ts), and raw node:http answers for every status and fallback the SDKs will not
// produce (here and in era-auth.ts). Every origin records what it received — method, path, headers,
// body — so probe tests can assert what the client SENT (Mcp-Name present, no Mcp-Session-Id after a
// cross-origin redirect, no MCP-Protocol-Version on a 2025-03-26 session, …).
//
//   const zoo = await startEraZoo();                      // every case; or { cases: ['sdk-v2-dual-era'] }
//   zoo.urls['discover-404-then-legacy']                   // http://127.0.0.1:PORT/mcp
//   zoo.requests('discover-404-then-legacy')               // Recorded[] in arrival order
//   await zoo.close();
//
// What each case is, and what the probe should make of it, is written next to the case in CASE_NOTES.
// Wire facts behind the raw cases (codes, shapes, headers) are the 2026-07-28 specification's; the
// SDK and conformance answers are whatever those packages send (test/sandbox/era-servers.test.ts
// pins the parts the probe depends on).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AUTH_CASES, authEndpoint, type AuthCase } from './era-auth.ts';
import { echoServerV1, httpSse, parseJson, sdkV1, sdkV2, type Pager, type SdkEndpoint, type Serve, type ToolDef, type ToolPage } from './era-sdk.ts';
import { forwardTo, startConformanceMock } from './conformance-mock.ts';

export const ERA_CASES = [
  'sdk-v1-stateful',
  'sdk-v1-stateless',
  'sdk-v2-modern-only',
  'sdk-v2-dual-era',
  'conformance-modern',
  'discover-404-then-legacy',
  'discover-unsupported-legacy-only',
  'discover-unsupported-future-only',
  'initialize-rejects-2025-11-25',
  'payment-required',
  'http-sse-legacy',
  ...AUTH_CASES,
  'legacy-paginated',
  'legacy-cursor-loop',
  'modern-paginated',
  'modern-paginated-empty-cursor',
  'modern-cursor-loop',
  'modern-canary-is-error',
  'modern-canary-http-500',
  'legacy-session-redirect',
  'shared-origin-modern',
  'shared-origin-legacy',
] as const;
export type EraCase = (typeof ERA_CASES)[number];
export type { AuthCase };

export const CASE_NOTES: Record<EraCase, string> = {
  'sdk-v1-stateful': 'SDK v1 McpServer, sessions, SSE answers. discover → 400 -32000 "Server not initialized": legacy. Canary → result.isError.',
  'sdk-v1-stateless': 'SDK v1 McpServer, no session, JSON answers. discover → 400 -32000 "Unsupported protocol version": legacy. Canary → result.isError.',
  'sdk-v2-modern-only': "SDK v2 createMcpHandler, legacy: 'reject'. discover → result: modern. initialize → 400 -32022 ['2026-07-28']. Canary → 200 JSON-RPC -32602; without Mcp-Name → 400 -32020.",
  'sdk-v2-dual-era': 'SDK v2 createMcpHandler default. discover → result (supportedVersions lists only 2026-07-28); initialize also works (SSE, no session).',
  'conformance-modern': 'Conformance suite 2026-07-28 stateless mock (tools_call scenario) behind a recording proxy. discover → result. Does not check Mcp-Method/Mcp-Name. Canary → HTTP 500 with JSON-RPC -32603.',
  'discover-404-then-legacy': 'discover → 404 + JSON-RPC -32601 (a legacy server: modern servers MUST implement discover); then SDK v1 stateful: fall back to initialize.',
  'discover-unsupported-legacy-only': 'discover → 400 -32022 whose supported list names only legacy revisions: fall back; then SDK v1 stateless.',
  'discover-unsupported-future-only': "every POST → 400 -32022 supported ['2027-01-01']: a modern server of a revision we do not speak (modern_rejected with that list).",
  'initialize-rejects-2025-11-25': 'legacy; initialize 2025-11-25 → 200 JSON-RPC -32602 "Unsupported protocol version" (supported 2025-03-26, 2024-11-05); 2025-03-26 → SDK v1 stateful (session, no MCP-Protocol-Version defined).',
  'payment-required': '402 on every request, any method.',
  'http-sse-legacy': 'deprecated HTTP+SSE (SDK v1 SSEServerTransport) at /sse: POST → 404 (express-style HTML); GET text/event-stream → `event: endpoint`, `data: /messages?sessionId=…` (relative).',
  'auth-header-metadata': '401 Bearer resource_metadata="<origin>/meta/protected-resource.json"; valid metadata there only.',
  'auth-wellknown-path': '401 Bearer without resource_metadata; endpoint /tenant/mcp; valid metadata only at /.well-known/oauth-protected-resource/tenant/mcp.',
  'auth-wellknown-root': '401 Bearer without resource_metadata; valid metadata only at the root /.well-known/oauth-protected-resource (resource = the bare origin).',
  'auth-no-metadata': '401 Bearer; metadata nowhere (404 everywhere).',
  'auth-not-bearer': '401 Basic realm; valid metadata at the path-form well-known URL.',
  'auth-multi-challenge': '401 with `Basic realm="era, zoo", Bearer error=…, resource_metadata="…"` in one field; valid metadata at the hinted URL.',
  'auth-403-challenge': '403 Bearer error="insufficient_scope" with resource_metadata; valid metadata at the hinted URL.',
  'auth-metadata-private': '401 Bearer resource_metadata="http://10.0.0.1/…": must be refused before connecting; no metadata on loopback.',
  'auth-metadata-link-local': '401 Bearer resource_metadata="http://169.254.169.254/…": must be refused before connecting.',
  'auth-metadata-redirect-private': '401 Bearer resource_metadata on loopback → 302 to 10.0.0.1; the path-form well-known → 307 to 169.254.169.254.',
  'auth-metadata-oversized': '401 Bearer; hinted metadata is valid JSON of oversizedMetadataBytes bytes, chunked (no Content-Length).',
  'auth-metadata-not-json': '401 Bearer; hinted metadata is HTML served as application/json.',
  'auth-metadata-no-resource': '401 Bearer; hinted metadata has authorization_servers but no resource.',
  'auth-metadata-empty-authorization-servers': '401 Bearer; hinted metadata has resource but authorization_servers: [].',
  'auth-metadata-resource-mismatch': '401 Bearer; hinted metadata names another resource (RFC 9728 §3.3: MUST NOT be used).',
  'legacy-paginated': 'SDK v1 low-level, stateful (session required), JSON; tools/list in 3 pages via nextCursor; unknown cursor → -32602.',
  'legacy-cursor-loop': 'SDK v1 low-level, stateless; tools/list never ends (a new cursor on every page).',
  'modern-paginated': "SDK v2 low-level, legacy: 'reject'; tools/list in 3 pages via nextCursor.",
  'modern-paginated-empty-cursor': 'as modern-paginated, but page 1 says nextCursor: "" — an empty string is a cursor, not the end (2026-07-28 Pagination).',
  'modern-cursor-loop': "SDK v2 low-level, legacy: 'reject'; tools/list never ends.",
  'modern-canary-is-error': 'SDK v2 low-level modern-only; tools/call of an unknown tool → 200 result.isError: true.',
  'modern-canary-http-500': 'SDK v2 McpServer modern-only, but tools/call → HTTP 500 text/html (no JSON-RPC).',
  'legacy-session-redirect': 'SDK v1 stateful on origin A; every request but initialize → 307 to the same path on origin B (SDK v1 stateless). Recorded requests carry their origin: B must not see Mcp-Session-Id.',
  'shared-origin-modern': 'same origin as shared-origin-legacy, path /modern/mcp: SDK v2 modern-only. Era is per endpoint, not per origin.',
  'shared-origin-legacy': 'same origin as shared-origin-modern, path /legacy/mcp: SDK v1 stateless.',
};

/** What one origin received. Headers as node:http gives them (lower-case names). */
export interface Recorded {
  seq: number;
  origin: string;
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface EraZooOptions<C extends EraCase> {
  /** Which cases to start (default: all). conformance-modern costs a child process. */
  cases?: readonly C[];
  /** Size of the auth-metadata-oversized document (default 1 MiB + 1): set it just over the probe's cap. */
  oversizedMetadataBytes?: number;
}

export interface EraZoo<C extends EraCase = EraCase> {
  urls: Readonly<Record<C, string>>;
  /** Requests the case's origin(s) received, in arrival order. */
  requests(c: C): Recorded[];
  clearRequests(): void;
  close(): Promise<void>;
}

export const DEFAULT_OVERSIZED_METADATA_BYTES = 1024 * 1024 + 1;
/** The -32022 `supported` lists of the two discover-unsupported cases. */
export const LEGACY_ONLY_SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26'];
export const FUTURE_ONLY_SUPPORTED = ['2027-01-01'];

const MAX_REQUEST_BODY = 1 << 20;

export async function startEraZoo<C extends EraCase = EraCase>(opts: EraZooOptions<C> = {}): Promise<EraZoo<C>> {
  const cases = (opts.cases ?? ERA_CASES) as readonly C[];
  const oversizedMetadataBytes = opts.oversizedMetadataBytes ?? DEFAULT_OVERSIZED_METADATA_BYTES;
  const log = new Map<EraCase, Recorded[]>();
  let seq = 0;
  const record = (c: EraCase, origin: string, req: IncomingMessage, body: Buffer) => {
    const list = log.get(c) ?? [];
    log.set(c, list);
    list.push({ seq: seq++, origin, method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: body.toString('utf8') });
  };
  const closers: Array<() => Promise<void>> = [];
  const urls = {} as Record<C, string>;
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    closers.length = 0;
  };
  try {
    let shared: Listener | undefined;
    for (const c of cases) {
      if (c === 'shared-origin-modern' || c === 'shared-origin-legacy') {
        // One listener for both: the era is decided per endpoint, and this pair proves it.
        if (!shared) {
          const modern = sdkV2({ legacy: 'reject' });
          const legacy = sdkV1({ stateful: false, json: true });
          shared = await listen(record, (path) =>
            path === '/modern/mcp' ? { c: 'shared-origin-modern', serve: modern.serve } : path === '/legacy/mcp' ? { c: 'shared-origin-legacy', serve: legacy.serve } : undefined,
          );
          closers.push(shared.close, modern.close, legacy.close);
        }
        urls[c] = shared.origin + (c === 'shared-origin-modern' ? '/modern/mcp' : '/legacy/mcp');
        continue;
      }
      const built = await buildCase(c, record, oversizedMetadataBytes, closers);
      urls[c] = built;
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  return {
    urls,
    requests: (c) => [...(log.get(c) ?? [])],
    clearRequests: () => log.clear(),
    close: closeAll,
  };
}

type Recorder = (c: EraCase, origin: string, req: IncomingMessage, body: Buffer) => void;

/** Start the origin(s) of one case; returns the endpoint URL and registers what must be closed. */
async function buildCase(c: EraCase, record: Recorder, oversizedMetadataBytes: number, closers: Array<() => Promise<void>>): Promise<string> {
  const exact = (path: string, serve: Serve) => (p: string) => (p === path ? { c, serve } : undefined);
  const sdk = (e: SdkEndpoint, path = '/mcp') => {
    closers.push(e.close);
    return exact(path, e.serve);
  };
  const start = async (route: (p: string) => Route | undefined, path = '/mcp') => {
    const l = await listen(record, route);
    closers.push(l.close);
    return l.origin + path;
  };
  if ((AUTH_CASES as readonly string[]).includes(c)) {
    // The handler needs its own origin (metadata documents name it), so it is bound after listen().
    const path = c === 'auth-wellknown-path' ? '/tenant/mcp' : '/mcp';
    let serve: Serve = async () => {};
    const l = await listen(record, () => ({ c, serve: (req, res, body) => serve(req, res, body) }));
    closers.push(l.close);
    serve = authEndpoint(c as AuthCase, l.origin, path, { oversizedMetadataBytes });
    return l.origin + path;
  }
  switch (c) {
    case 'sdk-v1-stateful':
      return start(sdk(sdkV1({ stateful: true, json: false })));
    case 'sdk-v1-stateless':
      return start(sdk(sdkV1({ stateful: false, json: true })));
    case 'sdk-v2-modern-only':
      return start(sdk(sdkV2({ legacy: 'reject' })));
    case 'sdk-v2-dual-era':
      return start(sdk(sdkV2({ legacy: 'stateless' })));
    case 'conformance-modern': {
      const mock = await startConformanceMock();
      closers.push(mock.close);
      const target = new URL(mock.url);
      return start(exact(target.pathname, forwardTo(target.origin)), target.pathname);
    }
    case 'discover-404-then-legacy': {
      const inner = sdkV1({ stateful: true, json: false });
      closers.push(inner.close);
      return start(exact('/mcp', onMethod('server/discover', (res, id) => jsonRpcError(res, 404, id, -32601, 'Method not found'), inner.serve)));
    }
    case 'discover-unsupported-legacy-only': {
      const inner = sdkV1({ stateful: false, json: true });
      closers.push(inner.close);
      const reject: Answer = (res, id) => jsonRpcError(res, 400, id, -32022, 'Unsupported protocol version', { supported: LEGACY_ONLY_SUPPORTED, requested: '2026-07-28' });
      return start(exact('/mcp', onMethod('server/discover', reject, inner.serve)));
    }
    case 'discover-unsupported-future-only':
      return start(exact('/mcp', futureOnly));
    case 'initialize-rejects-2025-11-25': {
      const inner = sdkV1({ stateful: true, json: true });
      closers.push(inner.close);
      return start(exact('/mcp', rejectInitialize('2025-11-25', inner.serve)));
    }
    case 'payment-required':
      return start(() => ({
        c,
        serve: async (_req, res) => {
          res.writeHead(402, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'payment_required', message: 'This endpoint requires a paid plan.' }));
        },
      }));
    case 'http-sse-legacy': {
      const sse = httpSse({ isStream: (p) => p === '/sse', messagesPath: '/messages', server: echoServerV1 });
      closers.push(sse.close);
      return start((p) => (p === '/sse' || p === '/messages' ? { c, serve: sse.serve } : undefined), '/sse');
    }
    case 'legacy-paginated':
      return start(sdk(sdkV1({ stateful: true, json: true, pager: threePages(PAGE_CURSORS) })));
    case 'legacy-cursor-loop':
      return start(sdk(sdkV1({ stateful: false, json: true, pager: endless })));
    case 'modern-paginated':
      return start(sdk(sdkV2({ legacy: 'reject', pager: threePages(PAGE_CURSORS) })));
    case 'modern-paginated-empty-cursor':
      return start(sdk(sdkV2({ legacy: 'reject', pager: threePages(EMPTY_FIRST_CURSORS) })));
    case 'modern-cursor-loop':
      return start(sdk(sdkV2({ legacy: 'reject', pager: endless })));
    case 'modern-canary-is-error':
      return start(sdk(sdkV2({ legacy: 'reject', pager: threePages(PAGE_CURSORS), canary: 'is-error' })));
    case 'modern-canary-http-500': {
      const inner = sdkV2({ legacy: 'reject' });
      closers.push(inner.close);
      const crash: Answer = (res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body><h1>500 Internal Server Error</h1></body></html>');
      return start(exact('/mcp', onMethod('tools/call', crash, inner.serve)));
    }
    case 'legacy-session-redirect': {
      const a = sdkV1({ stateful: true, json: true });
      const b = sdkV1({ stateful: false, json: true });
      closers.push(a.close, b.close);
      const bUrl = await start(exact('/mcp', b.serve));
      const away: Answer = (res) => res.writeHead(307, { location: bUrl }).end();
      return start(exact('/mcp', async (req, res, body) => ((parseJson(body) as { method?: string } | undefined)?.method === 'initialize' ? a.serve(req, res, body) : away(res, null))));
    }
    default:
      throw new Error(`era zoo: no server for case ${c}`);
  }
}

// ---- raw answers -----------------------------------------------------------------------------------

type Answer = (res: Parameters<Serve>[1], id: unknown) => void;

function jsonRpcError(res: Parameters<Serve>[1], status: number, id: unknown, code: number, message: string, data?: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: data === undefined ? { code, message } : { code, message, data } }));
}

/** Answer one JSON-RPC method ourselves; hand everything else to `inner`. */
function onMethod(method: string, answer: Answer, inner: Serve): Serve {
  return async (req, res, body) => {
    const msg = parseJson(body) as { method?: unknown; id?: unknown } | undefined;
    if (msg?.method === method) return answer(res, msg.id);
    return inner(req, res, body);
  };
}

/** initialize asking for `version` is refused in-channel the way the 2025-11-25 lifecycle page shows (-32602, data.supported). */
function rejectInitialize(version: string, inner: Serve): Serve {
  return async (req, res, body) => {
    const msg = parseJson(body) as { method?: unknown; id?: unknown; params?: { protocolVersion?: unknown } } | undefined;
    if (msg?.method === 'initialize' && msg.params?.protocolVersion === version) {
      return jsonRpcError(res, 200, msg.id, -32602, 'Unsupported protocol version', { supported: ['2025-03-26', '2024-11-05'], requested: version });
    }
    return inner(req, res, body);
  };
}

/** A modern server of a revision nobody speaks yet: every request is an UnsupportedProtocolVersionError. */
const futureOnly: Serve = async (req, res, body) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('method not allowed');
    return;
  }
  const msg = parseJson(body) as { id?: unknown; params?: { protocolVersion?: unknown; _meta?: Record<string, unknown> } } | undefined;
  if (msg && msg.id === undefined) {
    res.writeHead(202).end(); // a notification (2026-07-28 Sending Messages: accepted or an HTTP error)
    return;
  }
  const header = req.headers['mcp-protocol-version'];
  const requested = typeof header === 'string' ? header : String(msg?.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? msg?.params?.protocolVersion ?? '');
  jsonRpcError(res, 400, msg?.id, -32022, 'Unsupported protocol version', { supported: FUTURE_ONLY_SUPPORTED, requested });
};

// ---- tool pages ------------------------------------------------------------------------------------

/** The three pages of the paginated cases (two tools each), in order. */
export const TOOL_PAGES: ToolDef[][] = [0, 1, 2].map((p) =>
  [0, 1].map((i) => ({
    name: `page${p + 1}_tool${i + 1}`,
    description: `Tool ${i + 1} of page ${p + 1}.`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  })),
);
/** Opaque cursors (characters a client must not touch: `+`, `/`, `=`, a space). */
export const PAGE_CURSORS = ['c2 +/=', 'c3 +/='] as const;
export const EMPTY_FIRST_CURSORS = ['', 'c3'] as const;

function threePages(cursors: readonly [string, string]): Pager {
  return (cursor) => {
    const at = cursor === undefined ? 0 : cursors.indexOf(cursor as never) + 1;
    if (at === 0 && cursor !== undefined) return null;
    const page: ToolPage = { tools: TOOL_PAGES[at]! };
    if (at < cursors.length) page.nextCursor = cursors[at];
    return page;
  };
}

/** Never ends: page n answers nextCursor `loop-(n+1)`, each with one new tool. */
const endless: Pager = (cursor) => {
  const n = cursor === undefined ? 0 : Number(/^loop-(\d+)$/.exec(cursor)?.[1] ?? NaN);
  if (!Number.isInteger(n)) return null;
  return { tools: [{ name: `loop_tool_${n}`, inputSchema: { type: 'object' } }], nextCursor: `loop-${n + 1}` };
};

// ---- listeners -------------------------------------------------------------------------------------

interface Route {
  c: EraCase;
  serve: Serve;
}
interface Listener {
  origin: string;
  close(): Promise<void>;
}

/** An HTTP listener on 127.0.0.1 (ephemeral port) that records every request under its route's case. */
async function listen(record: Recorder, route: (path: string) => Route | undefined): Promise<Listener> {
  const sockets = new Set<Socket>();
  let origin = '';
  const server: HttpServer = createServer((req, res) => {
    void (async () => {
      let body: Buffer;
      try {
        body = await readBody(req);
      } catch {
        res.writeHead(413).end();
        return;
      }
      const r = route(new URL(req.url ?? '/', origin).pathname);
      if (!r) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      record(r.c, origin, req, body);
      try {
        await r.serve(req, res, body);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`era zoo error: ${(err as Error).message}`);
      }
    })();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BODY) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
