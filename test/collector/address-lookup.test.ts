// address-policy.ts for DNS names: what the lookup hook does with each kind of answer, and
// the connector around it — the parts a test with literal addresses never reaches. DNS is node:dns's
// lookup replaced per test (the hook and undici's connect both call it), so a name can "resolve" to
// any address without a network: a mixed answer, an empty one, a failure.
import dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADDRESS_POLICIES, addressRefusal, guardedConnector, hostRefusal, lookupFor } from '../../collector/address-policy.ts';
import { GUARD } from '../../collector/errors.ts';
import { createHttpContext } from '../../collector/http.ts';

type Answer = { address: string; family: number }[];
/** Make node:dns answer every name with `answer` (or fail with `code`). */
function resolveTo(answer: Answer | { code: string }) {
  return vi.spyOn(dns, 'lookup').mockImplementation(((_name: string, _opts: unknown, cb: (e: unknown, a?: unknown) => void) => {
    if ('code' in answer) return void process.nextTick(() => cb(Object.assign(new Error(`lookup failed: ${answer.code}`), { code: answer.code })));
    process.nextTick(() => cb(null, answer));
  }) as never);
}
afterEach(() => vi.restoreAllMocks());

const look = (policy: 'public' | 'public+loopback', name: string, all: boolean) =>
  new Promise<{ err: (Error & { code?: string }) | null; address: unknown; family: unknown }>((resolve) => lookupFor(policy)(name, { all }, (err, address, family) => resolve({ err, address, family })));

describe('lookupFor(policy): the lookup hook', () => {
  it('passes a public answer on: every address when asked for all, else the first with its family', async () => {
    const answer = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::248', family: 6 },
    ];
    resolveTo(answer);
    expect(await look('public', 'example.test', true)).toEqual({ err: null, address: answer, family: undefined });
    expect(await look('public', 'example.test', false)).toEqual({ err: null, address: '93.184.216.34', family: 4 });
  });

  it('refuses a name when ANY address it resolves to is refused (a mixed answer is a rebinding smell), naming it', async () => {
    resolveTo([
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ]);
    const r = await look('public', 'mixed.test', false);
    expect(r.err).toMatchObject({ code: GUARD.addressRefused, message: 'refused address: mixed.test resolves to 10.0.0.7 is private' });
    expect(r.address).toEqual([]);
  });

  it('near miss: loopback is refused under public and passes under public+loopback; private under neither', async () => {
    resolveTo([{ address: '127.0.0.1', family: 4 }]);
    expect((await look('public', 'loop.test', false)).err).toMatchObject({ code: GUARD.addressRefused });
    expect(await look('public+loopback', 'loop.test', false)).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    resolveTo([{ address: '192.168.1.1', family: 4 }]);
    expect((await look('public+loopback', 'lan.test', true)).err).toMatchObject({ code: GUARD.addressRefused, message: expect.stringContaining('192.168.1.1 is private') });
  });

  it('a failed lookup is passed on as it is; an empty answer is "not found"', async () => {
    resolveTo({ code: 'ENOTFOUND' });
    const failed = await look('public', 'nowhere.test', false);
    expect(failed.err).toMatchObject({ code: 'ENOTFOUND', message: 'lookup failed: ENOTFOUND' });
    expect(failed.address).toEqual([]);
    resolveTo([]);
    const empty = await look('public', 'empty.test', false);
    expect(empty.err).toMatchObject({ code: 'ENOTFOUND', message: 'no address for empty.test' });
    expect(empty.address).toEqual([]);
    // Near miss: asked for all, an empty answer is an empty list, not an error.
    expect(await look('public', 'empty.test', true)).toEqual({ err: null, address: [], family: undefined });
  });
});

describe('guardedConnector(timeoutMs, policy, onConnect)', () => {
  let server: Server;
  let port: number;
  let closed: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
    // A port nothing listens on: one we opened and closed.
    const tmp = createServer();
    await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', () => r()));
    closed = (tmp.address() as AddressInfo).port;
    await new Promise<void>((r) => tmp.close(() => r()));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('under public, a name that resolves to loopback is refused at lookup, before any socket', async () => {
    resolveTo([{ address: '127.0.0.1', family: 4 }]);
    const ctx = createHttpContext({ policy: 'public', timeoutMs: 2000 });
    try {
      await expect(request(`http://rebind.test:${port}/`, { dispatcher: ctx.dispatcher })).rejects.toMatchObject({ code: GUARD.addressRefused, message: 'refused address: rebind.test resolves to 127.0.0.1 is loopback' });
    } finally {
      await ctx.dispatcher.close();
    }
  });

  it('near miss: under public+loopback the same name reaches the server, and onConnect hears its name and port', async () => {
    resolveTo([{ address: '127.0.0.1', family: 4 }]);
    const heard: [string, string][] = [];
    const ctx = createHttpContext({ policy: 'public+loopback', timeoutMs: 2000, onConnect: (h, p) => heard.push([h, p]) });
    try {
      const res = await request(`http://rebind.test:${port}/`, { dispatcher: ctx.dispatcher });
      expect(await res.body.text()).toBe('reached');
      expect(heard).toEqual([['rebind.test', String(port)]]);
    } finally {
      await ctx.dispatcher.close();
    }
  });

  it('a connection that fails is reported as it failed (refused), not as a refusal of ours', async () => {
    const connect = guardedConnector(2000, 'public+loopback');
    const err = await new Promise<unknown>((resolve) => connect({ hostname: '127.0.0.1', host: `127.0.0.1:${closed}`, port: String(closed), protocol: 'http:' } as never, (...args: unknown[]) => resolve(args[0])));
    expect(err).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('a literal it refuses never reaches onConnect; one it allows does, with its port', async () => {
    const heard: string[] = [];
    const connect = guardedConnector(2000, 'public', (h, p) => heard.push(`${h}:${p}`));
    const err = await new Promise<unknown>((resolve) => connect({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, port: String(port), protocol: 'http:' } as never, (...args: unknown[]) => resolve(args[0])));
    expect(err).toMatchObject({ code: GUARD.addressRefused, message: 'refused address: 127.0.0.1 is loopback' });
    expect(heard).toEqual([]);
    const open = guardedConnector(2000, 'public+loopback', (h, p) => heard.push(`${h}:${p}`));
    const socket = await new Promise<{ destroy(): void } | null>((resolve) => open({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, port: String(port), protocol: 'http:' } as never, (_e, s) => resolve(s as never)));
    expect(socket).not.toBeNull();
    socket!.destroy();
    expect(heard).toEqual([`127.0.0.1:${port}`]);
  });
});

describe('address spellings', () => {
  it('a bracketed IPv6 address is read without its brackets', () => {
    expect(addressRefusal('[::1]', 'public+loopback')).toBeNull();
    expect(addressRefusal('[::1]')).toBe('::1 is loopback');
    expect(addressRefusal('[2606:4700:4700::1111]')).toBeNull();
    expect(hostRefusal(new URL('http://[::1]:8080/mcp'), 'public+loopback')).toBeNull();
    expect(hostRefusal(new URL('http://[fe80::1]/mcp'), 'public+loopback')).toBe('fe80::1 is linkLocal');
  });

  it('the policies the CLI accepts', () => {
    expect(ADDRESS_POLICIES).toEqual(['public', 'public+loopback']);
  });
});
