// A day's rows for `npm run bench:years`: one row per roster target, built by the collector's own row
// builders (collector/rows.ts probeRow, noEndpointRow, runRow) from a probe result per endpoint, so the
// rows are the bytes the collector writes. The world is bench/archive-gen.ts's (its rates come from
// sandbox/world.ts, imported here): about 28% of endpoints auth-walled (AUTH_RATE.required × 0.33), the
// rest drawn by PROFILE_WEIGHTS (ok, flapping, dies, redirect answer a real tool list of
// fixtures/tools/real as JSON 30% / SSE 70%, 70% with a per-target edit so bodies differ; the others fail
// every day with their error class); flapping endpoints fail a quarter of days, every endpoint 0.5%; a
// serving endpoint's tool list changes at archive-gen's drift rates (DRIFT_RATE: 8% volatile, a change
// every 5–30 days; 15% once or twice a year), each change a new body object. archive-gen's own
// generator works on its own small synthetic registry entries and keeps these pieces private to its
// module, so they are restated here at the same rates for the roster of real-sized entries.
import { AuthError, Http4xxError, Http5xxError, ParseError, RateLimitedError, TimeoutError, TlsError, type ProbeError } from '../collector/errors.ts';
import type { ProbeResult } from '../collector/probe.ts';
import { noEndpointRow, probeRow, type RowContext } from '../collector/rows.ts';
import type { ToolDef } from '../sandbox/mcp-host.ts';
import { loadRealToolLists, type RealToolList } from '../sandbox/fixtures.ts';
import { rng, type Rng } from '../sandbox/prng.ts';
import { AUTH_RATE, DRIFT_RATE, PROFILE_WEIGHTS, type Profile } from '../sandbox/world.ts';
import { sha256Hex, toolsSha256, type Observation, type RosterTarget } from '../src/lib/index.ts';

type Fail = 'auth' | 'http_4xx' | 'http_5xx' | 'parse' | 'tls' | 'timeout' | 'rate_limited';

/** archive-gen's mapping of a failing profile to its error class. */
const PROFILE_FAIL: Partial<Record<Profile, Fail>> = {
  http_404: 'http_4xx', http_405: 'http_4xx', modern_only: 'http_4xx', session_lost: 'http_4xx',
  http_5xx: 'http_5xx', html_200: 'parse', broken_json: 'parse', broken_tools: 'parse',
  tls: 'tls', hang: 'timeout', sse_stall: 'timeout', rate_limited: 'rate_limited',
};
const SERVES = new Set<Profile | 'auth'>(['ok', 'flapping', 'dies', 'redirect']);

/** Changes a day of a serving endpoint's tool list: volatile ones every 17.5 days on average, occasional 1.5 a year. */
const CHANGE_PER_DAY = DRIFT_RATE.volatile / 17.5 + (DRIFT_RATE.occasional * 1.5) / 365;

interface Serving {
  tools: ToolDef[];
  json: boolean;
  revision: number;
  body: { sha: string; toolsSha: string; count: number; contentType: string; setHash: string | null } | null;
}

interface State {
  profile: Profile | 'auth';
  session: boolean;
  dieDay: number | null;
  serving: Serving | null;
  r: Rng;
}

/** A new body a row points at: the caller stores it (putObject) before writing the row. */
export interface NewBody {
  sha: string;
  bytes: Buffer;
}

export class DayRows {
  readonly #lists: RealToolList[] = loadRealToolLists();
  readonly #state = new Map<string, State>();

  constructor(readonly seed: string) {}

