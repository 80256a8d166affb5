// Stage 4: rows (methodology v1, "Rows" and "Runs"). Pure builders: every row carries
// prober_version and methodology_version, and is validated by the store on write.
import {
  DEGRADED_BELOW,
  ERROR_CLASSES,
  METHODOLOGY_VERSION,
  NOT_ATTEMPTED_REASONS,
  OUTCOMES,
  servedSetHash,
  type ErrorClass,
  type NotAttemptedReason,
  type Observation,
  type ObservationV2,
  type Outcome,
  type Run,
  type RunScheduling,
  type RosterTarget,
} from '../src/lib/index.ts';
import type { ProbeError } from './errors.ts';
import type { ProbeResult } from './probe.ts';
import { PROBER_VERSION } from './version.ts';

export interface RowContext {
  runId: string;
  day: string;
  observedAt: string;
}

/** The fields every row of both series opens with: the run, the target and what the roster said of it. */
export function rowIdentity(ctx: RowContext, t: RosterTarget | null, name: string) {
  return {
    run_id: ctx.runId,
    day: ctx.day,
    observed_at: ctx.observedAt,
    target: name,
    registry_version: t?.version ?? null,
    registry_status: t?.status ?? null,
    registry_page_sha256: t?.page_sha256 ?? null,
    registry_page_index: t?.page_index ?? null,
    endpoint: t?.endpoint ?? null,
  };
}

function blank(ctx: RowContext, t: RosterTarget | null, name: string): Observation {
  return {
    ...rowIdentity(ctx, t, name),
    outcome: 'ok',
    error_class: null,
    step: null,
    detail: null,
    http_status: null,
    jsonrpc_code: null,
    www_authenticate: null,
    retry_after: null,
    final_url: null,
    redirects: 0,
    protocol_version: null,
    server_name: null,
    server_version: null,
    session: null,
    tools_sha256: null,
    body_sha256: null,
    body_content_type: null,
    tool_count: null,
    next_cursor: null,
    latency_ms: null,
    prober_version: PROBER_VERSION,
    methodology_version: METHODOLOGY_VERSION,
    // Fields added after v1 shipped are written on every row (null when there is nothing to say), so a
    // row never depends on the reader's default and JSON Lines, CSV and Parquet have one shape
    // (DESIGN "Data contract decisions"). In the contract's order: tools_set_hash, then not_attempted_reason.
    tools_set_hash: null,
    not_attempted_reason: null,
  };
}

/** The fields every row that needs no request sets, over either series' blank row. */
interface NoProbeFields {
  outcome: Observation['outcome'] | ObservationV2['outcome'];
  error_class: Observation['error_class'];
  step: Observation['step'] | ObservationV2['step'];
  detail: string | null;
  endpoint: string | null;
  not_attempted_reason?: NotAttemptedReason | null;
}

/** Why a not_attempted row's target was not contacted, in words (both series). */
export const NOT_ATTEMPTED_DETAIL: Record<NotAttemptedReason, string> = {
  host_unresponsive: 'not contacted: its host stopped answering earlier in this run',
  run_deadline: "not contacted: the run's deadline came first",
  shard_lost: 'not contacted: the shard of the run holding it ended before writing its row',
};

/**
 * The rows that need no request (no endpoint, excluded, retired, not attempted), one skeleton for
 * every series: `blank` is the series' empty row, `excluded` what its excluded row adds.
 */
export function rowsWithoutProbe<Row extends NoProbeFields>(blank: (ctx: RowContext, t: RosterTarget | null, name: string) => Row, excluded: Partial<Row> = {}) {
  return {
    noEndpointRow: (ctx: RowContext, t: RosterTarget): Row => ({ ...blank(ctx, t, t.name), outcome: 'no_endpoint', error_class: 'no_endpoint', step: 'roster', detail: t.endpoint_problem ?? 'no_streamable_http' }),
    excludedRow: (ctx: RowContext, t: RosterTarget): Row => ({ ...blank(ctx, t, t.name), outcome: 'excluded', ...excluded, detail: 'opt-out' }),
    /** `previous` is the target as listed in the previous complete roster (`previousFile`). */
    retiredRow: (ctx: RowContext, previous: RosterTarget, previousFile: string): Row => ({
      ...blank(ctx, null, previous.name),
      endpoint: previous.endpoint,
      outcome: 'retired',
      detail: `absent from today's complete roster; last listed in rosters/${previousFile}`.slice(0, 1024),
    }),
    /** An eligible target the run did not contact (schedule.ts, or a lost shard, decided); nothing about the server is known. */
    notAttemptedRow: (ctx: RowContext, t: RosterTarget, reason: NotAttemptedReason): Row => ({ ...blank(ctx, t, t.name), outcome: 'not_attempted', not_attempted_reason: reason, detail: NOT_ATTEMPTED_DETAIL[reason] }),
  };
}

