// The v1 probe (methodology v1, "Probe"): initialize → notifications/initialized → tools/list,
// the way an MCP client over streamable HTTP does it, and nothing more. Every failure becomes a
// ProbeError via classify() (errors.ts); the raw tools/list body is returned verbatim.
import { CanonicalError, INITIALIZE_REQUEST_ID, isObject, parseToolsList, TOOLS_LIST_REQUEST_ID, ToolsListError, toolsSha256, type ProbeStep, type Tool } from '../src/lib/index.ts';
import { classify, type Failure, type ProbeError, type RpcError } from './errors.ts';
import { header, MiB, readCapped, send, type Answer, type HttpContext, type Trace } from './http.ts';
import { readAnswer, type ReadResult } from './read-answer.ts';
import { PROBER_VERSION, USER_AGENT } from './version.ts';

/** What we offer: the oldest streamable-era revision every server still speaks. */
export const OFFERED_PROTOCOL_VERSION = '2024-11-05';
/** Constant JSON-RPC ids, so identical servers give byte-identical raw bodies. */
export const INITIALIZE_ID = INITIALIZE_REQUEST_ID;
export const TOOLS_LIST_ID = TOOLS_LIST_REQUEST_ID;

const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: INITIALIZE_ID,
  method: 'initialize',
  // capabilities and clientInfo are both required: the official SDK answers -32603 without them.
  params: { protocolVersion: OFFERED_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcp-schema', version: PROBER_VERSION } },
});
const INITIALIZED_BODY = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const TOOLS_LIST_BODY = JSON.stringify({ jsonrpc: '2.0', id: TOOLS_LIST_ID, method: 'tools/list' });

export interface ProbeLimits {
  timeoutMs: number;
  maxRedirects: number;
  /** tools/list body cap (the artifact). */
  toolsCap: number;
  /** initialize and error bodies. */
  smallCap: number;
  maxSseEvents: number;
  sseGraceMs: number;
}

export const DEFAULT_PROBE_LIMITS: Omit<ProbeLimits, 'timeoutMs'> = {
  maxRedirects: 3,
  toolsCap: 8 * MiB,
  smallCap: 1 * MiB,
  maxSseEvents: 1000,
  sseGraceMs: 1000,
};

export interface ProbeFacts {
  finalUrl: string | null;
  redirects: number;
  protocolVersion: string | null;
  serverName: string | null;
  serverVersion: string | null;
  session: boolean | null;
  latencyMs: number;
}

export interface ProbeSuccess extends ProbeFacts {
  ok: true;
  body: Buffer;
  bodyContentType: string | null;
  toolsSha256: string;
  toolCount: number;
  nextCursor: boolean;
  note: string | null;
}

export interface ProbeFailure extends ProbeFacts {
  ok: false;
  error: ProbeError;
  /** The raw tools/list body when the failure happened after one was received (kept for re-derivation). */
  body: Buffer | null;
  bodyContentType: string | null;
}

export type ProbeResult = ProbeSuccess | ProbeFailure;

/** Thrown inside probe() to leave with a classified failure. */
class Stop {
  constructor(
    readonly error: ProbeError,
    readonly read: ReadResult | null = null,
  ) {}
}

