// Valid methodology-v2 rows for tests of src/lib, parsed through the contract so a test can never
// feed the analysis a row the collector could not write.
import { ObservationV2 } from '../../../src/lib/contract/observation-v2.ts';

const H = (c: string) => c.repeat(64);

export type V2Kind =
  | { ok: 'modern' | 'legacy'; supported?: string[]; version?: string; canary?: boolean | null }
  | { status: 'unreachable' | 'handshake_only' | 'modern_rejected' | 'jsonrpc_error' | 'payment_required' | 'server_error' | 'not_mcp'; era?: 'modern' | 'legacy' | 'none' }
  | { auth: 'compliant' | 'noncompliant'; bearer?: boolean; valid?: boolean }
  | { status: 'legacy_sse' }
  | 'no_endpoint'
  | 'retired'
  | 'excluded'
  | 'not_attempted';

export function rowV2(day: string, kind: V2Kind, over: { target: string; endpoint?: string; run_id?: string }): ObservationV2 {
  const base = {
    run_id: over.run_id ?? `${day}-r1`, day, observed_at: `${day}T06:00:00Z`, target: over.target,
    registry_version: '1.0.0', registry_status: 'active', registry_page_sha256: null, registry_page_index: null,
    endpoint: over.endpoint ?? `https://${over.target}.example/mcp`, outcome: 'error', status: null, era: 'none', not_attempted_reason: null,
    error_class: null, step: null, detail: null, http_status: null, jsonrpc_code: null, www_authenticate: null, retry_after: null,
    final_url: null, redirects: 0, requests: 1, protocol_version: null, supported_versions: null, capabilities: null, server_name: null,
    server_version: null, session: null, handshake_latency_ms: null, latency_ms: 10, handshake_sha256: null, handshake_content_type: null,
    instructions_sha256: null, tools_sha256: null, tools_set_hash: null, tool_count: null, tools_pages: null, tools_truncated: null,
    tools_pages_sha256: null, tools_pages_content_types: null, body_sha256: null, body_content_type: null, canary_sent: false,
    canary_http_status: null, canary_in_channel: null, canary_jsonrpc_code: null, auth_http_status: null, auth_schemes: null,
    auth_bearer: null, auth_metadata_valid: null, auth_metadata_source: null, auth_metadata_url: null, auth_resource_matches: null,
    auth_metadata_problem: null, legacy_sse_endpoint: null, prober_version: 'test', methodology_version: 'v2',
  } as Record<string, unknown>;
  const unprobed = { endpoint: null, requests: 0, latency_ms: null };
  let row: Record<string, unknown>;
  if (kind === 'no_endpoint') row = { ...base, ...unprobed, outcome: 'no_endpoint', error_class: 'no_endpoint' };
  else if (kind === 'retired') row = { ...base, ...unprobed, outcome: 'retired' };
  else if (kind === 'excluded') row = { ...base, ...unprobed, outcome: 'excluded', status: 'excluded' };
  else if (kind === 'not_attempted') row = { ...base, requests: 0, latency_ms: null, outcome: 'not_attempted', not_attempted_reason: 'run_deadline' };
  else if ('ok' in kind) {
    const canary = kind.canary === undefined ? true : kind.canary;
    row = {
      ...base, outcome: 'ok', status: 'ok', era: kind.ok, requests: 4,
      protocol_version: kind.version ?? (kind.ok === 'modern' ? '2026-07-28' : '2025-11-25'), supported_versions: kind.supported ?? (kind.ok === 'modern' ? ['2026-07-28'] : null),
      handshake_sha256: H('a'), tools_sha256: H('b'), body_sha256: H('c'), tool_count: 1, tools_pages: 1, tools_truncated: false,
      tools_pages_sha256: [H('c')], tools_pages_content_types: ['application/json'],
      canary_sent: canary !== null, canary_in_channel: canary === null ? null : canary,
    };
  } else if ('auth' in kind) {
    const compliant = kind.auth === 'compliant';
    row = {
      ...base, status: `auth_${kind.auth}`, error_class: 'auth', auth_http_status: 401,
      auth_bearer: kind.bearer ?? compliant, auth_metadata_valid: kind.valid ?? compliant,
    };
  } else if (kind.status === 'legacy_sse') row = { ...base, status: 'legacy_sse', era: 'legacy_sse', error_class: 'http_4xx' };
  else {
    const era = kind.era ?? (kind.status === 'modern_rejected' ? 'modern' : kind.status === 'handshake_only' ? 'legacy' : 'none');
    row = { ...base, status: kind.status, era, error_class: kind.status === 'unreachable' ? 'timeout' : 'http_4xx' };
  }
  return ObservationV2.parse(row);
}
