// One node:http server hosting many MCP endpoints, routed by URL path, for tests, the demo world and
// benchmarks. Well-behaved endpoints are real MCP servers built with the official SDKs: SDK v1's
// low-level `Server` + `StreamableHTTPServerTransport` for the legacy era (real tool lists served
// verbatim, raw JSON Schemas and all), SDK v2's low-level `Server` behind `createMcpHandler` for
// modern-only and dual-era endpoints, SDK v1's SSEServerTransport for the deprecated HTTP+SSE
// transport (building blocks shared with the era zoo: era-sdk.ts). Misbehaving endpoints are raw
// node:http handlers, for failures the SDKs will not produce.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { httpSse, lowLevelV1, pagesOf, sdkV2, type CanaryAnswer, type Pager, type SdkEndpoint, type ToolDef as SdkToolDef } from './era-sdk.ts';

export type ToolDef = { name: string; [k: string]: unknown };

/** Which SDK serves an `mcp` behaviour: SDK v1 (legacy, `initialize`), SDK v2 dual-era, SDK v2 modern-only. */
export type Era = 'legacy' | 'dual' | 'modern';

/**
 * A member served twice in one tool object of a tools/list answer: `"member":<first>` right before the
 * tool's own `"member":…` (JSON.parse keeps the last copy, the tool's value; other parsers the first).
 */
export interface RepeatedMember {
  tool: string;
  member: string;
  first: unknown;
}

/** A document an `auth` behaviour serves on GET; `{origin}` in the body is the origin the client used. */
export interface AuthDoc {
  status: number;
  contentType: string;
  body: string;
}

export type Behaviour =
  /**
   * A real SDK server. era: 'legacy' (default, SDK v1), 'dual' (SDK v2, both eras), 'modern' (SDK v2,
   * legacy: 'reject'). stateful (legacy only): issues Mcp-Session-Id; json (legacy only): application/json
   * answers instead of SSE. instructions: in the initialize / discover result. pageSize: tools/list in
   * pages of that many tools. repeat (legacy only): tools/list answered as raw text with a member repeated.
   * canary: how tools/call of an unknown tool is answered (default: result.isError on legacy, -32602 on SDK v2).
   * listCache (SDK v2 only): ttlMs/cacheScope the tools/list handler returns (SDK v2 keeps valid ones and
   * fills the rest with its defaults, 0 and private, on the 2026-07-28 leg).
   */
  | {
      kind: 'mcp';
      tools: ToolDef[] | (() => ToolDef[]);
      stateful?: boolean;
      json?: boolean;
      name?: string;
      version?: string;
      era?: Era;
      instructions?: string | null;
      pageSize?: number | null;
      repeat?: RepeatedMember | null;
      canary?: CanaryAnswer;
      listCache?: { ttlMs?: number; cacheScope?: 'public' | 'private' };
    }
  /**
   * The deprecated HTTP+SSE transport (SDK v1 SSEServerTransport): GET anywhere under the endpoint opens
   * the stream (`event: endpoint`, `data: <messagesPath>?sessionId=…`); POST messagesPath carries
   * messages; any other request is express's 404 page ("Cannot POST …").
   */
  | { kind: 'http-sse'; tools: ToolDef[] | (() => ToolDef[]); messagesPath: string; name?: string; version?: string; instructions?: string | null }
  /**
   * An auth wall: every request but a GET of one of `docs` answers `status` with `WWW-Authenticate:
   * challenge` and `body`; `docs` (by pathname) are protected-resource metadata documents. `{origin}` in
   * the challenge and documents is replaced by the origin the client used (`http://<Host>`).
   */
  | { kind: 'auth'; status: number; challenge: string; contentType: string; body: string; docs: Readonly<Record<string, AuthDoc>> }
  /** Accepts the connection, reads the request, never answers. */
  | { kind: 'hang' }
  /** Answers every POST with this status, headers and body (401/403 with WWW-Authenticate, 404, 429, 5xx, HTML, broken JSON, ...). */
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /**
   * A modern-only server of its own making: every request is answered 400 with JSON-RPC error `code`
   * (-32022 by default) whose data names `supported` (default ['2026-07-28']).
   */
  | { kind: 'modern-only'; code?: number; supported?: readonly string[] }
  /** Redirects every request to `location`. */
  | { kind: 'redirect'; location: string; status?: number }
  /** initialize issues a session, then every later request answers 404 -32001 (the session was lost). */
  | { kind: 'session-lost' }
  /** Opens an SSE stream and sends only keep-alive comments, every `everyMs`; never the message. */
  | { kind: 'sse-stall'; everyMs?: number }
  /** Anything else: a raw handler. */
  | { kind: 'raw'; handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void };

