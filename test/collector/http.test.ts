// The body reader and the small helpers of http.ts, on in-memory streams, and send() against loopback
// servers: which redirects it follows, what crosses an origin, its one deadline, the sockets per host.
// Added for the collector mutation runs (docs/MUTATION.md).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { GUARD } from '../../collector/errors.ts';
import { asBuffer, createHttpContext, formatBytes, header, MiB, readCapped, send, type Answer, type HttpContext, type HttpContextOptions, type SendOptions, type Trace } from '../../collector/http.ts';

const stream = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c)));

describe('readCapped(body, cap, what, truncate)', () => {
  it('reads a body of exactly cap bytes whole', async () => {
    const body = stream('abc', 'de');
    expect((await readCapped(body, 5, 'body')).toString()).toBe('abcde');
  });
  it('refuses a body one byte over the cap, naming it and the cap, and destroys the stream', async () => {
    const body = stream('abc', 'def');
    await expect(readCapped(body, 5, 'error body')).rejects.toMatchObject({ code: GUARD.overCap, message: 'error body over 5 bytes cap' });
    expect(body.destroyed).toBe(true);
  });
  it('with truncate, keeps the first cap bytes and stops reading', async () => {
    const body = stream('abc', 'defgh', 'ij');
    expect((await readCapped(body, 5, 'body', true)).toString()).toBe('abcde');
    expect(body.destroyed).toBe(true);
  });
  it('cuts at the cap when the first chunk alone is over it', async () => {
    expect((await readCapped(stream('abcdefgh'), 3, 'body', true)).toString()).toBe('abc');
  });
});

describe('formatBytes(n)', () => {
  it.each([
    [8 * MiB, '8 MiB'],
    [MiB, '1 MiB'],
    [64 * 1024, '64 KiB'],
    [1536 * 1024, '1536 KiB'],
    [1000, '1000 bytes'],
    [5, '5 bytes'],
  ])('writes %i as %j', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });
});

describe('header(headers, name) and asBuffer(chunk)', () => {
  it('gives the first of repeated values, the value, or null', () => {
    expect(header({ a: ['1', '2'], b: 'x' }, 'a')).toBe('1');
    expect(header({ a: ['1', '2'], b: 'x' }, 'b')).toBe('x');
    expect(header({ a: [] }, 'a')).toBeNull();
    expect(header({}, 'c')).toBeNull();
  });
  it('views a Uint8Array slice as a Buffer without copying', () => {
    const bytes = new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 4);
    const buf = asBuffer(bytes);
    expect([...buf]).toEqual([2, 3, 4]);
    bytes[0] = 9;
    expect(buf[0]).toBe(9);
  });
});

// send() against real loopback servers (node:http), each started inside its test (no beforeAll: see
// docs/MUTATION.md, "Static mutants"). The context is the collector's own (createHttpContext), with
// undici's idle timers far past every test's deadline so a deadline a test reads is send()'s own.
type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };
type Route = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

async function withServers<T>(
  hosts: string[],
  route: (origins: string[]) => Route,
  fn: (origins: string[], seen: Seen[][], ctx: HttpContext) => Promise<T>,
  hostLimit?: (host: string) => number,
  over: Partial<HttpContextOptions> = {},
): Promise<T> {
  const seen: Seen[][] = hosts.map(() => []);
  const origins: string[] = [];
  let handler: Route = () => {};
  const servers = hosts.map((_, i) =>
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
        seen[i]!.push(s);
        handler(req, res, s);
      });
    }),
  );
  for (const [i, server] of servers.entries()) {
    await new Promise<void>((r) => server.listen(0, hosts[i], r));
    origins.push(`http://${hosts[i]}:${(server.address() as AddressInfo).port}`);
  }
  handler = route(origins);
  const ctx = createHttpContext({ policy: 'public+loopback', timeoutMs: 60_000, hostLimit, ...over });
  try {
    return await fn(origins, seen, ctx);
  } finally {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
    await ctx.dispatcher.destroy().catch(() => {});
  }
}

const newTrace = (): Trace => ({ finalUrl: null, redirects: 0 });
const BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
const opts = (over: Partial<SendOptions> = {}): SendOptions => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, timeoutMs: 2_000, maxRedirects: 3, ...over });
const readText = async (a: Answer) => ({ status: a.status, url: a.url, text: await a.body.text() });
/** /r<n> (n > 0) redirects with `status` to `to(n)` (default /r<n-1> on the first origin); anything else answers 200 with the request's method and body. */
const chain =
  (status: number, to?: (n: number, origins: string[]) => string) =>
  (origins: string[]): Route =>
  (_req, res, s) => {
    const m = /^\/r(\d+)$/.exec(s.url);
    if (m && Number(m[1]) > 0) return void res.writeHead(status, { location: to ? to(Number(m[1]), origins) : `/r${Number(m[1]) - 1}` }).end('moved');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`${s.method} ${s.body}`);
  };
