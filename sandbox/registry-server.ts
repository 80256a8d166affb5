// A local registry that speaks the official MCP registry list API (GET /v0.1/servers), for tests,
// the demo world and benchmarks. Behaviour follows the real service as recorded in
// fixtures/registry/spec/openapi.yaml and checked against the live API:
//   - limit: default 30, 1..100, anything else answers 422 (no clamping);
//   - order: server name, then version, both as byte strings (versions sort as strings, so 1.10.0 < 1.9.0);
//   - cursor: opaque to clients, in practice "<name>:<version>" of the last item of the previous page;
//     a garbage cursor silently skips to whatever sorts after it;
//   - a full last page still carries nextCursor; the following page is {"servers":[],"metadata":{"count":0}};
//   - every version is listed by default, version=latest keeps isLatest rows only;
//   - deleted rows are hidden unless include_deleted=true or updated_since is given;
//   - 429 with Retry-After when the test asks for it (throttle());
//   - optionally, the real service's rate limit (rateLimit: at most N list requests in any window, then
//     429 with or without Retry-After) and its page latency (latencyMs), both in a test's own time scale.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OFFICIAL_META } from '../src/lib/index.ts';

export { OFFICIAL_META };

export interface RegistryEntry {
  server: { name: string; version: string; [k: string]: unknown };
  _meta?: { [OFFICIAL_META]?: { status?: string; isLatest?: boolean; publishedAt?: string; updatedAt?: string; [k: string]: unknown }; [k: string]: unknown };
}

export interface RegistryOptions {
  /** The listing; a function is called on every request so a world can change it between days. */
  entries: RegistryEntry[] | (() => RegistryEntry[]);
  port?: number;
  host?: string;
  /** Extra routes (e.g. a world's control endpoint): return true when the request was answered. */
  control?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;
  /** Delay before each list answer (not before a rate limit's 429), ms: a number or drawn per request. */
  latencyMs?: number | (() => number);
  /**
   * A rate limit as the real service's ("about 180 requests a minute per client"): at most `requests`
   * list requests admitted in any `windowMs` (a sliding window; the sandbox has one client, so it is
   * not keyed by address); beyond that 429, with `Retry-After` in seconds until a request leaves the
   * window (rounded up) or, with retryAfter false, without one. Refused requests do not count.
   */
  rateLimit?: { requests: number; windowMs: number; retryAfter: boolean };
  /** The listing is already in API order: skip the per-request check (it costs O(rows), ~30 ms at 115,000). */
  sorted?: boolean;
}

export interface RegistryServer {
  /** Base URL of the list endpoint, e.g. http://127.0.0.1:PORT/v0.1/servers */
  url: string;
  origin: string;
  /** Requests answered so far (any status). */
  readonly requests: number;
  /** 429s the rate limit (rateLimit) answered so far; throttle()'s are not counted. */
  readonly rateLimited: number;
  /** The next `count` list requests answer 429 with `Retry-After: retryAfter` (seconds). */
  throttle(count: number, retryAfter?: string): void;
  /** The next `count` list requests answer this status with a short body (e.g. 500, 503). */
  failNext(count: number, status: number): void;
  /** Every list request asking with this cursor answers this status (null: stop); several chains in flight cannot take each other's failure. */
  failCursor(cursor: string | null, status: number): void;
  close(): Promise<void>;
}

const HIGH = /[\ud800-\uffff]/;

/** Byte-wise (UTF-8) comparison, as the registry's C-collation ORDER BY. UTF-16 code-unit order agrees
 * with it unless a surrogate meets a character in U+E000..U+FFFF, so bytes are compared only then. */
