// Step 2 of a run, `probe --shard k`: shard k's targets probed with the day's schedule (schedule.ts:
// lpt, per-host limits over the host's whole-run target count from the plan, back-off, unresponsive
// hosts, the deadline), one row per target in every series the plan records, written to the shard's
// Store (its own folder, or --data itself in a single job) with the bodies. A target that already has
// a row in a series (an earlier attempt of the shard) is not probed again for it. In a series that
// makes one probe per endpoint (v2), names sharing a normalised endpoint URL share one probe
// (probe-once.ts). Returns the shard report (the schedule's facts the run row's `scheduling` block
// needs); the CLI writes it last.
import fs from 'node:fs';
import type { ObjectStore } from '../../src/archive/object-store.ts';
import type { NotAttemptedReason, RosterTarget } from '../../src/lib/index.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { createHttpContext } from '../http.ts';
import { jobSignal } from '../host-signal.ts';
import type { RowContext } from '../rows.ts';
import type { ResolvedOptions } from '../run-options.ts';
import { SCHEDULE_DEFAULTS } from '../run-options.ts';
import { lpt, perHostLimit, type HostSignal } from '../schedule.ts';
import { seriesFor } from '../series/registry.ts';
import type { ProbeEnv } from '../series/series.ts';
import { clockBase, NO_SINK, owing, rowWriter, track, type RowSink, type Tracked } from '../series/tracked.ts';
import { Store } from '../store.ts';
import { probeOnce } from './probe-once.ts';
import { readShardMark, readShardReport, writeShardMark, writeShardReport, type Plan, type ShardReport } from './plan-file.ts';
import { runClock, type RunClock } from './plan.ts';

export interface ProbeShardInput {
  store: Store;
  plan: Plan;
  shard: number;
  /** Bounds and hooks (probe limits, schedule, registry of series); the schedule's numbers come from the plan. */
  o: Pick<ResolvedOptions, 'probeLimits' | 'probeV2Limits' | 'schedule' | 'scheduleLimits' | 'series'>;
  clock: RunClock;
  sink: RowSink;
  /** The series' rows already in `store` (a single job tracked them in its plan step); else read here. */
  tracked?: Tracked[];
}

