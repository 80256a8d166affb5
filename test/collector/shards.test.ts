// A day's run in shards (collector/shards/): plan, probe shard k of n, seal. Against loopback worlds:
// the SDK world (both series) for the equality with a single job, and raw counting hosts for the
// per-host bound across shards, a shard killed mid-run (SIGKILL to a real `npm run collect -- probe`
// child) and re-run, and the shard count's near miss.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path, { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../collector/cli-error.ts';
import { main } from '../../collector/cli.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { runCollector } from '../../collector/run.ts';
import { resolveOptions, type CollectorOptions } from '../../collector/run-options.ts';
import { linuxProc, lockFor } from '../../collector/lock.ts';
import { perHostLimit } from '../../collector/schedule.ts';
import { shardDir } from '../../collector/shards/cli.ts';
import { assignShards, readPlan, writePlan, type Plan } from '../../collector/shards/plan-file.ts';
import { planRun } from '../../collector/shards/plan.ts';
import { probeShardInto } from '../../collector/shards/probe-shard.ts';
import { sealRun } from '../../collector/shards/seal.ts';
import { NO_SINK } from '../../collector/series/tracked.ts';
import { Store } from '../../collector/store.ts';
import { readChain } from '../../src/archive/chain.ts';
import { objectKey, SERIES_FOLDER } from '../../src/archive/layout.ts';
import type { ObjectStore } from '../../src/archive/object-store.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { startS3Server } from '../helpers/s3-server.ts';
import { readRuns } from '../../src/archive/runs.ts';
import type { AnyRun } from '../../src/lib/index.ts';
import { hang, mcpResponder, startCountingHosts, type CountingHosts, type Responder } from '../../sandbox/counting-hosts.ts';
import { OFFICIAL_META, startRegistry, type RegistryEntry, type RegistryServer } from '../../sandbox/registry-server.ts';
import { untimed } from './helpers/compare-archives.ts';
import { realTools, startWorld, tmpData } from './world.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const NOW = new Date('2026-05-01T03:15:00Z');
const DAY = '2026-05-01';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** Plan, every shard (in this process, concurrently), seal: the sharded run of `o` with `maxPer` endpoints per shard. */
async function plan(o: CollectorOptions, work: string, maxPer: number | null): Promise<Plan> {
  const r = resolveOptions(o);
  const store = Store.open(r.data, new Date().toISOString());
  try {
    const { plan } = await planRun({ store, o: r, runId: '2026-05-01T031500Z', day: DAY, clock: r.now!, t0: performance.now(), maxEndpointsPerShard: maxPer, sink: NO_SINK });
    writePlan(work, plan);
    return plan;
  } finally {
    store.close();
  }
}
async function seal(data: string, work: string, dirs?: string[], remote: ObjectStore | null = null) {
  const p = readPlan(work);
  const store = Store.open(data, new Date().toISOString(), { remote });
  try {
    return await sealRun({ store, plan: p, o: {}, shardDirs: dirs ?? p.shards.map((s) => shardDir(work, s.index)), sink: NO_SINK });
  } finally {
    store.close();
  }
}
const rows = (data: string, series: 'v1' | 'v2') => {
  const f = join(data, SERIES_FOLDER[series], `${DAY}.jsonl`);
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
};
const byTarget = (rs: Record<string, unknown>[]) => [...rs].sort((a, b) => (String(a.target) < String(b.target) ? -1 : 1)).map((r) => untimed(r));
const objects = (data: string) => (fs.existsSync(join(data, 'objects')) ? fs.readdirSync(join(data, 'objects')).flatMap((aa) => fs.readdirSync(join(data, 'objects', aa))).sort() : []);
const runFacts = (r: AnyRun) => ({ id: r.run_id, series: r.methodology_version, targets: r.targets, eligible: r.eligible, attempts: r.attempts, coverage: r.coverage, degraded: r.degraded, status: r.status, outcomes: r.outcomes, error_classes: r.error_classes, not_attempted: r.scheduling?.not_attempted, hosts: r.scheduling?.hosts, max_targets_per_host: r.scheduling?.max_targets_per_host });

