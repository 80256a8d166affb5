// Rows of the v2 series (methodology v2, "Rows"). Pure builders, like rows.ts for v1: every row carries
// prober_version and methodology_version 'v2', and is validated by the store on write (ObservationV2).
// The probe's raw bodies are stored by the caller; their names come in as `objects`.
import {
  answerCaching,
  answerFromBody,
  cachingRowFields,
  DEGRADED_BELOW,
  ERAS,
  ERROR_CLASSES,
  METHODOLOGY_VERSION_V2,
  NOT_ATTEMPTED_REASONS,
  OUTCOMES_V2,
  V2_STATUSES,
  type ObservationV2,
  type RosterTarget,
  type RunV2,
} from '../src/lib/index.ts';
import type { ProbeError } from './errors.ts';
import type { ProbeV2Result } from './probe-v2/index.ts';
import { TOOLS_LIST_ID } from './probe-v2/pages.ts';
import { HANDSHAKE_ID } from './probe-v2/requests.ts';
import { rowIdentity, rowsWithoutProbe, type RowContext, type RunFacts } from './rows.ts';
import { PROBER_VERSION } from './version.ts';

/** SHA-256 names of the stored bodies of one probe: the handshake answer and every tools/list page, in order. */
export interface ProbeV2Objects {
  handshake: string | null;
  pages: string[];
}

function blank(ctx: RowContext, t: RosterTarget | null, name: string): ObservationV2 {
  return {
    ...rowIdentity(ctx, t, name),
    outcome: 'ok',
    status: null,
    era: 'none',
    not_attempted_reason: null,
    error_class: null,
    step: null,
    detail: null,
    http_status: null,
    jsonrpc_code: null,
    www_authenticate: null,
    retry_after: null,
    final_url: null,
    redirects: 0,
    requests: 0,
    protocol_version: null,
    supported_versions: null,
    capabilities: null,
    server_name: null,
    server_version: null,
    session: null,
    handshake_latency_ms: null,
    latency_ms: null,
    handshake_sha256: null,
    handshake_content_type: null,
    instructions_sha256: null,
    tools_sha256: null,
    tools_set_hash: null,
    tool_count: null,
    tools_pages: null,
    tools_truncated: null,
    tools_pages_sha256: null,
    tools_pages_content_types: null,
    body_sha256: null,
    body_content_type: null,
    canary_sent: false,
    canary_http_status: null,
    canary_in_channel: null,
    canary_jsonrpc_code: null,
    auth_http_status: null,
    auth_schemes: null,
    auth_bearer: null,
    auth_metadata_valid: null,
    auth_metadata_source: null,
    auth_metadata_url: null,
    auth_resource_matches: null,
    auth_metadata_problem: null,
    legacy_sse_endpoint: null,
    prober_version: PROBER_VERSION,
    methodology_version: METHODOLOGY_VERSION_V2,
  };
}

export const { noEndpointRow: noEndpointRowV2, excludedRow: excludedRowV2, retiredRow: retiredRowV2, notAttemptedRow: notAttemptedRowV2 } = rowsWithoutProbe(blank, { status: 'excluded' });

