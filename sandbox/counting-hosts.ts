// Raw node:http MCP hosts that count what the collector does to them: requests
// and connections per host, requests in flight per host and per endpoint (path) with their peaks,
// and, when asked, a log of every request (method, path, the headers a courtesy rule is about).
// Each host is one listener (address:port); endpoints are paths on it, each with a responder.
//
// Cheaper than the SDK fleet (sandbox/mcp-host.ts) by an order of magnitude, which is what lets the
// registry-scale benchmark (bench/scale.ts) run tens of thousands of endpoints on two shared cores;
// the answers are the minimal JSON a v1 probe needs (initialize, notifications/initialized,
// tools/list, the session DELETE), not a full MCP server. Loopback only.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one endpoint does with one request (the body already read, capped). */
export type Responder = (req: IncomingMessage, res: ServerResponse, body: Buffer, at: RequestContext) => void;

export interface RequestContext {
  /** Listener the request came to (`address:port`) and the request path without the query. */
  host: string;
  path: string;
  /** This request's number on its host (1-based), and how many were in flight on the host with it. */
  seq: number;
  inFlight: number;
}

export interface Recorded {
  host: string;
  method: string;
  path: string;
  userAgent: string | null;
  sessionId: string | null;
  protocolVersion: string | null;
  /** JSON-RPC method of a POST body, when there is one. */
  rpc: string | null;
}

export interface Counter {
  requests: number;
  inFlight: number;
  peak: number;
}

export interface CountingHost {
  /** `address:port`, the collector's host key. */
  host: string;
  origin: string;
  connections: number;
  /**
   * Live counts: a request is in flight from its arrival until its response ends or its connection
   * closes. A request the client abandoned (its timeout) ends here only when this process sees the
   * socket close, which can come after the client's next request arrived: these peaks may count an
   * abandoned request beside its successor. `peaks()` tells the two apart.
   */
  counts: Counter;
  endpoints: Map<string, Counter>;
  mount(path: string, respond: Responder): void;
  /** With `spans`: the peaks over answered requests only, and over all requests (per host, and the highest per endpoint). */
  peaks(): { answered: number; all: number; endpointAnswered: number; endpointAll: number };
}

export interface CountingHosts {
  hosts: CountingHost[];
  /** Every request, in arrival order (empty unless `record`). */
  log: Recorded[];
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;

/**
 * One listener per address, all on one port (a port free on the first address, or `port`): distinct
 * URL hosts cost one socket each and no ephemeral ports. Unknown paths answer 404.
 */
export async function startCountingHosts(addresses: readonly string[], opts: { port?: number; record?: boolean; spans?: boolean } = {}): Promise<CountingHosts> {
  const log: Recorded[] = [];
  const servers: Server[] = [];
  const hosts: CountingHost[] = [];
  let port = opts.port ?? 0;
  for (const address of addresses) {
    const responders = new Map<string, Responder>();
    // start, end, answered (1/0), endpoint number: one span per request, kept only with `spans`.
    const spans: number[] = [];
    const endpointNo = new Map<string, number>();
    const host: CountingHost = {
      host: '',
      origin: '',
      connections: 0,
      counts: { requests: 0, inFlight: 0, peak: 0 },
      endpoints: new Map(),
      mount: (path, respond) => {
        responders.set(path, respond);
        host.endpoints.set(path, { requests: 0, inFlight: 0, peak: 0 });
        endpointNo.set(path, endpointNo.size);
      },
      peaks: () => peaksOf(spans),
    };
    const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      const e = host.endpoints.get(path);
      const counters = e ? [host.counts, e] : [host.counts];
      for (const c of counters) {
        c.requests++;
        c.peak = Math.max(c.peak, ++c.inFlight);
      }
      let open = true;
      const start = opts.spans ? performance.now() : 0;
      res.on('close', () => {
        if (!open) return;
        open = false;
        for (const c of counters) c.inFlight--;
        if (opts.spans) spans.push(start, performance.now(), res.writableFinished ? 1 : 0, endpointNo.get(path) ?? -1);
      });
      const at: RequestContext = { host: host.host, path, seq: host.counts.requests, inFlight: host.counts.inFlight };
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY) chunks.push(c);
      });
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (opts.record) log.push(recordOf(host.host, req, path, body));
        const respond = responders.get(path);
        if (!respond) res.writeHead(404, { 'content-type': 'text/plain' }).end('no such endpoint');
        else respond(req, res, body, at);
      });
    });
    server.on('connection', () => host.connections++);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as AddressInfo).port;
    host.host = `${address}:${port}`;
    host.origin = `http://${host.host}`;
    servers.push(server);
    hosts.push(host);
  }
  return {
    hosts,
    log,
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              s.close(() => r());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}

