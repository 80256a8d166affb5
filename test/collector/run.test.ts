// runCollector end to end over small real-listing worlds: retirement, address refusal, opt-out,
// resume without duplicates, refusing a finished run, failed runs, the lock and torn-tail repair.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../collector/cli-error.ts';
import { runCollector, type CollectorOptions } from '../../collector/run.ts';
import { Store } from '../../collector/store.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';
import { Observation, Run } from '../../src/lib/index.ts';
import { startRegistry, type RegistryEntry, type RegistryServer } from '../../sandbox/registry-server.ts';
import { startWorld, tmpData, type World } from './world.ts';

let world: World;
let registry: RegistryServer;
let current: RegistryEntry[];

beforeAll(async () => {
  world = await startWorld({ endpoints: 6, hostCount: 3 });
  current = world.entries;
  registry = await startRegistry({ entries: () => current });
});
afterAll(async () => {
  await registry?.close();
  await world?.close();
});

const day = (d: number) => new Date(Date.UTC(2026, 2, d, 3, 0, 0));
/** The v1 series (the series themselves: series.test.ts). */
const run = (data: string, d: number, extra: Partial<CollectorOptions> = {}) =>
  runCollector({ registry: registry.url, data, allowPrivate: true, now: day(d), timeoutMs: 2000, optout: null, rosterLimits: { backoffMs: 5 }, methodology: 'v1', ...extra });
