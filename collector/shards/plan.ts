// Step 1 of a run, `plan`: the roster stage exactly as a single-job run has it (todays-roster.ts:
// rosters/<day>.json and its pages in --data, or the roster an earlier attempt of this run wrote), the
// series decided (src/lib/bridge.ts), the rows that need no request written (retired, excluded,
// no_endpoint: facts of the roster, written where the roster is, before any probe, as a single job
// always wrote them), and the probe targets split into shards (plan-file.ts assignShards). Returns the
// plan; `npm run collect -- plan` writes it to <work>/plan.json. Planning twice with the same clock
// gives the same plan and writes no second row.
import type { Roster, RosterTarget } from '../../src/lib/index.ts';
import { seriesToRecord, sha256Hex } from '../../src/lib/index.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { ResolvedOptions } from '../run-options.ts';
import { seriesFor } from '../series/registry.ts';
import { clockBase, owing, rowWriter, track, type RowSink, type Tracked } from '../series/tracked.ts';
import type { RowContext } from '../rows.ts';
import type { Store } from '../store.ts';
import { eligibleCount, isOptedOut, readOptOut, retiredTargets } from '../targets.ts';
import { previousRoster, rosterHistory, rosterLimitsFor, todaysRoster } from '../todays-roster.ts';
import { assignShards, type Plan } from './plan-file.ts';

/** A stage's clock: observed_at = base + (performance.now() − t0); t0 also starts the deadline. */
export interface RunClock {
  t0: number;
  base: number;
  at(): string;
}

export function runClock(t0: number, base: number): RunClock {
  return { t0, base, at: () => new Date(base + (performance.now() - t0)).toISOString() };
}

export interface Planned {
  plan: Plan;
  /** The clock the plan ran on (a single job carries on with it). */
  clock: RunClock;
  roster: Roster;
  roster_ms: number;
  /** Rows earlier attempts of this run wrote in --data, over the series recorded. */
  resumed_rows: number;
  /** Every recorded series' rows of the run in --data (the plan's own included). */
  tracked: Tracked[];
}

export interface PlanInput {
  store: Store;
  o: ResolvedOptions;
  runId: string;
  day: string;
  clock: Date;
  /** When the process started (performance.now()): the roster's time counts from it. */
  t0: number;
  /** null: one shard (a single job). */
  maxEndpointsPerShard: number | null;
  sink: RowSink;
}

export async function planRun({ store, o, runId, day, clock: now, t0, maxEndpointsPerShard, sink }: PlanInput): Promise<Planned> {
  const runs = store.readRuns();
  // Which series: decided by the runs before this one (a resumed run decides as its first attempt did).
  const before = runs.filter((r) => r.run_id !== runId);
  const chosen = seriesToRecord(o.methodology, before, o.bridgeDays);
  const finished = new Set(runs.filter((r) => r.run_id === runId).map((r) => r.methodology_version));
  const ids = chosen.filter((s) => !finished.has(s));
  if (ids.length === 0) throw new CliError(`run ${runId} already finished (see runs.jsonl); pass a different --now`, EXIT.finished);
  // The series recorded, in the order a target's job probes them; no other series' code is touched.
  const recorded = track(store, seriesFor(ids, o.series), day, runId);
  const resumed = recorded.reduce((n, x) => n + x.earlier.length, 0);
  sink.resumed?.(recorded.flatMap((x) => x.earlier));
  const clock = runClock(t0, clockBase(now.getTime(), recorded));

  // Roster and targets (or the roster an earlier attempt of this run wrote), its bounds derived from
  // the rosters before it. A run resumed after writing one series' run row is not its own predecessor.
  const prev = previousRoster(store, before);
  const rosterLimits = rosterLimitsFor(rosterHistory(store, before, prev), { ...o.rosterLimits, timeoutMs: o.timeoutMs });
  const { file: rosterFile, roster } = await todaysRoster(store, { registry: o.registry, day, runId, limits: rosterLimits, at: clock.at, previous: prev?.roster ?? null });
  const rosterMs = Math.round(performance.now() - t0);
  const limit = o.limit ?? null;
  const selected = limit === null ? roster.targets : roster.targets.slice(0, limit);
  const optOut = readOptOut(o.optout === undefined ? null : o.optout);
  const retired = limit === null ? retiredTargets(prev?.roster ?? null, roster) : [];
  const eligible = eligibleCount(selected, roster, prev?.roster ?? null, optOut, limit !== null);

  // Rows that need no request, written first.
  const write = rowWriter(store, sink);
  const ctx = (): RowContext => ({ runId, day, observedAt: clock.at() });
  sink.owe([...retired, ...selected].reduce((n, t) => n + owing(recorded, t.name).length, 0));
  for (const t of retired) for (const x of owing(recorded, t.name)) write(x, x.series.retiredRow(ctx(), t, prev!.file));
  const toProbe: RosterTarget[] = [];
  for (const t of selected) {
    if (isOptedOut(t, optOut)) for (const x of owing(recorded, t.name)) write(x, x.series.excludedRow(ctx(), t));
    else if (t.endpoint === null) for (const x of owing(recorded, t.name)) write(x, x.series.noEndpointRow(ctx(), t));
    else toProbe.push(t);
  }

  // The probe targets: every one of the run's (a resumed run's shards skip those with rows), their
  // hosts counted over the whole run (the per-host rule's n), split by host into shards.
  const hostTargets = new Map<string, number>();
  for (const t of toProbe) {
    const host = new URL(t.endpoint!).host;
    hostTargets.set(host, (hostTargets.get(host) ?? 0) + 1);
  }
  // Within a host, targets go in an order drawn per run (by hash of run id and name): a cluster of
  // one publisher's dead servers listed side by side cannot look like a dead host, and a deadline
  // does not always cut the same names. A resumed run draws the same order.
  const order = new Map(toProbe.map((t) => [t.name, sha256Hex(new TextEncoder().encode(`${runId}\0${t.name}`))]));
  toProbe.sort((a, b) => (order.get(a.name)! < order.get(b.name)! ? -1 : 1));
  const shards = assignShards(hostTargets, maxEndpointsPerShard);
  const shardOf = new Map(shards.flatMap((s, i) => s.hosts.map((h) => [h.host, i] as const)));
  const plan: Plan = {
    plan: 'mcp-schema/plan/v1',
    run_id: runId,
    day,
    clock: now.toISOString(),
    probes_from: clock.at(),
    series: ids,
    registry: o.registry,
    roster_file: rosterFile,
    roster_complete: roster.complete,
    incomplete_reason: roster.incomplete_reason ?? null,
    limit,
    eligible,
    options: {
      concurrency: Math.max(1, o.concurrency),
      per_host_divisor: o.perHostDivisor,
      per_host_max: o.perHostMax,
      per_host_span: o.perHostSpan ?? null,
      unresponsive_after: o.unresponsiveAfter,
      timeout_ms: o.timeoutMs,
      deadline_ms: o.deadlineMs ?? null,
      allow_private: o.allowPrivate ?? false,
      max_endpoints_per_shard: maxEndpointsPerShard,
    },
    shards: shards.map((s, index) => ({ index, hosts: s.hosts, targets: toProbe.filter((t) => shardOf.get(new URL(t.endpoint!).host) === index) })),
  };
  return { plan, clock, roster, roster_ms: rosterMs, resumed_rows: resumed, tracked: recorded };
}