export const { noEndpointRow, excludedRow, retiredRow, notAttemptedRow } = rowsWithoutProbe(blank);

export function probeRow(ctx: RowContext, t: RosterTarget, r: ProbeResult, bodySha256: string | null): Observation {
  const common: Observation = {
    ...blank(ctx, t, t.name),
    // A hostile Location can be longer than the contract allows; keep a prefix rather than lose the row.
    final_url: r.finalUrl?.slice(0, 4096) ?? null,
    redirects: r.redirects,
    protocol_version: r.protocolVersion,
    server_name: r.serverName,
    server_version: r.serverVersion,
    session: r.session,
    body_sha256: bodySha256,
    body_content_type: r.bodyContentType?.slice(0, 256) ?? null,
    latency_ms: r.latencyMs,
  };
  if (r.ok) {
    // The interoperable set hash from the raw body (src/lib servedSetHash, the one the site uses too);
    // a body without one (a repeated member name, a partial listing) records null: the body rule and
    // the site say why.
    const toolsSetHash = servedSetHash(r.body, r.bodyContentType).setHash;
    return { ...common, outcome: 'ok', tools_sha256: r.toolsSha256, tool_count: r.toolCount, next_cursor: r.nextCursor, http_status: 200, detail: r.note, tools_set_hash: toolsSetHash };
  }
  return { ...common, outcome: 'error', ...errorFields(r.error) };
}

/** The row fields of each error class; the `never` default makes a new class a compile error here. */
function errorFields(e: ProbeError): Pick<Observation, 'error_class' | 'step' | 'detail' | 'http_status' | 'jsonrpc_code' | 'www_authenticate' | 'retry_after'> {
  const p = e.payload;
  const base = { step: p.step, detail: p.detail.slice(0, 1024), http_status: p.httpStatus, jsonrpc_code: p.jsonrpcCode, www_authenticate: null, retry_after: null };
  switch (e.errorClass) {
    case 'timeout':
    case 'tls':
    case 'http_4xx':
    case 'http_5xx':
    case 'parse':
      return { ...base, error_class: e.errorClass };
    case 'auth':
      return { ...base, error_class: 'auth', www_authenticate: e.payload.wwwAuthenticate?.slice(0, 1024) ?? null };
    case 'rate_limited':
      return { ...base, error_class: 'rate_limited', retry_after: e.payload.retryAfter?.slice(0, 256) ?? null };
    default: {
      const never: never = e;
      throw new Error(`unmapped error class ${(never as ProbeError).errorClass}`);
    }
  }
}

export interface RunFacts {
  runId: string;
  day: string;
  startedAt: string;
  finishedAt: string;
  registry: string;
  rosterFile: string | null;
  rosterComplete: boolean;
  limit: number | null;
  /** In the roster (after --limit), with an endpoint, not excluded; plus, when today's roster is
   *  incomplete, the previous complete roster's such targets that today's could not list. */
  eligible: number;
  /** Every row of this run (earlier attempts of a resumed run included). */
  rows: Observation[];
  message: string | null;
  /** What the schedule reported (its not_attempted counts are recomputed here from all rows). */
  scheduling: Omit<RunScheduling, 'not_attempted'> | null;
}

export function runRow(f: RunFacts): Run {
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const classes = Object.fromEntries(ERROR_CLASSES.map((c) => [c, 0])) as Record<ErrorClass, number>;
  const notAttempted = Object.fromEntries(NOT_ATTEMPTED_REASONS.map((c) => [c, 0])) as Record<NotAttemptedReason, number>;
  for (const r of f.rows) {
    outcomes[r.outcome]++;
    if (r.error_class) classes[r.error_class]++;
    if (r.not_attempted_reason) notAttempted[r.not_attempted_reason]++;
  }
  // not_attempted rows are eligible targets we did not contact: in the denominator, not the numerator.
  const attempts = outcomes.ok + outcomes.error;
  const eligible = f.eligible;
  const targets = f.rows.length;
  const coverage = eligible === 0 ? 1 : Math.min(1, attempts / eligible);
  const failed = attempts === 0;
  return {
    run_id: f.runId,
    day: f.day,
    started_at: f.startedAt,
    finished_at: f.finishedAt,
    registry: f.registry.slice(0, 4096),
    roster_file: f.rosterFile,
    roster_complete: f.rosterComplete,
    targets,
    eligible,
    attempts,
    coverage,
    degraded: failed || coverage < DEGRADED_BELOW,
    partial: f.limit !== null,
    limit: f.limit,
    outcomes,
    error_classes: classes,
    status: failed ? 'failed' : 'finished',
    message: (failed ? (f.message ?? 'zero attempts: no target with an endpoint was probed') : f.message)?.slice(0, 1024) ?? null,
    prober_version: PROBER_VERSION,
    methodology_version: METHODOLOGY_VERSION,
    scheduling: f.scheduling ? { ...f.scheduling, not_attempted: notAttempted } : null,
  };
}
