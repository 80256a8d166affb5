// npm run collect -- plan | probe | seal: a day's run as three steps, each its own process (a GitHub
// Actions job: plan, then a matrix of probe jobs, then seal). collector/cli.ts parses the command line
// (one command on the CLI kit) and passes in the parsed values and how a run's options, the signing
// key and the bucket are read, so there is one reading.
import { join, resolve } from 'node:path';
import type { ObjectStore } from '../../src/archive/object-store.ts';
import type { AnyRun, ChainSigner } from '../../src/lib/index.ts';
import { CliError, EXIT, integer, required, type Io } from '../cli-kit/index.ts';
import { DEFAULT_MAX_ENDPOINTS_PER_SHARD, resolveOptions, runIdOf, type CollectorOptions } from '../run-options.ts';
import { NO_SINK } from '../series/tracked.ts';
import { Store } from '../store.ts';
import { readPlan, writePlan } from './plan-file.ts';
import { planRun } from './plan.ts';
import { probeShardInto } from './probe-shard.ts';
import { sealRun } from './seal.ts';

export const SHARD_COMMANDS = ['plan', 'probe', 'seal'] as const;
export type ShardCommand = (typeof SHARD_COMMANDS)[number];

/** The options each step takes beyond the run's (plan takes the run's too); any other is refused. */
export const SHARD_OPTIONS: Record<ShardCommand, readonly string[]> = {
  plan: ['work', 'max-endpoints-per-shard', 'json'],
  probe: ['work', 'shard', 'data', 'json'],
  seal: ['work', 'data', 'shard-dir', 'json'],
};

export interface ShardCliDeps {
  runOptions(values: Record<string, unknown>): CollectorOptions;
  signerFromEnv(): ChainSigner | null;
  remoteFromEnv(): ObjectStore | null;
}

/** The default folder of shard k: <work>/shard-<k>. */
export const shardDir = (work: string, k: number) => join(work, `shard-${k}`);

type Values = Record<string, string | boolean | string[] | undefined>;

export async function shardRun(command: ShardCommand, values: Values, io: Io, deps: ShardCliDeps): Promise<number> {
  const out = (line: string) => io.stdout(line + '\n');
  const str = (k: string) => values[k] as string | undefined;
  const work = resolve(required('work', str('work'), 'the folder the plan and the shards share'));
  if (command === 'plan') {
    required('now', str('now'), 'a plan names its run: the shards and the seal must agree on the clock');
    const maxPer = integer('max-endpoints-per-shard', str('max-endpoints-per-shard'), { min: 1 }) ?? DEFAULT_MAX_ENDPOINTS_PER_SHARD;
    const o = resolveOptions({ ...deps.runOptions(values), remote: deps.remoteFromEnv() });
    const clock = o.now!;
    const runId = runIdOf(clock);
    const store = Store.open(o.data, new Date().toISOString(), { remote: o.remote ?? null });
    try {
      const { plan } = await planRun({ store, o, runId, day: clock.toISOString().slice(0, 10), clock, t0: performance.now(), maxEndpointsPerShard: maxPer, sink: NO_SINK });
      const file = writePlan(work, plan);
      const shards = plan.shards.map((s) => s.index);
      if (values.json) out(JSON.stringify({ run_id: plan.run_id, plan: file, series: plan.series, shards, endpoints: plan.shards.map((s) => s.targets.length) }));
      else out(`plan ${plan.run_id} (${plan.series.join(', ')}): ${shards.length} shard${shards.length === 1 ? '' : 's'} of ${plan.shards.map((s) => s.targets.length).join(', ')} endpoints; ${file}`);
      return EXIT.ok;
    } finally {
      store.close();
    }
  }
  if (command === 'probe') {
    const plan = readPlan(work);
    const k = integer('shard', required('shard', str('shard'), 'the shard this job probes (0-based)'), { min: 0 })!;
    const dir = resolve(str('data') ?? shardDir(work, k));
    const { report, already } = await probeShardInto(dir, plan, k, {}, deps.remoteFromEnv());
    if (values.json) out(JSON.stringify({ ...report, hosts: undefined, already }));
    else if (already) out(`shard ${k} of run ${plan.run_id} already finished (${dir}); nothing to do`);
    else out(`shard ${k} of run ${plan.run_id}: ${report.probed} targets probed in ${(report.probe_ms / 1000).toFixed(1)} s; ${dir}`);
    return EXIT.ok;
  }
  const plan = readPlan(work);
  const dirs = ((values['shard-dir'] as string[] | undefined) ?? plan.shards.map((s) => shardDir(work, s.index))).map((d) => resolve(d));
  const data = str('data') ?? 'data';
  const store = Store.open(data, new Date().toISOString(), { remote: deps.remoteFromEnv() });
  let runs: AnyRun[];
  try {
    const sealed = await sealRun({ store, plan, o: { signer: deps.signerFromEnv() }, shardDirs: dirs, sink: NO_SINK });
    runs = sealed.runs;
    if (values.json) out(JSON.stringify({ run_id: plan.run_id, merged: sealed.merged, shard_lost: sealed.lost, shards_finished: sealed.reports.length, runs }));
    else {
      out(`sealed ${plan.run_id}: ${sealed.merged} rows merged from ${dirs.length} shard folder${dirs.length === 1 ? '' : 's'}, ${sealed.reports.length} of ${plan.shards.length} shards finished, ${sealed.lost} targets shard_lost`);
      for (const r of runs) out(`run ${r.run_id} ${r.methodology_version} ${r.status}${r.degraded ? ' DEGRADED' : ''}: ${r.targets} targets, ${r.attempts}/${r.eligible} attempted (coverage ${(r.coverage * 100).toFixed(1)}%)`);
    }
  } finally {
    store.close();
  }
  const failed = runs.find((r) => r.status === 'failed');
  if (failed) throw new CliError(`run ${failed.run_id} (${failed.methodology_version}) failed: ${failed.message ?? 'zero attempts'}`, EXIT.failed);
  return EXIT.ok;
}
