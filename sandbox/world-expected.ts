// What a probe of a target should record on a day, from the world's intent: the v1 outcome and error
// class (Expected) and the methodology-v2 status and facts (ExpectedV2), for tests that compare the
// collector's rows with what the world serves.
import type { Behaviours } from './world-behaviours.ts';
import { FUTURE_ONLY } from './world-behaviours.ts';
import type { Timelines } from './world-drift.ts';
import { modernTools } from './world-security.ts';
import type { Expected, ExpectedV2, V2Status, WorldTarget } from './world-model.ts';

/** World's expected and expectedV2. */
export interface Expectations {
  expected(index: number, day: number): Expected;
  expectedV2(index: number, day: number): ExpectedV2;
}

export function expectations(targets: readonly WorldTarget[], { toolsAt, eraAt, instructionsAt, repeatAt }: Timelines, { behaviour }: Behaviours): Expectations {

  function firstPage(index: number, day: number): number {
    const n = toolsAt(index, day)!.length;
    const size = targets[index]!.pageSize;
    return size ? Math.min(size, n) : n;
  }

  function expected(index: number, day: number): Expected {
    const t = targets[index]!;
    const listed = day >= t.joinDay && !(t.leaveDay !== null && day >= t.leaveDay);
    if (!listed) return { listed, outcome: 'absent', errorClass: null, toolsCount: null };
    const b = t.profile === 'tls' ? null : behaviour(index, day);
    const err = (errorClass: string): Expected => ({ listed, outcome: 'error', errorClass, toolsCount: null });
    const served = (): Expected => (eraAt(index, day) === 'modern' ? err('http_4xx') : { listed, outcome: 'ok', errorClass: null, toolsCount: firstPage(index, day) });
    switch (t.profile) {
      case 'no_endpoint':
        return { listed, outcome: 'no_endpoint', errorClass: 'no_endpoint', toolsCount: null };
      case 'auth':
        return err('auth');
      case 'tls':
        return err('tls');
      case 'hang':
      case 'sse_stall':
        return err('timeout');
      case 'http_404':
      case 'http_405':
      case 'modern_only':
      case 'session_lost':
      case 'payment_required': // 402
      case 'sse_legacy': // POST → 404 "Cannot POST"
        return err('http_4xx');
      case 'http_5xx':
        return err('http_5xx');
      case 'rate_limited':
        return err('rate_limited');
      case 'html_200':
      case 'broken_json':
      case 'broken_tools':
        return err('parse');
      case 'redirect': // ok for a collector that follows same-origin redirects
        return served();
      default:
        if (b?.kind === 'mcp') return served(); // a modern-only SDK v2 server answers initialize 400 -32022
        if (b?.kind === 'status') return err(b.status === 429 ? 'rate_limited' : b.status >= 500 ? 'http_5xx' : 'http_4xx');
        return err('timeout');
    }
  }

  function expectedV2(index: number, day: number): ExpectedV2 {
    const t = targets[index]!;
    const listed = day >= t.joinDay && !(t.leaveDay !== null && day >= t.leaveDay);
    const none: ExpectedV2 = {
      listed,
      status: null,
      era: 'none',
      serverEra: null,
      protocolVersion: null,
      supportedVersions: null,
      instructions: null,
      tools: null,
      toolsCount: null,
      pages: null,
      repeatedMember: false,
      auth: null,
      authMetadataSource: null,
      authResourceMatches: null,
      canary: null,
    };
    if (!listed || t.profile === 'no_endpoint') return none;
    const is = (status: V2Status, more: Partial<ExpectedV2> = {}): ExpectedV2 => ({ ...none, status, ...more });
    const b = t.profile === 'tls' ? null : behaviour(index, day);
    switch (t.profile) {
      case 'auth': {
        const a = t.auth!;
        const valid = a.metadata === 'hint' || a.metadata === 'well-known' || a.metadata === 'mismatch';
        // Methodology v2's table: auth_compliant is a 401 with a Bearer challenge and valid metadata (a 403
        // with valid metadata stays auth_noncompliant here; the facts are on the row either way).
        return is(a.status === 401 && valid ? 'auth_compliant' : 'auth_noncompliant', {
          auth: a,
          authMetadataSource: !valid ? null : a.metadata === 'well-known' ? 'well-known-path' : 'hint',
          authResourceMatches: !valid ? null : a.metadata !== 'mismatch',
        });
      }
      case 'payment_required':
        return is('payment_required');
      case 'sse_legacy':
        return is('legacy_sse', { era: 'legacy_sse' });
      case 'tls':
      case 'hang':
      case 'sse_stall': // discover times out: a transport failure, not an answer, so no initialize
        return is('unreachable');
      case 'http_5xx':
      case 'rate_limited':
        return is('server_error');
      case 'http_404':
      case 'http_405':
      case 'html_200':
      case 'broken_json':
        return is('not_mcp');
      case 'broken_tools':
        return is('handshake_only', { era: 'legacy', protocolVersion: '2025-03-26' });
      case 'session_lost':
        return is('handshake_only', { era: 'legacy', protocolVersion: '2024-11-05' });
      case 'modern_only':
        return is('modern_rejected', { era: 'modern', supportedVersions: FUTURE_ONLY });
      default: {
        // A flapping day's answer. The one with a JSON-RPC error body (HTTP 500, -32603) is
        // `jsonrpc_error` by the table's order (it precedes server_error): an answer in JSON-RPC that
        // rejected initialize both times. Read literally; change it here if the probe decides otherwise.
        if (b?.kind === 'status') return is(isJsonRpcError(b.body) ? 'jsonrpc_error' : b.status === 429 || b.status >= 500 ? 'server_error' : 'not_mcp');
        const serverEra = eraAt(index, day)!;
        const modern = serverEra !== 'legacy';
        const all = toolsAt(index, day)!;
        const tools = modern ? modernTools(all) : all;
        const size = t.pageSize;
        return is('ok', {
          era: modern ? 'modern' : 'legacy',
          serverEra,
          protocolVersion: modern ? '2026-07-28' : '2025-11-25',
          supportedVersions: modern ? ['2026-07-28'] : null,
          instructions: instructionsAt(index, day),
          tools,
          toolsCount: tools.length,
          pages: size ? Math.max(1, Math.ceil(tools.length / size)) : 1,
          repeatedMember: repeatAt(index, day) !== null,
          canary: modern ? { httpStatus: 200, inChannel: true, jsonrpcCode: -32602 } : { httpStatus: 200, inChannel: true, jsonrpcCode: null },
        });
      }
    }
  }
  return { expected, expectedV2 };
}

function isJsonRpcError(body: string | undefined): boolean {
  try {
    const m = JSON.parse(body ?? '') as { jsonrpc?: unknown; error?: unknown } | null;
    return m?.jsonrpc === '2.0' && typeof m.error === 'object' && m.error !== null;
  } catch {
    return false;
  }
}