  #of(t: RosterTarget): State {
    let s = this.#state.get(t.name);
    if (s) return s;
    const r = rng(`${this.seed}|${t.name}`);
    const profile: State['profile'] = r.chance(AUTH_RATE.required * 0.33) ? 'auth' : PROFILE_WEIGHTS[r.weighted(PROFILE_WEIGHTS.map((p) => p[1]))]![0];
    let serving: Serving | null = null;
    if (SERVES.has(profile)) {
      const base = this.#lists[r.int(0, this.#lists.length - 1)]!.tools;
      const tools = r.chance(0.7) && base.length > 0 ? [{ ...base[0]!, description: `${base[0]!.description ?? ''} [instance ${t.name}]` }, ...base.slice(1)] : base;
      serving = { tools, json: r.chance(0.3), revision: 0, body: null };
    }
    s = { profile, session: r.chance(0.4), dieDay: profile === 'dies' ? r.int(3, 365) : null, serving, r };
    this.#state.set(t.name, s);
    return s;
  }

  /** The row of one target on day `d` (0-based), and the body object it needs stored, if new. */
  row(ctx: RowContext, t: RosterTarget, d: number): { row: Observation; body: NewBody | null } {
    if (t.endpoint === null) return { row: noEndpointRow(ctx, t), body: null };
    const s = this.#of(t);
    const r = s.r;
    const facts = { finalUrl: null, redirects: s.profile === 'redirect' ? 1 : 0, protocolVersion: '2025-06-18', serverName: t.name.slice(0, 64), serverVersion: t.version, session: s.session, latencyMs: 40 + r.int(0, 900) };
    let fail: Fail | undefined = s.profile === 'auth' ? 'auth' : PROFILE_FAIL[s.profile as Profile];
    if (!fail && s.dieDay !== null && d >= s.dieDay) fail = 'timeout';
    if (!fail && s.profile === 'flapping' && r.chance(0.25)) fail = r.chance(0.5) ? 'timeout' : 'http_5xx';
    if (!fail && r.chance(0.005)) fail = 'timeout';
    if (fail || !s.serving) {
      const result: ProbeResult = { ...facts, protocolVersion: null, serverName: null, serverVersion: null, session: null, ok: false, error: ERRORS[fail ?? 'http_4xx'], body: null, bodyContentType: null };
      return { row: probeRow(ctx, t, result, null), body: null };
    }
    const sv = s.serving;
    let body: NewBody | null = null;
    if (sv.body !== null && d > 0 && r.chance(CHANGE_PER_DAY)) {
      sv.revision++;
      const k = r.int(0, Math.max(0, sv.tools.length - 1));
      sv.tools = sv.tools.length === 0 ? [{ name: 'tool_1', description: 'First tool.', inputSchema: { type: 'object', properties: {} } }] : sv.tools.map((x, j) => (j === k ? { ...x, description: `${x.description ?? ''} Revision ${sv.revision}.` } : x));
      sv.body = null;
    }
    let bytes: Buffer | null = null;
    if (sv.body === null) {
      const rpc = JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: sv.tools } });
      bytes = Buffer.from(sv.json ? rpc : `event: message\ndata: ${rpc}\n\n`);
      const contentType = sv.json ? 'application/json' : 'text/event-stream';
      const sha = sha256Hex(bytes);
      sv.body = { sha, toolsSha: toolsSha256(sv.tools), count: sv.tools.length, contentType, setHash: null };
      body = { sha, bytes };
    }
    const b = sv.body;
    // The set hash is the body's (probeRow derives it from the bytes): derived once per body, then reused.
    const result: ProbeResult = { ...facts, ok: true, body: bytes ?? EMPTY, bodyContentType: b.contentType, toolsSha256: b.toolsSha, toolCount: b.count, nextCursor: false, note: null };
    const row = probeRow(ctx, t, result, b.sha);
    if (bytes) b.setHash = row.tools_set_hash ?? null;
    else row.tools_set_hash = b.setHash;
    return { row, body };
  }
}

const EMPTY = Buffer.alloc(0);

/** One error value per class (archive-gen's details), built once: an Error per row would capture a stack per row. */
const ERRORS: Record<Fail, ProbeError> = {
  auth: new AuthError({ step: 'initialize', detail: 'HTTP 401', httpStatus: 401, jsonrpcCode: null, wwwAuthenticate: 'Bearer realm="mcp"' }),
  http_4xx: new Http4xxError({ step: 'initialize', detail: 'HTTP 404', httpStatus: 404, jsonrpcCode: null }),
  http_5xx: new Http5xxError({ step: 'initialize', detail: 'HTTP 502', httpStatus: 502, jsonrpcCode: null }),
  parse: new ParseError({ step: 'initialize', detail: 'not JSON-RPC: text/html body', httpStatus: 200, jsonrpcCode: null }),
  tls: new TlsError({ step: 'initialize', detail: 'DEPTH_ZERO_SELF_SIGNED_CERT', httpStatus: null, jsonrpcCode: null }),
  timeout: new TimeoutError({ step: 'initialize', detail: 'no answer within 20000 ms', httpStatus: null, jsonrpcCode: null }),
  rate_limited: new RateLimitedError({ step: 'initialize', detail: 'HTTP 429', httpStatus: 429, jsonrpcCode: null, retryAfter: '3600' }),
};
