// One node:http server hosting many MCP endpoints, routed by URL path, for tests, the demo world and
// benchmarks. Well-behaved endpoints are real MCP servers built with the official SDK (low-level
// `Server` + `StreamableHTTPServerTransport`, so real tool lists are served verbatim, raw JSON Schemas
// and all). Misbehaving endpoints are raw node:http handlers, for failures the SDK will not produce.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export type ToolDef = { name: string; [k: string]: unknown };

export type Behaviour =
  /** A real SDK server. stateful: issues Mcp-Session-Id; json: application/json answers instead of SSE. */
  | { kind: 'mcp'; tools: ToolDef[] | (() => ToolDef[]); stateful?: boolean; json?: boolean; name?: string; version?: string }
  /** Accepts the connection, reads the request, never answers. */
  | { kind: 'hang' }
  /** Answers every POST with this status, headers and body (401/403 with WWW-Authenticate, 404, 429, 5xx, HTML, broken JSON, ...). */
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** A 2026-07-28 modern-only server: initialize is answered 400 with JSON-RPC error `code` (-32022 by default). */
  | { kind: 'modern-only'; code?: number }
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

/** The routing and serving logic of an MCP host, without a listener: share it between many servers. */
export function createMcpHandler(): McpHandler {
  const mounts = new Map<string, Behaviour>();
  let resolver: ((path: string) => Behaviour | undefined) | null = null;
  // Stateful sessions, per path: session id -> transport (insertion order = age).
  const sessions = new Map<string, Map<string, StreamableHTTPServerTransport>>();
  const timers = new Set<NodeJS.Timeout>();
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
            error: { code: b.code ?? -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } },
          }),
        );
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
  const server = new Server({ name: b.name ?? 'sandbox', version: b.version ?? '1.0.0' }, { capabilities: { tools: {} } });
  // Served verbatim: the result is the real tool list, not one rebuilt from zod.
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools() as never }));
  return server;
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
