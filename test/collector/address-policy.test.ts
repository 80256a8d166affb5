import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUARD } from '../../collector/errors.ts';
import { addressRefusal, hostRefusal, safeLookup } from '../../collector/address-policy.ts';
import { createHttpContext, readCapped, send } from '../../collector/http.ts';

describe('hostRefusal(url)', () => {
  // Every spelling of a forbidden address a registry entry could use. The WHATWG URL parser
  // normalises decimal/octal/hex IPv4 first; we check what it produced.
  it.each([
    ['http://127.0.0.1/mcp', /loopback/],
    ['http://2130706433/mcp', /loopback/], // decimal
    ['http://0177.0.0.1/mcp', /loopback/], // octal
    ['http://0x7f.0.0.1/mcp', /loopback/], // hex
    ['http://0x7f000001/mcp', /loopback/],
    ['http://127.1/mcp', /loopback/], // short form
    ['http://[::1]/mcp', /loopback/],
    ['http://[::ffff:127.0.0.1]/mcp', /loopback/], // IPv4-mapped
    ['http://[::ffff:7f00:1]/mcp', /loopback/],
    ['http://[::ffff:169.254.169.254]/mcp', /linkLocal/],
    ['http://localhost/mcp', /localhost/],
    ['http://localhost./mcp', /localhost/],
    ['http://LOCALHOST:8080/mcp', /localhost/],
    ['http://foo.localhost/mcp', /localhost/],
    ['http://169.254.169.254/latest/meta-data', /linkLocal/], // cloud metadata
    ['http://100.64.0.1/mcp', /carrierGradeNat/],
    ['http://100.127.255.254/mcp', /carrierGradeNat/],
    ['http://10.0.0.1/mcp', /private/],
    ['http://172.16.5.4/mcp', /private/],
    ['http://192.168.1.1/mcp', /private/],
    ['http://0.0.0.0/mcp', /unspecified/],
    ['http://0/mcp', /unspecified/],
    ['http://224.0.0.1/mcp', /multicast/],
    ['http://255.255.255.255/mcp', /broadcast/],
    ['http://240.0.0.1/mcp', /reserved/],
    ['http://[fc00::1]/mcp', /uniqueLocal/],
    ['http://[fd12:3456::1]/mcp', /uniqueLocal/],
    ['http://[fe80::1]/mcp', /linkLocal/],
    ['http://[::]/mcp', /unspecified/],
    ['http://[ff02::1]/mcp', /multicast/],
    ['http://[2002:7f00:1::]/mcp', /6to4/], // 6to4 embedding 127.0.0.1
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/mcp', /teredo/],
    ['http://[64:ff9b::7f00:1]/mcp', /rfc6052/], // NAT64 of 127.0.0.1
    ['ftp://example.com/mcp', /scheme/],
  ])('refuses %s', (url, why) => {
    expect(hostRefusal(new URL(url))).toMatch(why);
  });

  it.each(['https://example.com/mcp', 'http://93.184.215.14/mcp', 'http://8.8.8.8:8080/mcp', 'https://[2606:4700::6810:85e5]/mcp', 'https://mcp.localhost.example.com/'])(
    'lets %s through (public unicast, or a DNS name checked at connect)',
    (url) => {
      expect(hostRefusal(new URL(url))).toBeNull();
    },
  );
});

describe('addressRefusal(ip)', () => {
  it('allows public unicast only', () => {
    expect(addressRefusal('1.1.1.1')).toBeNull();
    expect(addressRefusal('2606:4700:4700::1111')).toBeNull();
    expect(addressRefusal('::ffff:1.1.1.1')).toBeNull();
    expect(addressRefusal('127.0.0.53')).toMatch(/loopback/);
    expect(addressRefusal('::ffff:10.1.2.3')).toMatch(/private/);
    expect(addressRefusal('not-an-ip')).toMatch(/not an ip/);
  });

  it('takes off the brackets around an IPv6 literal, and repairs nothing else', () => {
    expect(addressRefusal('[2606:4700:4700::1111]')).toBeNull();
    expect(addressRefusal('[::1]')).toMatch(/loopback/);
    // A stray bracket anywhere else is a malformed address, refused as one: stripping it would turn
    // hostile input into an address the prober connects to.
    expect(addressRefusal('1.1.1.1[')).toMatch(/not an ip/);
    expect(addressRefusal(']1.1.1.1')).toMatch(/not an ip/);
  });
});

describe('createHttpContext({ allowPrivate: false }) at connect time', () => {
  // Bypasses send()'s literal pre-check on purpose: the Agent itself must refuse, because that is
  // where a DNS answer (or a re-bound one) turns into a socket.
  let server: import('node:http').Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each(['localhost', 'localhost.', '127.0.0.1'])('refuses http://%s:port/ in the connector', async (host) => {
    const ctx = createHttpContext({ allowPrivate: false, timeoutMs: 2000 });
    try {
      await expect(request(`http://${host}:${port}/`, { dispatcher: ctx.dispatcher })).rejects.toMatchObject({ code: GUARD.addressRefused });
    } finally {
      await ctx.dispatcher.close();
    }
  });

  it('the lookup hook refuses a name that resolves to loopback', async () => {
    const err = await new Promise<unknown>((resolve) => safeLookup('localhost', { all: true }, (e) => resolve(e)));
    expect(err).toMatchObject({ code: GUARD.addressRefused, message: expect.stringMatching(/localhost resolves to 127\.0\.0\.1 is loopback/) });
  });

  it('reaches the same server with allowPrivate', async () => {
    const ctx = createHttpContext({ allowPrivate: true, timeoutMs: 2000 });
    try {
      const res = await request(`http://127.0.0.1:${port}/`, { dispatcher: ctx.dispatcher });
      expect(await res.body.text()).toBe('reached');
    } finally {
      await ctx.dispatcher.close();
    }
  });
});

