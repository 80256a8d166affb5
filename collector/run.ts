// The collector as a function: roster → targets → probe → rows, for methodology v1, v2 or both.
// cli.ts, the demo world, benchmarks and tests all call runCollector(); it never exits the process.
// A single job is the sharded run's three steps in one process, with one shard that writes into --data
// (collector/shards/: plan, probe a shard, seal), so the two share one implementation.
// The steps wire the stages: todays-roster.ts (roster and targets), targets.ts (retirement,
// opt-outs, eligibility), schedule.ts (which probe runs when, and which targets are not attempted),
// collector/series/ (each recorded series as one object: its rows, probe, host signal, day files and
// run row; the run loops over the series it records and never names one) and store.ts.
//
// Series (methodology v2, "The bridge"): `methodology` picks v1, v2 or both; `auto` (the default)
// records both until runs.jsonl holds the bridge's days (src/lib/bridge.ts seriesToRecord), then v2
// alone. With both, each target is ONE scheduler job that runs each series' probe in the registry's
// order, v2 then v1 (one request at a time per endpoint still holds), and every target gets one row in
// each series — a not_attempted row in each when the job is skipped. Each series writes its own run
// row, same run_id.
//
// Resuming: the run's identity is its clock (--now). A restart after a crash with the same clock
// reuses the roster file that attempt wrote and, per series, skips every target that already has a
// row for the run_id, so there is never a duplicate row. A run whose series are all in runs.jsonl is
// refused; one with a run row for some of them only records the others. The run's manifest goes on the
// hash chain once, after its last run row (it covers every series' rows).
import { CliError, EXIT } from './cli-error.ts';
import { resolveOptions, runIdOf, type CollectorOptions, type CollectorSummary, type Progress } from './run-options.ts';
import { planRun } from './shards/plan.ts';
import { probeShard } from './shards/probe-shard.ts';
import { sealRun } from './shards/seal.ts';
import type { SeriesRow } from './series/series.ts';
import type { RowSink } from './series/tracked.ts';
import { Store } from './store.ts';

export { DEFAULTS, runIdOf, SCHEDULE_DEFAULTS, type CollectorOptions, type CollectorSummary, type Progress } from './run-options.ts';

export async function runCollector(options: CollectorOptions = {}): Promise<CollectorSummary> {
  const o = resolveOptions(options);
  const clock = o.now ?? new Date();
  if (Number.isNaN(clock.getTime())) throw new CliError('--now is not a valid time', EXIT.usage);
  const runId = runIdOf(clock);
  const day = clock.toISOString().slice(0, 10);
  const t0 = performance.now();
  const store = Store.open(o.data, new Date().toISOString(), { remote: o.remote ?? null });
  try {
    // Progress counts rows over the series recorded, earlier attempts' included.
    const progress: Progress = { done: 0, total: 0, ok: 0, errors: {} };
    const count = (r: SeriesRow) => {
      if (r.outcome === 'ok') progress.ok++;
      if (r.error_class) progress.errors[r.error_class] = (progress.errors[r.error_class] ?? 0) + 1;
    };
    const sink: RowSink = {
      resumed(rows) {
        progress.done += rows.length;
        progress.total += rows.length;
        rows.forEach(count);
      },
      owe(n) {
        progress.total += n;
        o.onProgress?.({ ...progress });
      },
      wrote(row) {
        progress.done++;
        count(row);
        o.onProgress?.({ ...progress, errors: { ...progress.errors } });
      },
    };
    const planned = await planRun({ store, o, runId, day, clock, t0, maxEndpointsPerShard: null, sink });
    const { plan } = planned;
    // The plan stage wrote the rows that need no request; its view of every series' rows carries on.
    const { tracked } = planned;
    const earlier = planned.resumed_rows;
    const report = await probeShard({ store, plan, shard: 0, o, clock: planned.clock, sink, tracked });
    const sealed = await sealRun({ store, plan, o, reports: [report], at: planned.clock.at, sink, tracked });
    const durationMs = Math.round(performance.now() - t0);
    const rowsWritten = tracked.reduce((n, x) => n + x.rows.length, 0) - earlier;
    return {
      run: sealed.runs[0]!,
      runs: sealed.runs,
      series: plan.series,
      data: o.data,
      resumed_rows: earlier,
      probed: report.probed,
      duration_ms: durationMs,
      roster_ms: planned.roster_ms,
      probe_ms: report.probe_ms,
      targets_per_s: durationMs > 0 ? Math.round((rowsWritten / durationMs) * 1000 * 10) / 10 : 0,
    };
  } finally {
    store.close();
  }
}
