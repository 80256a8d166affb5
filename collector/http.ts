// HTTP for the probe: one request with its redirects under one overall deadline, body caps, and the
// per-host gate (methodology v1, "Probe"; methodology v2 adds GET for RFC 9728 metadata and the HTTP+SSE
// detect). Which addresses may be contacted is decided by address-policy.ts; this module applies it on
// every hop (before sending, and through the connector), always: there is no unchecked mode.
import { Agent, Client, Pool, request, type Dispatcher } from 'undici';
import { guardedConnector, hostRefusal, refused, type AddressPolicy } from './address-policy.ts';
import { GUARD, GuardError } from './errors.ts';
import { HostGate } from './host-gate.ts';

export { HostGate } from './host-gate.ts';

export const MiB = 1024 * 1024;

export interface HttpContext {
  dispatcher: Dispatcher;
  policy: AddressPolicy;
  gate: HostGate;
}

export interface HttpContextOptions {
  timeoutMs: number;
  /** Which addresses may be contacted (default `public`). */
  policy?: AddressPolicy;
  /** The CLI's --allow-private: true means policy `public+loopback` (loopback only, never private or link-local). */
  allowPrivate?: boolean;
  /** Tests: hears of every connection attempt that passed the literal-address check (see guardedConnector). */
  onConnect?: (hostname: string, port: string) => void;
  /** Requests at a time per URL host (host-gate.ts; default one), and as many sockets per origin. */
  hostLimit?: (host: string) => number;
}

/** An undici Agent for endpoints whose connector refuses every address the policy refuses. */
export function createHttpContext(opts: HttpContextOptions): HttpContext {
  const policy: AddressPolicy = opts.policy ?? (opts.allowPrivate ? 'public+loopback' : 'public');
  const hostLimit = opts.hostLimit ?? (() => 1);
  const dispatcher = new Agent({
    // Our overall deadline is AbortSignal.timeout; these undici idle timers are only a backstop
    // (bodyTimeout is reset by every SSE keep-alive comment, so it alone never ends a stalled stream).
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 4_000,
    // As many sockets per origin as the gate lets requests through: one for most hosts. With more,
    // undici's pool opened a second socket whenever the next request of a probe arrived in the
    // event-loop turn it waits before reusing a socket (a TCP connect and its teardown, per host).
    connections: 1,
    factory: (origin: string | URL, o: object): Dispatcher => {
      const n = Math.max(1, hostLimit(new URL(origin).host));
      return n === 1 ? new Client(origin, o) : new Pool(origin, { ...o, connections: n });
    },
    connect: guardedConnector(opts.timeoutMs, policy, opts.onConnect),
  });
  return { dispatcher, policy, gate: new HostGate(hostLimit) };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  url: string;
}

export interface SendOptions {
  method: 'POST' | 'DELETE' | 'GET';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxRedirects: number;
}

/** Where a request (and its redirects) ended up; updated as hops happen, so failures keep it too. */
export interface Trace {
  finalUrl: string | null;
  redirects: number;
}

/**
 * One request with its redirects, under one overall deadline. For POST and DELETE only 307/308 are
 * followed (they keep method and body, RFC 9110 §15.4); 301/302/303 would turn our POST into a GET, so
 * they are reported (GuardError redirectNotFollowed → http_4xx). A GET (it has no body to lose) follows
 * all five. Cross-origin hops are followed — our requests carry no credentials — but lose
 * Mcp-Session-Id and MCP-Protocol-Version, which came from the first origin's answers. Each hop is
 * address-checked before it is sent (and again by the connector) and holds its host's and its
 * endpoint's gate while `read` consumes the body.
 */
export async function send<T>(ctx: HttpContext, url: string, opts: SendOptions, trace: Trace, read: (a: Answer) => Promise<T>): Promise<T> {
  let current = new URL(url);
  let headers = { ...opts.headers };
  let signal: AbortSignal | null = null;
  for (let hop = 0; ; hop++) {
    const why = hostRefusal(current, ctx.policy);
    if (why) throw refused(why);
    const target = current;
    // The gate of the hop's host and of its endpoint URL (host-gate.ts): one request at a time per endpoint.
    const outcome = await ctx.gate.run(target.host, async (): Promise<{ next: URL } | { value: T }> => {
      signal ??= AbortSignal.timeout(opts.timeoutMs);
      const res = await request(target, {
        method: opts.method,
        headers,
        body: opts.body,
        dispatcher: ctx.dispatcher,
        signal,
      });
      const location = res.headers.location;
      if ([301, 302, 303, 307, 308].includes(res.statusCode) && typeof location === 'string') {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
        if (opts.method !== 'GET' && res.statusCode !== 307 && res.statusCode !== 308) {
          throw new GuardError(GUARD.redirectNotFollowed, `redirect not followed: http ${res.statusCode} would turn our POST into a GET`, res.statusCode);
        }
        if (hop >= opts.maxRedirects) throw new GuardError(GUARD.redirectNotFollowed, `redirect not followed: more than ${opts.maxRedirects} redirects`, res.statusCode);
        let next: URL;
        try {
          next = new URL(location, target);
        } catch {
          throw new GuardError(GUARD.redirectNotFollowed, `redirect not followed: invalid location`, res.statusCode);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new GuardError(GUARD.redirectNotFollowed, `redirect not followed: location scheme ${next.protocol}`, res.statusCode);
        }
        return { next };
      }
      trace.finalUrl = hop > 0 ? target.href : trace.finalUrl;
      return { value: await read({ status: res.statusCode, headers: res.headers, body: res.body, url: target.href }) };
    }, `${target.origin}${target.pathname}${target.search}`);
    if ('value' in outcome) return outcome.value;
    trace.redirects++;
    trace.finalUrl = outcome.next.href;
    if (outcome.next.origin !== current.origin) {
      // What we learnt from this origin's answers stays with it: its session id, and the revision
      // negotiated with it (the other origin never answered our initialize).
      const { 'mcp-session-id': _session, 'mcp-protocol-version': _revision, ...rest } = headers;
      headers = rest;
    }
    current = outcome.next;
  }
}

/** Read a body into memory, refusing (or, with truncate, cutting) past `cap` bytes. */
export async function readCapped(body: AsyncIterable<Uint8Array> & { destroy(): void }, cap: number, what: string, truncate = false): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = asBuffer(chunk);
    if (size + buf.length > cap) {
      body.destroy();
      if (truncate) {
        chunks.push(buf.subarray(0, cap - size));
        break;
      }
      throw new GuardError(GUARD.overCap, `${what} over ${formatBytes(cap)} cap`);
    }
    size += buf.length;
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** A view of the chunk's bytes, not a copy (undici's body chunks are already Buffers). */
export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

export function formatBytes(n: number): string {
  return n % MiB === 0 ? `${n / MiB} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}

export function header(h: Answer['headers'], name: string): string | null {
  const v = h[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}