export async function probeShard({ store, plan, shard: k, o, clock, sink, tracked }: ProbeShardInput): Promise<ShardReport> {
  const shard = plan.shards[k]!;
  const recorded = tracked ?? track(store, seriesFor(plan.series, o.series), plan.day, plan.run_id);
  const write = rowWriter(store, sink);
  const ctx = (): RowContext => ({ runId: plan.run_id, day: plan.day, observedAt: clock.at() });
  const jobsFor = shard.targets.filter((t) => owing(recorded, t.name).length > 0);
  if (tracked === undefined) sink.owe(jobsFor.reduce((n, t) => n + owing(recorded, t.name).length, 0));
  // The per-host rule counts the run's targets on each host (all in this shard), rows or not.
  const hostTargets = new Map(shard.hosts.map((h) => [h.host, h.targets]));
  const p = plan.options;
  const hostLimit = (host: string) => perHostLimit(hostTargets.get(host) ?? 0, p.per_host_divisor, p.per_host_max, p.per_host_span ?? null);
  const http = createHttpContext({ allowPrivate: p.allow_private, timeoutMs: p.timeout_ms, hostLimit });
  const env: ProbeEnv = { http, store, timeoutMs: p.timeout_ms, probeLimits: o.probeLimits, probeV2Limits: o.probeV2Limits };
  const probers = new Map(recorded.map((x) => [x, x.series.prober(env)]));
  // A sharing series (v2) makes one probe per normalised endpoint URL: probe-once.ts.
  const once = probeOnce(shard.targets, (x, t) => probers.get(x)!(t, ctx), write, ctx);
  // One job per target: each series owing a row probes in turn (the registry's order; sequential, so
  // one request at a time per endpoint holds); the schedule hears what the host did over all of them
  // (a row sharing another name's probe passes on what the host did on that probe).
  const job = async (t: RosterTarget): Promise<HostSignal> => {
    const signals: HostSignal[] = [];
    for (const x of owing(recorded, t.name)) {
      const signal = await once.row(x, t);
      if (signal) signals.push(signal);
    }
    return jobSignal(signals);
  };
  // A target not run gets not_attempted, unless its endpoint's one probe was made by another name.
  const skip = async (t: RosterTarget, reason: NotAttemptedReason) => {
    for (const x of owing(recorded, t.name)) {
      if (await once.skipped(x, t)) continue;
      if (!x.done.has(t.name)) write(x, x.series.notAttemptedRow(ctx(), t, reason));
    }
  };
  const limits = { ...SCHEDULE_DEFAULTS, ...o.scheduleLimits };
  const probeStart = performance.now();
  const deadlineMs = p.deadline_ms;
  try {
    const report = await (o.schedule ?? lpt)(
      jobsFor.map((t) => ({ host: new URL(t.endpoint!).host, run: () => job(t), skip: (reason: NotAttemptedReason) => skip(t, reason) })),
      {
        concurrency: p.concurrency,
        perHostDivisor: p.per_host_divisor,
        perHostMax: p.per_host_max,
        perHostSpan: p.per_host_span ?? null,
        hostTargets,
        unresponsiveAfter: p.unresponsive_after,
        unresponsiveSpanMs: limits.unresponsiveSpanMs ?? p.timeout_ms,
        deadline: deadlineMs === null ? null : clock.t0 + deadlineMs,
        retryAfterCapMs: limits.retryAfterCapMs,
        backoffBaseMs: limits.backoffBaseMs,
      },
    );
    return {
      report: 'mcp-schema/shard-report/v1',
      run_id: plan.run_id,
      shard: k,
      scheduler: report.scheduler,
      max_in_flight_per_host: report.maxInFlightPerHost,
      hosts: report.hosts,
      deadline_at: deadlineMs === null ? null : new Date(clock.base + deadlineMs).toISOString(),
      finished_at: clock.at(),
      probed: jobsFor.length,
      probes: once.probes,
      shared_rows: once.shared,
      probe_ms: Math.round(performance.now() - probeStart),
    };
  } finally {
    await http.dispatcher.close();
  }
}

export interface ShardOutcome {
  report: ShardReport;
  /** True when the shard had finished before (its report was there): nothing was done. */
  already: boolean;
  dir: string;
}

/**
 * Shard k of `plan` into folder `dir`, as `npm run collect -- probe` runs it: the folder is marked with
 * its run and shard first (a folder of another shard or run is refused), a finished shard (its report
 * present) does nothing, the targets without a row are probed, and the report is written last,
 * atomically. `remote`: the bucket objects go to (else the folder keeps them).
 */
export async function probeShardInto(dir: string, plan: Plan, k: number, o: ProbeShardInput['o'], remote: ObjectStore | null = null): Promise<ShardOutcome> {
  if (!Number.isInteger(k) || k < 0 || k >= plan.shards.length) throw new CliError(`--shard ${k}: the plan has ${plan.shards.length} shard${plan.shards.length === 1 ? '' : 's'} (0…${plan.shards.length - 1})`, EXIT.usage);
  const mark = fs.existsSync(dir) ? readShardMark(dir) : null;
  if (mark && (mark.run_id !== plan.run_id || mark.shard !== k)) throw new CliError(`${dir} holds shard ${mark.shard} of run ${mark.run_id}, not shard ${k} of ${plan.run_id}: pick another --data`, EXIT.usage);
  const store = Store.open(dir, new Date().toISOString(), { remote });
  try {
    const done = readShardReport(dir);
    if (done) return { report: done, already: true, dir };
    if (!mark) writeShardMark(dir, { run_id: plan.run_id, shard: k });
    const t0 = performance.now();
    const tracked = track(store, seriesFor(plan.series, o.series), plan.day, plan.run_id);
    const clock = runClock(t0, clockBase(Date.parse(plan.probes_from), tracked));
    const report = await probeShard({ store, plan, shard: k, o, clock, sink: NO_SINK, tracked });
    store.sync();
    writeShardReport(dir, report); // last: its presence means the shard finished
    return { report, already: false, dir };
  } finally {
    store.close();
  }
}