export async function probe(ctx: HttpContext, endpoint: string, limits: ProbeLimits): Promise<ProbeResult> {
  const started = performance.now();
  const trace: Trace = { finalUrl: null, redirects: 0 };
  const facts: Omit<ProbeFacts, 'latencyMs' | 'finalUrl' | 'redirects'> = { protocolVersion: null, serverName: null, serverVersion: null, session: null };
  const base: Record<string, string> = {
    'content-type': 'application/json',
    // Both types, or SDK servers answer 406.
    accept: 'application/json, text/event-stream',
    'user-agent': USER_AGENT,
  };
  const finish = () => ({ ...facts, finalUrl: trace.finalUrl, redirects: trace.redirects, latencyMs: Math.round(performance.now() - started) });
  let sessionId: string | null = null;

  /** One step: POST, read the answer, return the JSON-RPC result or stop with a classified failure. */
  const step = async (name: ProbeStep, url: string, body: string, headers: Record<string, string>, id: number, cap: number) => {
    let read: ReadResult | null = null;
    let answer: { status: number; headers: Answer['headers'] } | null = null;
    try {
      await send(ctx, url, { method: 'POST', headers, body, timeoutMs: limits.timeoutMs, maxRedirects: limits.maxRedirects }, trace, async (a) => {
        answer = { status: a.status, headers: a.headers };
        if (a.status >= 200 && a.status < 300) {
          read = await readAnswer(a, id, { cap, maxEvents: limits.maxSseEvents, graceMs: limits.sseGraceMs });
        } else {
          // Error bodies are read (truncated) only for the JSON-RPC code they may carry.
          const raw = await readCapped(a.body, limits.smallCap, 'error body', true).catch(() => Buffer.alloc(0));
          read = { raw, contentType: header(a.headers, 'content-type'), message: parseJson(raw), note: null };
        }
      });
    } catch (error) {
      throw new Stop(classify({ kind: 'thrown', step: name, error }), read);
    }
    const res = answer as { status: number; headers: Answer['headers'] } | null;
    const got = read as ReadResult | null;
    if (!res || !got) throw new Error('send returned without an answer');
    if (res.status < 200 || res.status >= 300) {
      throw new Stop(
        classify({
          kind: 'status',
          step: name,
          status: res.status,
          wwwAuthenticate: header(res.headers, 'www-authenticate'),
          retryAfter: header(res.headers, 'retry-after'),
          rpc: rpcError(got.message),
          sessionIssued: sessionId !== null,
        }),
        got,
      );
    }
    const msg = got.message;
    if (!isObject(msg) || msg.id !== id || (!('result' in msg) && !('error' in msg))) {
      const why = got.note ?? (isObject(msg) ? `json is not the json-rpc answer with id ${id}` : 'body is not a json-rpc message');
      throw new Stop(classify({ kind: 'not-jsonrpc', step: name, status: res.status, detail: why }), got);
    }
    const rpc = rpcError(msg);
    if (rpc) throw new Stop(classify({ kind: 'rpc-error', step: name, status: res.status, rpc }), got);
    if (!isObject(msg.result)) throw new Stop(classify({ kind: 'not-jsonrpc', step: name, status: res.status, detail: 'json-rpc result is not an object' }), got);
    return { result: msg.result, headers: res.headers, read: got };
  };

  try {
    // 1. initialize
    const init = await step('initialize', endpoint, INITIALIZE_BODY, base, INITIALIZE_ID, limits.smallCap);
    const pv = init.result.protocolVersion;
    if (typeof pv !== 'string' || pv.length === 0) {
      throw new Stop(classify({ kind: 'not-jsonrpc', step: 'initialize', status: 200, detail: 'initialize result without protocolVersion' }));
    }
    facts.protocolVersion = pv.slice(0, 64);
    const info = isObject(init.result.serverInfo) ? init.result.serverInfo : {};
    facts.serverName = typeof info.name === 'string' ? info.name.slice(0, 512) : null;
    facts.serverVersion = typeof info.version === 'string' ? info.version.slice(0, 256) : null;
    sessionId = header(init.headers, 'mcp-session-id');
    facts.session = sessionId !== null;
    // Later steps go where initialize was answered: the session (if any) lives there.
    const url = trace.finalUrl ?? endpoint;
    const headers: Record<string, string> = { ...base };
    if (sessionId !== null) headers['mcp-session-id'] = sessionId;
    // The header exists from revision 2025-06-18 on; older revisions do not define it.
    if (/^\d{4}-\d{2}-\d{2}$/.test(pv) && pv >= '2025-06-18') headers['mcp-protocol-version'] = pv;

    // 2. notifications/initialized — best effort: its failure is not an error.
    await send(ctx, url, { method: 'POST', headers, body: INITIALIZED_BODY, timeoutMs: limits.timeoutMs, maxRedirects: limits.maxRedirects }, { ...trace }, (a) =>
      readCapped(a.body, limits.smallCap, 'body', true),
    ).catch(() => undefined);

    // 3. tools/list — first page only.
    const list = await step('tools/list', url, TOOLS_LIST_BODY, headers, TOOLS_LIST_ID, limits.toolsCap);
    // The one reading of result.tools (src/lib parseToolsList), shared with the site and restate.
    let tools: Tool[];
    try {
      tools = parseToolsList({ result: list.result });
    } catch (e) {
      if (!(e instanceof ToolsListError)) throw e;
      throw new Stop(classify({ kind: 'not-jsonrpc', step: 'tools/list', status: 200, detail: e.message }), list.read);
    }
    let hash: string;
    try {
      hash = toolsSha256(tools);
    } catch (e) {
      if (!(e instanceof CanonicalError)) throw e;
      throw new Stop(classify({ kind: 'not-jsonrpc', step: 'tools/list', status: 200, detail: `tools cannot be canonicalised: ${e.message}` }), list.read);
    }
    const result: ProbeSuccess = {
      ok: true,
      ...finish(),
      body: list.read.raw,
      bodyContentType: list.read.contentType,
      toolsSha256: hash,
      toolCount: tools.length,
      nextCursor: list.result.nextCursor !== undefined && list.result.nextCursor !== null,
      note: list.read.note,
    };
    if (sessionId !== null) await endSession(ctx, url, headers, limits);
    return result;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const tail = e.error.payload.step === 'tools/list' && e.read && e.read.raw.length > 0 ? e.read : null;
    if (sessionId !== null && e.error.payload.step === 'tools/list') await endSession(ctx, trace.finalUrl ?? endpoint, { ...base, 'mcp-session-id': sessionId }, limits);
    return { ok: false, ...finish(), error: e.error, body: tail?.raw ?? null, bodyContentType: tail?.contentType ?? null };
  }
}

/** Politeness, not methodology: tell a stateful server it can drop our session (spec: clients SHOULD). */
async function endSession(ctx: HttpContext, url: string, headers: Record<string, string>, limits: ProbeLimits): Promise<void> {
  await send(ctx, url, { method: 'DELETE', headers, timeoutMs: Math.min(limits.timeoutMs, 5_000), maxRedirects: 0 }, { finalUrl: null, redirects: 0 }, (a) =>
    a.body.dump({ limit: 64 * 1024 }),
  ).catch(() => undefined);
}

function rpcError(msg: unknown): RpcError | null {
  if (!isObject(msg) || !isObject(msg.error)) return null;
  const code = msg.error.code;
  return { code: typeof code === 'number' && Number.isInteger(code) ? code : null, message: String(msg.error.message ?? '').slice(0, 200) };
}

function parseJson(raw: Buffer): unknown {
  try {
    return raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}
