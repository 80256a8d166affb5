// collector/probe-v2/wire.ts: every request of a v2 probe goes through a Wire, which charges the
// per-endpoint budget, reads the answer, classifies a failure with v1's classes, and remembers what
// the status table reads (protocol statuses, whether the server answered in HTTP, the first 429/503).
// Driven against raw loopback servers (test/collector/loopback.ts), one per test.
import { describe, expect, it } from 'vitest';
import { NOT_SENT, parseJson, Wire, wwwAuthenticate, type Exchange } from '../../collector/probe-v2/wire.ts';
import { json, withLoopback, type Handler } from './loopback.ts';

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
const post = (w: Wire, url: string, o: { id?: number | null; protocol?: boolean; counted?: boolean; sessionIssued?: boolean; step?: 'initialize' | 'tools/list' } = {}) =>
  w.post('initialize', o.step ?? 'initialize', url, BODY, Wire.base(), o.id === undefined ? 1 : o.id, 4096, { protocol: o.protocol, counted: o.counted, sessionIssued: o.sessionIssued });
const sent = (x: Exchange | typeof NOT_SENT): Exchange => {
  if (x === NOT_SENT) throw new Error('not sent');
  return x;
};
const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_m, _req, res) => json(res, status, body, headers);
/** One POST to a server answering with `h`: the exchange and the wire after it. */
const once = (h: Handler, o: Parameters<typeof post>[2] = {}) => withLoopback(h, {}, async (l) => ({ x: sent(await post(l.wire, l.url, o)), wire: l.wire, url: l.url, got: l.got }));

