// Probe failures (methodology v1, "Error classes"; the mapping is written up in
// content/error-classes-v1.md). A failed target is data, not an exception: `classify` turns
// whatever went wrong — something undici or Node threw, an HTTP status, a JSON-RPC error, a body
// that is not JSON-RPC — into exactly one member of the ProbeError union, keeping the specifics
// (step, HTTP status, JSON-RPC code, WWW-Authenticate, Retry-After, a short detail) and the
// low-level error on `cause`. It is the ONE place the mapping lives, tested with a table.
import type { ErrorClass, ProbeStep } from '../src/lib/index.ts';

export interface ProbePayload {
  step: ProbeStep;
  detail: string;
  httpStatus: number | null;
  jsonrpcCode: number | null;
}

abstract class ProbeErrorBase<P extends ProbePayload = ProbePayload> extends Error {
  abstract readonly errorClass: Exclude<ErrorClass, 'no_endpoint'>;
  constructor(
    readonly payload: P,
    options?: { cause?: unknown },
  ) {
    super(payload.detail, options);
  }
}

/** The overall per-request deadline (or an undici timer) ran out. */
export class TimeoutError extends ProbeErrorBase {
  readonly errorClass = 'timeout' as const;
  override readonly name = 'TimeoutError';
}
/** DNS, connect or TLS failed — or we refused the address (step `address`). */
export class TlsError extends ProbeErrorBase {
  readonly errorClass = 'tls' as const;
  override readonly name = 'TlsError';
}
/** 400–499 except 401/403/429; also redirects we do not follow and JSON-RPC errors in a 2xx. */
export class Http4xxError extends ProbeErrorBase {
  readonly errorClass = 'http_4xx' as const;
  override readonly name = 'Http4xxError';
}
/** `retryAfter`: the Retry-After of a 5xx answer (a 503 may carry one): the schedule honours it; rows do not record it (v1). */
export class Http5xxError extends ProbeErrorBase<ProbePayload & { retryAfter?: string | null }> {
  readonly errorClass = 'http_5xx' as const;
  override readonly name = 'Http5xxError';
}
export class AuthError extends ProbeErrorBase<ProbePayload & { wwwAuthenticate: string | null }> {
  readonly errorClass = 'auth' as const;
  override readonly name = 'AuthError';
}
export class RateLimitedError extends ProbeErrorBase<ProbePayload & { retryAfter: string | null }> {
  readonly errorClass = 'rate_limited' as const;
  override readonly name = 'RateLimitedError';
}
/** The answer is not the JSON-RPC message we asked for (HTML, broken JSON, no matching id, over a cap). */
export class ParseError extends ProbeErrorBase {
  readonly errorClass = 'parse' as const;
  override readonly name = 'ParseError';
}

export type ProbeError = TimeoutError | TlsError | Http4xxError | Http5xxError | AuthError | RateLimitedError | ParseError;

export interface RpcError {
  code: number | null;
  message: string;
}

/** What went wrong, before classification. */
export type Failure =
  /** Something threw: undici, Node's net/tls/dns, or one of our guards (http.ts codes). */
  | { kind: 'thrown'; step: ProbeStep; error: unknown }
  /** A non-2xx answer (redirects that could be followed never get here). */
  | {
      kind: 'status';
      step: ProbeStep;
      status: number;
      wwwAuthenticate: string | null;
      retryAfter: string | null;
      /** JSON-RPC error carried in the body, when there was one. */
      rpc: RpcError | null;
      /** initialize issued an Mcp-Session-Id before this answer. */
      sessionIssued: boolean;
    }
  /** A 2xx answer carrying a JSON-RPC error object. */
  | { kind: 'rpc-error'; step: ProbeStep; status: number; rpc: RpcError }
  /** A 2xx answer that is not the JSON-RPC response we asked for. */
  | { kind: 'not-jsonrpc'; step: ProbeStep; status: number | null; detail: string };

/** Codes of the guards in http.ts / read-answer.ts (thrown, then classified here). */
export const GUARD = {
  addressRefused: 'ERR_MCPS_ADDRESS_REFUSED',
  redirectNotFollowed: 'ERR_MCPS_REDIRECT_NOT_FOLLOWED',
  overCap: 'ERR_MCPS_OVER_CAP',
} as const;

/** A guard's error: a plain Error with one of the GUARD codes (and the 3xx status for redirects). */
export class GuardError extends Error {
  override readonly name = 'GuardError';
  constructor(
    readonly code: (typeof GUARD)[keyof typeof GUARD],
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** JSON-RPC codes a modern-only (2026-07-28) server answers our initialize with. */
const MODERN_ONLY_CODES = new Set([-32020, -32021, -32022]);

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH',
  'EHOSTDOWN', 'EPIPE', 'EADDRNOTAVAIL', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'EPROTO', 'ERR_INVALID_IP_ADDRESS',
]);

