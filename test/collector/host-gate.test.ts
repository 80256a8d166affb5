// The request-level courtesy gate (collector/host-gate.ts): one request at a time per
// endpoint URL, at most limit(host) per URL host, FIFO, a slot given back however the request ends.
// Fast enough for the collector's mutation config (stryker.collector.config.mjs), unlike the
// end-to-end loopback run in scheduling.test.ts ("a host only redirects lead to").
//
// The send() cases use a dispatcher with many sockets per origin: in the collector's own context
// (createHttpContext) undici's one-Client-per-origin also keeps a limit-1 host to one request at a
// time, so there the two hold the same line and breaking either alone shows nothing at the server.
// Here only the gate holds it, which is what these tests are about.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { guardedConnector } from '../../collector/address-policy.ts';
import { HostGate } from '../../collector/host-gate.ts';
import { createHttpContext, send, type HttpContext } from '../../collector/http.ts';
import { startCountingHosts, type CountingHosts } from '../../sandbox/counting-hosts.ts';

/** A task that stays in flight until `open()`; `inFlight` counts per key across tasks. */
function tracker() {
  const live = new Map<string, number>();
  const peak = new Map<string, number>();
  const order: string[] = [];
  const gates: (() => void)[] = [];
  const task = (key: string, label = key) => async () => {
    const n = (live.get(key) ?? 0) + 1;
    live.set(key, n);
    peak.set(key, Math.max(peak.get(key) ?? 0, n));
    order.push(label);
    await new Promise<void>((r) => gates.push(r));
    live.set(key, live.get(key)! - 1);
    return label;
  };
  /** Let every task now waiting finish, and the gate pass its slots on. */
  const open = async () => {
    for (let i = 0; i < 50; i++) {
      for (const g of gates.splice(0)) g();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { task, open, peak, order, started: () => order.length };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('HostGate.run(host, fn, endpoint?)', () => {
  it('lets one request at a time through on a host by default, in the order they came', async () => {
    const gate = new HostGate();
    const t = tracker();
    const all = Promise.all(['a', 'b', 'c', 'd'].map((l) => gate.run('h:1', t.task('h:1', l))));
    await tick();
    expect(t.started()).toBe(1);
    await t.open();
    expect(await all).toEqual(['a', 'b', 'c', 'd']);
    expect(t.order).toEqual(['a', 'b', 'c', 'd']);
    expect(t.peak.get('h:1')).toBe(1);
  });

  it('lets limit(host) through at once, and no more; other hosts are not held by it', async () => {
    const gate = new HostGate((h) => (h === 'big:1' ? 3 : 1));
    const t = tracker();
    const big = Promise.all([1, 2, 3, 4, 5].map((i) => gate.run('big:1', t.task('big:1', `b${i}`))));
    const small = Promise.all([1, 2].map((i) => gate.run('small:1', t.task('small:1', `s${i}`))));
    await tick();
    // Near miss: exactly the limit, not one more and not one fewer.
    expect(t.order.filter((l) => l.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
    expect(t.order.filter((l) => l.startsWith('s'))).toEqual(['s1']);
    await t.open();
    await Promise.all([big, small]);
    expect(t.peak.get('big:1')).toBe(3);
    expect(t.peak.get('small:1')).toBe(1);
  });

  it('reads a limit below one as one (a host is never shut out)', async () => {
    for (const limit of [0, -2]) {
      const gate = new HostGate(() => limit);
      const t = tracker();
      const all = Promise.all([1, 2].map((i) => gate.run('h:1', t.task('h:1', `x${i}`))));
      await tick();
      expect(t.started(), `limit ${limit}`).toBe(1);
      await t.open();
      expect(await all).toEqual(['x1', 'x2']);
    }
  });

  it('holds one request at a time per endpoint even when its host allows more', async () => {
    const gate = new HostGate(() => 4);
    const t = tracker();
    const same = Promise.all([1, 2, 3].map((i) => gate.run('h:1', t.task('e1', `e1-${i}`), 'http://h:1/mcp')));
    const other = gate.run('h:1', t.task('e2', 'e2'), 'http://h:1/other');
    await tick();
    expect(t.order).toEqual(['e1-1', 'e2']);
    await t.open();
    await Promise.all([same, other]);
    expect(t.peak.get('e1')).toBe(1);
    expect(t.order).toEqual(['e1-1', 'e2', 'e1-2', 'e1-3']);
  });

  it('a request waiting for its endpoint does not take a host slot meanwhile', async () => {
    const gate = new HostGate(() => 2);
    const t = tracker();
    const runs = [gate.run('h:1', t.task('h', 'a1'), 'http://h:1/a'), gate.run('h:1', t.task('h', 'a2'), 'http://h:1/a'), gate.run('h:1', t.task('h', 'b1'), 'http://h:1/b')];
    await tick();
    // a2 waits for /a; b1 takes the host's second slot.
    expect(t.order).toEqual(['a1', 'b1']);
    await t.open();
    await Promise.all(runs);
    expect(t.order).toEqual(['a1', 'b1', 'a2']);
  });

  it('gives the slot back when the request fails, and passes the failure on', async () => {
    const gate = new HostGate();
    const t = tracker();
    await expect(gate.run('h:1', async () => Promise.reject(new Error('boom')), 'http://h:1/mcp')).rejects.toThrow('boom');
    await expect(gate.run('h:1', () => { throw new Error('sync boom'); }, 'http://h:1/mcp')).rejects.toThrow('sync boom');
    const next = gate.run('h:1', t.task('h', 'after'), 'http://h:1/mcp');
    await tick();
    expect(t.order).toEqual(['after']);
    await t.open();
    expect(await next).toBe('after');
  });

  it('a slot given back while others are still busy does not reset the host: the limit still counts them', async () => {
    const gate = new HostGate(() => 2);
    let releaseA!: () => void;
    const a = gate.run('h:1', () => new Promise<void>((r) => (releaseA = r)));
    let releaseB!: () => void;
    const b = gate.run('h:1', () => new Promise<void>((r) => (releaseB = r)));
    await tick();
    releaseA();
    await a;
    // b is still in flight: of c and d only one may start (near miss: both would make three at once).
    const t = tracker();
    const rest = Promise.all([gate.run('h:1', t.task('h', 'c')), gate.run('h:1', t.task('h', 'd'))]);
    await tick();
    expect(t.order).toEqual(['c']);
    releaseB();
    await b;
    await t.open();
    await rest;
    expect(t.order).toEqual(['c', 'd']);
  });

  it('a key used again after it went idle starts with all its slots (nothing left over)', async () => {
    const gate = new HostGate(() => 2);
    for (let round = 0; round < 3; round++) {
      const t = tracker();
      const runs = [1, 2, 3].map((i) => gate.run('h:1', t.task('h', `r${round}-${i}`)));
      await tick();
      expect(t.started(), `round ${round}`).toBe(2);
      await t.open();
      await Promise.all(runs);
    }
  });
});

describe('send(): many endpoints on distinct hosts, each redirecting to one host outside them', () => {
  const N = 8;
  let origins: CountingHosts;
  let outside: CountingHosts;
  beforeAll(async () => {
    origins = await startCountingHosts(Array.from({ length: N }, (_, i) => `127.0.7.${i + 1}`));
    outside = await startCountingHosts(['127.0.8.1']);
    const target = outside.hosts[0]!;
    for (let i = 0; i < N; i++) {
      origins.hosts[i]!.mount('/mcp', (_req, res) => void res.writeHead(307, { location: `${target.origin}/t${i}/mcp` }).end());
      target.mount(`/t${i}/mcp`, (_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(`t${i}`), 15));
    }
  });
  afterAll(async () => {
    await origins?.close();
    await outside?.close();
  });

  /** The collector's context, with a dispatcher that would open many sockets per origin. */
  const context = (hostLimit: (host: string) => number): HttpContext => ({
    ...createHttpContext({ allowPrivate: true, timeoutMs: 5_000, hostLimit }),
    dispatcher: new Agent({ connections: 16, connect: guardedConnector(5_000, 'public+loopback') }),
  });
  const fire = (ctx: HttpContext) =>
    Promise.all(
      origins.hosts.map((h) => {
        const trace = { finalUrl: null as string | null, redirects: 0 };
        return send(ctx, `${h.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 5_000, maxRedirects: 3 }, trace, async (a) => ({ status: a.status, text: await a.body.text(), trace }));
      }),
    );

  it('the outside host sees one request at a time (a host no schedule knows gets one slot)', async () => {
    const target = outside.hosts[0]!;
    target.counts.peak = 0;
    const before = target.counts.requests;
    const ctx = context(() => 1);
    const answers = await fire(ctx);
    await ctx.dispatcher.close();
    expect(answers.map((a) => a.text)).toEqual(origins.hosts.map((_, i) => `t${i}`));
    expect(answers.every((a) => a.status === 200 && a.trace.redirects === 1)).toBe(true);
    expect(target.counts.requests - before).toBe(N);
    expect(target.counts.peak).toBe(1);
  });

  it('near miss: with a limit of 3 for it, it sees three at once — the same requests do overlap when let through', async () => {
    const target = outside.hosts[0]!;
    target.counts.peak = 0;
    const ctx = context((h) => (h === target.host ? 3 : 1));
    await fire(ctx);
    await ctx.dispatcher.close();
    expect(target.counts.peak).toBe(3);
  });
});