export function probeV2Row(ctx: RowContext, t: RosterTarget, r: ProbeV2Result, objects: ProbeV2Objects): ObservationV2 {
  if (objects.pages.length !== r.pages.length) throw new Error(`probeV2Row: ${objects.pages.length} stored pages for ${r.pages.length} bodies`);
  const clip = (s: string | null, n: number) => (s === null ? null : s.slice(0, n));
  const row: ObservationV2 = {
    ...blank(ctx, t, t.name),
    outcome: r.status === 'ok' ? 'ok' : 'error',
    status: r.status,
    era: r.era,
    // A hostile Location can be longer than the contract allows; keep a prefix rather than lose the row.
    final_url: clip(r.finalUrl, 4096),
    redirects: r.redirects,
    requests: r.requests,
    protocol_version: r.protocolVersion,
    supported_versions: r.supportedVersions,
    capabilities: r.capabilities,
    server_name: r.serverName,
    server_version: r.serverVersion,
    session: r.session,
    handshake_latency_ms: r.handshakeLatencyMs,
    latency_ms: r.latencyMs,
    handshake_sha256: objects.handshake,
    handshake_content_type: clip(r.handshake?.contentType ?? null, 256),
    instructions_sha256: r.instructionsSha256,
    tools_pages_sha256: r.pages.length ? objects.pages : null,
    tools_pages_content_types: r.pages.length ? r.pages.map((p) => clip(p.contentType, 256)) : null,
    body_sha256: objects.pages[0] ?? null,
    body_content_type: clip(r.pages[0]?.contentType ?? null, 256),
    canary_sent: r.canary.sent,
    canary_http_status: r.canary.httpStatus,
    canary_in_channel: r.canary.inChannel,
    canary_jsonrpc_code: r.canary.jsonrpcCode,
    legacy_sse_endpoint: r.sseEndpoint,
    // The server's back-off request (429 or 503), whatever the status: what a scheduler honours.
    retry_after: clip(r.throttled?.retryAfter ?? null, 256),
    detail: r.notes.length ? r.notes.join('; ').slice(0, 1024) : null,
  };
  if (r.auth) {
    Object.assign(row, {
      auth_http_status: r.auth.httpStatus,
      auth_schemes: r.auth.schemes.slice(0, 32),
      auth_bearer: r.auth.bearer,
      auth_metadata_valid: r.auth.metadataValid,
      auth_metadata_source: r.auth.source,
      auth_metadata_url: clip(r.auth.metadataUrl, 4096),
      auth_resource_matches: r.auth.resourceMatches,
      auth_metadata_problem: r.auth.metadataValid ? null : r.auth.problems.map((p) => `${p.source}: ${p.problem}`).join('; ').slice(0, 1024) || null,
    } satisfies Partial<ObservationV2>);
  }
  if (r.status === 'ok') {
    const ok: ObservationV2 = { ...row, http_status: 200, tools_sha256: r.toolsSha256, tools_set_hash: r.toolsSetHash, tool_count: r.toolCount, tools_pages: r.pages.length, tools_truncated: r.truncated !== null };
    return r.era === 'modern' ? { ...ok, ...probedCaching(r) } : ok;
  }
  if (!r.failure) {
    // Every non-ok status has a failing step; this only guards a bug of ours from losing the row.
    return { ...row, error_class: 'parse', step: 'discover', detail: clip([`no failure recorded for status ${r.status}`, ...r.notes].join('; '), 1024) };
  }
  return { ...row, ...errorFields(r.failure.step, r.failure.error, row.detail) };
}

/**
 * The row of target `t` whose endpoint shares one normalised URL with `from.target`'s, from `from`, the
 * row of the one probe made for that URL this run (methodology v2, "One probe per endpoint"): every
 * probe result as it is (the same stored bodies: objects are named by their hashes, nothing is stored
 * twice) but `requests` (0: it sent none), `t`'s own identity (target, registry version, status, page and index, its endpoint as its
 * registry entry spells it) and `probe_shared_with` naming whose probe it is. `from` must be a row that
 * made its own probe.
 */
export function sharedRowV2(ctx: RowContext, t: RosterTarget, from: ObservationV2): ObservationV2 {
  if (from.outcome !== 'ok' && from.outcome !== 'error') throw new Error(`sharedRowV2: ${from.target}'s row is ${from.outcome}, not a probe`);
  if (from.probe_shared_with != null) throw new Error(`sharedRowV2: ${from.target}'s row shares ${from.probe_shared_with}'s probe; share the probe's own row`);
  if (from.target === t.name) throw new Error(`sharedRowV2: ${t.name} cannot share its own probe`);
  // `requests` is what the row sent: none (the probe's own count is on `from`), so sums over rows
  // (the run row, verify) count every request once.
  return { ...from, ...rowIdentity(ctx, t, t.name), requests: 0, probe_shared_with: from.target };
}

/**
 * What a modern ok answer says about caching (MCP 2026-07-28), read from the very bodies the row stores
 * (the discover answer and every tools/list page) by src/lib's one reading; restate reads the stored
 * objects the same way and must agree. A body the reader cannot take says nothing (its fields absent).
 */
