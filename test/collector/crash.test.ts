// SIGKILL the CLI mid-run, restart it with the same --now: no torn line, no duplicate row, the
// earlier day's files untouched byte for byte, and the run finishes with every target's row — in both
// series, as the default (auto, during the bridge) records them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCollector } from '../../collector/run.ts';
import { Observation, ObservationV2, Run, RunV2, type AnyRun } from '../../src/lib/index.ts';
import type { Behaviour } from '../../sandbox/mcp-host.ts';
import { startRegistry } from '../../sandbox/registry-server.ts';
import { realTools, startWorld, tmpData, type World } from './world.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A well-behaved v1 server that takes `ms` per answer, so the run lasts long enough to be killed. */
function slow(i: number, ms: number): Behaviour {
  return {
    kind: 'raw',
    handler(_req: IncomingMessage, res: ServerResponse, body: Buffer) {
      const msg = body.length ? (JSON.parse(body.toString()) as { id?: unknown; method?: string }) : {};
      setTimeout(() => {
        if (msg.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } } }));
        } else if (msg.method === 'tools/list') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: realTools(i) } }));
        } else res.writeHead(202).end();
      }, ms);
    },
  };
}

function cli(args: string[]) {
  return spawn(process.execPath, ['--import', 'tsx', 'collector/cli.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}

let world: World;
beforeAll(async () => {
  world = await startWorld({ endpoints: 120, hostCount: 4, behave: (i) => slow(i, 15) });
});
afterAll(async () => {
  await world?.close();
});

describe('collector CLI under SIGKILL', () => {
  it('resumes with the same --now: no torn line, no duplicate row, earlier days byte-identical', async () => {
    const data = tmpData();
    const common = ['--registry', world.registry.url, '--data', data, '--allow-private', '--optout', join(data, 'none.txt'), '--timeout', '3000'];
    // Day 1: a finished run, done in-process.
    await runCollector({ registry: world.registry.url, data, allowPrivate: true, now: new Date('2026-04-01T03:00:00Z'), optout: null, concurrency: 8 });
    const day1 = fs.readFileSync(join(data, 'observations', '2026-04-01.jsonl'));
    const day1v2 = fs.readFileSync(join(data, 'observations-v2', '2026-04-01.jsonl'));
    const runs1 = fs.readFileSync(join(data, 'runs.jsonl'));

    // Day 2: killed mid-run.
    const day2 = join(data, 'observations', '2026-04-02.jsonl');
    const child = cli([...common, '--now', '2026-04-02T03:00:00Z', '--concurrency', '2']);
    const exited = new Promise<number | null>((r) => child.on('exit', (_code, signal) => r(signal === 'SIGKILL' ? -9 : _code)));
    for (let i = 0; i < 400; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (fs.existsSync(day2) && fs.readFileSync(day2, 'utf8').split('\n').length > 30) break;
    }
    child.kill('SIGKILL');
    expect(await exited).toBe(-9);
    const killedLines = fs.readFileSync(day2, 'utf8').split('\n').length - 1;
    expect(killedLines).toBeGreaterThan(0);
    expect(fs.existsSync(join(data, '.lock'))).toBe(true); // the dead process's lock is still there
    // The kill can land mid-line; make sure a torn tail exists to be repaired either way (in both series).
    const day2v2 = join(data, 'observations-v2', '2026-04-02.jsonl');
    expect(fs.existsSync(day2v2)).toBe(true); // v2 runs first in each job
    fs.appendFileSync(day2, '{"run_id":"2026-04-02T030000Z","day":"2026-04-0');
    fs.appendFileSync(day2v2, '{"run_id":"2026-04-02T030000Z","era":"leg');

    const again = cli([...common, '--now', '2026-04-02T03:00:00Z', '--json']);
    let out = '';
    again.stdout.on('data', (c) => (out += c));
    let err = '';
    again.stderr.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((r) => again.on('exit', r));
    expect(err).toBe('');
    expect(code).toBe(0);
    const summary = JSON.parse(out) as { runs: AnyRun[]; resumed_rows: number };
    expect(summary.resumed_rows).toBeGreaterThanOrEqual(killedLines);
    expect(summary.runs.map((r) => r.methodology_version)).toEqual(['v1', 'v2']);

    for (const [file, parse, run] of [
      [day2, (l: string): { target: string } => Observation.parse(JSON.parse(l)), summary.runs[0]!],
      [day2v2, (l: string): { target: string } => ObservationV2.parse(JSON.parse(l)), summary.runs[1]!],
    ] as const) {
      const text = fs.readFileSync(file, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      const rows = text.trimEnd().split('\n').map(parse);
      expect(new Set(rows.map((r) => r.target)).size).toBe(rows.length);
      expect(rows.length).toBe(run.targets);
      expect(run.outcomes.ok, file).toBe(world.endpoints.size);
    }
    expect(fs.readFileSync(join(data, 'observations', '2026-04-01.jsonl'))).toEqual(day1);
    expect(fs.readFileSync(join(data, 'observations-v2', '2026-04-01.jsonl'))).toEqual(day1v2);
    expect(fs.readFileSync(join(data, 'runs.jsonl')).subarray(0, runs1.length)).toEqual(runs1);
    const runs = fs.readFileSync(join(data, 'runs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as AnyRun);
    expect(runs.map((r) => `${r.run_id} ${r.methodology_version}`)).toEqual(['2026-04-01T030000Z v1', '2026-04-01T030000Z v2', '2026-04-02T030000Z v1', '2026-04-02T030000Z v2']);
    for (const r of runs) (r.methodology_version === 'v2' ? RunV2 : Run).parse(r);
    const torn = fs.readdirSync(join(data, 'quarantine')).filter((f) => f.endsWith('.torn'));
    expect(torn.some((f) => f.startsWith('observations_'))).toBe(true);
    expect(torn.some((f) => f.startsWith('observations-v2_'))).toBe(true);
    expect(fs.existsSync(join(data, '.lock'))).toBe(false);
  });

  it('exits 3 while another collector holds the lock, and 1 for a run with zero attempts', async () => {
    const data = tmpData();
    fs.writeFileSync(join(data, '.lock'), JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }));
    const held = cli(['--registry', world.registry.url, '--data', data, '--now', '2026-04-03T00:00:00Z']);
    let err = '';
    held.stderr.on('data', (c) => (err += c));
    expect(await new Promise((r) => held.on('exit', r))).toBe(3);
    expect(err).toMatch(/another collector holds/);
    fs.rmSync(join(data, '.lock'));

    const empty = await startRegistry({ entries: [] });
    const down = cli(['--registry', empty.url, '--data', data, '--now', '2026-04-03T00:00:00Z']);
    let err2 = '';
    down.stderr.on('data', (c) => (err2 += c));
    expect(await new Promise((r) => down.on('exit', r))).toBe(1);
    await empty.close();
    expect(err2).toMatch(/failed: zero attempts/);
    const runs = fs.readFileSync(join(data, 'runs.jsonl'), 'utf8').trimEnd().split('\n');
    expect(Run.parse(JSON.parse(runs[0]!))).toMatchObject({ status: 'failed', attempts: 0 });
  }, 60_000);
});
