// The v2 probe's requests (methodology v2, "Probe" and "Courtesy"): every request of one probe goes
// through a Wire, which counts it against the per-endpoint budget (8; further tools/list pages and
// redirect hops are not counted, and are bounded on their own), reads its answer with the same caps and
// the same JSON/SSE rule as v1 (read-answer.ts), classifies a failure with v1's classify() so the row
// keeps a comparable error class, and remembers what the status table needs: which protocol requests
// got an HTTP answer, their statuses, and whether the server asked us to back off.
import { isObject, V2_REQUEST_BUDGET, type ProbeStep, type ProbeStepV2 } from '../../src/lib/index.ts';
import { classify, type ProbeError, type RpcError } from '../errors.ts';
import { header, readCapped, send, type Answer, type HttpContext, type Trace } from '../http.ts';
import { readAnswer, type ReadResult } from '../read-answer.ts';
import { USER_AGENT } from '../version.ts';

export interface ProbeV2Limits {
  /** Overall deadline per request (redirects included), ms. */
  timeoutMs: number;
  maxRedirects: number;
  /** One tools/list page body (the artifact). */
  toolsCap: number;
  /** All tools/list pages of one probe together. */
  pagesTotalCap: number;
  /** Handshake, canary and error bodies. */
  smallCap: number;
  /** A protected-resource metadata document (RFC 9728). */
  metadataCap: number;
  maxSseEvents: number;
  sseGraceMs: number;
  /** The HTTP+SSE detect's overall deadline (the study's 5 s). */
  sseDetectMs: number;
  /** tools/list bounds: pages read, tools gathered. */
  maxPages: number;
  maxTools: number;
  /** Requests per endpoint per run (pages after the first and redirect hops not counted). */
  budget: number;
}

export const DEFAULT_PROBE_V2_LIMITS: Omit<ProbeV2Limits, 'timeoutMs'> = {
  maxRedirects: 3,
  toolsCap: 8 * 1024 * 1024,
  pagesTotalCap: 32 * 1024 * 1024,
  smallCap: 1024 * 1024,
  metadataCap: 64 * 1024,
  maxSseEvents: 1000,
  sseGraceMs: 1000,
  sseDetectMs: 5000,
  maxPages: 50,
  maxTools: 5000,
  budget: V2_REQUEST_BUDGET,
};

/** What a request was, for the log (tests and the courtesy numbers read it). */
export type RequestKind =
  | 'discover'
  | 'initialize'
  | 'initialized'
  | 'tools/list'
  | 'tools/list page'
  | 'tools/call canary'
  | 'delete session'
  | 'sse detect'
  | 'metadata';

export interface LoggedRequest {
  kind: RequestKind;
  method: 'POST' | 'GET' | 'DELETE';
  url: string;
  /** Counted against the budget (false: a further tools/list page). */
  counted: boolean;
  /** HTTP status of the answer (after redirects), or null when none arrived. */
  status: number | null;
  /** Redirect hops followed. */
  redirects: number;
}

/** One POST of the protocol and what came back. */
export interface Exchange {
  step: ProbeStepV2;
  /** HTTP status of the final answer; null when no HTTP answer arrived (DNS, connect, TLS, timeout, refusal). */
  status: number | null;
  headers: Answer['headers'];
  /** The URL that answered (after redirects), or null when it did not. */
  url: string | null;
  redirects: number;
  /** The body as read (2xx: up to the answer; otherwise truncated at the small cap), or null. */
  read: ReadResult | null;
  /** The JSON-RPC message of the body (the SSE event with our id, or the whole JSON body), if any. */
  message: unknown;
  /** The JSON-RPC `result` object when the answer is a 2xx result for our id. */
  result: Record<string, unknown> | null;
  /** The JSON-RPC error the body carries (our id or null), whatever the HTTP status. */
  rpc: (RpcError & { data: unknown }) | null;
  /** The v1-classified failure of this step (step `address` for refusals); null for a result. */
  error: ProbeError | null;
  /**
   * The server answered in HTTP: false when the exchange failed below HTTP — DNS, connect, TLS, a
   * refused address, or a timeout (even one after the headers: an event stream that never brings the
   * answer is no answer; the study's "failed below HTTP (DNS, connect, TLS, timeout)").
   */
  answered: boolean;
}

/** A request not sent because the budget was spent. */
export const NOT_SENT = Symbol('not sent');