const trail = (seen: Seen[] | undefined) => seen!.map((s) => `${s.method} ${s.url} ${s.body}`);

describe('send(ctx, url, opts, trace, read): which redirects are followed', () => {
  it.each([307, 308])('follows a %i with the POST and its body, counting the hops and naming where it ended', async (status) => {
    await withServers(['127.0.0.1'], chain(status), async ([origin], [seen], ctx) => {
      const trace = newTrace();
      expect(await send(ctx, `${origin}/r2`, opts(), trace, readText)).toEqual({ status: 200, url: `${origin}/r0`, text: `POST ${BODY}` });
      expect(trail(seen)).toEqual([`POST /r2 ${BODY}`, `POST /r1 ${BODY}`, `POST /r0 ${BODY}`]);
      expect(trace).toEqual({ finalUrl: `${origin}/r0`, redirects: 2 });
    });
  });

  it('leaves the trace as it was when the first answer is not a redirect (near miss of the above)', async () => {
    await withServers(['127.0.0.1'], chain(307), async ([origin], [seen], ctx) => {
      const trace = newTrace();
      expect(await send(ctx, `${origin}/r0`, opts(), trace, readText)).toEqual({ status: 200, url: `${origin}/r0`, text: `POST ${BODY}` });
      expect(trace).toEqual({ finalUrl: null, redirects: 0 });
      expect(seen).toHaveLength(1);
    });
  });

  it.each([301, 302, 303])('does not follow a %i answered to a POST or a DELETE: it would turn the request into a GET', async (status) => {
    await withServers(['127.0.0.1'], chain(status), async ([origin], [seen], ctx) => {
      for (const method of ['POST', 'DELETE'] as const) {
        const trace = newTrace();
        const err = await send(ctx, `${origin}/r1`, opts({ method }), trace, readText).catch((e: unknown) => e);
        expect(err).toMatchObject({ name: 'GuardError', code: GUARD.redirectNotFollowed, status, message: `redirect not followed: http ${status} would turn our POST into a GET` });
        expect(trace).toEqual({ finalUrl: null, redirects: 0 });
      }
      expect(seen!.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /r1', 'DELETE /r1']);
    });
  });

  it.each([301, 302, 303, 307, 308])('a GET follows a %i (it has no body to lose)', async (status) => {
    await withServers(['127.0.0.1'], chain(status), async ([origin], [seen], ctx) => {
      const trace = newTrace();
      const a = await send(ctx, `${origin}/r1`, opts({ method: 'GET', body: undefined }), trace, readText);
      expect(a).toEqual({ status: 200, url: `${origin}/r0`, text: 'GET ' });
      expect(trace).toEqual({ finalUrl: `${origin}/r0`, redirects: 1 });
      expect(seen!.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /r1', 'GET /r0']);
    });
  });

  it('hands a 3xx without a Location, and a 300 or 304 with one, to read as the answer', async () => {
    const route = (): Route => (_req, res, s) => {
      if (s.url === '/bare') return void res.writeHead(302).end('no location');
      res.writeHead(s.url === '/300' ? 300 : 304, { location: '/elsewhere' }).end();
    };
    await withServers(['127.0.0.1'], route, async ([origin], [seen], ctx) => {
      const trace = newTrace();
      expect(await send(ctx, `${origin}/bare`, opts(), trace, readText)).toEqual({ status: 302, url: `${origin}/bare`, text: 'no location' });
      expect(await send(ctx, `${origin}/300`, opts(), trace, readText)).toMatchObject({ status: 300, url: `${origin}/300` });
      expect(await send(ctx, `${origin}/304`, opts({ method: 'GET', body: undefined }), trace, readText)).toMatchObject({ status: 304 });
      expect(trace).toEqual({ finalUrl: null, redirects: 0 });
      expect(seen!.map((s) => s.url)).toEqual(['/bare', '/300', '/304']);
    });
  });

  it('follows exactly maxRedirects hops and refuses the next one, keeping the trace of the hops it made', async () => {
    await withServers(['127.0.0.1'], chain(307), async ([origin], [seen], ctx) => {
      const ok = newTrace();
      expect(await send(ctx, `${origin}/r2`, opts({ maxRedirects: 2 }), ok, readText)).toMatchObject({ status: 200 });
      expect(ok.redirects).toBe(2);
      const over = newTrace();
      await expect(send(ctx, `${origin}/r3`, opts({ maxRedirects: 2 }), over, readText)).rejects.toMatchObject({
        code: GUARD.redirectNotFollowed,
        status: 307,
        message: 'redirect not followed: more than 2 redirects',
      });
      expect(over).toEqual({ finalUrl: `${origin}/r1`, redirects: 2 });
      const none = newTrace();
      await expect(send(ctx, `${origin}/r1`, opts({ maxRedirects: 0 }), none, readText)).rejects.toMatchObject({ message: 'redirect not followed: more than 0 redirects' });
      expect(none.redirects).toBe(0);
      expect(seen!.map((s) => s.url)).toEqual(['/r2', '/r1', '/r0', '/r3', '/r2', '/r1', '/r1']);
    });
  });

  it('ends a redirect loop at the limit', async () => {
    await withServers(['127.0.0.1'], () => (_req, res) => void res.writeHead(308, { location: '/loop' }).end(), async ([origin], [seen], ctx) => {
      const trace = newTrace();
      await expect(send(ctx, `${origin}/loop`, opts(), trace, readText)).rejects.toMatchObject({ code: GUARD.redirectNotFollowed, message: 'redirect not followed: more than 3 redirects' });
      expect(trace).toEqual({ finalUrl: `${origin}/loop`, redirects: 3 });
      expect(seen).toHaveLength(4);
    });
  });

  it('follows a Location on https: (here to a plain-http port, so the TLS handshake is what fails, after the hop)', async () => {
    await withServers(['127.0.0.1'], (origins) => (_req, res, s) => void (s.url === '/mcp' ? res.writeHead(308, { location: origins[0]!.replace('http:', 'https:') + '/tls' }).end() : res.writeHead(200).end()), async ([origin], [seen], ctx) => {
      const trace = newTrace();
      const err: unknown = await send(ctx, `${origin}/mcp`, opts(), trace, readText).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as { code?: string }).code).not.toBe(GUARD.redirectNotFollowed);
      expect(trace).toEqual({ finalUrl: `${origin!.replace('http:', 'https:')}/tls`, redirects: 1 });
      expect(seen).toHaveLength(1); // the TLS hello is not an HTTP request
    });
  });

  it.each([
    ['http://[::1', 'redirect not followed: invalid location'],
    ['ftp://127.0.0.1/x', 'redirect not followed: location scheme ftp:'],
    ['file:///etc/passwd', 'redirect not followed: location scheme file:'],
  ])('does not follow a Location of %s', async (location, message) => {
    await withServers(['127.0.0.1'], () => (_req, res) => void res.writeHead(307, { location }).end(), async ([origin], [seen], ctx) => {
      const trace = newTrace();
      await expect(send(ctx, `${origin}/mcp`, opts(), trace, readText)).rejects.toMatchObject({ name: 'GuardError', code: GUARD.redirectNotFollowed, status: 307, message });
      expect(trace).toEqual({ finalUrl: null, redirects: 0 });
      expect(seen).toHaveLength(1);
    });
  });
});

