// Step 3 of a run, `seal`: the shards' rows merged into --data's day files (validated on read; a row
// for a target the plan gives another shard, or none, is refused before anything is written), their
// objects copied in, every planned target still without a row given a not_attempted row with reason
// shard_lost in every series (a shard that failed, was killed or timed out: the run is degraded by the
// coverage rule, never silently short), the shards' schedule facts merged, then one run row per series
// and the run's chain manifest — what a single job writes. A run already sealed is refused (EXIT.finished).
import fs from 'node:fs';
import { join } from 'node:path';
import { appendRunManifests } from '../../src/archive/chain.ts';
import { isObjectName, LAYOUT } from '../../src/archive/layout.ts';
import type { AnyRun, ChainSigner, RunScheduling } from '../../src/lib/index.ts';
import { clip } from '../../src/lib/index.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { RowContext } from '../rows.ts';
import type { ResolvedOptions } from '../run-options.ts';
import { runRowOrder, seriesFor } from '../series/registry.ts';
import type { SeriesRow } from '../series/series.ts';
import { owing, rowWriter, track, type RowSink, type Tracked } from '../series/tracked.ts';
import { holder, readLock } from '../lock.ts';
import type { Store } from '../store.ts';
import { readShardMark, readShardReport, type Plan, type ShardReport } from './plan-file.ts';

export interface SealInput {
  store: Store;
  plan: Plan;
  o: Pick<ResolvedOptions, 'series'> & { signer?: ChainSigner | null };
  /** Shard folders to merge (a sharded run); each is opened (its lock taken) while it is read. */
  shardDirs?: readonly string[];
  /** Reports of shards run in this process (a single job, whose one shard wrote into --data). */
  reports?: readonly ShardReport[];
  /** finished_at of the run rows and observed_at of shard_lost rows; default: the latest time any shard reported. */
  at?: () => string;
  sink: RowSink;
  tracked?: Tracked[];
}

export interface Sealed {
  runs: AnyRun[];
  /** Rows merged from shard folders, over all series. */
  merged: number;
  /** Planned targets given a shard_lost row (counted once per target). */
  lost: number;
  reports: ShardReport[];
}

/** One shard folder's rows of the run, per series, checked against the plan. */
interface ShardRows {
  dir: string;
  shard: number;
  rows: Map<Tracked, SeriesRow[]>;
  objects: string[];
  report: ShardReport | null;
}

export async function sealRun({ store, plan, o, shardDirs = [], reports = [], at, sink, tracked }: SealInput): Promise<Sealed> {
  const runs = store.readRuns();
  const finished = new Set(runs.filter((r) => r.run_id === plan.run_id).map((r) => r.methodology_version));
  const ids = plan.series.filter((s) => !finished.has(s));
  if (ids.length === 0) throw new CliError(`run ${plan.run_id} already finished (see runs.jsonl); it is sealed`, EXIT.finished);
  const recorded = tracked ?? track(store, seriesFor(ids, o.series), plan.day, plan.run_id);
  const planned = new Map(plan.shards.flatMap((s) => s.targets.map((t) => [t.name, { shard: s.index, target: t }] as const)));

  // Read and check every shard folder before writing anything.
  const shards = shardDirs.map((dir) => readShard(dir, plan, recorded, planned));
  const allReports = [...reports, ...shards.flatMap((s) => (s.report ? [s.report] : []))];
  let latest = plan.probes_from;
  for (const r of allReports) if (r.finished_at > latest) latest = r.finished_at;
  for (const s of shards) for (const rows of s.rows.values()) for (const r of rows) if (r.observed_at > latest) latest = r.observed_at;
  const now = at ?? (() => latest);

  const write = rowWriter(store, sink);
  let merged = 0;
  for (const s of shards) {
    for (const name of s.objects) {
      const bytes = fs.readFileSync(join(s.dir, LAYOUT.objects, name.slice(0, 2), name));
      const sha = await store.putObject(bytes);
      if (sha !== name) throw new CliError(`shard ${s.shard} (${s.dir}): object ${name} holds bytes hashing to ${sha}: refused`, EXIT.usage);
    }
    for (const [x, rows] of s.rows) {
      for (const r of rows) {
        if (x.done.has(r.target)) continue; // merged by an earlier seal attempt
        write(x, r);
        merged++;
      }
    }
  }

  // Every planned target without a row: its shard was lost (failed, killed, timed out, never run).
  const ctx = (): RowContext => ({ runId: plan.run_id, day: plan.day, observedAt: now() });
  let lost = 0;
  for (const { target } of planned.values()) {
    const w = owing(recorded, target.name);
    if (w.length) lost++;
    for (const x of w) write(x, x.series.notAttemptedRow(ctx(), target, 'shard_lost'));
  }

  // The schedule's facts over all shards: the plan's host counts, the shards' peaks and slowest hosts.
  const p = plan.options;
  const hostCounts = plan.shards.flatMap((s) => s.hosts.map((h) => h.targets));
  const deadlines = allReports.map((r) => r.deadline_at).filter((d): d is string => d !== null);
  const scheduling: Omit<RunScheduling, 'not_attempted'> = {
    scheduler: allReports[0]?.scheduler ?? 'lpt',
    hosts: hostCounts.length,
    max_targets_per_host: hostCounts.reduce((m, n) => Math.max(m, n), 0),
    per_host_limit: { divisor: p.per_host_divisor, max: p.per_host_max, ...(p.per_host_span ? { span: p.per_host_span } : {}) },
    global_concurrency: p.concurrency,
    max_in_flight_per_host: allReports.reduce((m, r) => Math.max(m, r.max_in_flight_per_host), 0),
    unresponsive_after: p.unresponsive_after,
    deadline_at: p.deadline_ms === null ? null : deadlines.length ? deadlines.sort().at(-1)! : new Date(Date.parse(plan.probes_from) + p.deadline_ms).toISOString(),
    slowest_hosts: allReports
      .flatMap((r) => r.hosts)
      .sort((a, b) => b.wallMs - a.wallMs || b.targets - a.targets)
      .slice(0, 10)
      .map((h) => ({ host: clip(h.host, 255), targets: h.targets, limit: h.limit, max_in_flight: h.maxInFlight, backoffs: h.backoffs, wall_ms: h.wallMs, not_attempted: h.notAttempted })),
  };
  // One run row per series, v1 first; all of one run share its facts and scheduling block.
  const facts = {
    runId: plan.run_id,
    day: plan.day,
    startedAt: plan.clock,
    finishedAt: now(),
    registry: plan.registry,
    rosterFile: plan.roster_file,
    rosterComplete: plan.roster_complete,
    limit: plan.limit,
    eligible: plan.eligible,
    message: plan.roster_complete ? null : `roster incomplete: ${plan.incomplete_reason ?? 'unknown'}`,
    scheduling,
  };
  const written = runRowOrder(recorded).map((x) => x.series.runRow({ ...facts, rows: x.rows }));
  for (const run of written) store.appendRun(run);
  // The run's manifest on the hash chain (src/archive/chain.ts), sealed at the run's own clock.
  await appendRunManifests(store.dir, plan.run_id, { signer: o.signer ?? null, sealedAt: written[0]!.finished_at, durable: store.durable });
  return { runs: written, merged, lost, reports: allReports };
}