const rowsOf = (data: string, d: number): Observation[] => {
  const file = join(data, 'observations', day(d).toISOString().slice(0, 10) + '.jsonl');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => Observation.parse(JSON.parse(l))) : [];
};
const runsOf = (data: string): Run[] => fs.readFileSync(join(data, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => Run.parse(JSON.parse(l)));
const names = () => [...new Set(world.entries.map((e) => e.server.name))];
const without = (...gone: string[]) => world.entries.filter((e) => !gone.includes(e.server.name));

describe('runCollector(options): retirement', () => {
  it('retires a target once, across two complete rosters, and not while a roster is incomplete', async () => {
    const data = tmpData();
    const [x, y] = [names()[1]!, names()[2]!];
    current = world.entries;
    await run(data, 1);
    current = without(x);
    const s2 = await run(data, 2);
    expect(s2.run.outcomes.retired).toBe(1);
    expect(rowsOf(data, 2).filter((r) => r.outcome === 'retired')).toMatchObject([{ target: x, detail: expect.stringContaining('rosters/2026-03-01.json') }]);
    await run(data, 3);
    expect(rowsOf(data, 3).filter((r) => r.outcome === 'retired')).toEqual([]); // once only
    // Day 4: the roster is cut short — nobody is retired, the run fails loudly (zero attempts).
    current = without(x, y);
    const s4 = await run(data, 4, { rosterLimits: { maxPages: 0 } });
    expect(s4.run).toMatchObject({ roster_complete: false, status: 'failed', degraded: true, attempts: 0 });
    expect(s4.run.eligible).toBeGreaterThan(0); // the previous complete roster says what we missed
    expect(rowsOf(data, 4).filter((r) => r.outcome === 'retired')).toEqual([]);
    // Day 5: complete again; compared with the last complete full run (day 3), y is retired.
    const s5 = await run(data, 5);
    expect(rowsOf(data, 5).filter((r) => r.outcome === 'retired').map((r) => r.target)).toEqual([y]);
    expect(s5.run.status).toBe('finished');
  });

  it('retires nobody when the previous roster was incomplete', async () => {
    const data = tmpData();
    current = world.entries;
    registry.failNext(2, 500);
    const s1 = await run(data, 1, { rosterLimits: { maxAttempts: 2, backoffMs: 5 } });
    expect(s1.run.roster_complete).toBe(false);
    current = without(names()[1]!);
    const s2 = await run(data, 2);
    expect(s2.run.outcomes.retired).toBe(0);
    current = world.entries;
  });

  it('retires nobody in a partial (--limit) run', async () => {
    const data = tmpData();
    current = world.entries;
    await run(data, 1);
    current = without(names()[0]!);
    const s = await run(data, 2, { limit: 2 });
    expect(s.run).toMatchObject({ partial: true, limit: 2, targets: 2 });
    expect(s.run.outcomes.retired).toBe(0);
    current = world.entries;
  });
});

describe('runCollector(options): address safety and opt-out', () => {
  it('without allowPrivate refuses every loopback endpoint with a tls/address row and never contacts it', async () => {
    current = world.entries;
    const before = world.hosts.map((h) => h.requests);
    const s = await run(tmpData(), 1, { allowPrivate: false });
    const rows = s.run.outcomes.error;
    expect(rows).toBe(world.endpoints.size);
    expect(world.hosts.map((h) => h.requests)).toEqual(before);
    const data = s.data;
    for (const r of rowsOf(data, 1).filter((r) => r.outcome === 'error')) {
      expect(r).toMatchObject({ error_class: 'tls', step: 'address' });
      expect(r.detail).toMatch(/refused address: 127\.0\.0\.\d+ is loopback/);
    }
  });

  it('excludes opted-out names and hosts with an "opt-out" row and never contacts them', async () => {
    current = world.entries;
    const data = tmpData();
    const [byName] = [...world.endpoints.keys()];
    const optout = join(data, 'optout.txt');
    fs.writeFileSync(optout, `# test\n${byName}   # a registry name\n127.0.0.2\n`);
    const before = world.hosts[1]!.requests;
    const s = await run(data, 1, { optout });
    const excluded = rowsOf(data, 1).filter((r) => r.outcome === 'excluded');
    const viaHost = [...world.endpoints.entries()].filter(([n, u]) => n !== byName && new URL(u).hostname === '127.0.0.2').map(([n]) => n);
    expect(excluded.map((r) => r.target).sort()).toEqual([byName!, ...viaHost].sort());
    for (const r of excluded) expect(r.detail).toBe('opt-out');
    expect(world.hosts[1]!.requests).toBe(before);
    expect(s.run.eligible).toBe(world.endpoints.size - excluded.length);
  });
});

describe('runCollector(options): runs', () => {
  it('resumes a run cut short: same run_id, no duplicate row, the run row counts every row', async () => {
    current = world.entries;
    const data = tmpData();
    const first = await run(data, 1);
    // Undo the end of the run as a crash would have left it: no run row, half the rows.
    const file = join(data, 'observations', '2026-03-01.jsonl');
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    fs.writeFileSync(file, lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n' + lines[Math.floor(lines.length / 2)]!.slice(0, 40));
    fs.writeFileSync(join(data, 'runs.jsonl'), '');
    const second = await run(data, 1);
    expect(second.resumed_rows).toBe(Math.floor(lines.length / 2));
    const rows = rowsOf(data, 1);
    expect(rows.length).toBe(lines.length);
    expect(new Set(rows.map((r) => r.target)).size).toBe(rows.length);
    expect(new Set(rows.map((r) => r.run_id))).toEqual(new Set([first.run.run_id]));
    expect(second.run.targets).toBe(first.run.targets);
    expect(second.run.outcomes).toEqual(first.run.outcomes);
    expect(fs.readdirSync(join(data, 'rosters'))).toEqual(['2026-03-01.json']); // the roster was reused
    const torn = fs.readdirSync(join(data, 'quarantine')).filter((f) => f.endsWith('.torn'));
    expect(torn).toHaveLength(1);
    expect(fs.readFileSync(join(data, 'quarantine', torn[0]!), 'utf8')).toBe(lines[Math.floor(lines.length / 2)]!.slice(0, 40));
    // observed_at keeps rows in order across the restart.
    const at = rows.map((r) => Date.parse(r.observed_at));
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it('refuses a run_id that already finished, and writes a second roster for a second run that day', async () => {
    current = world.entries;
    const data = tmpData();
    await run(data, 1);
    await expect(run(data, 1)).rejects.toMatchObject({ name: 'CliError', exitCode: 4 });
    const later = new Date(day(1).getTime() + 3600_000);
    const s = await runCollector({ registry: registry.url, data, allowPrivate: true, now: later, timeoutMs: 2000, optout: null, methodology: 'v1' });
    expect(s.run.roster_file).toBe('2026-03-01.2.json');
    expect(runsOf(data).map((r) => r.run_id)).toEqual(['2026-03-01T030000Z', '2026-03-01T040000Z']);
  });

  it('records a run with zero attempts as failed (registry down)', async () => {
    const data = tmpData();
    registry.failNext(3, 503);
    const s = await run(data, 1, { rosterLimits: { maxAttempts: 3, backoffMs: 5 } });
    expect(s.run).toMatchObject({ status: 'failed', attempts: 0, roster_complete: false, degraded: true });
    expect(s.run.message).toMatch(/roster incomplete: page 1 failed: http 503/);
    expect(runsOf(data)).toHaveLength(1);
  });
});

describe('Store.open(dir): lock and repair', () => {
  it('refuses a second collector while the lock holder lives', async () => {
    const data = tmpData();
    const store = Store.open(data, new Date().toISOString());
    try {
      await expect(run(data, 1)).rejects.toSatisfy((e: unknown) => e instanceof CliError && e.exitCode === 3 && /another collector holds/.test(e.message));
    } finally {
      store.close();
    }
    expect(fs.existsSync(join(data, '.lock'))).toBe(false);
  });

  it('recovers a stale lock left by a dead process', async () => {
    const data = tmpData();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.mkdirSync(data, { recursive: true });
    fs.writeFileSync(join(data, '.lock'), JSON.stringify({ pid: Number(dead.stdout), started_at: '2026-01-01T00:00:00Z' }));
    current = world.entries;
    const s = await run(data, 1);
    expect(s.run.status).toBe('finished');
    expect(fs.readdirSync(join(data, 'quarantine')).some((f) => f.endsWith('.stale'))).toBe(true);
  });

  it('refuses an unusable --data', async () => {
    const file = join(tmpData(), 'a-file');
    fs.writeFileSync(file, 'x');
    await expect(run(file, 1)).rejects.toMatchObject({ name: 'CliError', exitCode: 2 });
  });

  it('sweeps temp files a killed writer left, so verify passes after the next run', async () => {
    const data = tmpData();
    current = world.entries;
    await run(data, 1);
    const shard = fs.readdirSync(join(data, 'objects')).sort()[0]!;
    const strayObject = join(data, 'objects', shard, `${shard}${'0'.repeat(62)}.tmp-4242-deadbeef`);
    const strayRoster = join(data, 'rosters', '.2026-03-02.tmp-4242-deadbeef');
    fs.writeFileSync(strayObject, 'half an object');
    fs.writeFileSync(strayRoster, '{"day":');
    expect((await verifyArchive(data)).problems.map((p) => p.kind)).toContain('orphan');
    await run(data, 2);
    expect(fs.existsSync(strayObject)).toBe(false);
    expect(fs.existsSync(strayRoster)).toBe(false);
    expect((await verifyArchive(data)).problems).toEqual([]);
  });
});