export interface McpHost {
  origin: string;
  port: number;
  /** Mount (or replace) a behaviour at an absolute path such as `/s/42/mcp`. Returns the full URL. */
  mount(path: string, behaviour: Behaviour): string;
  unmount(path: string): void;
  /** Look up behaviours lazily instead of mounting them (a world with 25,000 endpoints). */
  setResolver(resolve: ((path: string) => Behaviour | undefined) | null): void;
  readonly requests: number;
  close(): Promise<void>;
}

const MAX_REQUEST_BODY = 1 << 20;

export interface McpHandler {
  /** The request listener to give any number of node:http servers. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  mount(path: string, behaviour: Behaviour): void;
  unmount(path: string): void;
  setResolver(resolve: ((path: string) => Behaviour | undefined) | null): void;
  readonly requests: number;
  /** Live stateful sessions (bounded: see MAX_SESSIONS_PER_PATH). */
  readonly sessions: number;
  /** Stop timers and close sessions (servers' sockets are the caller's). */
  close(): Promise<void>;
}

/** Stateful sessions kept per path; older ones are closed (a collector never ends its sessions). */
export const MAX_SESSIONS_PER_PATH = 4;
/** HTTP+SSE endpoints kept (each holds its open streams); the least recently used is closed beyond. */
export const MAX_SSE_ENDPOINTS = 256;