describe('a sharded run against a single job (SDK world, both series)', () => {
  it('writes the same rows (sorted by target, timings aside), the same objects and the same run counts', async () => {
    const world = await startWorld({ endpoints: 12, hostCount: 4 });
    closers.push(() => world.close());
    const common: CollectorOptions = { registry: world.registry.url, allowPrivate: true, now: NOW, timeoutMs: 3000, optout: null, rosterLimits: { backoffMs: 5 }, methodology: 'v1,v2' };
    const single = tmpData();
    const one = await runCollector({ ...common, data: single });
    const data = tmpData();
    const work = tmpData();
    const p = await plan({ ...common, data }, work, 4);
    expect(p.shards.length).toBeGreaterThan(1);
    const done = await Promise.all(p.shards.map((s) => probeShardInto(shardDir(work, s.index), p, s.index, {})));
    expect(done.map((d) => d.already)).toEqual(p.shards.map(() => false));
    const sealed = await seal(data, work);
    expect(sealed.lost).toBe(0);
    for (const series of ['v1', 'v2'] as const) {
      expect(rows(data, series).length).toBe(rows(single, series).length);
      expect(byTarget(rows(data, series))).toEqual(byTarget(rows(single, series)));
    }
    expect(rows(data, 'v1').filter((r) => r.outcome === 'ok').length).toBeGreaterThan(0);
    expect(objects(data)).toEqual(objects(single));
    expect(sealed.runs.map(runFacts)).toEqual(one.runs.map(runFacts));
    expect(readRuns(data).runs.map(runFacts)).toEqual(readRuns(single).runs.map(runFacts));
    expect(readChain(data).manifests.map((m) => m.manifest.run_id)).toEqual(readChain(single).manifests.map((m) => m.manifest.run_id));
    // The sealed archive verifies as a single job's does (rows, objects, run counts, chain).
    expect((await verifyArchive(data)).problems).toEqual([]);
    // Seal twice is refused like a finished run.
    await expect(seal(data, work)).rejects.toMatchObject({ exitCode: EXIT.finished });
  });
});

