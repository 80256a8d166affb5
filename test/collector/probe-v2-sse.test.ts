// collector/probe-v2/sse.ts through its real input: the HTTP+SSE detect's GET, from a v2 Wire to the
// SDK v1's own SSEServerTransport (what a deprecated 2024-11-05 server runs) and to raw loopback
// servers for what the SDK never sends: another first event, a refusal, a stream of keep-alive
// comments only, a split multi-byte character, an endpoint longer than the row keeps.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { detectHttpSse } from '../../collector/probe-v2/sse.ts';
import type { ProbeV2Limits } from '../../collector/probe-v2/wire.ts';
import { echoServerV1, httpSse } from '../../sandbox/era-sdk.ts';
import { withLoopback, type Handler, type Loopback } from './loopback.ts';

const detect = (h: Handler, limits: Partial<ProbeV2Limits> = {}) => withLoopback(h, limits, async (l) => ({ got: await detectHttpSse(l.wire, l.url), l }));
/** An event stream that writes `chunks` and stays open (as SSE servers do). */
const stream =
  (chunks: (string | Buffer)[], contentType = 'text/event-stream', status = 200): Handler =>
  (_m, _req, res) => {
    res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-cache' });
    for (const c of chunks) res.write(c);
  };
/** Keep-alive comments every 20 ms until the client goes (what makes undici's idle timers useless here). */
const keepAlive = (res: ServerResponse) => {
  const t = setInterval(() => res.write(': ping\n\n'), 20);
  res.on('close', () => clearInterval(t));
};

describe('detectHttpSse: the endpoint event of a deprecated HTTP+SSE server', () => {
  it('SDK v1 SSEServerTransport: its relative endpoint, read from the first event of a stream that stays open', async () => {
    const sse = httpSse({ isStream: (p) => p === '/mcp', messagesPath: '/messages', server: echoServerV1 });
    try {
      const { got, l } = await detect((_m, req, res, body) => sse.serve(req, res, body));
      expect(got).toEqual({ sent: true, status: 200, endpoint: expect.stringMatching(/^\/messages\?sessionId=[0-9a-f-]{36}$/) });
      // One counted GET that asks for an event stream.
      expect(l.got.map((g) => [g.method, g.headers.accept])).toEqual([['GET', 'text/event-stream']]);
      expect(l.wire.log).toEqual([{ kind: 'sse detect', method: 'GET', url: l.url, counted: true, status: 200, redirects: 0 }]);
    } finally {
      await sse.close();
    }
  });

  it('keep-alive comments before the endpoint event are skipped', async () => {
    const { got } = await detect((m, req, res, body) => {
      stream([': hello\n\n'])(m, req, res, body);
      // Later, so the comment arrives as a chunk of its own (the detect must read on past it).
      setTimeout(() => res.write('event: endpoint\ndata: /messages?s=1\n\n'), 50);
    });
    expect(got).toEqual({ sent: true, status: 200, endpoint: '/messages?s=1' });
  });

  it('a media type is read case-blind and without its parameters', async () => {
    const { got } = await detect(stream(['event: endpoint\ndata: /m\n\n'], 'Text/Event-Stream ; charset=utf-8'));
    expect(got.endpoint).toBe('/m');
  });

  it('a multi-byte character split between two chunks is decoded whole', async () => {
    const bytes = Buffer.from('event: endpoint\ndata: /messages?room=grün\n\n');
    const cut = bytes.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of ü
    const { got } = await detect((m, req, res, body) => {
      stream([bytes.subarray(0, cut)])(m, req, res, body);
      setTimeout(() => res.write(bytes.subarray(cut)), 50);
    });
    expect(got.endpoint).toBe('/messages?room=grün');
  });

  it('an endpoint longer than 512 characters is kept clipped to 512; near miss: 512 kept whole', async () => {
    const long = `/m?${'x'.repeat(600)}`;
    expect((await detect(stream([`event: endpoint\ndata: ${long}\n\n`]))).got.endpoint).toBe(long.slice(0, 512));
    const exact = `/m?${'x'.repeat(509)}`;
    expect((await detect(stream([`event: endpoint\ndata: ${exact}\n\n`]))).got.endpoint).toBe(exact);
  });
});

