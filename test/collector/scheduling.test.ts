// runCollector's schedule against raw loopback hosts that count what they receive (sandbox/
// counting-hosts.ts): a gateway host with many endpoints (in flight per host and per endpoint never
// above the bound, and the bound reached), a host that never answers (host_unresponsive after K, the
// rest never contacted), a host that answers 429 with Retry-After (nothing new before it elapses,
// counted at the server), a tiny deadline (run_deadline rows, one row per target), and a resume after
// a crash (still one row per target). Orderings are counted, never timed.
import fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { chainPath } from '../../src/archive/layout.ts';
import { runCollector, type CollectorOptions } from '../../collector/run.ts';
import { USER_AGENT } from '../../collector/version.ts';
import { Observation, ObservationV2 } from '../../src/lib/index.ts';
import { hang, mcpResponder, startCountingHosts, type CountingHosts, type Responder } from '../../sandbox/counting-hosts.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry, type RegistryServer } from '../../sandbox/registry-server.ts';
import { realTools, tmpData } from './world.ts';

interface Fixture {
  hosts: CountingHosts;
  registry: RegistryServer;
  names: string[];
  close(): Promise<void>;
}

const open: Fixture[] = [];
afterEach(async () => {
  for (const f of open.splice(0)) await f.close();
});

/**
 * Hosts on 127.0.5.x, each with `sizes[i]` endpoints answered by `respond(host, j)`; `duplicate`
 * extra registry names list an endpoint another name already lists (the same URL twice).
 */
async function fixture(sizes: number[], respond: (host: number, j: number) => Responder, opts: { duplicate?: number } = {}): Promise<Fixture> {
  const hosts = await startCountingHosts(
    sizes.map((_, i) => `127.0.5.${i + 1}`),
    { record: true },
  );
  const entries: RegistryEntry[] = [];
  const names: string[] = [];
  const add = (name: string, url: string) => {
    names.push(name);
    entries.push({
      server: { name, version: '1.0.0', description: 'scheduling test', remotes: [{ type: 'streamable-http', url }] },
      _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true, publishedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' } },
    });
  };
  sizes.forEach((n, i) => {
    for (let j = 0; j < n; j++) {
      const path = `/e${j}/mcp`;
      hosts.hosts[i]!.mount(path, respond(i, j));
      add(`io.test.h${i}/e${String(j).padStart(3, '0')}`, `${hosts.hosts[i]!.origin}${path}`);
    }
  });
  for (let d = 0; d < (opts.duplicate ?? 0); d++) add(`io.test.dup/e${d}`, `${hosts.hosts[0]!.origin}/e${d}/mcp`);
  const registry = await startRegistry({ entries });
  const f = { hosts, registry, names, close: async () => (await registry.close(), await hosts.close()) };
  open.push(f);
  return f;
}

const NOW = new Date('2026-05-01T03:15:00Z');
/** The v1 series unless a test says otherwise: the request counts below are the v1 probe's. */
const collect = (f: Fixture, data: string, extra: Partial<CollectorOptions> = {}) =>
  runCollector({ registry: f.registry.url, data, allowPrivate: true, now: NOW, timeoutMs: 1_500, optout: null, rosterLimits: { backoffMs: 5 }, methodology: 'v1', ...extra });
const rowsOf = (data: string): Observation[] =>
  fs.readFileSync(join(data, 'observations', '2026-05-01.jsonl'), 'utf8').trimEnd().split('\n').map((l) => Observation.parse(JSON.parse(l)));

/**
 * Answers held back until `n` requests are in flight on the host at once (or 5 s have passed), so
 * that reaching the bound does not depend on how fast this machine is: a schedule that never lets
 * `n` through makes the test wait 5 s and fail, one that lets more through fails at once.
 */
function barrier(n: number, inner: Responder): Responder {
  let reached = false;
  const held: (() => void)[] = [];
  return (req, res, body, at) => {
    const go = () => inner(req, res, body, at);
    if (reached) return go();
    held.push(go);
    if (at.inFlight >= n) {
      reached = true;
      for (const g of held.splice(0)) g();
    } else setTimeout(() => held.includes(go) && (held.splice(held.indexOf(go), 1), go()), 5_000);
  };
}