/** v1's classifier knows v1's steps; each v2 step maps onto the one it plays the part of. */
const V1_STEP: Record<ProbeStepV2, ProbeStep> = {
  roster: 'roster',
  address: 'address',
  discover: 'initialize',
  initialize: 'initialize',
  initialized: 'initialized',
  'tools/list': 'tools/list',
  sse: 'initialize',
};

export class Wire {
  readonly log: LoggedRequest[] = [];
  /** Statuses of the protocol POSTs (discover, initialize, initialized, tools/list) — what the status table reads. */
  readonly protocolStatuses: number[] = [];
  /** A protocol POST got an HTTP answer (see Exchange.answered). */
  answered = false;
  /** The first 429 or 503 (the scheduler's back-off signal); the probe stops there. */
  throttled: { status: number; retryAfter: string | null } | null = null;
  #spent = 0;

  constructor(
    readonly ctx: HttpContext,
    readonly limits: ProbeV2Limits,
  ) {}

  get spent(): number {
    return this.#spent;
  }
  get left(): number {
    return this.limits.budget - this.#spent;
  }

  /** Base headers of every POST: both media types (or SDK servers answer 406), and who we are. */
  static base(): Record<string, string> {
    return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'user-agent': USER_AGENT };
  }

  /**
   * POST one JSON-RPC message and read the answer. `id` null for a notification. Returns NOT_SENT when
   * the budget is spent (`counted` false: a further tools/list page, bounded by maxPages instead).
   */
  async post(
    kind: RequestKind,
    step: ProbeStepV2,
    url: string,
    body: string,
    headers: Record<string, string>,
    id: number | null,
    cap: number,
    opts: { counted?: boolean; protocol?: boolean; sessionIssued?: boolean } = {},
  ): Promise<Exchange | typeof NOT_SENT> {
    const counted = opts.counted ?? true;
    if (counted && !this.#take()) return NOT_SENT;
    const trace: Trace = { finalUrl: null, redirects: 0 };
    const entry: LoggedRequest = { kind, method: 'POST', url, counted, status: null, redirects: 0 };
    this.log.push(entry);
    let status: number | null = null;
    let headersOut: Answer['headers'] = {};
    let answeredAt: string | null = null;
    let read: ReadResult | null = null;
    let thrown: unknown = null;
    try {
      await send(this.ctx, url, { method: 'POST', headers, body, timeoutMs: this.limits.timeoutMs, maxRedirects: this.limits.maxRedirects }, trace, async (a) => {
        status = a.status;
        headersOut = a.headers;
        answeredAt = a.url;
        if (a.status >= 200 && a.status < 300 && id !== null) {
          read = await readAnswer(a, id, { cap, maxEvents: this.limits.maxSseEvents, graceMs: this.limits.sseGraceMs });
        } else {
          // Error bodies (and notification answers) are read, truncated, only for the JSON-RPC error they may carry.
          const raw = await readCapped(a.body, this.limits.smallCap, 'error body', true).catch(() => Buffer.alloc(0));
          read = { raw, contentType: header(a.headers, 'content-type'), message: parseJson(raw), note: null };
        }
      });
    } catch (error) {
      thrown = error;
    }
    entry.status = status;
    entry.redirects = trace.redirects;
    if (status !== null && (opts.protocol ?? true)) this.protocolStatuses.push(status);
    if ((status === 429 || status === 503) && !this.throttled) this.throttled = { status, retryAfter: header(headersOut, 'retry-after') };
    const x: Exchange = { step, status, headers: headersOut, url: answeredAt, redirects: trace.redirects, read, message: (read as ReadResult | null)?.message, result: null, rpc: null, error: null, answered: true };
    const v1Step = V1_STEP[step];
    x.rpc = rpcErrorOf(x.message, id);
    if (thrown !== null) {
      x.error = classify({ kind: 'thrown', step: v1Step, error: thrown });
      if (x.error.payload.step === 'address') x.step = 'address';
      x.answered = x.error.errorClass !== 'timeout' && x.error.errorClass !== 'tls';
    }
    if (x.answered && (opts.protocol ?? true)) this.answered = true;
    if (thrown !== null) return x;
    if (status === null) throw new Error('send returned without an answer');
    const s: number = status;
    if (s < 200 || s >= 300) {
      x.error = classify({
        kind: 'status',
        step: v1Step,
        status: s,
        wwwAuthenticate: wwwAuthenticate(headersOut),
        retryAfter: header(headersOut, 'retry-after'),
        rpc: x.rpc ? { code: x.rpc.code, message: x.rpc.message } : null,
        sessionIssued: opts.sessionIssued ?? false,
      });
      return x;
    }
    if (id === null) return x; // a notification: 2xx is all there is to it
    const msg = x.message;
    const got = read as ReadResult | null;
    if (!isObject(msg) || msg.id !== id || (!('result' in msg) && !('error' in msg))) {
      const why = got?.note ?? (isObject(msg) ? `json is not the json-rpc answer with id ${id}` : 'body is not a json-rpc message');
      x.error = classify({ kind: 'not-jsonrpc', step: v1Step, status: s, detail: why });
      return x;
    }
    if (x.rpc) {
      x.error = classify({ kind: 'rpc-error', step: v1Step, status: s, rpc: { code: x.rpc.code, message: x.rpc.message } });
      return x;
    }
    if (!isObject(msg.result)) {
      x.error = classify({ kind: 'not-jsonrpc', step: v1Step, status: s, detail: 'json-rpc result is not an object' });
      return x;
    }
    x.result = msg.result;
    return x;
  }

  /**
   * GET (RFC 9728 metadata, the HTTP+SSE detect) under `timeoutMs` overall, redirects followed and
   * each hop address-checked (send()). `read` consumes the answer; a throw is returned as `error`.
   */
  async get<T>(kind: RequestKind, url: string, accept: string, timeoutMs: number, read: (a: Answer) => Promise<T>): Promise<{ status: number | null; url: string | null; value: T | null; error: unknown } | typeof NOT_SENT> {
    if (!this.#take()) return NOT_SENT;
    const trace: Trace = { finalUrl: null, redirects: 0 };
    const entry: LoggedRequest = { kind, method: 'GET', url, counted: true, status: null, redirects: 0 };
    this.log.push(entry);
    let status: number | null = null;
    let answeredAt: string | null = null;
    try {
      const value = await send(this.ctx, url, { method: 'GET', headers: { accept, 'user-agent': USER_AGENT }, timeoutMs, maxRedirects: this.limits.maxRedirects }, trace, (a) => {
        status = a.status;
        answeredAt = a.url;
        return read(a);
      });
      return { status, url: answeredAt, value, error: null };
    } catch (error) {
      return { status, url: answeredAt, value: null, error };
    } finally {
      entry.status = status;
      entry.redirects = trace.redirects;
    }
  }

  /** DELETE the session (politeness, not methodology: the answer is ignored; no redirects, 5 s at most). */
  async deleteSession(url: string, headers: Record<string, string>): Promise<void> {
    if (!this.#take()) return;
    const entry: LoggedRequest = { kind: 'delete session', method: 'DELETE', url, counted: true, status: null, redirects: 0 };
    this.log.push(entry);
    await send(this.ctx, url, { method: 'DELETE', headers, timeoutMs: Math.min(this.limits.timeoutMs, 5_000), maxRedirects: 0 }, { finalUrl: null, redirects: 0 }, async (a) => {
      entry.status = a.status;
      await a.body.dump({ limit: 64 * 1024 });
    }).catch(() => undefined);
  }

  #take(): boolean {
    if (this.#spent >= this.limits.budget) return false;
    this.#spent++;
    return true;
  }
}

/** Every WWW-Authenticate line of an answer, joined as RFC 9110 §5.3 combines field lines. */
export function wwwAuthenticate(h: Answer['headers']): string | null {
  const v = h['www-authenticate'];
  if (Array.isArray(v)) return v.length ? v.join(', ') : null;
  return v ?? null;
}

/** The JSON-RPC error a message carries for request `id` (or for an unreadable id: null/absent). */
function rpcErrorOf(msg: unknown, id: number | null): (RpcError & { data: unknown }) | null {
  if (!isObject(msg) || !isObject(msg.error)) return null;
  if (msg.id !== id && msg.id !== null && msg.id !== undefined) return null;
  const code = msg.error.code;
  return { code: typeof code === 'number' && Number.isInteger(code) ? code : null, message: String(msg.error.message ?? '').slice(0, 200), data: msg.error.data };
}

export function parseJson(raw: Buffer): unknown {
  try {
    return raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}