describe('Wire.post: a JSON-RPC answer', () => {
  it('a result for our id: the result, no error, its status remembered and logged', async () => {
    const { x, wire, url, got } = await once(answer(200, { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } }));
    expect(x).toMatchObject({ step: 'initialize', status: 200, url, redirects: 0, result: { protocolVersion: '2025-11-25' }, rpc: null, error: null, answered: true });
    expect(x.message).toEqual({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
    expect(wire.protocolStatuses).toEqual([200]);
    expect(wire.answered).toBe(true);
    expect(wire.log).toEqual([{ kind: 'initialize', method: 'POST', url, counted: true, status: 200, redirects: 0 }]);
    expect(got.map((g) => [g.method, g.headers['user-agent'], g.headers.accept, g.msg?.method])).toEqual([['POST', Wire.base()['user-agent'], 'application/json, text/event-stream', 'initialize']]);
  });

  it.each<[string, unknown, string | RegExp]>([
    ['an HTML page (the reader’s note says why)', '<html>hi</html>', /^body is not json/],
    ['a JSON number', '5', 'body is not a json-rpc message'],
    ['JSON for another id', { jsonrpc: '2.0', id: 2, result: {} }, 'json is not the json-rpc answer with id 1'],
    ['JSON with our id but neither result nor error', { jsonrpc: '2.0', id: 1 }, 'json is not the json-rpc answer with id 1'],
    ['a result that is not an object', { jsonrpc: '2.0', id: 1, result: 5 }, 'json-rpc result is not an object'],
  ])('a 2xx with %s is a parse failure saying so, and still an answer', async (_what, body, detail) => {
    const { x, wire } = await once(answer(200, body));
    expect(x.result).toBeNull();
    expect(x.error).toMatchObject({ errorClass: 'parse', payload: { step: 'initialize', httpStatus: 200 } });
    expect(x.error?.payload.detail).toMatch(detail);
    expect(x.answered).toBe(true);
    expect(wire.answered).toBe(true);
  });

  it('a 2xx JSON-RPC error for our id: classified by its code, the error kept (code, message cut at 200, data)', async () => {
    const { x } = await once(answer(200, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'm'.repeat(250), data: { why: 'x' } } }));
    expect(x.rpc).toEqual({ code: -32602, message: 'm'.repeat(200), data: { why: 'x' } });
    expect(x.error).toMatchObject({ errorClass: 'http_4xx', payload: { httpStatus: 200, jsonrpcCode: -32602 } });
    const internal = await once(answer(200, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } }));
    expect(internal.x.error?.errorClass).toBe('http_5xx');
  });

  it.each<[string, unknown, Exchange['rpc']]>([
    ['id null (the server could not read ours)', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, { code: -32700, message: 'Parse error', data: undefined }],
    ['no id', { jsonrpc: '2.0', error: { code: -32600, message: 'Bad' } }, { code: -32600, message: 'Bad', data: undefined }],
    ['a code that is not an integer, no message', { jsonrpc: '2.0', id: 1, error: { code: 1.5 } }, { code: null, message: '', data: undefined }],
    ['another request’s id', { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Bad' } }, null],
    ['an error that is not an object', { jsonrpc: '2.0', id: 1, error: 'Bad' }, null],
  ])('the JSON-RPC error of a 400 with %s', async (_what, body, rpc) => {
    const { x } = await once(answer(400, body));
    expect(x.rpc).toEqual(rpc);
    expect(x.error).toMatchObject({ errorClass: 'http_4xx', payload: { httpStatus: 400, jsonrpcCode: rpc?.code ?? null } });
  });

  it('a notification answered 202 is all there is to it; answered 400 it is a failure', async () => {
    const ok = await once(answer(202, ''), { id: null });
    expect(ok.x).toMatchObject({ status: 202, error: null, result: null });
    const bad = await once(answer(400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no' } }), { id: null });
    expect(bad.x.error).toMatchObject({ errorClass: 'http_4xx', payload: { httpStatus: 400, jsonrpcCode: -32600 } });
    expect(bad.x.read?.raw.toString()).toContain('"no"');
  });

  it('a 2xx answer over the cap given is refused (a parse failure naming the cap), not read on', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { pad: 'p'.repeat(5000) } });
    const { x } = await once(answer(200, big));
    expect(x.result).toBeNull();
    expect(x.error).toMatchObject({ errorClass: 'parse', payload: { detail: expect.stringMatching(/over 4 KiB cap/) } });
  });

  it('an error body cut off midway still leaves the status to classify (its body read as empty)', async () => {
    const h: Handler = (_m, _req, res) => {
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"jsonrpc":"2.0",');
      setImmediate(() => res.destroy());
    };
    const { x } = await once(h);
    expect(x).toMatchObject({ status: 500, answered: true });
    expect(x.error?.errorClass).toBe('http_5xx');
    expect(x.read?.raw.length).toBe(0);
  });

  it('a JSON-RPC result in a non-2xx answer is no result: a 502 is a server error, a 300 not followed a 4xx-class one', async () => {
    const body = { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } };
    const bad = await once(answer(502, body));
    expect(bad.x).toMatchObject({ result: null, error: { errorClass: 'http_5xx', payload: { httpStatus: 502 } } });
    const multiple = await once((_m, _req, res) => json(res, 300, body, { location: '/elsewhere' }));
    expect(multiple.x).toMatchObject({ result: null, error: { errorClass: 'http_4xx', payload: { httpStatus: 300 } } });
  });

  it('an error body is read only up to the small cap (truncated, not refused)', async () => {
    const { x } = await withLoopback(answer(500, 'e'.repeat(5000)), { smallCap: 1000 }, async (l) => ({ x: sent(await post(l.wire, l.url)) }));
    expect(x.read?.raw.length).toBe(1000);
    expect(x.read?.message).toBeUndefined();
    expect(x.error?.errorClass).toBe('http_5xx');
  });
});