function readShard(dir: string, plan: Plan, recorded: readonly Tracked[], planned: ReadonlyMap<string, { shard: number }>): ShardRows {
  const none: ShardRows = { dir, shard: -1, rows: new Map(), objects: [], report: null };
  if (!fs.existsSync(dir)) return none; // never started: its targets are lost
  // Read without taking its lock: a folder copied from a killed job on another machine keeps that
  // job's lock. A holder alive on this machine is a probe still running: wait for it.
  const held = readLock(join(dir, LAYOUT.lock));
  if (held && holder(held).state === 'alive') throw new CliError(`shard folder ${dir} is locked by a running collector (pid ${held.pid}): wait for its probe to end`, EXIT.locked);
  const mark = readShardMark(dir);
  const rows = new Map<Tracked, SeriesRow[]>();
  let count = 0;
  for (const x of recorded) {
    let mine: SeriesRow[];
    try {
      mine = x.series.readFolder(dir, plan.day).filter((r) => r.run_id === plan.run_id);
    } catch (e) {
      throw new CliError(`shard folder ${dir}: ${(e as Error).message}: refused, nothing merged`, EXIT.usage, { cause: e });
    }
    rows.set(x, mine);
    count += mine.length;
  }
  if (mark === null) {
    if (count > 0) throw new CliError(`shard folder ${dir} holds rows of run ${plan.run_id} but no shard.json: refused (which shard wrote them is unknown)`, EXIT.usage);
    return none;
  }
  if (mark.run_id !== plan.run_id) throw new CliError(`shard folder ${dir} is of run ${mark.run_id}, not ${plan.run_id}: refused`, EXIT.usage);
  if (mark.shard >= plan.shards.length) throw new CliError(`shard folder ${dir} says shard ${mark.shard}; the plan has ${plan.shards.length}`, EXIT.usage);
  for (const [x, list] of rows) {
    for (const r of list) {
      const at = planned.get(r.target);
      if (at?.shard !== mark.shard) {
        throw new CliError(
          `shard ${mark.shard} (${dir}) holds a ${x.series.id} row for ${JSON.stringify(r.target.slice(0, 200))}, which the plan ${at ? `gives shard ${at.shard}` : 'does not probe'}: refused, nothing merged`,
          EXIT.usage,
        );
      }
    }
  }
  const report = readShardReport(dir);
  if (report && (report.run_id !== plan.run_id || report.shard !== mark.shard)) throw new CliError(`shard folder ${dir}: its report is of run ${report.run_id} shard ${report.shard}: refused`, EXIT.usage);
  return { dir, shard: mark.shard, rows, objects: listObjects(dir), report };
}

function listObjects(dir: string): string[] {
  const root = join(dir, LAYOUT.objects);
  const out: string[] = [];
  for (const aa of fs.existsSync(root) ? fs.readdirSync(root).sort() : []) {
    for (const name of fs.readdirSync(join(root, aa)).sort()) if (isObjectName(name) && name.startsWith(aa)) out.push(name);
  }
  return out;
}