/** The one mapping from a failure to the v1 error classes. */
export function classify(f: Failure): ProbeError {
  switch (f.kind) {
    case 'thrown':
      return fromThrown(f.step, f.error);
    case 'status':
      return fromStatus(f);
    case 'rpc-error': {
      const p = { step: f.step, httpStatus: f.status, jsonrpcCode: f.rpc.code, detail: oneLine(`json-rpc error ${f.rpc.code}: ${f.rpc.message}`) };
      // -32603 is JSON-RPC's "Internal error": the server failed, nearest to a 5xx. Every other code
      // (method not found, invalid params, server-defined refusals) is the server refusing our request.
      return f.rpc.code === -32603 ? new Http5xxError(p) : new Http4xxError(p);
    }
    case 'not-jsonrpc':
      return new ParseError({ step: f.step, httpStatus: f.status, jsonrpcCode: null, detail: oneLine(f.detail) });
    default: {
      const never: never = f;
      throw new Error(`unknown failure ${JSON.stringify(never)}`);
    }
  }
}

function fromStatus(f: Extract<Failure, { kind: 'status' }>): ProbeError {
  const base = { step: f.step, httpStatus: f.status, jsonrpcCode: f.rpc?.code ?? null };
  const rpcText = f.rpc ? `; json-rpc ${f.rpc.code}: ${f.rpc.message}` : '';
  if (f.status === 401 || f.status === 403) {
    return new AuthError({ ...base, wwwAuthenticate: f.wwwAuthenticate, detail: oneLine(`http ${f.status}${f.wwwAuthenticate ? ' with www-authenticate' : ''}${rpcText}`) });
  }
  if (f.status === 429) return new RateLimitedError({ ...base, retryAfter: f.retryAfter, detail: oneLine(`http 429${rpcText}`) });
  if (f.status >= 500 && f.status <= 599) return new Http5xxError({ ...base, retryAfter: f.retryAfter, detail: oneLine(`http ${f.status}${rpcText}`) });
  if (f.status >= 400 && f.status <= 499) {
    if (f.status === 404 && f.sessionIssued && f.step === 'tools/list') {
      return new Http4xxError({ ...base, detail: oneLine(`session lost: 404 on tools/list after initialize issued a session${rpcText}`) });
    }
    if (f.rpc?.code != null && MODERN_ONLY_CODES.has(f.rpc.code)) {
      return new Http4xxError({ ...base, detail: oneLine(`modern-only server (no initialize): http ${f.status}${rpcText}`) });
    }
    return new Http4xxError({ ...base, detail: oneLine(`http ${f.status}${rpcText}`) });
  }
  if (f.status >= 300 && f.status <= 399) {
    // A 3xx that reached here had no usable Location (followable redirects are followed in http.ts).
    return new Http4xxError({ ...base, detail: oneLine(`redirect not followed: http ${f.status} without a usable location`) });
  }
  return new ParseError({ ...base, detail: oneLine(`unexpected http status ${f.status}`) });
}

function fromThrown(step: ProbeStep, error: unknown): ProbeError {
  for (const e of causes(error)) {
    const code = typeof e.code === 'string' ? e.code : '';
    const name = typeof e.name === 'string' ? e.name : '';
    const msg = typeof e.message === 'string' ? e.message : '';
    const base = { httpStatus: null, jsonrpcCode: null };
    if (code === GUARD.addressRefused) return new TlsError({ ...base, step: 'address', detail: oneLine(msg) }, { cause: error });
    if (code === GUARD.redirectNotFollowed) {
      return new Http4xxError({ ...base, step, httpStatus: typeof e.status === 'number' ? e.status : null, detail: oneLine(msg) }, { cause: error });
    }
    if (code === GUARD.overCap) return new ParseError({ ...base, step, detail: oneLine(msg) }, { cause: error });
    if (name === 'TimeoutError' || name === 'AbortError' || TIMEOUT_CODES.has(code)) {
      return new TimeoutError({ ...base, step, detail: oneLine(code && TIMEOUT_CODES.has(code) ? `timeout (${code})` : 'overall request deadline reached') }, { cause: error });
    }
    if (/^(ERR_TLS_|ERR_SSL_|CERT_|ERR_OSSL_)/.test(code) || /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) {
      return new TlsError({ ...base, step, detail: oneLine(`tls handshake failed: ${code}`) }, { cause: error });
    }
    if (NETWORK_CODES.has(code)) return new TlsError({ ...base, step, detail: oneLine(`connection failed: ${code}`) }, { cause: error });
    if (code.startsWith('HPE_')) return new ParseError({ ...base, step, detail: oneLine(`not valid http: ${code}`) }, { cause: error });
  }
  // Nothing recognisable: it happened below HTTP (we never got an answer), so the nearest class is tls.
  const e = error as { name?: unknown; message?: unknown };
  return new TlsError({ step, httpStatus: null, jsonrpcCode: null, detail: oneLine(`unexpected failure: ${String(e?.name ?? '')}: ${String(e?.message ?? error)}`) }, { cause: error });
}

/** The error and its `cause` chain (bounded: causes can be cyclic). */
function* causes(error: unknown): Generator<{ code?: unknown; name?: unknown; message?: unknown; status?: unknown }> {
  let e: unknown = error;
  for (let i = 0; i < 8 && e && typeof e === 'object'; i++) {
    yield e as never;
    e = (e as { cause?: unknown }).cause;
  }
}

/** Short, single-line detail text; registry- and server-supplied text is truncated. */
export function oneLine(s: string, max = 300): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