function cmp(a: string, b: string): number {
  if (a === b) return 0;
  if (!HIGH.test(a) && !HIGH.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function compareEntries(a: RegistryEntry, b: RegistryEntry): number {
  return cmp(a.server.name, b.server.name) || cmp(a.server.version, b.server.version);
}

function meta(e: RegistryEntry) {
  return e._meta?.[OFFICIAL_META] ?? {};
}

function isSorted(all: RegistryEntry[]): boolean {
  for (let i = 1; i < all.length; i++) if (compareEntries(all[i - 1]!, all[i]!) > 0) return false;
  return true;
}

export function listPage(all: RegistryEntry[], params: URLSearchParams, opts: { sorted?: boolean } = {}): { status: number; body: unknown } {
  const rawLimit = params.get('limit');
  const limit = rawLimit === null ? 30 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    return {
      status: 422,
      body: { title: 'Unprocessable Entity', status: 422, detail: 'validation failed', errors: [{ message: 'expected number <= 100', location: 'query.limit', value: rawLimit }] },
    };
  }
  const updatedSince = params.get('updated_since');
  const sinceMs = updatedSince === null ? null : Date.parse(updatedSince);
  if (updatedSince !== null && Number.isNaN(sinceMs)) {
    return { status: 422, body: { title: 'Unprocessable Entity', status: 422, detail: 'invalid updated_since' } };
  }
  const includeDeleted = params.get('include_deleted') === 'true' || sinceMs !== null;
  const latestOnly = params.get('version') === 'latest';
  const keep = (e: RegistryEntry) => {
    const m = meta(e);
    if (!includeDeleted && m.status === 'deleted') return false;
    if (latestOnly && m.isLatest !== true) return false;
    if (sinceMs !== null && !(Date.parse(String(m.updatedAt ?? '')) >= sinceMs)) return false;
    return true;
  };
  // A listing that is already in order (the world's) is used as it is; anything else is sorted.
  const sorted = opts.sorted || isSorted(all) ? all : all.slice().sort(compareEntries);
  const cursor = params.get('cursor');
  let start = 0;
  if (cursor) {
    // The real service splits at the first ':' (names never contain one; versions may contain '+').
    const i = cursor.indexOf(':');
    const name = i < 0 ? cursor : cursor.slice(0, i);
    const version = i < 0 ? '' : cursor.slice(i + 1);
    // First row sorting strictly after (name, version): binary search over the sorted rows.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = sorted[mid]!;
      if ((cmp(e.server.name, name) || cmp(e.server.version, version)) <= 0) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const page: RegistryEntry[] = [];
  for (let k = start; k < sorted.length && page.length < limit; k++) {
    const e = sorted[k]!;
    if (keep(e)) page.push(e);
  }
  const last = page[page.length - 1];
  const metadata: Record<string, unknown> = { count: page.length };
  if (page.length === limit && last) metadata.nextCursor = `${last.server.name}:${last.server.version}`;
  return { status: 200, body: { servers: page, metadata } };
}

export async function startRegistry(opts: RegistryOptions): Promise<RegistryServer> {
  let requests = 0;
  let throttled = 0;
  let retryAfter = '1';
  let failing = 0;
  let failStatus = 500;
  let failingCursor: { cursor: string; status: number } | null = null;
  const entries = typeof opts.entries === 'function' ? opts.entries : () => opts.entries as RegistryEntry[];
  let rateLimited = 0;
  /** Admission times of the rate limit's window, oldest first (from `head`). */
  const admitted: number[] = [];
  let head = 0;
  const limit = opts.rateLimit;
  /** null: admitted; otherwise ms until a request leaves the window. */
  const admit = (): number | null => {
    if (!limit) return null;
    const now = performance.now();
    while (head < admitted.length && admitted[head]! <= now - limit.windowMs) head++;
    if (head > 4096) {
      admitted.splice(0, head);
      head = 0;
    }
    if (admitted.length - head >= limit.requests) return admitted[head]! + limit.windowMs - now;
    admitted.push(now);
    return null;
  };
  const latency = typeof opts.latencyMs === 'function' ? opts.latencyMs : () => (opts.latencyMs as number | undefined) ?? 0;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://registry.local');
    if (opts.control?.(req, res, url)) return;
    requests++;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'application/problem+json', ...headers });
      res.end(text);
    };
    if (req.method !== 'GET' || url.pathname.replace(/\/$/, '') !== '/v0.1/servers') {
      return send(404, { title: 'Not Found', status: 404, detail: 'no such route' });
    }
    const wait = admit();
    if (wait !== null) {
      rateLimited++;
      return send(429, { title: 'Too Many Requests', status: 429 }, limit!.retryAfter ? { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) } : {});
    }
    if (throttled > 0) {
      throttled--;
      return send(429, { title: 'Too Many Requests', status: 429 }, { 'retry-after': retryAfter });
    }
    const byCursor = failingCursor !== null && url.searchParams.get('cursor') === failingCursor.cursor ? failingCursor.status : null;
    const fail = byCursor ?? (failing > 0 ? failStatus : null);
    if (fail !== null && byCursor === null) failing--;
    const answer = () => {
      if (fail !== null) return send(fail, { title: 'error', status: fail });
      const { status, body } = listPage(entries(), url.searchParams, { sorted: opts.sorted });
      send(status, body);
    };
    const delay = latency();
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v0.1/servers`,
    origin,
    get requests() {
      return requests;
    },
    get rateLimited() {
      return rateLimited;
    },
    throttle(count, after = '1') {
      throttled = count;
      retryAfter = after;
    },
    failNext(count, status) {
      failing = count;
      failStatus = status;
    },
    failCursor(cursor, status) {
      failingCursor = cursor === null ? null : { cursor, status };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