describe('detectHttpSse: anything but an endpoint event first is no endpoint', () => {
  it.each([
    ['a message event first (the endpoint after it)', ['event: message\ndata: {}\n\n', 'event: endpoint\ndata: /m\n\n']],
    ['an unnamed event (event type "message")', ['data: /m\n\n']],
  ])('%s', async (_, chunks) => {
    const { got } = await detect(stream(chunks));
    expect(got).toEqual({ sent: true, status: 200, endpoint: null });
  });

  it.each<[string, Handler, number]>([
    ['a 404 event stream carrying an endpoint event', (_m, _req, res) => res.writeHead(404, { 'content-type': 'text/event-stream' }).end('event: endpoint\ndata: /m\n\n'), 404],
    ['a 200 text/html page carrying the same text', (_m, _req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('event: endpoint\ndata: /m\n\n'), 200],
    ['a 200 without a content type', (_m, _req, res) => res.writeHead(200).end('event: endpoint\ndata: /m\n\n'), 200],
  ])('refused: %s', async (_, h, status) => {
    const { got } = await detect(h);
    expect(got).toEqual({ sent: true, status, endpoint: null });
  });

  it('a stream that ends after comments only: no endpoint', async () => {
    const { got } = await detect((_m, _req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing here\n\n'));
    expect(got).toEqual({ sent: true, status: 200, endpoint: null });
  });

  it('the connection dropped before an answer: sent, no status', async () => {
    const { got } = await detect((_m, _req, res) => res.socket?.destroy());
    expect(got).toEqual({ sent: true, status: null, endpoint: null });
  });

  it('the request budget spent: not sent, nothing reaches the server', async () => {
    const { got, l } = await detect(stream(['event: endpoint\ndata: /m\n\n']), { budget: 0 });
    expect(got).toEqual({ sent: false, status: null, endpoint: null });
    expect((l as Loopback).got).toEqual([]);
  });
});

// Liveness, not timing: each of these returns by its bound; the code without that bound would wait
// for a deadline set far beyond the test's (30 s), and the test would not finish.
describe('detectHttpSse: the wait is bounded', () => {
  const FAR = 30_000;
  it('by sseDetectMs when it is the shorter: keep-alive comments do not extend it', async () => {
    const { got } = await detect((_m, _req, res) => (res.writeHead(200, { 'content-type': 'text/event-stream' }), keepAlive(res)), { sseDetectMs: 200, timeoutMs: FAR });
    expect(got).toEqual({ sent: true, status: 200, endpoint: null });
  });
  it('by timeoutMs when it is the shorter', async () => {
    const { got } = await detect((_m, _req, res) => (res.writeHead(200, { 'content-type': 'text/event-stream' }), keepAlive(res)), { sseDetectMs: FAR, timeoutMs: 200 });
    expect(got).toEqual({ sent: true, status: 200, endpoint: null });
  });
  it('by 64 KiB read: exactly 65,536 bytes of comments and no event end the detect, with no endpoint', async () => {
    const line = `: ${'p'.repeat(1021)}\n`; // 1,024 bytes
    const { got } = await detect(stream([line.repeat(64)]), { sseDetectMs: FAR, timeoutMs: FAR });
    expect(Buffer.byteLength(line.repeat(64))).toBe(64 * 1024);
    expect(got).toEqual({ sent: true, status: 200, endpoint: null });
  });
  it('a refusal that keeps streaming is dropped after 64 KiB, not read to the deadline', async () => {
    const { got } = await detect((_m, _req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.write('x'.repeat(100 * 1024));
    }, { sseDetectMs: FAR, timeoutMs: FAR });
    expect(got).toEqual({ sent: true, status: 404, endpoint: null });
  });
});
