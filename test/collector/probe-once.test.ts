// One probe per endpoint per run in methodology v2 (collector/shards/probe-once.ts): registry names whose
// endpoints share one normalised URL get their v2 rows from one probe, counted at raw loopback counting
// hosts (server/discover requests are v2 probes; v1 sends none). Near misses: another path on the same
// host is its own probe; v1 on a bridge day still probes every name; a resumed run writes each name once.
import fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { runCollector, type CollectorOptions } from '../../collector/run.ts';
import { resolveOptions } from '../../collector/run-options.ts';
import { planRun } from '../../collector/shards/plan.ts';
import { probeShardInto } from '../../collector/shards/probe-shard.ts';
import { NO_SINK } from '../../collector/series/tracked.ts';
import { Store } from '../../collector/store.ts';
import type { Schedule } from '../../collector/schedule.ts';
import { endpointGroups, endpointKey } from '../../collector/shards/probe-once.ts';
import { assignShards, type Plan } from '../../collector/shards/plan-file.ts';
import { sharedRowV2 } from '../../collector/rows-v2.ts';
import { objectPath, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { Observation, ObservationV2, studyFrame, type RosterTarget } from '../../src/lib/index.ts';
import { mcpResponder, startCountingHosts, type CountingHosts, type Responder } from '../../sandbox/counting-hosts.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry, type RegistryServer } from '../../sandbox/registry-server.ts';
import { collectArchive, SITE_FILE_NAMES } from '../helpers/archive.ts';
import { realTools, tmpData } from './world.ts';

let hosts: CountingHosts;
let registry: RegistryServer;
/** Registry name → the endpoint its entry lists. */
const listed = new Map<string, string>();
const SHARED = ['io.test.one/z', 'io.test.one/a', 'io.test.one/m', 'io.test.one/b'];

beforeAll(async () => {
  hosts = await startCountingHosts(['127.0.8.1', '127.0.8.2']);
  const [a, b] = hosts.hosts as [CountingHosts['hosts'][0], CountingHosts['hosts'][0]];
  // The endpoint answers with or without its trailing slash (the spellings below use both).
  const shared = logged(mcpResponder({ tools: realTools(1) }));
  a.mount('/shared/mcp', shared);
  a.mount('/shared/mcp/', shared);
  a.mount('/other/mcp', logged(mcpResponder({ tools: realTools(1) })));
  b.mount('/solo/mcp', logged(mcpResponder({ tools: realTools(2), stateful: true })));
  const port = new URL(a.origin).port;
  // One endpoint spelt four ways: as is, scheme upper-cased with a trailing slash, with a fragment,
  // with credentials. All one normalised URL. Near miss: the same path with a query is its own probe
  // (a gateway may pick its server by the query).
  const spellings = [`${a.origin}/shared/mcp`, `HTTP://127.0.8.1:${port}/shared/mcp/`, `${a.origin}/shared/mcp#top`, `http://user@127.0.8.1:${port}/shared/mcp`];
  SHARED.forEach((n, i) => listed.set(n, spellings[i]!));
  listed.set('io.test.one/other', `${a.origin}/other/mcp`);
  listed.set('io.test.one/query', `${a.origin}/shared/mcp?server=q`);
  listed.set('io.test.two/solo', `${b.origin}/solo/mcp`);
  const entries: RegistryEntry[] = [...listed].map(([name, url]) => ({
    server: { name, version: '1.0.0', description: 'probe-once test', remotes: [{ type: 'streamable-http', url }] },
    _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true, publishedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' } },
  }));
  registry = await startRegistry({ entries });
});
afterAll(async () => {
  await registry?.close();
  await hosts?.close();
});

const day = (d: number) => new Date(Date.UTC(2026, 11, d, 3, 15, 0));
const collect = (data: string, d: number, extra: Partial<CollectorOptions> = {}) =>
  runCollector({ registry: registry.url, data, allowPrivate: true, now: day(d), timeoutMs: 3000, optout: null, rosterLimits: { backoffMs: 5 }, ...extra });
const file = (data: string, series: 'v1' | 'v2', d: number) => join(data, SERIES_FOLDER[series], `${day(d).toISOString().slice(0, 10)}.jsonl`);
const lines = (path: string) => (fs.existsSync(path) ? fs.readFileSync(path, 'utf8').trimEnd().split('\n').filter(Boolean) : []);
const v1Rows = (data: string, d: number) => lines(file(data, 'v1', d)).map((l) => Observation.parse(JSON.parse(l)));
const v2Rows = (data: string, d: number) => lines(file(data, 'v2', d)).map((l) => ObservationV2.parse(JSON.parse(l)));

/** Every request the endpoints answered: its path (a trailing slash aside) with its query, and its JSON-RPC method. */
const seen: { at: string; rpc: string | null }[] = [];
function logged(inner: Responder): Responder {
  return (req, res, body, at) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let rpc: string | null = null;
    try {
      const m = JSON.parse(body.toString('utf8')) as { method?: unknown };
      rpc = typeof m.method === 'string' ? m.method : null;
    } catch {
      // not JSON (a GET or DELETE)
    }
    seen.push({ at: url.pathname.replace(/\/$/, '') + url.search, rpc });
    inner(req, res, body, at);
  };
}
/** Requests per endpoint (path and query) and JSON-RPC method since `from` (an index into `seen`). */
function requests(from: number): { discover: (at: string) => number; initialize: (at: string) => number } {
  const log = seen.slice(from);
  const n = (at: string, rpc: string) => log.filter((r) => r.at === at && r.rpc === rpc).length;
  return { discover: (p) => n(p, 'server/discover'), initialize: (p) => n(p, 'initialize') };
}