/** Counting hosts on 127.0.7.x with sizes[i] endpoints; `respond(i, j)` answers endpoint j of host i. */
async function counting(sizes: number[], respond: (h: number, j: number) => Responder): Promise<{ hosts: CountingHosts; registry: RegistryServer; names: string[] }> {
  const hosts = await startCountingHosts(sizes.map((_, i) => `127.0.7.${i + 1}`));
  const entries: RegistryEntry[] = [];
  const names: string[] = [];
  sizes.forEach((n, i) => {
    for (let j = 0; j < n; j++) {
      const p = `/e${j}/mcp`;
      hosts.hosts[i]!.mount(p, respond(i, j));
      const name = `io.test.h${i}/e${j}`;
      names.push(name);
      entries.push({
        server: { name, version: '1.0.0', description: 'shards test', remotes: [{ type: 'streamable-http', url: `${hosts.hosts[i]!.origin}${p}` }] },
        _meta: { [OFFICIAL_META]: { status: 'active', isLatest: true, publishedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' } },
      });
    }
  });
  const registry = await startRegistry({ entries });
  closers.push(async () => (await registry.close(), await hosts.close()));
  return { hosts, registry, names };
}
const ok = (j: number) => mcpResponder({ tools: realTools(j), stateful: j % 2 === 0 });

describe('shards and hosts', () => {
  it('puts every endpoint of a host in one shard and keeps the per-host bound over the whole run, shards probing at once', async () => {
    const f = await counting([6, 3, 3, 2], (_h, j) => mcpResponder({ tools: realTools(j), delayMs: () => 20 }));
    const o: CollectorOptions = { registry: f.registry.url, allowPrivate: true, now: NOW, timeoutMs: 5000, optout: null, rosterLimits: { backoffMs: 5 }, methodology: 'v1', perHostDivisor: 3, perHostMax: 2, data: tmpData() };
    const work = tmpData();
    const p = await plan(o, work, 7);
    expect(p.shards.length).toBe(2);
    const seen = new Map<string, number>();
    for (const s of p.shards) {
      for (const h of s.hosts) {
        expect(seen.has(h.host), h.host).toBe(false);
        seen.set(h.host, s.index);
        // The host's count is the whole run's, and every target on it is in this shard.
        expect(s.targets.filter((t) => new URL(t.endpoint!).host === h.host).length).toBe(h.targets);
      }
      for (const t of s.targets) expect(seen.get(new URL(t.endpoint!).host)).toBe(s.index);
    }
    expect([...seen.keys()].sort()).toEqual(f.hosts.hosts.map((h) => h.host).sort());
    await Promise.all(p.shards.map((s) => probeShardInto(shardDir(work, s.index), p, s.index, {})));
    for (const [i, h] of f.hosts.hosts.entries()) expect(h.counts.peak, h.host).toBeLessThanOrEqual(perHostLimit([6, 3, 3, 2][i]!, 3, 2));
    expect(f.hosts.hosts[0]!.counts.peak).toBe(2); // the bound is reached: the gateway's 6 endpoints share 2 slots
    const sealed = await seal(o.data!, work);
    expect(sealed.runs[0]).toMatchObject({ attempts: 14, degraded: false });
  });

  it('n follows the roster: 14 endpoints make 1 shard at a bound of 14 and 2 at 13 (plan --json)', async () => {
    const f = await counting([6, 3, 3, 2], (_h, j) => ok(j));
    const data = tmpData();
    const work = tmpData();
    const planJson = async (max: number) => {
      const out: string[] = [];
      const code = await main(['plan', '--registry', f.registry.url, '--data', data, '--work', work, '--now', NOW.toISOString(), '--allow-private', '--methodology', 'v1', '--optout', '/dev/null', '--max-endpoints-per-shard', String(max), '--json'], { stdout: (t) => void out.push(t), stderr: () => {}, env: {} });
      expect(code).toBe(EXIT.ok);
      return JSON.parse(out.join('')) as { shards: number[]; endpoints: number[] };
    };
    expect(await planJson(14)).toMatchObject({ shards: [0], endpoints: [14] });
    expect(await planJson(13)).toMatchObject({ shards: [0, 1] });
    // Planning again (the same clock) wrote no second roster and no row (every target here is probed).
    expect(fs.readdirSync(join(data, 'rosters'))).toEqual([`${DAY}.json`]);
    expect(rows(data, 'v1')).toEqual([]);
  });

  it('assignShards: largest host first to the least-loaded shard; a host above the bound alone; the same hosts, the same shards', () => {
    const hosts = new Map([['b', 3], ['a', 3], ['big', 9], ['c', 2], ['d', 1]]);
    const s = assignShards(hosts, 5);
    // 18 endpoints, bound 5: 4 shards.
    expect(s.map((x) => x.hosts.map((h) => h.host))).toEqual([['big'], ['a'], ['b'], ['c', 'd']]);
    expect(assignShards(new Map([...hosts].reverse()), 5)).toEqual(s);
    expect(assignShards(new Map([['x', 5]]), 5)).toHaveLength(1);
    expect(assignShards(new Map([['x', 5], ['y', 1]]), 5)).toHaveLength(2);
    expect(assignShards(new Map(), 5)).toEqual([{ hosts: [] }]);
    expect(assignShards(hosts, null)).toHaveLength(1);
  });
});

describe('a shard killed mid-run', () => {
  /** Host 0's endpoints 3-5 hold every request until `release` (the child is killed meanwhile); the rest answer. */
  async function gated() {
    let released = false;
    const f = await counting([6, 3, 3, 2], (h, j) => {
      const answer = ok(j); // one responder per endpoint: a stateful one knows the sessions it issued
      return h === 0 && j >= 3 ? (req, res, body, at) => (released ? answer(req, res, body, at) : hang(req, res, body, at)) : answer;
    });
    const o: CollectorOptions = { registry: f.registry.url, allowPrivate: true, now: NOW, timeoutMs: 60_000, optout: null, rosterLimits: { backoffMs: 5 }, methodology: 'v1', perHostDivisor: 1, perHostMax: 6, data: tmpData() };
    const work = tmpData();
    const p = await plan(o, work, 7);
    expect(p.shards.map((s) => s.hosts.map((h) => h.targets))).toEqual([[6, 2], [3, 3]]);
    return { f, o, work, p, release: () => (released = true) };
  }
  /** `npm run collect -- probe` for shard 0 as a child, SIGKILLed once it has written the 5 rows it can. */
  async function killShard0(work: string) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'collector/cli.ts', 'probe', '--work', work, '--shard', '0'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
    const dir = shardDir(work, 0);
    while (rows(dir, 'v1').length < 5) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(rows(dir, 'v1')).toHaveLength(5);
    expect(fs.existsSync(join(dir, 'shard-report.json'))).toBe(false);
  }

  it('its unprobed targets, and a shard never run, get shard_lost rows; the run is degraded and chained', async () => {
    const { o, work } = await gated();
    await killShard0(work);
    // As copied from a job killed on another runner: its lock names that machine, and its last line is torn.
    const dir = shardDir(work, 0);
    fs.writeFileSync(join(dir, '.lock'), JSON.stringify({ pid: 4242, started_at: NOW.toISOString(), hostname: 'runner-elsewhere' }) + '\n');
    fs.appendFileSync(join(dir, 'observations', `${DAY}.jsonl`), '{"run_id":"2026-05-01T031500Z","target":"io.test.h0/e');
    const sealed = await seal(o.data!, work);
    const v1 = rows(o.data!, 'v1');
    expect(v1).toHaveLength(14);
    expect(new Set(v1.map((r) => r.target)).size).toBe(14);
    const lost = v1.filter((r) => r.not_attempted_reason === 'shard_lost');
    expect(lost).toHaveLength(9); // shard 0's three held targets and shard 1's six
    expect(lost.every((r) => r.outcome === 'not_attempted')).toBe(true);
    expect(sealed.runs[0]).toMatchObject({ attempts: 5, eligible: 14, degraded: true, status: 'finished' });
    expect(sealed.runs[0]!.scheduling!.not_attempted).toEqual({ host_unresponsive: 0, run_deadline: 0, shard_lost: 9 });
    expect(readChain(o.data!).manifests.at(-1)!.manifest.run_id).toBe('2026-05-01T031500Z');
    expect((await verifyArchive(o.data!)).problems).toEqual([]);
  });

  it('re-run, it probes only what it had not and writes no duplicate; run again it does nothing; sealed, nothing is lost', async () => {
    const { o, work, p, release } = await gated();
    await killShard0(work);
    release();
    const again = await probeShardInto(shardDir(work, 0), p, 0, {});
    expect(again).toMatchObject({ already: false, report: { probed: 3 } });
    const v1 = rows(shardDir(work, 0), 'v1');
    expect(v1).toHaveLength(8);
    expect(new Set(v1.map((r) => r.target)).size).toBe(8);
    expect((await probeShardInto(shardDir(work, 0), p, 0, {})).already).toBe(true);
    expect(rows(shardDir(work, 0), 'v1')).toHaveLength(8);
    await probeShardInto(shardDir(work, 1), p, 1, {});
    const sealed = await seal(o.data!, work);
    expect(sealed).toMatchObject({ lost: 0, merged: 14 });
    expect(sealed.runs[0]).toMatchObject({ attempts: 14, degraded: false });
    expect(rows(o.data!, 'v1').filter((r) => r.outcome === 'ok')).toHaveLength(14);
  });

  it('seal refuses a shard folder holding a row for a target the plan gives another shard, before writing anything', async () => {
    const { o, work, p } = await gated().then(async (g) => (g.release(), g));
    await probeShardInto(shardDir(work, 1), p, 1, {});
    // Shard 1's folder presented as shard 0's: its rows name shard 1's targets.
    fs.writeFileSync(join(shardDir(work, 1), 'shard.json'), JSON.stringify({ run_id: p.run_id, shard: 0 }));
    await expect(seal(o.data!, work, [shardDir(work, 1)])).rejects.toMatchObject({ exitCode: EXIT.usage, message: expect.stringMatching(/shard 0 .* holds a v1 row for "io\.test\.h[12]\/e\d", which the plan gives shard 1: refused/) });
    expect(readRuns(o.data!).runs).toEqual([]);
    expect(rows(o.data!, 'v1')).toEqual([]);
    // A shard folder whose probe still runs on this machine (its lock's holder is alive) is not read.
    fs.writeFileSync(join(shardDir(work, 1), '.lock'), JSON.stringify(lockFor(NOW.toISOString(), linuxProc)) + '\n');
    await expect(seal(o.data!, work, [shardDir(work, 1)])).rejects.toMatchObject({ exitCode: EXIT.locked, message: expect.stringMatching(/locked by a running collector/) });
  });
});

describe('shards with a bucket', () => {
  it('each shard puts its objects in the bucket; seal needs only the shard folders\' rows and reports', async () => {
    const server = await startS3Server();
    closers.push(() => server.close());
    const remote = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix: 'shards', credentials: server.credentials });
    const f = await counting([2, 2, 1], (_h, j) => ok(j));
    const o: CollectorOptions = { registry: f.registry.url, allowPrivate: true, now: NOW, timeoutMs: 5000, optout: null, rosterLimits: { backoffMs: 5 }, methodology: 'v1', data: tmpData() };
    const work = tmpData();
    const p = await plan(o, work, 2);
    expect(p.shards.length).toBe(3);
    for (const s of p.shards) await probeShardInto(shardDir(work, s.index), p, s.index, {}, remote);
    // The artifacts carry rows and reports, not the bodies: those are in the bucket.
    for (const s of p.shards) fs.rmSync(join(shardDir(work, s.index), 'objects'), { recursive: true, force: true });
    const sealed = await seal(o.data!, work, undefined, remote);
    expect(sealed.runs[0]).toMatchObject({ attempts: 5, degraded: false });
    const shas = rows(o.data!, 'v1').map((r) => r.body_sha256 as string | null);
    expect(shas.filter((x) => x !== null)).toHaveLength(5);
    for (const sha of shas) if (sha) expect(await remote.get(objectKey(sha)), sha).not.toBeNull();
  });
});