/** Sweep of [start, end] spans (ends before starts at a tie): the highest overlap, all and answered-only. */
function peaksOf(spans: number[]): { answered: number; all: number; endpointAnswered: number; endpointAll: number } {
  const sweep = (idx: number[], answeredOnly: boolean) => {
    const ev: [number, number][] = [];
    for (const i of idx) if (!answeredOnly || spans[i + 2] === 1) ev.push([spans[i]!, 1], [spans[i + 1]!, -1]);
    ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let n = 0;
    let peak = 0;
    for (const [, d] of ev) peak = Math.max(peak, (n += d));
    return peak;
  };
  const all: number[] = [];
  const byEndpoint = new Map<number, number[]>();
  for (let i = 0; i < spans.length; i += 4) {
    all.push(i);
    const list = byEndpoint.get(spans[i + 3]!);
    if (list) list.push(i);
    else byEndpoint.set(spans[i + 3]!, [i]);
  }
  let endpointAll = 0;
  let endpointAnswered = 0;
  for (const idx of byEndpoint.values()) {
    if (idx.length < 2) {
      endpointAll = Math.max(endpointAll, idx.length);
      endpointAnswered = Math.max(endpointAnswered, idx.filter((i) => spans[i + 2] === 1).length);
      continue;
    }
    endpointAll = Math.max(endpointAll, sweep(idx, false));
    endpointAnswered = Math.max(endpointAnswered, sweep(idx, true));
  }
  return { all: sweep(all, false), answered: sweep(all, true), endpointAll, endpointAnswered };
}

export interface McpPlan {
  tools: unknown[];
  /** Issue an Mcp-Session-Id on initialize (and require it on tools/list). */
  stateful?: boolean;
  /** protocolVersion answered in initialize (default 2024-11-05, what the v1 probe offers). */
  protocolVersion?: string;
  /** Delay before each answer, ms (default 0). */
  delayMs?: (rpc: string | null) => number;
}

/** A minimal MCP endpoint over JSON answers: what the v1 probe asks, answered as the SDK would. */
export function mcpResponder(plan: McpPlan): Responder {
  const sessions = new Set<string>();
  let next = 0;
  return (req, res, body) => {
    const msg = parse(body);
    const rpc = typeof msg?.method === 'string' ? msg.method : null;
    const answer = () => {
      if (req.method === 'DELETE') {
        const id = header(req, 'mcp-session-id');
        if (id !== null) sessions.delete(id);
        res.writeHead(id !== null ? 200 : 400).end();
        return;
      }
      if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
      if (rpc === 'initialize') {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (plan.stateful) {
          const id = `s-${++next}-${Math.random().toString(36).slice(2)}`;
          sessions.add(id);
          headers['mcp-session-id'] = id;
        }
        res.writeHead(200, headers);
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg!.id, result: { protocolVersion: plan.protocolVersion ?? '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'counting-host', version: '1.0.0' } } }));
      } else if (rpc === 'notifications/initialized') {
        res.writeHead(202).end();
      } else if (rpc === 'tools/list') {
        if (plan.stateful && !sessions.has(header(req, 'mcp-session-id') ?? '')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg!.id, error: { code: -32001, message: 'Session not found' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg!.id, result: { tools: plan.tools } }));
      } else {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg?.id ?? null, error: { code: -32601, message: 'Method not found' } }));
      }
    };
    const delay = plan.delayMs?.(req.method === 'DELETE' ? 'DELETE' : rpc) ?? 0;
    if (delay > 0) {
      const t = setTimeout(answer, delay);
      res.on('close', () => clearTimeout(t));
    } else answer();
  };
}

/** Never answers (the connection stays open until the client gives up). */
export const hang: Responder = () => {};

/** Answers every request with this status and headers (e.g. 429 with Retry-After). */
export function statusResponder(status: number, headers: Record<string, string> = {}, text = ''): Responder {
  return (_req, res) => void res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(text);
}

function recordOf(host: string, req: IncomingMessage, path: string, body: Buffer): Recorded {
  const msg = parse(body);
  return {
    host,
    method: req.method ?? '',
    path,
    userAgent: header(req, 'user-agent'),
    sessionId: header(req, 'mcp-session-id'),
    protocolVersion: header(req, 'mcp-protocol-version'),
    rpc: typeof msg?.method === 'string' ? msg.method : null,
  };
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

function parse(body: Buffer): { method?: unknown; id?: unknown } | null {
  if (body.length === 0) return null;
  try {
    const j = JSON.parse(body.toString('utf8')) as unknown;
    return j && typeof j === 'object' && !Array.isArray(j) ? (j as { method?: unknown; id?: unknown }) : null;
  } catch {
    return null;
  }
}