describe('Wire.post: what the status table and the scheduler read', () => {
  it('all WWW-Authenticate lines of a 401 go to the auth failure, joined', async () => {
    const h: Handler = (_m, _req, res) => {
      res.setHeader('www-authenticate', ['Basic realm="a"', 'Bearer resource_metadata="/x"']);
      res.writeHead(401).end();
    };
    const { x } = await once(h);
    expect(x.error).toMatchObject({ errorClass: 'auth', payload: { httpStatus: 401, wwwAuthenticate: 'Basic realm="a", Bearer resource_metadata="/x"' } });
  });

  it('a 404 on tools/list after a session was issued is a lost session; without one, a plain 404', async () => {
    const lost = await once(answer(404, ''), { step: 'tools/list', sessionIssued: true });
    expect(lost.x.error?.payload.detail).toMatch(/^session lost/);
    const plain = await once(answer(404, ''), { step: 'tools/list' });
    expect(plain.x.error?.payload.detail).toBe('http 404');
  });

  it('remembers the first 429 or 503 with its Retry-After, not a later one; a 500 is no back-off signal', async () => {
    const statuses = [500, 429, 503];
    await withLoopback((_m, _req, res) => json(res, statuses.shift()!, '', { 'retry-after': String(statuses.length + 1) }), {}, async (l) => {
      await post(l.wire, l.url);
      expect(l.wire.throttled).toBeNull();
      const x = sent(await post(l.wire, l.url));
      expect(x.error).toMatchObject({ errorClass: 'rate_limited', payload: { retryAfter: '2' } });
      expect(l.wire.throttled).toEqual({ status: 429, retryAfter: '2' });
      await post(l.wire, l.url);
      expect(l.wire.throttled).toEqual({ status: 429, retryAfter: '2' });
      expect(l.wire.protocolStatuses).toEqual([500, 429, 503]);
    });
    const only503 = await once(answer(503, ''));
    expect(only503.wire.throttled).toEqual({ status: 503, retryAfter: null });
  });

  it('a request that is not a protocol step (the canary) leaves the statuses and "answered" alone', async () => {
    const { wire, x } = await once(answer(200, { jsonrpc: '2.0', id: 1, result: {} }), { protocol: false });
    expect(x.answered).toBe(true);
    expect(wire.protocolStatuses).toEqual([]);
    expect(wire.answered).toBe(false);
  });
});

describe('Wire.post: the v1 step a failure is classified at', () => {
  it.each([
    ['discover', 'initialize'],
    ['initialize', 'initialize'],
    ['initialized', 'initialized'],
    ['tools/list', 'tools/list'],
    ['sse', 'initialize'],
    ['roster', 'roster'],
    ['address', 'address'],
  ] as const)('a v2 %s step fails as v1 %s, and keeps its own step', async (step, v1) => {
    const x = await withLoopback(answer(502, ''), {}, async (l) => sent(await l.wire.post('initialize', step, l.url, BODY, Wire.base(), 1, 4096)));
    expect(x.step).toBe(step);
    expect(x.error).toMatchObject({ errorClass: 'http_5xx', payload: { step: v1, httpStatus: 502 } });
  });
});

describe('Wire.post: no HTTP answer', () => {
  it('a dropped connection: a tls-class failure, not answered, no status', async () => {
    const { x, wire } = await once((_m, req) => req.socket.destroy());
    expect(x).toMatchObject({ step: 'initialize', status: null, url: null, read: null, result: null, answered: false });
    expect(x.error?.errorClass).toBe('tls');
    expect(wire.answered).toBe(false);
    expect(wire.protocolStatuses).toEqual([]);
    expect(wire.log[0]!.status).toBeNull();
  });

  it('a server that never answers: a timeout, not answered', async () => {
    const { x, wire } = await withLoopback(() => {}, { timeoutMs: 200 }, async (l) => ({ x: sent(await post(l.wire, l.url)), wire: l.wire }));
    expect(x.error).toMatchObject({ errorClass: 'timeout', payload: { step: 'initialize' } });
    expect(x.answered).toBe(false);
    expect(wire.answered).toBe(false);
  });

  it('a redirect to a private address: refused at step address, the hop counted, not answered', async () => {
    const { x, wire } = await once((_m, _req, res) => res.writeHead(307, { location: 'http://10.9.9.9/mcp' }).end());
    expect(x.step).toBe('address');
    expect(x.error).toMatchObject({ errorClass: 'tls', payload: { step: 'address' } });
    expect(x.answered).toBe(false);
    expect(x.redirects).toBe(1);
    expect(wire.log[0]!.redirects).toBe(1);
  });

  it('a 301 to a POST is an HTTP answer (a 4xx-class failure with its status)', async () => {
    const { x, wire } = await once((_m, _req, res) => res.writeHead(301, { location: '/elsewhere' }).end());
    expect(x.error).toMatchObject({ errorClass: 'http_4xx', payload: { httpStatus: 301 } });
    expect(x.answered).toBe(true);
    expect(wire.answered).toBe(true);
  });
});