describe('npm run collect -- plan | probe | seal', () => {
  const capture = async (argv: string[]) => {
    let out = '';
    let err = '';
    const code = await main(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: {} });
    return { code, out, err };
  };

  it('--help documents the three steps and the exit codes, for the run and for each step', async () => {
    for (const argv of [['--help'], ['plan', '--help'], ['probe', '--help'], ['seal', '--help']]) {
      const { code, out } = await capture(argv);
      expect(code).toBe(EXIT.ok);
      for (const c of ['plan', 'probe', 'seal']) expect(out).toMatch(new RegExp(`^  ${c}  `, 'm'));
      expect(out).toMatch(/shard_lost/);
      expect(out).toMatch(/exit codes: 0 .* 4 this run already finished or sealed/s);
    }
  });

  it('--per-host-span reaches the plan: a number as it is, 0 or none as the cap alone (null); anything else refused before the registry is asked', async () => {
    const f = await counting([2, 1], (_h, j) => ok(j));
    const spanOf = async (span: string) => {
      const work = tmpData();
      const r = await capture(['plan', '--registry', f.registry.url, '--data', tmpData(), '--work', work, '--now', NOW.toISOString(), '--allow-private', '--methodology', 'v1', '--optout', '/dev/null', `--per-host-span=${span}`]);
      if (r.code !== EXIT.ok) return r.err;
      return (JSON.parse(fs.readFileSync(join(work, 'plan.json'), 'utf8')) as { options: { per_host_span?: number | null } }).options.per_host_span;
    };
    expect(await spanOf('3000')).toBe(3000);
    expect(await spanOf('0')).toBeNull();
    expect(await spanOf('none')).toBeNull();
    expect(await spanOf('2k')).toBe('collect: --per-host-span must be an integer ≥ 0, got "2k"\n');
  });

  it('runs plan, probe and seal from the command line; refuses a missing plan, a shard out of range, and a second seal', async () => {
    const f = await counting([2, 1], (_h, j) => ok(j));
    const data = tmpData();
    const work = tmpData();
    expect(await capture(['probe', '--work', work, '--shard', '0'])).toMatchObject({ code: EXIT.usage, err: expect.stringMatching(/^collect: .*no plan at .*plan\.json/) });
    expect(await capture(['plan', '--work', work, '--data', data])).toMatchObject({ code: EXIT.usage, err: expect.stringMatching(/^collect: --now is required/) });
    const plan = await capture(['plan', '--registry', f.registry.url, '--data', data, '--work', work, '--now', NOW.toISOString(), '--allow-private', '--methodology', 'v1', '--optout', '/dev/null', '--max-endpoints-per-shard', '2', '--json']);
    expect(JSON.parse(plan.out)).toMatchObject({ run_id: '2026-05-01T031500Z', shards: [0, 1], series: ['v1'] });
    expect(await capture(['probe', '--work', work, '--shard', '2'])).toMatchObject({ code: EXIT.usage, err: expect.stringMatching(/--shard 2: the plan has 2 shards/) });
    for (const k of ['0', '1']) expect((await capture(['probe', '--work', work, '--shard', k])).out).toMatch(new RegExp(`shard ${k} of run 2026-05-01T031500Z: \\d targets probed`));
    expect((await capture(['probe', '--work', work, '--shard', '0'])).out).toMatch(/already finished/);
    const sealed = await capture(['seal', '--work', work, '--data', data]);
    expect(sealed.code).toBe(EXIT.ok);
    expect(sealed.out).toMatch(/3 rows merged from 2 shard folders, 2 of 2 shards finished, 0 targets shard_lost/);
    expect(rows(data, 'v1').map((r) => r.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(await capture(['seal', '--work', work, '--data', data])).toMatchObject({ code: EXIT.finished });
  });
});