/** What a shared row must repeat of its probe's row: everything but identity, time, requests sent and the new field. */
const probeResults = (r: ObservationV2) => {
  const { run_id: _r, day: _d, observed_at: _o, target: _t, registry_version: _v, registry_status: _s, registry_page_sha256: _p, registry_page_index: _i, endpoint: _e, requests: _q, probe_shared_with: _w, ...rest } = r;
  return rest;
};

describe('one probe per normalised endpoint URL (methodology v2)', () => {
  it('probes the endpoint four names share once, under the first name, and writes every name a row from it', async () => {
    const data = tmpData();
    const since = seen.length;
    const s = await collect(data, 1, { methodology: 'v2' });
    const req = requests(since);
    expect(req.discover('/shared/mcp')).toBe(1);
    // Near miss: the same path with another query is another endpoint, probed on its own.
    expect(req.discover('/shared/mcp?server=q')).toBe(1);
    // Near miss: another path on the same host is another endpoint, probed on its own.
    expect(req.discover('/other/mcp')).toBe(1);
    expect(req.discover('/solo/mcp')).toBe(1);

    const rows = v2Rows(data, 1);
    expect(rows.map((r) => r.target).sort()).toEqual([...listed.keys()].sort());
    const of = (n: string) => rows.find((r) => r.target === n)!;
    // The first name in code-unit order made the probe; the others share it.
    const leader = of('io.test.one/a');
    expect(leader.outcome).toBe('ok');
    expect(leader.probe_shared_with).toBeUndefined();
    expect(leader.endpoint).toBe(listed.get('io.test.one/a'));
    for (const n of ['io.test.one/b', 'io.test.one/m', 'io.test.one/z']) {
      const r = of(n);
      expect(r.probe_shared_with, n).toBe('io.test.one/a');
      expect(r.endpoint, n).toBe(listed.get(n));
      expect(r.registry_version).toBe('1.0.0');
      expect(r.requests, n).toBe(0);
      expect(probeResults(r), n).toEqual(probeResults(leader));
      expect(r.tools_sha256).toBe(leader.tools_sha256);
      expect(r.body_sha256).toBe(leader.body_sha256);
      expect(r.handshake_sha256).toBe(leader.handshake_sha256);
    }
    expect(of('io.test.one/other').probe_shared_with).toBeUndefined();
    expect(of('io.test.one/query')).toMatchObject({ outcome: 'ok', endpoint: listed.get('io.test.one/query') });
    expect(of('io.test.one/query').probe_shared_with).toBeUndefined();
    expect(of('io.test.two/solo').probe_shared_with).toBeUndefined();

    // Probes made against rows written: 4 probes, 7 rows; the run row counts the requests sent once.
    const own = rows.filter((r) => r.probe_shared_with === undefined);
    expect([own.length, rows.length]).toEqual([4, 7]);
    const v2Run = s.runs.find((r) => r.methodology_version === 'v2')!;
    expect(v2Run.attempts).toBe(7);
    const sent = (v2Run as { requests: { total: number; mean: number } }).requests;
    expect(leader.requests).toBeGreaterThan(0);
    expect(sent.total).toBe(own.reduce((n, r) => n + r.requests, 0));
    expect(sent.mean).toBe(Math.round((sent.total / own.length) * 1000) / 1000);
    // The bodies are content-addressed: the shared rows name the stored objects the probe stored.
    for (const r of rows) for (const sha of r.tools_pages_sha256 ?? []) expect(fs.existsSync(objectPath(data, sha))).toBe(true);
    // The study's frame (one row per normalised URL, query dropped) keeps rows that made their probe.
    const frame = studyFrame(rows);
    expect(frame.rows.map((r) => r.target).sort()).toEqual(['io.test.one/a', 'io.test.one/other', 'io.test.two/solo']);
    expect(frame.frame.excluded.duplicate_url).toBe(4);
    // The archive verifies whole: the run row's counts, requests included, agree with its rows.
    expect((await verifyArchive(data)).problems).toEqual([]);
  });

  it('a shard reports the probes it made and the rows it wrote from another name\'s probe', async () => {
    const r = resolveOptions({ registry: registry.url, data: tmpData(), allowPrivate: true, now: day(5), timeoutMs: 3000, optout: null, rosterLimits: { backoffMs: 5 }, methodology: 'v1,v2' });
    const store = Store.open(r.data, new Date().toISOString());
    let plan: Plan;
    try {
      ({ plan } = await planRun({ store, o: r, runId: '2026-12-05T031500Z', day: '2026-12-05', clock: r.now!, t0: performance.now(), maxEndpointsPerShard: 6, sink: NO_SINK }));
    } finally {
      store.close();
    }
    // Two hosts, so two shards; the shared names are all in the shard of their host.
    expect(plan.shards.map((x) => x.targets.length).sort()).toEqual([1, 6]);
    const reports = await Promise.all(plan.shards.map((x) => probeShardInto(join(tmpData(), `shard-${x.index}`), plan, x.index, {})));
    const big = reports.find((x) => x.report.probed === 6)!.report;
    // v1: six probes; v2: one for the four shared names, one each for /other and the query.
    expect([big.probes, big.shared_rows]).toEqual([6 + 3, 3]);
    expect(reports.find((x) => x.report.probed === 1)!.report).toMatchObject({ probes: 2, shared_rows: 0 });
  });

  it('leaves v1 alone on a bridge day: one v1 probe per name, still one v2 probe per endpoint', async () => {
    const data = tmpData();
    const since = seen.length;
    await collect(data, 2, { methodology: 'v1,v2' });
    const req = requests(since);
    expect(req.discover('/shared/mcp')).toBe(1);
    // initialize: v1's four probes plus v2's legacy handshake (the counting host answers discover 400).
    expect(req.initialize('/shared/mcp') - req.discover('/shared/mcp')).toBe(SHARED.length);
    const v1 = v1Rows(data, 2);
    expect(v1.map((r) => r.target).sort()).toEqual([...listed.keys()].sort());
    expect(v1.every((r) => r.outcome === 'ok')).toBe(true);
    expect(v1.some((r) => 'probe_shared_with' in r)).toBe(false);
    expect(v2Rows(data, 2).filter((r) => r.probe_shared_with === 'io.test.one/a')).toHaveLength(3);
  });

  it('a resumed run writes each name once: followers share the earlier attempt’s probe, or the first name still owing probes', async () => {
    for (const keep of [['io.test.one/a', 'io.test.one/m'], ['io.test.one/m']]) {
      const data = tmpData();
      await collect(data, 3, { methodology: 'v2' });
      const full = lines(file(data, 'v2', 3));
      // A crash mid-run: only `keep` of the shared names have their row (a shared row kept without
      // its probe's row in the second round), no run row, no manifest.
      const kept = full.filter((l) => keep.includes((JSON.parse(l) as { target: string }).target));
      fs.writeFileSync(file(data, 'v2', 3), kept.join('\n') + '\n');
      fs.writeFileSync(join(data, 'runs.jsonl'), '');
      fs.writeFileSync(join(data, 'chain.jsonl'), '');
      const since = seen.length;
      const again = await collect(data, 3, { methodology: 'v2' });
      expect(again.resumed_rows).toBe(keep.length);
      const rows = v2Rows(data, 3);
      expect(rows.map((r) => r.target).sort()).toEqual([...listed.keys()].sort());
      const req = requests(since);
      const leaderKept = keep.includes('io.test.one/a');
      // With a's own probe row kept, nothing is probed again for the shared URL; without it, a probes.
      expect(req.discover('/shared/mcp'), keep.join()).toBe(leaderKept ? 0 : 1);
      const of = (n: string) => rows.find((r) => r.target === n)!;
      expect(of('io.test.one/a').probe_shared_with).toBeUndefined();
      for (const n of ['io.test.one/b', 'io.test.one/z', 'io.test.one/m']) expect(of(n).probe_shared_with, n).toBe('io.test.one/a');
    }
  });
});

