// The v2 status of a probed endpoint (methodology v2, "Statuses"): exactly one, by a fixed order of
// precedence — the pre-registered study's outcome table (§4), which the issue adopts unchanged. The
// probe gathers facts; this function alone turns them into a status, so the table on the methodology
// page, the collector and any re-derivation cannot disagree.

/** The statuses, in order of precedence (the first whose rule holds wins). */
export const V2_STATUSES = [
  'excluded',
  'unreachable',
  'auth_compliant',
  'auth_noncompliant',
  'ok',
  'handshake_only',
  'modern_rejected',
  'legacy_sse',
  'jsonrpc_error',
  'payment_required',
  'server_error',
  'not_mcp',
] as const;
export type V2Status = (typeof V2_STATUSES)[number];

/** What the probe found out; every field is a plain fact about the answers it got. */
export interface V2Facts {
  /** Opted out by its operator: never contacted. */
  excluded: boolean;
  /** At least one protocol request got an HTTP answer (any status); false when every one failed below HTTP. */
  answered: boolean;
  /**
   * The 401, or 403 with WWW-Authenticate, of the protocol step (discover, initialize, initialized,
   * tools/list) that ended the probe's path; null when none (the probe's rule: a challenge on discover
   * followed by an anonymous initialize result is no wall; the canary's answer never counts).
   */
  auth: { httpStatus: 401 | 403; bearer: boolean; metadataValid: boolean } | null;
  /** A DiscoverResult or an initialize result arrived. */
  handshake: boolean;
  /** tools/list returned a `tools` array on every page read. */
  toolsListed: boolean;
  /** A modern error (-32020, -32021, or -32022 naming no legacy revision) answered discover or initialize. */
  modernError: boolean;
  /** The deprecated HTTP+SSE transport's `endpoint` event arrived. */
  sseEndpoint: boolean;
  /** initialize was answered with a JSON-RPC error, in both revisions offered. */
  initializeRejected: boolean;
  /** HTTP statuses of the protocol requests (discover, initialize, initialized, tools/list). */
  httpStatuses: readonly number[];
}

/**
 * The status the facts give, by precedence: excluded; unreachable (no protocol request got an HTTP
 * answer); auth_compliant (a 401 with a Bearer challenge and valid RFC 9728 metadata); auth_noncompliant
 * (any other 401, or a 403 with WWW-Authenticate); ok (handshake and tools listed); handshake_only;
 * modern_rejected; legacy_sse; jsonrpc_error (initialize rejected in-channel twice); payment_required
 * (a 402); server_error (a 5xx or 429); not_mcp (anything else).
 */
export function v2Status(f: V2Facts): V2Status {
  if (f.excluded) return 'excluded';
  if (!f.answered) return 'unreachable';
  if (f.auth) return f.auth.httpStatus === 401 && f.auth.bearer && f.auth.metadataValid ? 'auth_compliant' : 'auth_noncompliant';
  if (f.handshake) return f.toolsListed ? 'ok' : 'handshake_only';
  if (f.modernError) return 'modern_rejected';
  if (f.sseEndpoint) return 'legacy_sse';
  if (f.initializeRejected) return 'jsonrpc_error';
  if (f.httpStatuses.includes(402)) return 'payment_required';
  if (f.httpStatuses.some((s) => s === 429 || (s >= 500 && s <= 599))) return 'server_error';
  return 'not_mcp';
}
