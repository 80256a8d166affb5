// Observation rows as the collector writes them: every row goes through the zod contract, so a test
// cannot use a row the collector could not write.
import { sha256Hex } from '../../../src/lib/canonical.ts';
import { Observation } from '../../../src/lib/contract/observation.ts';

type Kind =
  | { ok: string }
  | { error: 'timeout' | 'tls' | 'http_4xx' | 'http_5xx' | 'auth' | 'rate_limited' | 'parse' }
  | { notAttempted: 'host_unresponsive' | 'run_deadline' }
  | 'no_endpoint'
  | 'retired'
  | 'excluded';

/** A valid observation row. `ok` carries a label standing for the tool list; its hash is sha256(label). */
export function row(day: string, kind: Kind, opts: { target?: string; run?: string; at?: string; endpoint?: string | null; body?: string } = {}): Observation {
  const target = opts.target ?? 'io.example/server';
  const ok = typeof kind === 'object' && 'ok' in kind;
  const error = typeof kind === 'object' && 'error' in kind ? kind.error : null;
  const reason = typeof kind === 'object' && 'notAttempted' in kind ? kind.notAttempted : null;
  const outcome = ok ? 'ok' : error ? 'error' : reason ? 'not_attempted' : (kind as 'no_endpoint' | 'retired' | 'excluded');
  const endpoint = opts.endpoint !== undefined ? opts.endpoint : outcome === 'no_endpoint' || outcome === 'retired' ? null : 'https://mcp.example.com/mcp';
  return Observation.parse({
    run_id: opts.run ?? `${day}-r1`,
    day,
    observed_at: opts.at ?? `${day}T06:00:00Z`,
    target,
    registry_version: outcome === 'retired' ? null : '1.0.0',
    registry_status: null,
    registry_page_sha256: null,
    registry_page_index: null,
    endpoint,
    outcome,
    error_class: error ?? (outcome === 'no_endpoint' ? 'no_endpoint' : null),
    step: error ? 'tools/list' : null,
    detail: null,
    http_status: ok ? 200 : null,
    jsonrpc_code: null,
    www_authenticate: null,
    retry_after: null,
    final_url: null,
    redirects: 0,
    protocol_version: ok ? '2025-06-18' : null,
    server_name: null,
    server_version: null,
    session: ok ? false : null,
    tools_sha256: ok ? hashOf((kind as { ok: string }).ok) : null,
    body_sha256: ok ? sha256Hex(opts.body ?? `body:${(kind as { ok: string }).ok}`) : null,
    body_content_type: ok ? 'application/json' : null,
    tool_count: ok ? 1 : null,
    next_cursor: ok ? false : null,
    latency_ms: ok ? 120 : null,
    prober_version: 'test',
    methodology_version: 'v1',
    not_attempted_reason: reason,
  });
}

export function hashOf(label: string): string {
  return sha256Hex(label);
}