describe('runCollector: a gateway host and its neighbours', () => {
  it('keeps every host within clamp(ceil(n / divisor), 1, max) and every endpoint to one request, and reaches the bound (both series: v2 then v1 per job)', async () => {
    // Host 0: 40 endpoints, divisor 10, max 3 → bound 3 (all its endpoints share one barrier of 3).
    // Hosts 1-6: 1-4 endpoints → bound 1. Two more names list host 0's first endpoints again.
    const gateway = barrier(3, mcpResponder({ tools: realTools(0), stateful: true, delayMs: () => 5 }));
    const f = await fixture([40, 1, 2, 3, 4, 2, 1], (h, j) => (h === 0 ? gateway : mcpResponder({ tools: realTools(j), stateful: j % 2 === 0, delayMs: () => 5 })), { duplicate: 2 });
    const data = tmpData();
    const s = await collect(f, data, { concurrency: 12, perHostDivisor: 10, perHostMax: 3, methodology: 'v1,v2' });
    const [g, ...small] = f.hosts.hosts;
    expect(g!.counts.peak).toBe(3);
    for (const h of small) expect(h.counts.peak, h.host).toBe(1);
    for (const h of f.hosts.hosts) for (const [path, e] of h.endpoints) expect(e.peak, `${h.host}${path}`).toBe(1);
    const rows = rowsOf(data);
    expect(rows).toHaveLength(f.names.length);
    expect(new Set(rows.map((r) => r.target)).size).toBe(f.names.length);
    expect(rows.every((r) => r.outcome === 'ok')).toBe(true);
    const v2 = fs.readFileSync(join(data, 'observations-v2', '2026-05-01.jsonl'), 'utf8').trimEnd().split('\n').map((l) => ObservationV2.parse(JSON.parse(l)));
    expect(v2.map((r) => r.target).sort()).toEqual(rows.map((r) => r.target).sort());
    expect(v2.every((r) => r.status === 'ok')).toBe(true);
    expect(s.runs.map((r) => r.scheduling)).toEqual([s.run.scheduling, s.run.scheduling]);
    expect(s.run.scheduling).toMatchObject({
      scheduler: 'lpt',
      hosts: 7,
      max_targets_per_host: 42,
      per_host_limit: { divisor: 10, max: 3 },
      global_concurrency: 12,
      max_in_flight_per_host: 3,
      not_attempted: { host_unresponsive: 0, run_deadline: 0, shard_lost: 0 },
    });
    expect(s.run.scheduling!.slowest_hosts.find((x) => x.host === g!.host)).toMatchObject({ targets: 42, limit: 3, max_in_flight: 3, not_attempted: 0 });
  });

  it('names itself on every request and ends every session it was given with a DELETE carrying it', async () => {
    const f = await fixture([6, 6], (_h, j) => mcpResponder({ tools: realTools(j), stateful: j % 2 === 0 }));
    await collect(f, tmpData(), { concurrency: 4 });
    const log = f.hosts.log;
    expect(log.length).toBeGreaterThan(0);
    expect(new Set(log.map((r) => r.userAgent))).toEqual(new Set([USER_AGENT]));
    for (const h of f.hosts.hosts) {
      for (let j = 0; j < 6; j++) {
        const mine = log.filter((r) => r.host === h.host && r.path === `/e${j}/mcp`);
        const deletes = mine.filter((r) => r.method === 'DELETE');
        if (j % 2 === 0) {
          expect(mine.map((r) => r.rpc ?? r.method)).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'DELETE']);
          expect(deletes[0]!.sessionId).toMatch(/^s-/);
          expect(deletes[0]!.sessionId).toBe(mine[2]!.sessionId);
        } else expect(deletes).toEqual([]);
      }
    }
  });
});