describe('send(): what crosses to another origin', () => {
  const SESSION = { 'mcp-session-id': 's-1', 'mcp-protocol-version': '2025-06-18', accept: 'application/json, text/event-stream' };
  const learnt = (s: Seen) => [s.headers['mcp-session-id'] ?? null, s.headers['mcp-protocol-version'] ?? null, s.headers.accept ?? null];

  it('keeps the session id and the negotiated revision on a same-origin hop', async () => {
    await withServers(['127.0.0.1'], chain(307), async ([origin], [seen], ctx) => {
      await send(ctx, `${origin}/r1`, opts({ headers: SESSION }), newTrace(), readText);
      expect(seen!.map(learnt)).toEqual([
        ['s-1', '2025-06-18', SESSION.accept],
        ['s-1', '2025-06-18', SESSION.accept],
      ]);
    });
  });

  it('drops exactly those two at the first hop to another origin, and does not bring them back on the way home', async () => {
    // A (127.0.0.1) /r2 → B (127.0.0.2) /r1 → A /r0.
    const to = (n: number, origins: string[]) => (n === 2 ? `${origins[1]}/r1` : `${origins[0]}/r0`);
    await withServers(['127.0.0.1', '127.0.0.2'], chain(307, to), async ([a, b], [atA, atB], ctx) => {
      const trace = newTrace();
      expect(await send(ctx, `${a}/r2`, opts({ headers: SESSION }), trace, readText)).toMatchObject({ status: 200, url: `${a}/r0` });
      expect(trace).toEqual({ finalUrl: `${a}/r0`, redirects: 2 });
      expect(atA!.map((s) => [s.url, ...learnt(s)])).toEqual([
        ['/r2', 's-1', '2025-06-18', SESSION.accept],
        ['/r0', null, null, SESSION.accept],
      ]);
      expect(atB!.map((s) => [s.url, ...learnt(s), s.body])).toEqual([['/r1', null, null, SESSION.accept, BODY]]);
      void b;
    });
  });

  it('sends a redirected hop to a private address nowhere', async () => {
    await withServers(['127.0.0.1'], () => (_req, res) => void res.writeHead(307, { location: 'http://10.1.2.3/mcp' }).end(), async ([origin], [seen], ctx) => {
      const trace = newTrace();
      await expect(send(ctx, `${origin}/mcp`, opts(), trace, readText)).rejects.toMatchObject({ code: GUARD.addressRefused, message: 'refused address: 10.1.2.3 is private' });
      expect(trace).toEqual({ finalUrl: 'http://10.1.2.3/mcp', redirects: 1 });
      expect(seen).toHaveLength(1);
    });
  });
});