/** The routing and serving logic of an MCP host, without a listener: share it between many servers. */
export function createMcpHandler(): McpHandler {
  const mounts = new Map<string, Behaviour>();
  let resolver: ((path: string) => Behaviour | undefined) | null = null;
  // Stateful sessions, per path: session id -> transport (insertion order = age).
  const sessions = new Map<string, Map<string, StreamableHTTPServerTransport>>();
  const timers = new Set<NodeJS.Timeout>();
  // SDK v2 handlers per behaviour object (stateless: a fresh server per request, so sharing is safe).
  let v2Handlers = new WeakMap<object, SdkEndpoint>();
  // HTTP+SSE endpoints by messages path: a stream opened by one request is posted to by the next.
  const sseEndpoints = new Map<string, { ep: SdkEndpoint; b: Extract<Behaviour, { kind: 'http-sse' }> }>();
  let requests = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    const path = new URL(req.url ?? '/', 'http://host.local').pathname;
    const behaviour = mounts.get(path) ?? resolver?.(path);
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      res.writeHead(413).end();
      return;
    }
    if (!behaviour) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    try {
      await serve(path, behaviour, req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`sandbox error: ${(err as Error).message}`);
    }
  };
  async function serve(path: string, b: Behaviour, req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    switch (b.kind) {
      case 'mcp':
        return serveMcp(path, b, req, res, raw);
      case 'hang':
        return; // keep the socket open; close() destroys it
      case 'status':
        res.writeHead(b.status, { 'content-type': 'text/plain', ...b.headers });
        res.end(b.body ?? '');
        return;
      case 'modern-only': {
        const msg = parseJson(raw) as { id?: unknown } | undefined;
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg?.id ?? null,
            error: { code: b.code ?? -32022, message: 'Unsupported protocol version', data: { supported: b.supported ?? ['2026-07-28'] } },
          }),
        );
        return;
      }
      case 'http-sse': {
        // One endpoint per messages path, holding its streams; it serves whatever the latest behaviour
        // for that path says (the world's tool list moves with the day).
        let entry = sseEndpoints.get(b.messagesPath);
        if (entry) sseEndpoints.delete(b.messagesPath);
        else {
          const e: { ep: SdkEndpoint; b: typeof b } = { ep: undefined as never, b };
          const listTools = () => (typeof e.b.tools === 'function' ? e.b.tools() : e.b.tools) as SdkToolDef[];
          e.ep = httpSse({
            isStream: (p) => p !== b.messagesPath,
            messagesPath: b.messagesPath,
            server: () => lowLevelV1(pagesOf(listTools), 'is-error', { info: { name: e.b.name ?? 'sandbox', version: e.b.version ?? '1.0.0' }, instructions: e.b.instructions ?? null }),
          });
          entry = e;
        }
        entry.b = b;
        sseEndpoints.set(b.messagesPath, entry);
        for (const [old, e] of sseEndpoints) {
          if (sseEndpoints.size <= MAX_SSE_ENDPOINTS) break;
          sseEndpoints.delete(old);
          void e.ep.close();
        }
        return entry.ep.serve(req, res, raw);
      }
      case 'auth': {
        const host = String(req.headers.host ?? '');
        const origin = `http://${/^[A-Za-z0-9.:[\]-]{1,255}$/.test(host) ? host : 'invalid.invalid'}`;
        const doc = req.method === 'GET' ? b.docs[path] : undefined;
        if (doc) {
          res.writeHead(doc.status, { 'content-type': doc.contentType });
          res.end(doc.body.replaceAll('{origin}', origin));
          return;
        }
        res.writeHead(b.status, { 'content-type': b.contentType, 'www-authenticate': b.challenge.replaceAll('{origin}', origin) });
        res.end(b.body);
        return;
      }
      case 'redirect':
        res.writeHead(b.status ?? 307, { location: b.location });
        res.end();
        return;
      case 'session-lost': {
        const msg = parseJson(raw) as { id?: unknown; method?: string } | undefined;
        if (msg?.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': randomUUID() });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'lost', version: '1' } } }));
        } else if (msg?.method?.startsWith('notifications/')) {
          res.writeHead(202).end();
        } else {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg?.id ?? null, error: { code: -32001, message: 'Session not found' } }));
        }
        return;
      }
      case 'sse-stall': {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(': stream open\n\n');
        const t = setInterval(() => res.write(': keepalive\n\n'), b.everyMs ?? 200);
        timers.add(t);
        res.on('close', () => {
          clearInterval(t);
          timers.delete(t);
        });
        return;
      }
      case 'raw':
        return b.handler(req, res, raw);
    }
  }

  async function serveMcp(path: string, b: Extract<Behaviour, { kind: 'mcp' }>, req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    const parsed = parseJson(raw);
    const listTools = () => (typeof b.tools === 'function' ? b.tools() : b.tools);
    const era = b.era ?? 'legacy';
    if (era !== 'legacy') {
      let ep = v2Handlers.get(b);
      if (!ep) {
        const id = { info: { name: b.name ?? 'sandbox', version: b.version ?? '1.0.0' }, instructions: b.instructions ?? null };
        const pages = pagesOf(listTools as () => SdkToolDef[], b.pageSize);
        const cacheHint = b.listCache;
        const pager: Pager = cacheHint ? (cursor) => { const page = pages(cursor); return page && { ...page, ...cacheHint }; } : pages;
        ep = sdkV2({ legacy: era === 'modern' ? 'reject' : 'stateless', pager, canary: b.canary ?? 'jsonrpc-error', ...id });
        v2Handlers.set(b, ep);
      }
      return ep.serve(req, res, raw);
    }
    const msg = parsed as { method?: unknown; id?: unknown; params?: { cursor?: unknown } } | undefined;
    if (b.repeat && msg?.method === 'tools/list' && req.method === 'POST') {
      // Raw text: no serialiser writes a member twice. Shaped as SDK v1 answers (result, jsonrpc, id).
      const page = pagesOf(listTools as () => SdkToolDef[], b.pageSize)(typeof msg.params?.cursor === 'string' ? msg.params.cursor : undefined);
      const id = JSON.stringify(msg.id ?? null);
      const text = page
        ? `{"result":{"tools":${toolsArrayText(page.tools, b.repeat)}${page.nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(page.nextCursor)}`}},"jsonrpc":"2.0","id":${id}}`
        : `{"jsonrpc":"2.0","id":${id},"error":{"code":-32602,"message":"Invalid cursor"}}`;
      const sid = req.headers['mcp-session-id'];
      const headers: Record<string, string> = typeof sid === 'string' ? { 'mcp-session-id': sid } : {};
      if (b.json) res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(text);
      else res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' }).end(`event: message\ndata: ${text}\n\n`);
      return;
    }
    if (!b.stateful) {
      // Stateless: a fresh server and transport per request, as the SDK's own stateless examples do.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: b.json ?? false });
      const server = makeServer(b, listTools);
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, parsed);
      return;
    }
    let byId = sessions.get(path);
    if (!byId) sessions.set(path, (byId = new Map()));
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? byId.get(sid) : undefined;
    if (existing) {
      await existing.handleRequest(req, res, parsed);
      return;
    }
    const sessionsOfPath = byId;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: b.json ?? false,
      onsessioninitialized: (id) => {
        sessionsOfPath.set(id, transport);
        for (const [old, t] of sessionsOfPath) {
          if (sessionsOfPath.size <= MAX_SESSIONS_PER_PATH) break;
          sessionsOfPath.delete(old);
          void t.close().catch(() => {});
        }
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessionsOfPath.delete(transport.sessionId);
    };
    const server = makeServer(b, listTools);
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  }

  return {
    handle: (req, res) => void handle(req, res),
    mount(path, behaviour) {
      mounts.set(path, behaviour);
      sessions.delete(path);
    },
    unmount(path) {
      mounts.delete(path);
      sessions.delete(path);
    },
    setResolver(r) {
      resolver = r;
    },
    get requests() {
      return requests;
    },
    get sessions() {
      let n = 0;
      for (const byId of sessions.values()) n += byId.size;
      return n;
    },
    async close() {
      for (const t of timers) clearInterval(t);
      timers.clear();
      for (const e of sseEndpoints.values()) await e.ep.close().catch(() => {});
      sseEndpoints.clear();
      v2Handlers = new WeakMap();
      for (const byId of sessions.values()) for (const t of byId.values()) await t.close().catch(() => {});
      sessions.clear();
    },
  };
}

export async function startMcpHost(opts: { port?: number; host?: string } = {}): Promise<McpHost> {
  const handler = createMcpHandler();
  const sockets = new Set<Socket>();
  const http: HttpServer = createServer(handler.handle);
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => http.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    mount(path, behaviour) {
      handler.mount(path, behaviour);
      return origin + path;
    },
    unmount: (path) => handler.unmount(path),
    setResolver: (r) => handler.setResolver(r),
    get requests() {
      return handler.requests;
    },
    async close() {
      await handler.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function makeServer(b: Extract<Behaviour, { kind: 'mcp' }>, listTools: () => ToolDef[]): Server {
  // Served verbatim: the result is the real tool list (paged when asked), not one rebuilt from zod.
  const pager: Pager = pagesOf(listTools as () => SdkToolDef[], b.pageSize);
  return lowLevelV1(pager, b.canary ?? 'is-error', { info: { name: b.name ?? 'sandbox', version: b.version ?? '1.0.0' }, instructions: b.instructions ?? null });
}

/**
 * The JSON text of a tools array as served: JSON.stringify of each tool, except that the tool named
 * `repeat.tool` carries `"<member>":<first>` immediately before its own `"<member>":…` (the member is
 * added at the end when the tool lacks it). Pure: the world uses it to say what the fleet serves.
 */
export function toolsArrayText(tools: readonly ToolDef[], repeat: RepeatedMember | null | undefined): string {
  const parts = tools.map((t) => {
    if (!repeat || t.name !== repeat.tool) return JSON.stringify(t);
    const members = Object.entries(t).filter(([, v]) => v !== undefined);
    const first = `${JSON.stringify(repeat.member)}:${JSON.stringify(repeat.first ?? null)}`;
    const out = members.flatMap(([k, v]) => (k === repeat.member ? [first, `${JSON.stringify(k)}:${JSON.stringify(v)}`] : [`${JSON.stringify(k)}:${JSON.stringify(v)}`]));
    if (!members.some(([k]) => k === repeat.member)) out.push(first);
    return `{${out.join(',')}}`;
  });
  return `[${parts.join(',')}]`;
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
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