describe('runCollector: a host only redirects lead to (the request-level gate, host-gate.ts)', () => {
  it('sees one request at a time from many endpoints on distinct roster hosts that all redirect to it, though their probes run side by side', async () => {
    // The schedule knows the six roster hosts (one endpoint each, so a bound of 1 each, all six at
    // once under concurrency 12); it never sees 127.0.6.1, which only their 307s name. Each endpoint
    // redirects to a path of its own there, so the endpoint gate alone would not serialise them:
    // only the host's slots do. Answers take 20 ms, so requests that were let through together overlap.
    // Two things hold this line in the collector: the gate's host slots and undici's one Client per
    // origin (http.ts createHttpContext); either alone keeps it, so this run stays green with one of
    // them broken by hand. host-gate.test.ts tests the gate alone (a dispatcher with many sockets).
    const N = 6;
    const outside = await startCountingHosts(['127.0.6.1'], { record: true });
    const target = outside.hosts[0]!;
    try {
      for (let i = 0; i < N; i++) target.mount(`/t${i}/mcp`, mcpResponder({ tools: realTools(i), stateful: false, delayMs: () => 20 }));
      const f = await fixture(Array.from({ length: N }, () => 1), (h) => (_req, res) => void res.writeHead(307, { location: `${target.origin}/t${h}/mcp` }).end());
      const data = tmpData();
      await collect(f, data, { concurrency: 12 });
      // Each probe's first request is redirected; the rest of it goes to where that led (probe.ts).
      for (const h of f.hosts.hosts) expect(h.counts.requests, h.host).toBe(1);
      expect(target.counts.requests).toBeGreaterThanOrEqual(3 * N);
      // The outside host never had two requests in flight.
      expect(target.counts.peak).toBe(1);
      // Near miss: the probes did run side by side — their requests interleave at the outside host
      // (one probe after another would give N runs of one path) — so only the gate kept it to one.
      const paths = outside.log.map((r) => r.path);
      const runs = paths.filter((p, i) => i === 0 || p !== paths[i - 1]).length;
      expect(runs).toBeGreaterThan(N);
      const rows = rowsOf(data);
      expect(rows).toHaveLength(N);
      expect(rows.every((r) => r.outcome === 'ok')).toBe(true);
    } finally {
      await outside.close();
    }
  });
});

describe('runCollector: a host that never answers', () => {
  it('stops after K consecutive timeouts: the rest are not_attempted (host_unresponsive) and never contacted', async () => {
    const ok = mcpResponder({ tools: realTools(1) });
    const f = await fixture([30, 5], (h) => (h === 0 ? hang : ok));
    const data = tmpData();
    const s = await collect(f, data, { timeoutMs: 300, unresponsiveAfter: 4 });
    const [dead, alive] = f.hosts.hosts;
    const rows = rowsOf(data).filter((r) => r.endpoint!.startsWith(dead!.origin));
    const timeouts = rows.filter((r) => r.outcome === 'error');
    expect(timeouts).toHaveLength(4);
    expect(timeouts.every((r) => r.error_class === 'timeout')).toBe(true);
    expect(rows.filter((r) => r.outcome === 'not_attempted' && r.not_attempted_reason === 'host_unresponsive')).toHaveLength(26);
    // Counted at the server: one request per timed-out probe, nothing after.
    expect(dead!.counts.requests).toBe(4);
    expect(alive!.counts.requests).toBeGreaterThan(0);
    expect(rowsOf(data).filter((r) => r.outcome === 'ok')).toHaveLength(5);
    expect(s.run).toMatchObject({ attempts: 9, eligible: 35, degraded: true, outcomes: { not_attempted: 26, error: 4, ok: 5 } });
    expect(s.run.coverage).toBeCloseTo(9 / 35, 12);
    expect(s.run.scheduling!.not_attempted).toEqual({ host_unresponsive: 26, run_deadline: 0, shard_lost: 0 });
    expect((await verifyArchive(data)).problems).toEqual([]);
  });
});