describe('Wire: the budget', () => {
  it('counts requests against the budget, not further pages; past it nothing is sent or logged', async () => {
    await withLoopback(answer(200, { jsonrpc: '2.0', id: 1, result: {} }), { budget: 2 }, async (l) => {
      expect([l.wire.spent, l.wire.left]).toEqual([0, 2]);
      sent(await post(l.wire, l.url));
      sent(await post(l.wire, l.url, { counted: false }));
      expect([l.wire.spent, l.wire.left]).toEqual([1, 1]);
      sent(await post(l.wire, l.url));
      expect(await post(l.wire, l.url)).toBe(NOT_SENT);
      expect(await l.wire.get('metadata', l.url, 'application/json', 1000, async () => 1)).toBe(NOT_SENT);
      await l.wire.deleteSession(l.url, Wire.base());
      expect(l.got).toHaveLength(3);
      expect(l.wire.log.map((e) => e.counted)).toEqual([true, false, true]);
      expect(l.wire.spent).toBe(2);
    });
  });
});

describe('Wire.get and Wire.deleteSession', () => {
  it('get: the status and URL that answered, the value read, the log entry', async () => {
    const h: Handler = (_m, req, res) => (req.url === '/mcp' ? res.writeHead(302, { location: '/meta' }).end() : json(res, 200, { ok: req.headers.accept }));
    await withLoopback(h, {}, async (l) => {
      const r = await l.wire.get('metadata', l.url, 'application/json', 1000, async (a) => JSON.parse(await a.body.text()) as unknown);
      const at = l.url.replace('/mcp', '/meta');
      expect(r).toEqual({ status: 200, url: at, value: { ok: 'application/json' }, error: null });
      expect(l.wire.log).toEqual([{ kind: 'metadata', method: 'GET', url: l.url, counted: true, status: 200, redirects: 1 }]);
      expect(l.got[0]!.headers['user-agent']).toBe(Wire.base()['user-agent']);
    });
  });

  it('get: a read that throws is returned as the error, with the status that came', async () => {
    await withLoopback(answer(404, 'no'), {}, async (l) => {
      const boom = new Error('not json');
      const r = await l.wire.get('metadata', l.url, 'application/json', 1000, async () => {
        throw boom;
      });
      expect(r).toEqual({ status: 404, url: l.url, value: null, error: boom });
      expect(l.wire.log[0]!.status).toBe(404);
    });
  });

  it('deleteSession: one DELETE with the session headers, its status logged, a redirect not followed', async () => {
    const h: Handler = (_m, req, res) => (req.url === '/mcp' ? res.writeHead(204).end() : res.writeHead(307, { location: '/mcp' }).end());
    await withLoopback(h, {}, async (l) => {
      await l.wire.deleteSession(l.url, { ...Wire.base(), 'mcp-session-id': 's-1' });
      await l.wire.deleteSession(l.url.replace('/mcp', '/moved'), { ...Wire.base(), 'mcp-session-id': 's-1' });
      expect(l.got.map((g) => [g.method, g.headers['mcp-session-id']])).toEqual([
        ['DELETE', 's-1'],
        ['DELETE', 's-1'],
      ]);
      expect(l.wire.log.map((e) => [e.kind, e.method, e.status])).toEqual([
        ['delete session', 'DELETE', 204],
        ['delete session', 'DELETE', null],
      ]);
    });
  });

  it('deleteSession is bounded by the request timeout when it is shorter than 5 s', async () => {
    // The answer comes at 1 s, the timeout is 100 ms: the DELETE gives up first (with 5 s it would wait).
    await withLoopback((_m, _req, res) => void setTimeout(() => res.writeHead(204).end(), 1_000), { timeoutMs: 100 }, async (l) => {
      await l.wire.deleteSession(l.url, Wire.base());
      expect(l.wire.log[0]!.status).toBeNull();
    });
  });
});

describe('wwwAuthenticate(headers) and parseJson(raw)', () => {
  it('joins repeated lines, gives one line as it is, and null for none', () => {
    expect(wwwAuthenticate({ 'www-authenticate': ['a', 'b'] })).toBe('a, b');
    expect(wwwAuthenticate({ 'www-authenticate': [] })).toBeNull();
    expect(wwwAuthenticate({ 'www-authenticate': 'Bearer' })).toBe('Bearer');
    expect(wwwAuthenticate({})).toBeNull();
  });
  it('parses JSON, and gives undefined for an empty or broken body', () => {
    expect(parseJson(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
    expect(parseJson(Buffer.from('null'))).toBeNull();
    expect(parseJson(Buffer.alloc(0))).toBeUndefined();
    expect(parseJson(Buffer.from('{'))).toBeUndefined();
  });
});
