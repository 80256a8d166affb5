// The collector's options, their defaults and the shapes a run reports (runCollector in run.ts, the
// sharded stages in collector/shards/). Kept apart from run.ts so the stages and run.ts share them
// without importing one another.
import type { ObjectStore } from '../src/archive/object-store.ts';
import type { AnyRun, ChainSigner, ERROR_CLASSES, MethodologyChoice, RunSeries } from '../src/lib/index.ts';
import { BRIDGE_DAYS } from '../src/lib/index.ts';
import type { ProbeLimits } from './probe.ts';
import type { ProbeV2Limits } from './probe-v2/index.ts';
import type { RosterLimits } from './roster.ts';
import type { Schedule } from './schedule.ts';
import type { RecordedSeries } from './series/series.ts';
import { DEFAULT_REGISTRY } from './version.ts';

export interface CollectorOptions {
  /** List endpoint of the registry (default: the official one). Trusted: not address-checked. */
  registry?: string;
  /** Archive directory (default `data`). */
  data?: string;
  /** Probe only the first n targets in roster order; the run is marked partial. */
  limit?: number | null;
  /** Probes in flight over all hosts. */
  concurrency?: number;
  /** Per host at most clamp(ceil(targets on the host / perHostDivisor), 1, perHostMax) probes in flight. */
  perHostDivisor?: number;
  perHostMax?: number;
  /** Endpoints per slot above perHostMax for a very large host: its limit is at least ceil(targets / perHostSpan); null: the cap alone. */
  perHostSpan?: number | null;
  /** ms after this process starts: targets not started by then get not_attempted (run_deadline); null: none. */
  deadlineMs?: number | null;
  /** K: consecutive timeouts/connection failures that make a host unresponsive (0: never). */
  unresponsiveAfter?: number;
  /** Overall deadline per request, ms. */
  timeoutMs?: number;
  /** The run's clock (run_id, day, observed_at base). Default: now. */
  now?: Date;
  /** Permit loopback/private endpoint addresses (local worlds only). */
  allowPrivate?: boolean;
  /** Opt-out file (names or hosts); null for none. */
  optout?: string | null;
  onProgress?: (p: Progress) => void;
  /** Which series the run records (default `auto`: both until the bridge is complete, then v2). */
  methodology?: MethodologyChoice;
  /** Bridge days `auto` waits for (default BRIDGE_DAYS, 14); smaller only in local worlds. */
  bridgeDays?: number;
  /** Bounds, for tests and local worlds. */
  probeLimits?: Partial<Omit<ProbeLimits, 'timeoutMs'>>;
  probeV2Limits?: Partial<Omit<ProbeV2Limits, 'timeoutMs'>>;
  rosterLimits?: Partial<Omit<RosterLimits, 'timeoutMs'>>;
  /** Which probe runs when (default `lpt`, schedule.ts). */
  schedule?: Schedule;
  /** Schedule bounds in ms, for tests and scaled benchmarks (defaults: SCHEDULE_DEFAULTS). */
  scheduleLimits?: Partial<typeof SCHEDULE_DEFAULTS>;
  /** Signs the run's chain manifest (cli.ts reads MCP_SCHEMA_SIGNING_KEY); null or absent: unsigned. */
  signer?: ChainSigner | null;
  /** The bucket objects and page manifests go to (src/archive/store-config.ts; null: data/ alone). */
  remote?: ObjectStore | null;
  /** The series this collector can record (default RECORDED_SERIES, collector/series/registry.ts); tests pass their own. */
  series?: readonly RecordedSeries[];
}

/**
 * unresponsiveSpanMs: null means one request timeout (--timeout). retryAfterCapMs: the longest
 * Retry-After honoured (a host asking for an hour gets two minutes, then a probe at half its limit).
 */
export const SCHEDULE_DEFAULTS = { unresponsiveSpanMs: null as number | null, retryAfterCapMs: 120_000, backoffBaseMs: 2_000 };

export interface Progress {
  done: number;
  total: number;
  ok: number;
  errors: Partial<Record<(typeof ERROR_CLASSES)[number], number>>;
}

export interface CollectorSummary {
  /** The run row of the first series recorded (v1 when it was recorded, else v2). */
  run: AnyRun;
  /** Every run row this process wrote, v1 first. */
  runs: AnyRun[];
  /** The series recorded (in this process). */
  series: RunSeries[];
  data: string;
  /** Rows found from an earlier attempt of the same run (resume), over all series. */
  resumed_rows: number;
  /** Targets probed by this process. */
  probed: number;
  duration_ms: number;
  /** Time spent fetching (or reloading) the roster, and probing. */
  roster_ms: number;
  probe_ms: number;
  /** Rows written by this process per second of wall time. */
  targets_per_s: number;
}

/**
 * concurrency 64: the registry's largest host (a gateway with ~45% of the endpoints) runs at its cap of
 * 16 probes and is the day's critical path (~30 min in bench:scale); 48 more slots finish the long
 * tail of small hosts before it (bench/README.md "Registry-scale day").
 * deadlineMs 5 h: the GitHub Actions job stops at 6 h (collect.yml timeout-minutes 360); the hour left
 * covers the random start delay (≤ 15 min), setup, probes in flight at the deadline, compact, verify
 * and the commit.
 * unresponsiveAfter 10: see the changelog's scheduling note — a host whose endpoints hang independently
 * at rate p is wrongly cut with probability ≈ (n − 10)·p^10 (n = 12,000, p = 0.2: 0.1%), and a dead
 * host costs about two request timeouts at its limit, a few minutes at most.
 */
export const DEFAULTS = {
  registry: DEFAULT_REGISTRY,
  data: 'data',
  concurrency: 64,
  timeoutMs: 20_000,
  perHostDivisor: 500,
  perHostMax: 16,
  perHostSpan: 2_000,
  deadlineMs: 5 * 3600_000,
  unresponsiveAfter: 10,
  methodology: 'auto',
  bridgeDays: BRIDGE_DAYS,
} as const satisfies Partial<CollectorOptions>;

/** `2026-11-30T03:15:00.123Z` → `2026-11-30T031500Z`. */
export function runIdOf(clock: Date): string {
  const iso = clock.toISOString();
  return `${iso.slice(0, 10)}T${iso.slice(11, 19).replace(/:/g, '')}Z`;
}



/** The options with their defaults filled in; options given as undefined (e.g. an absent CLI flag) keep their defaults. */
export function resolveOptions(options: CollectorOptions) {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as CollectorOptions;
  return { ...DEFAULTS, ...given };
}
export type ResolvedOptions = ReturnType<typeof resolveOptions>;

/**
 * Probe targets per shard of a sharded run (plan --max-endpoints-per-shard). bench:scale measured a
 * bridge day (both series) at 26,000 targets in ≈ 81 min projected, ≈ 320 targets a minute on one job;
 * 5,000 is ≈ 16 min of that, a small part of the 6 h job limit even at a tenth of the rate, and the
 * real registry (≈ 12,000 endpoints, ≈ 45 % on one gateway) becomes three shards: the gateway alone
 * (bounded by its per-host limit, not by the shard) and two for the rest.
 */
export const DEFAULT_MAX_ENDPOINTS_PER_SHARD = 5_000;