describe('runCollector: a host that answers 429', () => {
  it('starts nothing new on the host before Retry-After has elapsed, counted at the server', async () => {
    // The host's first answer is 429 with Retry-After: 1, and from then on the host keeps a one-second
    // embargo of its own (a timer started as it answers, so it ends before the collector's wait does)
    // and counts initialize requests that arrive inside it.
    let embargo = false;
    let inside = 0;
    let throttled = 0;
    const serve = mcpResponder({ tools: realTools(2) });
    const first: Responder = (req, res, body, at) => {
      const rpc = (JSON.parse(body.toString() || '{}') as { method?: string }).method;
      if (embargo && rpc === 'initialize') inside++;
      if (throttled === 0) {
        throttled++;
        embargo = true;
        setTimeout(() => (embargo = false), 1_000);
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('slow down');
        return;
      }
      serve(req, res, body, at);
    };
    const f = await fixture([6], () => first);
    const data = tmpData();
    const s = await collect(f, data);
    expect(throttled).toBe(1);
    expect(inside).toBe(0);
    const host = f.hosts.hosts[0]!;
    expect(f.hosts.log.filter((r) => r.rpc === 'initialize')).toHaveLength(6); // the other five came after
    expect(host.counts.peak).toBe(1);
    const rows = rowsOf(data);
    expect(rows.filter((r) => r.error_class === 'rate_limited')).toMatchObject([{ retry_after: '1', http_status: 429 }]);
    expect(rows.filter((r) => r.outcome === 'ok')).toHaveLength(5);
    expect(s.run.scheduling!.slowest_hosts[0]).toMatchObject({ backoffs: 1 });
  });
});

describe('runCollector: the deadline and a resumed run', () => {
  it('gives what is left at the deadline a run_deadline row, exactly one row per target, and a resume completes the rest', async () => {
    const slow = mcpResponder({ tools: realTools(3), delayMs: () => 40 });
    const f = await fixture([20, 20], () => slow);
    const data = tmpData();
    const s = await collect(f, data, { concurrency: 2, deadlineMs: 1 });
    const rows = rowsOf(data);
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((r) => r.target)).size).toBe(40);
    const late = rows.filter((r) => r.not_attempted_reason === 'run_deadline');
    expect(late.length).toBeGreaterThan(0);
    expect(late.every((r) => r.outcome === 'not_attempted' && r.error_class === null && r.detail === "not contacted: the run's deadline came first")).toBe(true);
    expect(s.run.outcomes.not_attempted).toBe(late.length);
    expect(s.run.scheduling!.not_attempted.run_deadline).toBe(late.length);
    expect(s.run.attempts + late.length).toBe(40);
    expect(s.run.scheduling!.deadline_at).toBe(new Date(NOW.getTime() + 1).toISOString());
    const requests = f.hosts.hosts.reduce((n, h) => n + h.counts.requests, 0);
    expect(requests).toBe(rows.filter((r) => r.outcome !== 'not_attempted').length * 3); // never contacted means never
    expect((await verifyArchive(data)).problems).toEqual([]);

    // A crash before the run row: the run is resumed with the same clock and no deadline.
    const file = join(data, 'observations', '2026-05-01.jsonl');
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    fs.writeFileSync(file, lines.slice(0, 25).join('\n') + '\n');
    fs.writeFileSync(join(data, 'runs.jsonl'), '');
    // The chain's manifest is appended after the run row: a crash before the row left none.
    fs.rmSync(chainPath(data));
    const again = await collect(f, data, { concurrency: 4, deadlineMs: null });
    const after = rowsOf(data);
    expect(after).toHaveLength(40);
    expect(new Set(after.map((r) => r.target)).size).toBe(40);
    expect(again.resumed_rows).toBe(25);
    expect(again.run.targets).toBe(40);
    expect(again.run.outcomes.not_attempted).toBe(after.filter((r) => r.outcome === 'not_attempted').length);
    expect(after.slice(25).every((r) => r.outcome === 'ok')).toBe(true);
    expect((await verifyArchive(data)).problems).toEqual([]);
  });
});
