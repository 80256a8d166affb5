// The v2 probe (methodology v2, "Probe"): the dual-era client procedure of MCP 2026-07-28 (Streamable
// HTTP §Backward Compatibility) as the pre-registered study applied it, with the lead's decisions
// (docs in content/methodology/v2.mdx, "Decisions"):
//   1. POST server/discover with the 2026-07-28 headers and `_meta`;
//   2. a DiscoverResult → modern: every tools/list page, then the canary;
//      a modern error (-32020/-32021, -32022 naming no legacy revision) → modern_rejected, stop;
//      no HTTP answer (DNS, connect, TLS, timeout) → unreachable, stop (the same failure would repeat);
//      429 or 503 → stop (the server asked us to back off; the scheduler hears of it: `throttled`);
//      any other answer → legacy:
//   3. initialize 2025-11-25 (once more with 2025-03-26 on a JSON-RPC error), notifications/initialized,
//      every tools/list page with Mcp-Session-Id and MCP-Protocol-Version as the revision defines
//      them, the canary, DELETE of the session;
//   4. initialize got an HTTP answer without JSON-RPC in it → GET for the HTTP+SSE `endpoint` event;
//   5. a 401 (or a 403 with WWW-Authenticate) on the path that decided → RFC 9728 metadata;
// at most 8 requests (wire.ts). The status is v2Status() of the facts gathered (src/lib).
import {
  definesProtocolVersionHeader,
  discoverVerdict,
  instructionsHash,
  isObject,
  LEGACY_OFFERS,
  MODERN_PROTOCOL_VERSION,
  modernErrorOf,
  v2Status,
  type Era,
  type ProbeStepV2,
  type V2Facts,
  type V2Status,
} from '../../src/lib/index.ts';
import { classify, type ProbeError } from '../errors.ts';
import type { HttpContext } from '../http.ts';
import { authFacts, isChallenge, type AuthFacts } from './auth.ts';
import { CANARY_ID, CANARY_TOOL_NAME, canaryResult, type CanaryResult } from './canary.ts';
import { listAllPages, TOOLS_LIST_ID, type Listing, type Page, type Truncation } from './pages.ts';
import { detectHttpSse } from './sse.ts';
import { discoverBody, HANDSHAKE_ID, initializeBody, initializedBody, legacyCanaryBody, legacyToolsListBody, modernCanaryBody, modernHeaders, modernToolsListBody } from './requests.ts';
import { toolSetHashOf } from './tool-set-hash.ts';
import { DEFAULT_PROBE_V2_LIMITS, NOT_SENT, Wire, type Exchange, type LoggedRequest, type ProbeV2Limits } from './wire.ts';

export { DEFAULT_PROBE_V2_LIMITS, type ProbeV2Limits, type LoggedRequest } from './wire.ts';
export { CANARY_TOOL_NAME } from './canary.ts';

export { HANDSHAKE_ID } from './requests.ts';
export { TOOLS_LIST_ID, CANARY_ID };

export interface ProbeV2Result {
  status: V2Status;
  era: Era;
  facts: V2Facts;
  /** The URL that answered the handshake (or the deciding step) after redirects; null when none were followed. */
  finalUrl: string | null;
  /** Redirect hops followed over the whole probe. */
  redirects: number;
  /** Requests counted against the budget. */
  requests: number;
  requestLog: LoggedRequest[];
  protocolVersion: string | null;
  supportedVersions: string[] | null;
  capabilities: string[] | null;
  serverName: string | null;
  serverVersion: string | null;
  session: boolean | null;
  instructions: string | null;
  instructionsSha256: string | null;
  latencyMs: number;
  handshakeLatencyMs: number | null;
  /** The raw handshake answer (DiscoverResult or initialize result), stored under objects/. */
  handshake: Page | null;
  /** Every tools/list body received, in order (stored under objects/). */
  pages: Page[];
  toolsSha256: string | null;
  toolsSetHash: string | null;
  toolCount: number | null;
  truncated: Truncation | null;
  canary: CanaryResult;
  auth: AuthFacts | null;
  sseEndpoint: string | null;
  /** The failure that decided a non-ok status (its v1 class goes on the row); null for ok. */
  failure: { step: ProbeStepV2; error: ProbeError; url: string | null } | null;
  /** The first 429/503 (the probe stopped there; the scheduler's back-off signal). */
  throttled: { status: number; retryAfter: string | null } | null;
  /** Oddities worth a line in the row's detail. */
  notes: string[];
}