function probedCaching(r: ProbeV2Result): ReturnType<typeof cachingRowFields> {
  const read = (p: { body: Buffer; contentType: string | null } | null, id: number): unknown => {
    if (p === null) return null;
    try {
      return answerFromBody(p.body, p.contentType, id);
    } catch {
      return null;
    }
  };
  return cachingRowFields(answerCaching(read(r.handshake, HANDSHAKE_ID), r.pages.map((p) => read(p, TOOLS_LIST_ID))));
}

/** The v1 error fields of the failing step (v1's mapping: rows.ts errorFields, with v2 steps). */
function errorFields(step: ObservationV2['step'], e: ProbeError, notes: string | null): Partial<ObservationV2> {
  const p = e.payload;
  const detail = [p.detail, notes].filter(Boolean).join('; ').slice(0, 1024);
  const base = { error_class: e.errorClass, step, detail, http_status: p.httpStatus, jsonrpc_code: p.jsonrpcCode };
  switch (e.errorClass) {
    case 'auth':
      return { ...base, www_authenticate: e.payload.wwwAuthenticate?.slice(0, 1024) ?? null };
    case 'rate_limited':
      return { ...base, retry_after: e.payload.retryAfter?.slice(0, 256) ?? null };
    case 'timeout':
    case 'tls':
    case 'http_4xx':
    case 'http_5xx':
    case 'parse':
      return base;
    default: {
      const never: never = e;
      throw new Error(`unmapped error class ${(never as ProbeError).errorClass}`);
    }
  }
}

/** The v2 series' run row (RunV2): v1's run facts (rows.ts runRow) over this series' rows, its own counts and the requests it sent. */
export function runRowV2(f: Omit<RunFacts, 'rows'> & { rows: ObservationV2[] }): RunV2 {
  const zero = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  const outcomes = zero(OUTCOMES_V2);
  const statuses = zero(V2_STATUSES);
  const eras = zero(ERAS);
  const classes = zero(ERROR_CLASSES);
  const notAttempted = zero(NOT_ATTEMPTED_REASONS);
  let total = 0;
  let max = 0;
  let probes = 0;
  for (const r of f.rows) {
    outcomes[r.outcome]++;
    if (r.status) statuses[r.status]++;
    eras[r.era]++;
    if (r.error_class) classes[r.error_class]++;
    if (r.not_attempted_reason) notAttempted[r.not_attempted_reason]++;
    if (r.outcome === 'ok' || r.outcome === 'error') {
      // A row sharing another name's probe sent no request (its `requests` is 0): the mean is per probe.
      if (r.probe_shared_with == null) probes++;
      total += r.requests;
      max = Math.max(max, r.requests);
    }
  }
  // As in v1: not_attempted rows are eligible targets we did not contact (denominator, not numerator).
  const attempts = outcomes.ok + outcomes.error;
  const coverage = f.eligible === 0 ? 1 : Math.min(1, attempts / f.eligible);
  const failed = attempts === 0;
  return {
    run_id: f.runId,
    day: f.day,
    started_at: f.startedAt,
    finished_at: f.finishedAt,
    registry: f.registry.slice(0, 4096),
    roster_file: f.rosterFile,
    roster_complete: f.rosterComplete,
    targets: f.rows.length,
    eligible: f.eligible,
    attempts,
    coverage,
    degraded: failed || coverage < DEGRADED_BELOW,
    partial: f.limit !== null,
    limit: f.limit,
    outcomes,
    statuses,
    eras,
    error_classes: classes,
    requests: { total, max, mean: probes === 0 ? 0 : Math.round((total / probes) * 1000) / 1000 },
    status: failed ? 'failed' : 'finished',
    message: (failed ? (f.message ?? 'zero attempts: no target with an endpoint was probed') : f.message)?.slice(0, 1024) ?? null,
    prober_version: PROBER_VERSION,
    methodology_version: METHODOLOGY_VERSION_V2,
    scheduling: f.scheduling ? { ...f.scheduling, not_attempted: notAttempted } : null,
  };
}
