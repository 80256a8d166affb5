import { describe, expect, it } from 'vitest';
import { classify, GUARD, GuardError, type Failure } from '../../collector/errors.ts';

const err = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classify(failure)', () => {
  // One table: raw failure → v1 class (+ step, status, code). The mapping is content/error-classes-v1.md.
  const table: Array<[string, Failure, string, Record<string, unknown>]> = [
    ['AbortSignal.timeout fired', { kind: 'thrown', step: 'initialize', error: new DOMException('The operation was aborted due to timeout', 'TimeoutError') }, 'timeout', {}],
    ['undici headers timeout', { kind: 'thrown', step: 'tools/list', error: err('UND_ERR_HEADERS_TIMEOUT') }, 'timeout', { step: 'tools/list' }],
    ['undici body timeout', { kind: 'thrown', step: 'tools/list', error: err('UND_ERR_BODY_TIMEOUT') }, 'timeout', {}],
    ['connection refused', { kind: 'thrown', step: 'initialize', error: err('ECONNREFUSED') }, 'tls', {}],
    ['dns failure', { kind: 'thrown', step: 'initialize', error: err('ENOTFOUND') }, 'tls', {}],
    ['socket reset', { kind: 'thrown', step: 'initialize', error: err('UND_ERR_SOCKET') }, 'tls', {}],
    ['self-signed certificate', { kind: 'thrown', step: 'initialize', error: err('DEPTH_ZERO_SELF_SIGNED_CERT') }, 'tls', {}],
    ['expired certificate', { kind: 'thrown', step: 'initialize', error: err('CERT_HAS_EXPIRED') }, 'tls', {}],
    ['wrong host name', { kind: 'thrown', step: 'initialize', error: err('ERR_TLS_CERT_ALTNAME_INVALID') }, 'tls', {}],
    ['tls to a plain-http server', { kind: 'thrown', step: 'initialize', error: err('ERR_SSL_WRONG_VERSION_NUMBER') }, 'tls', {}],
    ['wrapped cause (fetch style)', { kind: 'thrown', step: 'initialize', error: new TypeError('fetch failed', { cause: err('ECONNREFUSED') }) }, 'tls', {}],
    ['address refused', { kind: 'thrown', step: 'initialize', error: new GuardError(GUARD.addressRefused, 'refused address: 10.0.0.1 is private') }, 'tls', { step: 'address' }],
    ['302 not followed', { kind: 'thrown', step: 'initialize', error: new GuardError(GUARD.redirectNotFollowed, 'redirect not followed', 302) }, 'http_4xx', { httpStatus: 302 }],
    ['body over cap', { kind: 'thrown', step: 'tools/list', error: new GuardError(GUARD.overCap, 'body over 8 MiB cap') }, 'parse', {}],
    ['malformed http', { kind: 'thrown', step: 'initialize', error: err('HPE_INVALID_CONSTANT') }, 'parse', {}],
    ['something unknown', { kind: 'thrown', step: 'initialize', error: new Error('boom') }, 'tls', {}],
    ['401', { kind: 'status', step: 'initialize', status: 401, wwwAuthenticate: 'Bearer realm="x"', retryAfter: null, rpc: null, sessionIssued: false }, 'auth', { httpStatus: 401, wwwAuthenticate: 'Bearer realm="x"' }],
    ['403', { kind: 'status', step: 'initialize', status: 403, wwwAuthenticate: null, retryAfter: null, rpc: null, sessionIssued: false }, 'auth', { httpStatus: 403 }],
    ['429', { kind: 'status', step: 'tools/list', status: 429, wwwAuthenticate: null, retryAfter: '120', rpc: null, sessionIssued: true }, 'rate_limited', { retryAfter: '120' }],
    ['404', { kind: 'status', step: 'initialize', status: 404, wwwAuthenticate: null, retryAfter: null, rpc: null, sessionIssued: false }, 'http_4xx', { httpStatus: 404 }],
    ['406', { kind: 'status', step: 'initialize', status: 406, wwwAuthenticate: null, retryAfter: null, rpc: null, sessionIssued: false }, 'http_4xx', {}],
    ['500', { kind: 'status', step: 'initialize', status: 500, wwwAuthenticate: null, retryAfter: null, rpc: null, sessionIssued: false }, 'http_5xx', {}],
    ['503', { kind: 'status', step: 'tools/list', status: 503, wwwAuthenticate: null, retryAfter: '5', rpc: null, sessionIssued: false }, 'http_5xx', {}],
    ['3xx without location', { kind: 'status', step: 'initialize', status: 301, wwwAuthenticate: null, retryAfter: null, rpc: null, sessionIssued: false }, 'http_4xx', {}],
    ['modern-only 400 -32022', { kind: 'status', step: 'initialize', status: 400, wwwAuthenticate: null, retryAfter: null, rpc: { code: -32022, message: 'Unsupported protocol version' }, sessionIssued: false }, 'http_4xx', { jsonrpcCode: -32022 }],
    ['json-rpc method not found in a 200', { kind: 'rpc-error', step: 'tools/list', status: 200, rpc: { code: -32601, message: 'Method not found' } }, 'http_4xx', { jsonrpcCode: -32601, httpStatus: 200 }],
    ['json-rpc internal error in a 200', { kind: 'rpc-error', step: 'initialize', status: 200, rpc: { code: -32603, message: 'Internal error' } }, 'http_5xx', { jsonrpcCode: -32603 }],
    ['html in a 200', { kind: 'not-jsonrpc', step: 'initialize', status: 200, detail: 'body is not json (content-type text/html)' }, 'parse', {}],
  ];

  it.each(table)('maps %s', (_, failure, errorClass, payload) => {
    const e = classify(failure);
    expect(e.errorClass).toBe(errorClass);
    expect(e.payload).toMatchObject(payload);
    expect(e.payload.detail.length).toBeGreaterThan(0);
    if (failure.kind === 'thrown') expect(e.cause).toBe(failure.error);
  });

  it('says "session lost" for a 404 on tools/list after a session was issued, and only then', () => {
    const base = { kind: 'status', status: 404, wwwAuthenticate: null, retryAfter: null, rpc: { code: -32001, message: 'Session not found' } } as const;
    expect(classify({ ...base, step: 'tools/list', sessionIssued: true }).payload.detail).toMatch(/^session lost/);
    expect(classify({ ...base, step: 'tools/list', sessionIssued: false }).payload.detail).not.toMatch(/session lost/);
    expect(classify({ ...base, step: 'initialize', sessionIssued: false }).payload.detail).not.toMatch(/session lost/);
  });

  it('names a modern-only server in the detail and keeps its code, but not for -32001', () => {
    const modern = classify({ kind: 'status', step: 'initialize', status: 400, wwwAuthenticate: null, retryAfter: null, rpc: { code: -32020, message: 'header mismatch' }, sessionIssued: false });
    expect(modern.payload.detail).toMatch(/modern-only/);
    const session = classify({ kind: 'status', step: 'initialize', status: 400, wwwAuthenticate: null, retryAfter: null, rpc: { code: -32001, message: 'x' }, sessionIssued: false });
    expect(session.payload.detail).not.toMatch(/modern-only/);
  });
});