export async function probeV2(ctx: HttpContext, endpoint: string, limits: ProbeV2Limits): Promise<ProbeV2Result> {
  const started = performance.now();
  const w = new Wire(ctx, limits);
  const ms = () => Math.round(performance.now() - started);
  const r: ProbeV2Result = {
    status: 'not_mcp',
    era: 'none',
    facts: { excluded: false, answered: false, auth: null, handshake: false, toolsListed: false, modernError: false, sseEndpoint: false, initializeRejected: false, httpStatuses: [] },
    finalUrl: null,
    redirects: 0,
    requests: 0,
    requestLog: w.log,
    protocolVersion: null,
    supportedVersions: null,
    capabilities: null,
    serverName: null,
    serverVersion: null,
    session: null,
    instructions: null,
    instructionsSha256: null,
    latencyMs: 0,
    handshakeLatencyMs: null,
    handshake: null,
    pages: [],
    toolsSha256: null,
    toolsSetHash: null,
    toolCount: null,
    truncated: null,
    canary: { sent: false, httpStatus: null, inChannel: null, jsonrpcCode: null },
    auth: null,
    sseEndpoint: null,
    failure: null,
    throttled: null,
    notes: [],
  };
  /**
   * The challenge of the step that ended the probe's path (the latest one: initialize's over
   * discover's), dropped when a later handshake answered anonymously; and that step's failure.
   */
  let challenge: Exchange | null = null;
  let decided: Exchange | null = null;
  const note = (x: Exchange) => {
    if (isChallenge(x)) challenge = x;
    if (x.error) decided = x;
    return x;
  };
  let sessionHeaders: Record<string, string> | null = null;
  let sessionUrl: string | null = null;

  const handshakeFrom = (x: Exchange, result: Record<string, unknown>) => {
    r.facts.handshake = true;
    r.handshakeLatencyMs = ms();
    r.handshake = x.read ? { body: x.read.raw, contentType: x.read.contentType } : null;
    r.finalUrl = x.redirects > 0 ? x.url : null;
    r.capabilities = isObject(result.capabilities) ? Object.keys(result.capabilities).sort().slice(0, 64).map((k) => k.slice(0, 64)) : null;
    r.instructions = typeof result.instructions === 'string' ? result.instructions : null;
    r.instructionsSha256 = instructionsHash(r.instructions);
    // 2026-07-28 moved serverInfo into _meta (spec PR #3002); initialize results carry it in the body.
    const meta = isObject(result._meta) ? result._meta['io.modelcontextprotocol/serverInfo'] : undefined;
    const info = isObject(meta) ? meta : isObject(result.serverInfo) ? result.serverInfo : {};
    r.serverName = typeof info.name === 'string' ? info.name.slice(0, 512) : null;
    r.serverVersion = typeof info.version === 'string' ? info.version.slice(0, 256) : null;
  };
  const takeListing = (l: Listing) => {
    r.pages = l.pages;
    if (l.note) r.notes.push(l.note);
    if (l.notSent) r.notes.push('tools/list not sent: request budget spent');
    if (l.failure) {
      note(l.failure);
      return false;
    }
    if (!l.tools) return false;
    r.facts.toolsListed = true;
    r.toolsSha256 = l.toolsSha256;
    r.toolCount = l.tools.length;
    r.truncated = l.truncated;
    if (l.truncated) r.notes.push(`tools/list cut at ${l.pages.length} pages by the ${l.truncated} bound`);
    const set = toolSetHashOf(l.pages, TOOLS_LIST_ID);
    r.toolsSetHash = set.hash;
    if (set.problem) r.notes.push(`no tool set hash: ${set.problem}`);
    return true;
  };

  try {
    // 1. server/discover
    const d = await w.post('discover', 'discover', endpoint, discoverBody(), modernHeaders('server/discover'), HANDSHAKE_ID, limits.smallCap);
    if (d === NOT_SENT) throw new Error('request budget below one');
    note(d);
    if (!d.answered || w.throttled) return finish();
    // The body decides (a result counts only in a 2xx answer: d.result).
    const verdict = discoverVerdict(d.message, HANDSHAKE_ID);
    if (verdict.kind === 'result' && d.result) {
      // 2. modern
      r.era = 'modern';
      r.protocolVersion = MODERN_PROTOCOL_VERSION;
      r.supportedVersions = verdict.supportedVersions;
      handshakeFrom(d, d.result);
      const url = d.url ?? endpoint;
      const listing = await listAllPages(w, true, (cursor, first) =>
        w.post(first ? 'tools/list' : 'tools/list page', 'tools/list', url, modernToolsListBody(cursor), modernHeaders('tools/list'), TOOLS_LIST_ID, limits.toolsCap, { counted: first }),
      );
      if (takeListing(listing) && !w.throttled) {
        // The canary is not a protocol step (protocol: false): its answer never decides the status; the
        // step only picks v1's classifier branch, and its failure is never a row's.
        const c = await w.post('tools/call canary', 'tools/list', url, modernCanaryBody(), modernHeaders('tools/call', CANARY_TOOL_NAME), CANARY_ID, limits.smallCap, { protocol: false });
        r.canary = canaryResult(c);
      }
      return finish();
    }
    if (verdict.kind === 'rejected') {
      r.era = 'modern';
      r.facts.modernError = true;
      r.supportedVersions = verdict.error.supportedVersions;
      return finish();
    }

    // 3. legacy: initialize, retried once with 2025-03-26 on a JSON-RPC error (not on an auth wall,
    // where another revision cannot help, nor after a 429/503).
    let init: Exchange | null = null;
    let rejections = 0;
    for (const offer of LEGACY_OFFERS) {
      const x = await w.post('initialize', 'initialize', endpoint, initializeBody(offer), Wire.base(), HANDSHAKE_ID, limits.smallCap);
      if (x === NOT_SENT) break;
      init = x;
      if (x.result) break;
      note(x);
      const modern = modernErrorOf(x.message, HANDSHAKE_ID);
      if (modern) {
        r.era = 'modern';
        r.facts.modernError = true;
        r.supportedVersions = modern.supportedVersions;
      }
      if (!x.rpc) break;
      rejections++;
      if (w.throttled || isChallenge(x)) break;
    }
    r.facts.initializeRejected = rejections === LEGACY_OFFERS.length;
    if (init?.result) {
      const pv = init.result.protocolVersion;
      if (typeof pv !== 'string' || pv.length === 0) {
        note({ ...init, result: null, error: notJsonRpc(init, 'initialize result without protocolVersion') });
      } else {
        r.era = 'legacy';
        // A modern error on the first offer is superseded by the legacy handshake of the second.
        r.facts.modernError = false;
        r.supportedVersions = null;
        challenge = null; // a challenge on discover was not a wall: initialize answered anonymously
        decided = null;
        r.protocolVersion = pv.slice(0, 64);
        handshakeFrom(init, init.result);
        const sessionId = header1(init.headers['mcp-session-id']);
        r.session = sessionId !== null;
        // Later steps go where initialize was answered: the session (if any) lives there.
        const url = init.url ?? endpoint;
        const headers: Record<string, string> = { ...Wire.base() };
        if (sessionId !== null) headers['mcp-session-id'] = sessionId;
        if (definesProtocolVersionHeader(pv)) headers['mcp-protocol-version'] = pv;
        if (sessionId !== null) {
          sessionHeaders = headers;
          sessionUrl = url;
        }
        // notifications/initialized: best effort, its failure is not an error of the probe.
        const n = await w.post('initialized', 'initialized', url, initializedBody(), headers, null, limits.smallCap);
        if (n !== NOT_SENT) note(n); // its failure decides only if nothing later does (a 401 or a 429 stops here)
        if (n !== NOT_SENT && !w.throttled) {
          if (!challenge) {
            const listing = await listAllPages(w, false, (cursor, first) =>
              w.post(first ? 'tools/list' : 'tools/list page', 'tools/list', url, legacyToolsListBody(cursor), headers, TOOLS_LIST_ID, limits.toolsCap, { counted: first, sessionIssued: sessionId !== null }),
            );
            if (takeListing(listing) && !w.throttled) {
              const c = await w.post('tools/call canary', 'tools/list', url, legacyCanaryBody(), headers, CANARY_ID, limits.smallCap, { protocol: false });
              r.canary = canaryResult(c);
            }
          }
        }
        return finish();
      }
    }
    // 4. No JSON-RPC in initialize's HTTP answer (HTML, an empty 404/405, …): the HTTP+SSE detect.
    if (init && init.answered && !init.rpc && !init.result && !challenge && !w.throttled && !r.facts.modernError) {
      const s = await detectHttpSse(w, endpoint);
      if (s.endpoint !== null) {
        r.era = 'legacy_sse';
        r.facts.sseEndpoint = true;
        r.sseEndpoint = s.endpoint;
      }
    }
    return finish();
  } catch (e) {
    // A bug of ours must not cost the target its row: the facts so far stand, the note says why.
    r.notes.push(`probe error: ${(e as Error).message}`.slice(0, 300));
    return finish();
  }

  async function finish(): Promise<ProbeV2Result> {
    r.facts.answered = w.answered;
    r.facts.httpStatuses = [...w.protocolStatuses];
    r.throttled = w.throttled;
    const c = challenge as Exchange | null;
    if (c && r.facts.answered) {
      // Keep room for the DELETE of an issued session.
      r.auth = await authFacts(w, c, endpoint, sessionHeaders ? 1 : 0);
      r.facts.auth = { httpStatus: r.auth.httpStatus, bearer: r.auth.bearer, metadataValid: r.auth.metadataValid };
    }
    if (sessionHeaders && sessionUrl) await w.deleteSession(sessionUrl, sessionHeaders);
    r.status = v2Status(r.facts);
    if (r.status === 'ok') {
      r.failure = null;
    } else {
      const x = (r.auth ? c : decided) as Exchange | null;
      if (x?.error) r.failure = { step: x.step, error: x.error, url: x.redirects > 0 ? x.url : null };
      if (!r.finalUrl && x && x.redirects > 0) r.finalUrl = x.url;
    }
    if (!r.facts.handshake && r.era !== 'modern' && r.era !== 'legacy_sse') r.era = 'none';
    r.requests = w.spent;
    r.redirects = w.log.reduce((n, l) => n + l.redirects, 0);
    r.latencyMs = ms();
    return r;
  }
}

function header1(v: string | string[] | undefined): string | null {
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

/** An initialize "result" without protocolVersion: parse, as v1 classifies it. */
function notJsonRpc(x: Exchange, detail: string): ProbeError {
  return classify({ kind: 'not-jsonrpc', step: 'initialize', status: x.status, detail });
}