describe("policy 'public+loopback' (local worlds and tests): loopback and nothing else", () => {
  it.each(['127.0.0.1', '127.0.0.2', '127.1.2.3', '::1', '::ffff:127.0.0.1'])('allows %s', (ip) => {
    expect(addressRefusal(ip, 'public+loopback')).toBeNull();
  });
  it.each([
    ['10.0.0.1', /private/],
    ['169.254.169.254', /linkLocal/],
    ['100.64.0.1', /carrierGradeNat/],
    ['::ffff:10.0.0.1', /private/],
    ['fd00::1', /uniqueLocal/],
    ['0.0.0.0', /unspecified/],
  ])('still refuses %s', (ip, why) => {
    expect(addressRefusal(ip, 'public+loopback')).toMatch(why);
  });
  it('lets localhost names through, refuses private literals before any DNS', () => {
    expect(hostRefusal(new URL('http://localhost:8080/'), 'public+loopback')).toBeNull();
    expect(hostRefusal(new URL('http://127.0.0.5/'), 'public+loopback')).toBeNull();
    expect(hostRefusal(new URL('http://10.0.0.1/.well-known/oauth-protected-resource'), 'public+loopback')).toMatch(/private/);
    expect(hostRefusal(new URL('http://169.254.169.254/latest/meta-data/'), 'public+loopback')).toMatch(/linkLocal/);
    expect(hostRefusal(new URL('file:///etc/passwd'), 'public+loopback')).toMatch(/scheme/);
  });
  it('--allow-private (allowPrivate: true) means public+loopback', () => {
    expect(createHttpContext({ allowPrivate: true, timeoutMs: 1000 }).policy).toBe('public+loopback');
    expect(createHttpContext({ allowPrivate: false, timeoutMs: 1000 }).policy).toBe('public');
    expect(createHttpContext({ timeoutMs: 1000 }).policy).toBe('public');
  });
});

describe('send() under public+loopback: private and link-local URLs are refused with zero connection attempts', () => {
  // A loopback server that answers GET /ok and redirects /to-private and /to-link-local away.
  let server: import('node:http').Server;
  let origin: string;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      if (req.url === '/to-private') return res.writeHead(302, { location: 'http://10.0.0.1/.well-known/oauth-protected-resource' }).end();
      if (req.url === '/to-link-local') return res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/to-ok') return res.writeHead(303, { location: '/ok' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
    origin = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const withContext = async (f: (ctx: ReturnType<typeof createHttpContext>, connects: string[]) => Promise<void>) => {
    const connects: string[] = [];
    const ctx = createHttpContext({ policy: 'public+loopback', timeoutMs: 2000, onConnect: (h, p) => connects.push(`${h}:${p}`) });
    try {
      await f(ctx, connects);
    } finally {
      await ctx.dispatcher.close();
    }
  };
  const get = (ctx: ReturnType<typeof createHttpContext>, url: string, trace = { finalUrl: null as string | null, redirects: 0 }) =>
    send(ctx, url, { method: 'GET', headers: { accept: 'application/json' }, timeoutMs: 2000, maxRedirects: 3 }, trace, (a) => readCapped(a.body, 1024, 'body').then((b) => `${a.status} ${b.toString()}`));

  it.each(['http://10.0.0.1/.well-known/oauth-protected-resource', 'http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'http://[::ffff:10.0.0.1]/x', 'http://100.64.0.1/x'])(
    'refuses %s before connecting',
    async (url) => {
      await withContext(async (ctx, connects) => {
        await expect(get(ctx, url)).rejects.toMatchObject({ code: GUARD.addressRefused });
        expect(connects).toEqual([]);
      });
    },
  );

  it('the connector itself refuses a private literal (send()’s pre-check bypassed): no connection attempt', async () => {
    await withContext(async (ctx, connects) => {
      await expect(request('http://10.0.0.1/', { dispatcher: ctx.dispatcher })).rejects.toMatchObject({ code: GUARD.addressRefused });
      await expect(request('http://169.254.169.254/', { dispatcher: ctx.dispatcher })).rejects.toMatchObject({ code: GUARD.addressRefused });
      expect(connects).toEqual([]);
    });
  });

  it.each([
    ['/to-private', /10\.0\.0\.1 is private/],
    ['/to-link-local', /169\.254\.169\.254 is linkLocal/],
  ])('a GET redirected from loopback (%s) is refused at the hop: only the loopback origin was contacted', async (path, why) => {
    await withContext(async (ctx, connects) => {
      hits.length = 0;
      const trace = { finalUrl: null as string | null, redirects: 0 };
      await expect(get(ctx, origin + path, trace)).rejects.toMatchObject({ code: GUARD.addressRefused, message: expect.stringMatching(why) });
      expect(hits).toEqual([`GET ${path}`]);
      expect(connects.every((c) => c.startsWith('127.0.0.2:'))).toBe(true);
      expect(trace.redirects).toBe(1);
    });
  });

  it('a GET follows 303 (and any 3xx) on loopback; a POST does not', async () => {
    await withContext(async (ctx) => {
      expect(await get(ctx, `${origin}/to-ok`)).toBe('200 {"ok":true}');
      await expect(
        send(ctx, `${origin}/to-ok`, { method: 'POST', headers: {}, body: '{}', timeoutMs: 2000, maxRedirects: 3 }, { finalUrl: null, redirects: 0 }, async () => 'read'),
      ).rejects.toMatchObject({ code: GUARD.redirectNotFollowed, status: 303 });
    });
  });
});
