// The sharded day as collect.yml runs it, on a local world: `plan` (its matrix read back from
// GITHUB_OUTPUT, as the workflow reads it), each shard's `probe` as its own process, side by side,
// `seal`, then `close`, into a temp archive with no bucket. The archive verifies and holds one
// finished run whose rows cover every target once; the near miss: a day sealed with one shard never
// probed is degraded, its targets shard_lost rows, never a silent gap. No site build (day.test.ts has one).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../pipeline/cli.ts';
import { startWorld, type RunningWorld } from '../../sandbox/fleet.ts';
import { verifyArchive } from '../../collector/ops/verify.ts';

let w: RunningWorld;
const root = mkdtempSync(path.join(tmpdir(), 'mcp-schema-pipeline-sharded-'));

beforeAll(async () => {
  w = await startWorld({ seed: 'pipeline-shards', size: 16, day: 0, port: 0 });
});
afterAll(async () => {
  await w?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A machine with no bucket, its own runner temp and GITHUB_OUTPUT per day. */
function env(name: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(e)) if (/^(MCP_SCHEMA_|AWS_|GITHUB_|COMMIT_DAY_|RELEASE_URL$|PARTS_|COLLECT_|RESUME_|KEPT_)/.test(k)) delete e[k];
  return { ...e, RUNNER_TEMP: path.join(root, name, 'runner'), GITHUB_OUTPUT: path.join(root, name, 'output'), MCP_SCHEMA_SIMULATED: '1' };
}

async function step(e: NodeJS.ProcessEnv, argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await main(argv, { stdout: () => {}, stderr: (t) => void (err += t), env: e });
  return { code, err };
}

type Run = { status: string; degraded: boolean; targets: number; run_id: string; outcomes: Record<string, number> };
const runsOf = (data: string) => readFileSync(path.join(data, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Run);

describe('npm run pipeline -- plan, probe ×n, seal, close (a local world, no bucket)', () => {
  it('the shards probe side by side as processes; the sealed and closed day verifies; a shard never probed is shard_lost, not a gap', async () => {
    for (const [name, day, skipShard] of [['whole', 0, null], ['lost', 1, 0]] as const) {
      const e = env(name);
      const data = path.join(root, name, 'archive');
      const now = `${w.world.date(day)}T03:15:00Z`;
      const collector = ['--registry', w.registryUrl, '--allow-private', '--now', now, '--timeout', '3000', '--methodology', 'v1', '--max-endpoints-per-shard', '6'];
      const planned = await step(e, ['plan', '--data', data, '--', ...collector]);
      expect(planned.code, planned.err).toBe(0);
      const out = Object.fromEntries(readFileSync(e.GITHUB_OUTPUT!, 'utf8').trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      expect(out.now).toBe(now);
      const shards = (JSON.parse(out.matrix!) as { shard: number[] }).shard;
      expect(shards.length).toBeGreaterThanOrEqual(2);
      const probed = await Promise.all(shards.filter((k) => k !== skipShard).map((k) => step(e, ['probe', '--data', data, '--', '--shard', String(k)])));
      for (const p of probed) expect(p.code, p.err).toBe(0);
      const sealed = await step({ ...e, COLLECT_NOW: out.now }, ['seal', '--data', data]);
      expect(sealed.code, sealed.err).toBe(0);
      const closed = await step(e, ['close', '--data', data]);
      expect(closed.code, closed.err).toBe(0);
      expect((await verifyArchive(data)).problems).toEqual([]);
      const [run] = runsOf(data);
      expect(run).toMatchObject({ status: 'finished', run_id: `${w.world.date(day)}T031500Z` });
      const summary = JSON.parse(readFileSync(path.join(e.RUNNER_TEMP!, 'collect-summary.json'), 'utf8')) as { shard_lost: number; shards_finished: number };
      if (skipShard === null) {
        expect(summary).toMatchObject({ shard_lost: 0, shards_finished: shards.length });
        expect(run!.degraded).toBe(false);
      } else {
        expect(summary.shard_lost).toBeGreaterThan(0);
        expect(summary.shards_finished).toBe(shards.length - 1);
        expect(run!.outcomes.not_attempted).toBe(summary.shard_lost);
        expect(run!.degraded).toBe(true); // half the world's endpoints were the lost shard's: below the coverage rule
      }
    }
  }, 300_000);
});