describe('a job the schedule does not run', () => {
  it('gets the shared probe\'s row when its endpoint was probed for another name, else not_attempted', async () => {
    const data = tmpData();
    const since = seen.length;
    // A deadline that falls right after the shared endpoint's probe: jobs run one at a time, in the
    // plan's order, until a server/discover reached /shared/mcp; every job after that is skipped.
    const skipped: string[] = [];
    const schedule: Schedule = async (jobs) => {
      let cut = false;
      for (const j of jobs) {
        if (cut) {
          const before = lines(file(data, 'v2', 4)).length;
          await j.skip('run_deadline');
          const after = lines(file(data, 'v2', 4));
          // The row the skip wrote (none when the target's row was already written as its group's probe).
          if (after.length > before) skipped.push((JSON.parse(after.at(-1)!) as { target: string }).target);
          continue;
        }
        await j.run();
        cut = requests(since).discover('/shared/mcp') > 0;
      }
      return { scheduler: 'lpt', hosts: [], maxInFlightPerHost: 1 };
    };
    await collect(data, 4, { methodology: 'v2', schedule });
    expect(requests(since).discover('/shared/mcp')).toBe(1);
    const rows = v2Rows(data, 4);
    const of = (n: string) => rows.find((r) => r.target === n)!;
    expect(rows.map((r) => r.target).sort()).toEqual([...listed.keys()].sort());
    // The day's order (fixed by the run id) leaves a name of the shared endpoint and another after the cut.
    expect(skipped.some((n) => SHARED.includes(n))).toBe(true);
    expect(skipped.some((n) => !SHARED.includes(n))).toBe(true);
    for (const n of skipped) {
      if (SHARED.includes(n)) expect(of(n), n).toMatchObject({ outcome: 'ok', probe_shared_with: 'io.test.one/a' });
      else expect(of(n), n).toMatchObject({ outcome: 'not_attempted', not_attempted_reason: 'run_deadline' });
    }
    for (const n of SHARED) expect(of(n).outcome, n).toBe('ok');
    expect(rows.filter((r) => r.probe_shared_with === 'io.test.one/a')).toHaveLength(3);
  });
});