describe('send(): one deadline, and the sockets a host gets', () => {
  it('gives up on a server that never answers at its own deadline (timeoutMs), not undici’s', async () => {
    await withServers(['127.0.0.1'], () => () => {}, async ([origin], [seen], ctx) => {
      await expect(send(ctx, `${origin}/mcp`, opts({ timeoutMs: 300 }), newTrace(), readText)).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(seen).toHaveLength(1);
    });
  });

  it('a host allowed three requests at a time gets three sockets: three endpoints are at the server together', async () => {
    // The server answers nobody until three requests are in; with one socket the second never arrives.
    const route = (): Route => {
      const waiting: ServerResponse[] = [];
      return (_req, res) => {
        waiting.push(res);
        if (waiting.length === 3) for (const r of waiting) r.writeHead(200).end('ok');
      };
    };
    await withServers(['127.0.0.1'], route, async ([origin], [seen], ctx) => {
      const all = await Promise.all(['/a', '/b', '/c'].map((p) => send(ctx, origin + p, opts(), newTrace(), readText)));
      expect(all.map((x) => x.text)).toEqual(['ok', 'ok', 'ok']);
      expect(seen).toHaveLength(3);
    }, () => 3);
  });

  it('connects through the address-checking connector whatever the host’s limit', async () => {
    for (const limit of [1, 3]) {
      const connects: string[] = [];
      await withServers(['127.0.0.1'], () => (_req, res) => void res.writeHead(200).end('ok'), async ([origin], _seen, ctx) => {
        await send(ctx, `${origin}/mcp`, opts(), newTrace(), readText);
        expect(connects).toEqual([`127.0.0.1:${new URL(origin!).port}`]);
      }, () => limit, { onConnect: (h, p) => connects.push(`${h}:${p}`) });
    }
  });

  it.each([
    ['ftp://127.0.0.1/mcp', 'public+loopback', 'refused address: scheme ftp: is not http(s)'],
    ['http://localhost:9/mcp', 'public', 'refused address: localhost is a localhost name (loopback)'],
  ] as const)('refuses %s before any request, saying why', async (url, policy, message) => {
    const connects: string[] = [];
    const ctx = createHttpContext({ policy, timeoutMs: 2_000, onConnect: (h, p) => connects.push(`${h}:${p}`) });
    try {
      await expect(send(ctx, url, opts(), newTrace(), readText)).rejects.toMatchObject({ code: GUARD.addressRefused, message });
      expect(connects).toEqual([]);
    } finally {
      await ctx.dispatcher.destroy();
    }
  });

  it('a host allowed one at a time sees one request at a time (near miss of the above)', async () => {
    let inFlight = 0;
    let peak = 0;
    const route = (): Route => (_req, res) => {
      peak = Math.max(peak, ++inFlight);
      setImmediate(() => {
        inFlight--;
        res.writeHead(200).end('ok');
      });
    };
    await withServers(['127.0.0.1'], route, async ([origin], [seen], ctx) => {
      await Promise.all(['/a', '/b', '/c'].map((p) => send(ctx, origin + p, opts(), newTrace(), readText)));
      expect(seen).toHaveLength(3);
      expect(peak).toBe(1);
    });
  });
});
