import { describe, expect, it } from 'vitest';
import { AuthError, classify, GUARD, GuardError, Http4xxError, Http5xxError, oneLine, ParseError, RateLimitedError, TimeoutError, TlsError, type Failure } from '../../collector/errors.ts';

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

// Cases mutation testing found untested (docs/MUTATION.md): the edges of each status range,
// every listed code, the cause chain's bound, the detail texts and the error names.
describe('classify(failure): edges, codes and texts', () => {
  const status = (n: number, rpc: { code: number; message: string } | null = null): Failure => ({ kind: 'status', step: 'initialize', status: n, wwwAuthenticate: null, retryAfter: null, rpc, sessionIssued: false });
  const thrown = (error: unknown): Failure => ({ kind: 'thrown', step: 'initialize', error });

  it.each([
    [299, 'parse', 'unexpected http status 299'],
    [300, 'http_4xx', 'redirect not followed: http 300 without a usable location'],
    [399, 'http_4xx', 'redirect not followed: http 399 without a usable location'],
    [400, 'http_4xx', 'http 400'],
    [499, 'http_4xx', 'http 499'],
    [500, 'http_5xx', 'http 500'],
    [599, 'http_5xx', 'http 599'],
    [600, 'parse', 'unexpected http status 600'],
  ])('puts http %i in %s with the detail %j', (n, errorClass, detail) => {
    const e = classify(status(n));
    expect([e.errorClass, e.payload.detail, e.payload.httpStatus]).toEqual([errorClass, detail, n]);
  });
  it('writes the status, the www-authenticate flag and the json-rpc error into the detail', () => {
    expect(classify({ ...status(401), wwwAuthenticate: 'Bearer' } as Failure).payload.detail).toBe('http 401 with www-authenticate');
    expect(classify(status(403, { code: -32001, message: 'no' })).payload.detail).toBe('http 403; json-rpc -32001: no');
    expect(classify(status(503, { code: -32000, message: 'busy' })).payload).toMatchObject({ detail: 'http 503; json-rpc -32000: busy', jsonrpcCode: -32000 });
  });
  it.each([-32020, -32021, -32022])('names a modern-only server for json-rpc code %i', (code) => {
    expect(classify(status(400, { code, message: 'x' })).payload.detail).toBe(`modern-only server (no initialize): http 400; json-rpc ${code}: x`);
  });
  it.each(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EPIPE', 'EADDRNOTAVAIL', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'EPROTO', 'ERR_INVALID_IP_ADDRESS'])(
    'takes %s as a connection failure (tls)',
    (code) => {
      expect(classify(thrown(err(code))).payload.detail).toBe(`connection failed: ${code}`);
    },
  );
  it.each(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'])('takes %s as a timeout and names it', (code) => {
    const e = classify(thrown(err(code)));
    expect([e.errorClass, e.payload.detail]).toEqual(['timeout', `timeout (${code})`]);
  });
  it('says the overall deadline was reached for an abort without a timeout code', () => {
    const abort = new DOMException('aborted', 'AbortError');
    expect(classify(thrown(abort)).payload.detail).toBe('overall request deadline reached');
  });
  it.each(['ERR_OSSL_EVP_BAD_DECRYPT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN'])('takes %s as a tls handshake failure', (code) => {
    expect(classify(thrown(err(code))).payload.detail).toBe(`tls handshake failed: ${code}`);
  });
  it('matches the tls prefixes at the start of the code only', () => {
    expect(classify(thrown(err('X_ERR_SSL_Y', 'odd'))).payload.detail).toBe('unexpected failure: Error: odd');
  });
  it('describes what it does not recognise, an error or a bare value', () => {
    expect(classify(thrown(new RangeError('boom'))).payload.detail).toBe('unexpected failure: RangeError: boom');
    expect(classify(thrown('a string')).payload.detail).toBe('unexpected failure: : a string');
    expect(classify(thrown({ name: 7, message: 8 })).payload.detail).toBe('unexpected failure: 7: 8');
  });
  it('reads what a thrown object carries only when it is a string: a numeric code, a status text, a message that is not text', () => {
    expect(classify(thrown({ code: 404, name: 'X', message: 'm' })).payload).toEqual({ step: 'initialize', httpStatus: null, jsonrpcCode: null, detail: 'unexpected failure: X: m' });
    expect(classify(thrown({ code: GUARD.addressRefused, message: 5 })).payload).toEqual({ step: 'address', httpStatus: null, jsonrpcCode: null, detail: '' });
    expect(classify(thrown({ code: GUARD.redirectNotFollowed, status: '302', message: 'redirect not followed' })).payload).toEqual({ step: 'initialize', httpStatus: null, jsonrpcCode: null, detail: 'redirect not followed' });
    expect(classify(thrown(err('ECONNRESET'))).payload).toEqual({ step: 'initialize', httpStatus: null, jsonrpcCode: null, detail: 'connection failed: ECONNRESET' });
  });
  it('an abort carrying a code that is not a timeout code is the overall deadline, not that code', () => {
    expect(classify(thrown({ name: 'AbortError', code: 'ABORT_ERR', message: 'aborted' })).payload.detail).toBe('overall request deadline reached');
    expect(classify(thrown({ name: 'AbortError', code: 'ETIMEDOUT' })).payload.detail).toBe('timeout (ETIMEDOUT)');
  });
  it('describes a thrown null or undefined without failing', () => {
    expect(classify(thrown(null)).payload.detail).toBe('unexpected failure: : null');
    expect(classify(thrown(undefined)).payload.detail).toBe('unexpected failure: : undefined');
  });
  it('says "session lost" only for a 404, only on tools/list, only after a session', () => {
    const f = (o: Partial<Extract<Failure, { kind: 'status' }>>): Failure => ({ kind: 'status', step: 'tools/list', status: 404, wwwAuthenticate: null, retryAfter: null, rpc: null, sessionIssued: true, ...o });
    expect(classify(f({})).payload.detail).toBe('session lost: 404 on tools/list after initialize issued a session');
    expect(classify(f({ step: 'initialize' })).payload.detail).toBe('http 404');
    expect(classify(f({ status: 410 })).payload.detail).toBe('http 410');
    expect(classify(f({ sessionIssued: false })).payload.detail).toBe('http 404');
  });
  it('follows the cause chain eight errors deep, no deeper, and stops on a cycle', () => {
    const chain = (depth: number) => {
      let e: Error = err('ECONNREFUSED');
      for (let i = 0; i < depth; i++) e = new Error(`wrap ${i}`, { cause: e });
      return e;
    };
    expect(classify(thrown(chain(7))).payload.detail).toBe('connection failed: ECONNREFUSED');
    expect(classify(thrown(chain(8))).payload.detail).toBe('unexpected failure: Error: wrap 7');
    const cyclic: Error & { cause?: unknown } = new Error('loop');
    cyclic.cause = cyclic;
    expect(classify(thrown(cyclic)).payload.detail).toBe('unexpected failure: Error: loop');
  });
  it('names every error class after itself', () => {
    const p = { step: 'initialize' as const, httpStatus: null, jsonrpcCode: null, detail: 'd' };
    expect([
      new TimeoutError(p).name, new TlsError(p).name, new Http4xxError(p).name, new Http5xxError(p).name,
      new AuthError({ ...p, wwwAuthenticate: null }).name, new RateLimitedError({ ...p, retryAfter: null }).name, new ParseError(p).name,
      new GuardError(GUARD.overCap, 'x').name,
    ]).toEqual(['TimeoutError', 'TlsError', 'Http4xxError', 'Http5xxError', 'AuthError', 'RateLimitedError', 'ParseError', 'GuardError']);
  });
});

describe('oneLine(s, max)', () => {
  it('folds every run of white space into one space and trims', () => {
    expect(oneLine('  a \n\t b\r\n\nc  ')).toBe('a b c');
  });
  it('keeps max characters and cuts a longer text to max − 1 and an ellipsis', () => {
    expect(oneLine('x'.repeat(300))).toBe('x'.repeat(300));
    expect(oneLine('x'.repeat(301))).toBe(`${'x'.repeat(299)}…`);
    expect(oneLine('abcdef', 4)).toBe('abc…');
  });
});
