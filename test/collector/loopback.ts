// A raw node:http server on 127.0.0.1 for one test, with a v2 probe Wire pointed at it: the
// misbehaviour the SDKs will not produce (odd cursors, stalled streams, bodies that are not JSON-RPC),
// played byte for byte. Started from inside each test (never a beforeAll: see docs/MUTATION.md,
// "Static mutants"), closed when the test's function settles.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpContext } from '../../collector/http.ts';
import { DEFAULT_PROBE_V2_LIMITS, type ProbeV2Limits } from '../../collector/probe-v2/index.ts';
import { Wire } from '../../collector/probe-v2/wire.ts';

export type Msg = { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown> };
/** One request: its parsed JSON body (undefined when none or not JSON), the request, the response. */
export type Handler = (msg: Msg | undefined, req: IncomingMessage, res: ServerResponse, body: Buffer) => unknown;

export const LIMITS: ProbeV2Limits = { ...DEFAULT_PROBE_V2_LIMITS, timeoutMs: 2_000, sseGraceMs: 50, sseDetectMs: 2_000 };

export interface Loopback {
  url: string;
  wire: Wire;
  /** What the server received, in order. */
  got: { method: string; headers: IncomingMessage['headers']; msg: Msg | undefined }[];
}

export async function withLoopback<T>(handler: Handler, limits: Partial<ProbeV2Limits>, fn: (l: Loopback) => Promise<T>): Promise<T> {
  const got: Loopback['got'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let msg: Msg | undefined;
      try {
        msg = body.length ? (JSON.parse(body.toString('utf8')) as Msg) : undefined;
      } catch {
        msg = undefined;
      }
      got.push({ method: req.method ?? '', headers: req.headers, msg });
      void Promise.resolve(handler(msg, req, res, body)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const all = { ...LIMITS, ...limits };
  // undici's own idle timers are only the backstop (http.ts); set past every test's deadline so the
  // deadline a test reads ('timeout', the detect's bound) is always the request's AbortSignal.
  const ctx = createHttpContext({ policy: 'public+loopback', timeoutMs: 60_000 });
  try {
    return await fn({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, wire: new Wire(ctx, all), got });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await ctx.dispatcher.destroy().catch(() => {});
  }
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
export const result = (msg: Msg | undefined, r: unknown) => ({ jsonrpc: '2.0', id: msg?.id ?? null, result: r });
export const rpcError = (msg: Msg | undefined, code: number, message: string) => ({ jsonrpc: '2.0', id: msg?.id ?? null, error: { code, message } });