describe('the local world with the site fixture\'s hostile servers (12 names on one endpoint)', () => {
  it('makes one v2 probe per endpoint: probes made against rows written', async () => {
    const data = await collectArchive({ seed: 'probe-once', size: 20, days: 1, hostile: true, timeoutMs: 3000, methodology: 'v2' });
    try {
      const dayFile = fs.readdirSync(join(data, SERIES_FOLDER.v2)).find((f) => f.endsWith('.jsonl'))!;
      const rows = lines(join(data, SERIES_FOLDER.v2, dayFile)).map((l) => ObservationV2.parse(JSON.parse(l)));
      const probed = rows.filter((r) => r.outcome === 'ok' || r.outcome === 'error');
      const probes = probed.filter((r) => r.probe_shared_with === undefined);
      const byKey = new Map<string, ObservationV2[]>();
      for (const r of probed) byKey.set(endpointKey(r.endpoint!), [...(byKey.get(endpointKey(r.endpoint!)) ?? []), r]);
      // Each endpoint: one row made the probe (the first name in code-unit order), the others name it.
      for (const group of byKey.values()) {
        const own = group.filter((r) => r.probe_shared_with === undefined);
        expect(own.map((r) => r.target)).toEqual([group.map((r) => r.target).sort()[0]]);
        for (const r of group) if (r !== own[0]) expect(r).toMatchObject({ probe_shared_with: own[0]!.target, tools_sha256: own[0]!.tools_sha256, requests: 0 });
      }
      const files = rows.filter((r) => SITE_FILE_NAMES.includes(r.target));
      expect(files).toHaveLength(12);
      expect(files.filter((r) => r.probe_shared_with !== undefined)).toHaveLength(11);
      expect(probes.length).toBe(byKey.size);
      console.log(`local world: ${rows.length} v2 rows, ${probed.length} probed rows, ${probes.length} probes made (${probed.length - probes.length} saved)`);
      expect((await verifyArchive(data)).problems).toEqual([]);
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});

describe('grouping and the shared row', () => {
  const t = (name: string, endpoint: string): RosterTarget => ({ name, endpoint }) as RosterTarget;

  it('groups by the normalised URL: host and scheme case, a default port, a trailing slash, a fragment; not another path, port, scheme or query', () => {
    const groups = endpointGroups([
      t('b', 'https://Example.COM:443/mcp'),
      t('a', 'HTTPS://example.com/mcp/'),
      t('c', 'https://example.com/other'),
      t('d', 'https://example.com:8443/mcp'),
      t('e', 'http://example.com/mcp'),
      t('f', 'https://example.com/mcp#fragment'),
      t('g', 'https://example.com/mcp?server=g'),
    ]);
    expect([...groups.values()].map((g) => g.map((x) => x.name))).toEqual([['a', 'b', 'f'], ['c'], ['d'], ['e'], ['g']]);
    expect(endpointKey('not a url')).toBe('not a url');
  });

  it('puts names sharing a normalised URL in one shard: the plan splits by the URL host, which normalising keeps', () => {
    const spellings = ['https://Example.COM:443/mcp', 'HTTPS://example.com/mcp/', 'https://u:p@example.com/mcp?x#y'];
    expect(new Set(spellings.map((u) => new URL(u).host))).toEqual(new Set(['example.com']));
    const shards = assignShards(new Map([['example.com', 3], ['b.example', 2], ['c.example', 2]]), 2);
    expect(shards.filter((s) => s.hosts.some((h) => h.host === 'example.com'))).toHaveLength(1);
  });

  it('refuses to share a row that made no probe, or a shared one, or with itself', () => {
    const ctx = { runId: 'r', day: '2026-12-07', observedAt: '2026-12-07T03:15:00.000Z' };
    const base = { outcome: 'not_attempted', target: 'a' } as ObservationV2;
    expect(() => sharedRowV2(ctx, t('b', 'https://x/mcp'), base)).toThrow(/not a probe/);
    expect(() => sharedRowV2(ctx, t('b', 'https://x/mcp'), { ...base, outcome: 'ok', probe_shared_with: 'c' })).toThrow(/share the probe's own row/);
    expect(() => sharedRowV2(ctx, t('a', 'https://x/mcp'), { ...base, outcome: 'ok' })).toThrow(/its own probe/);
  });
});
