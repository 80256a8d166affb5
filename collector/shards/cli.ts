// npm run collect -- plan | probe | seal: a day's run as three steps, each its own process (a GitHub
// Actions job: plan, then a matrix of probe jobs, then seal). collector/cli.ts dispatches here and
// passes in how a run's options, the signing key and the bucket are read, so there is one reading.
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ObjectStore } from '../../src/archive/object-store.ts';
import type { AnyRun, ChainSigner } from '../../src/lib/index.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { DEFAULT_MAX_ENDPOINTS_PER_SHARD, resolveOptions, runIdOf, type CollectorOptions } from '../run-options.ts';
import { NO_SINK } from '../series/tracked.ts';
import { Store } from '../store.ts';
import { readPlan, writePlan } from './plan-file.ts';
import { planRun } from './plan.ts';
import { probeShardInto } from './probe-shard.ts';
import { sealRun } from './seal.ts';

export const SHARD_COMMANDS = ['plan', 'probe', 'seal'] as const;
export type ShardCommand = (typeof SHARD_COMMANDS)[number];

export interface ShardCliDeps {
  runOptions(values: Record<string, string | boolean | undefined>): CollectorOptions;
  signerFromEnv(): ChainSigner | null;
  remoteFromEnv(): ObjectStore | null;
}

/** The default folder of shard k: <work>/shard-<k>. */
export const shardDir = (work: string, k: number) => join(work, `shard-${k}`);

function parse(argv: string[], options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>) {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: { ...options, work: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }).values as Record<string, string | boolean | string[] | undefined>;
  } catch (e) {
    throw new CliError(`${(e as Error).message}\nsee --help`, EXIT.usage, { cause: e });
  }
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new CliError(`--${name} is required\nsee --help`, EXIT.usage);
  return v;
}

function count(name: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new CliError(`--${name} must be a whole number ≥ ${min}, got ${JSON.stringify(v)}`, EXIT.usage);
  return Number(v);
}

export async function shardMain(command: ShardCommand, argv: string[], deps: ShardCliDeps): Promise<number> {
  const out = (line: string) => process.stdout.write(line + '\n');
  if (command === 'plan') {
    const { RUN_OPTIONS } = await import('../cli.ts');
    const values = parse(argv, { ...RUN_OPTIONS, 'max-endpoints-per-shard': { type: 'string' } });
    if (values.help) return help(out);
    const work = resolve(required(values, 'work'));
    required(values, 'now'); // a plan names its run: the shards and the seal must agree on the clock
    const maxPer = count('max-endpoints-per-shard', values['max-endpoints-per-shard'] as string | undefined, 1) ?? DEFAULT_MAX_ENDPOINTS_PER_SHARD;
    const o = resolveOptions({ ...deps.runOptions(values as Record<string, string | boolean | undefined>), remote: deps.remoteFromEnv() });
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
    const values = parse(argv, { shard: { type: 'string' }, data: { type: 'string' } });
    if (values.help) return help(out);
    const work = resolve(required(values, 'work'));
    const plan = readPlan(work);
    const k = count('shard', required(values, 'shard'), 0)!;
    const dir = resolve((values.data as string | undefined) ?? shardDir(work, k));
    const { report, already } = await probeShardInto(dir, plan, k, {}, deps.remoteFromEnv());
    if (values.json) out(JSON.stringify({ ...report, hosts: undefined, already }));
    else if (already) out(`shard ${k} of run ${plan.run_id} already finished (${dir}); nothing to do`);
    else out(`shard ${k} of run ${plan.run_id}: ${report.probed} targets probed in ${(report.probe_ms / 1000).toFixed(1)} s; ${dir}`);
    return EXIT.ok;
  }
  const values = parse(argv, { data: { type: 'string' }, 'shard-dir': { type: 'string', multiple: true } });
  if (values.help) return help(out);
  const work = resolve(required(values, 'work'));
  const plan = readPlan(work);
  const dirs = ((values['shard-dir'] as string[] | undefined) ?? plan.shards.map((s) => shardDir(work, s.index))).map((d) => resolve(d));
  const data = (values.data as string | undefined) ?? 'data';
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
  if (failed) {
    process.stderr.write(`collector: run ${failed.run_id} (${failed.methodology_version}) failed: ${failed.message ?? 'zero attempts'}\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

async function help(out: (line: string) => void): Promise<number> {
  const { HELP } = await import('../cli.ts');
  out(HELP.trimEnd());
  return EXIT.ok;
}
