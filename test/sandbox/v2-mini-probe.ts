// A deliberately small dual-era probe for testing the world itself (the project's methodology-v2 probe is
// written and tested on its own): it follows methodology v2's procedure in order — server/discover with the
// 2026-07-28 headers and `_meta`; on anything but a DiscoverResult or a modern error, initialize
// 2025-11-25 (once more with 2025-03-26 on a JSON-RPC error); every tools/list page; the unknown-tool
// canary; the HTTP+SSE detect when initialize got no JSON-RPC answer; RFC 9728 metadata after a 401
// (or a 403 with WWW-Authenticate). Loopback only, one overall timeout per request.
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import type { V2Status } from '../../sandbox/world.ts';

export const MODERN = '2026-07-28';
const CLIENT_INFO = { name: 'mcp-schema-world-test', version: '0' };
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': CLIENT_INFO, 'io.modelcontextprotocol/clientCapabilities': {} };
const CANARY = 'mcp-schema.probe.nonexistent-tool';
const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const LEGACY = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);

export interface V2MiniResult {
  status: V2Status;
  era: 'modern' | 'legacy' | 'legacy_sse' | 'none';
  protocolVersion: string | null;
  supportedVersions: string[] | null;
  instructions: string | null;
  tools: Array<{ name: string }> | null;
  pages: number | null;
  /** The raw JSON-RPC text of each tools/list page (SSE: the answering event's data). */
  pageTexts: string[];
  canary: { httpStatus: number; inChannel: boolean; jsonrpcCode: number | null } | null;
  auth: { httpStatus: number; challenge: string; bearer: boolean; source: 'hint' | 'well-known-path' | 'well-known-root' | null; resourceMatches: boolean | null } | null;
  /** The `data` of the HTTP+SSE endpoint event. */
  sseEndpoint: string | null;
  detail: string;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The JSON-RPC message (the JSON body, or the first SSE event carrying result or error) and its text. */
  msg: { result?: Record<string, unknown>; error?: { code?: unknown; message?: unknown; data?: { supported?: unknown } } } | null;
  msgText: string | null;
}

class Unreachable extends Error {}

const agent = new Agent({ keepAliveTimeout: 1000 });

export async function v2MiniProbe(url: string, timeoutMs = 1500): Promise<V2MiniResult> {
  const out: V2MiniResult = { status: 'not_mcp', era: 'none', protocolVersion: null, supportedVersions: null, instructions: null, tools: null, pages: null, pageTexts: [], canary: null, auth: null, sseEndpoint: null, detail: '' };
  const flags = { auth: null as Answer | null, payment: false, serverError: false };
  const note = (a: Answer) => {
    if ((a.status === 401 || (a.status === 403 && a.headers['www-authenticate'])) && !flags.auth) flags.auth = a;
    if (a.status === 402) flags.payment = true;
    if (a.status === 429 || a.status >= 500) flags.serverError = true;
    return a;
  };
  let ids = 0;
  const post = async (body: Record<string, unknown>, headers: Record<string, string>): Promise<Answer> =>
    note(await send(url, 'POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, JSON.stringify(body), timeoutMs));
  const modern = (method: string, params: Record<string, unknown> = {}, extra: Record<string, string> = {}) =>
    post({ jsonrpc: '2.0', id: ++ids, method, params: { ...params, _meta: META } }, { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...extra });
  try {
    const d = await modern('server/discover');
    const code = typeof d.msg?.error?.code === 'number' ? d.msg.error.code : null;
    const supported = Array.isArray(d.msg?.error?.data?.supported) ? (d.msg!.error!.data!.supported as string[]) : null;
    if (d.msg?.result && Array.isArray(d.msg.result.supportedVersions)) {
      out.era = 'modern';
      out.protocolVersion = MODERN;
      out.supportedVersions = d.msg.result.supportedVersions as string[];
      out.instructions = typeof d.msg.result.instructions === 'string' ? d.msg.result.instructions : null;
      await listAll((cursor) => modern('tools/list', cursor === undefined ? {} : { cursor }), out);
      if (out.tools) out.canary = canaryOf(await modern('tools/call', { name: CANARY, arguments: {} }, { 'mcp-name': CANARY }));
      out.status = out.tools ? 'ok' : 'handshake_only';
    } else if (code === -32020 || code === -32021) {
      out.era = 'modern';
      out.status = 'modern_rejected';
    } else if (code === -32022 && supported && !supported.some((v) => LEGACY.has(v))) {
      out.era = 'modern';
      out.supportedVersions = supported;
      out.status = 'modern_rejected';
    } else {
      // Any other answer: the legacy handshake.
      const headers: Record<string, string> = {};
      const init = async (version: string) => post({ jsonrpc: '2.0', id: ++ids, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO } }, headers);
      let i = await init('2025-11-25');
      if (i.msg?.error) i = await init('2025-03-26');
      if (i.msg?.result) {
        out.era = 'legacy';
        out.protocolVersion = typeof i.msg.result.protocolVersion === 'string' ? i.msg.result.protocolVersion : null;
        out.instructions = typeof i.msg.result.instructions === 'string' ? i.msg.result.instructions : null;
        const sid = i.headers['mcp-session-id'];
        if (typeof sid === 'string') headers['mcp-session-id'] = sid;
        if (out.protocolVersion && out.protocolVersion >= '2025-06-18') headers['mcp-protocol-version'] = out.protocolVersion;
        await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
        await listAll((cursor) => post({ jsonrpc: '2.0', id: ++ids, method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) }, headers), out);
        if (out.tools) out.canary = canaryOf(await post({ jsonrpc: '2.0', id: ++ids, method: 'tools/call', params: { name: CANARY, arguments: {} } }, headers));
        out.status = out.tools ? 'ok' : 'handshake_only';
      } else if (i.msg?.error) {
        out.status = 'jsonrpc_error';
      } else if (!flags.auth) {
        out.sseEndpoint = await sseDetect(url, timeoutMs);
        if (out.sseEndpoint !== null) {
          out.era = 'legacy_sse';
          out.status = 'legacy_sse';
        }
      }
    }
  } catch (err) {
    if (!(err instanceof Unreachable)) throw err;
    out.detail = err.message;
    out.status = 'unreachable';
    return out;
  }
  if (flags.auth) {
    out.auth = await authFacts(url, flags.auth, timeoutMs);
    const valid = out.auth.source !== null;
    out.status = flags.auth.status === 401 && out.auth.bearer && valid ? 'auth_compliant' : 'auth_noncompliant';
  } else if (out.status === 'not_mcp' && flags.payment) out.status = 'payment_required';
  else if (out.status === 'not_mcp' && flags.serverError) out.status = 'server_error';
  return out;
}

async function listAll(list: (cursor: string | undefined) => Promise<Answer>, out: V2MiniResult): Promise<void> {
  const tools: Array<{ name: string }> = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const a = await list(cursor);
    const result = a.msg?.result as { tools?: unknown; nextCursor?: unknown } | undefined;
    if (!Array.isArray(result?.tools)) return;
    out.pageTexts.push(a.msgText!);
    tools.push(...(result.tools as Array<{ name: string }>));
    if (typeof result.nextCursor !== 'string') break;
    cursor = result.nextCursor;
  }
  out.tools = tools;
  out.pages = out.pageTexts.length;
}

function canaryOf(a: Answer): V2MiniResult['canary'] {
  const code = typeof a.msg?.error?.code === 'number' ? a.msg.error.code : null;
  return { httpStatus: a.status, inChannel: code !== null || a.msg?.result?.isError === true, jsonrpcCode: code };
}

async function sseDetect(url: string, timeoutMs: number): Promise<string | null> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const r = await request(url, { method: 'GET', headers: { accept: 'text/event-stream' }, signal, dispatcher: agent });
    if (!String(r.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      await r.body.dump();
      return null;
    }
    let text = '';
    for await (const chunk of r.body) {
      text += (chunk as Buffer).toString('utf8');
      const m = /^event: endpoint\r?\ndata: (.*)\r?\n\r?\n/m.exec(text);
      if (m) {
        r.body.destroy();
        return m[1]!;
      }
      if (text.length > 65_536) break;
    }
    r.body.destroy();
    return null;
  } catch {
    return null;
  }
}

async function authFacts(url: string, a: Answer, timeoutMs: number): Promise<NonNullable<V2MiniResult['auth']>> {
  const challenge = String(a.headers['www-authenticate'] ?? '');
  const hint = /resource_metadata="([^"]*)"/i.exec(challenge)?.[1] ?? null;
  const u = new URL(url);
  const candidates: Array<[NonNullable<V2MiniResult['auth']>['source'], string]> = [];
  if (hint) candidates.push(['hint', new URL(hint, url).toString()]);
  candidates.push(['well-known-path', `${u.origin}${WELL_KNOWN}${u.pathname}${u.search}`], ['well-known-root', `${u.origin}${WELL_KNOWN}`]);
  const facts = { httpStatus: a.status, challenge, bearer: /(^|,\s*)Bearer(\s|,|$)/i.test(challenge), source: null as NonNullable<V2MiniResult['auth']>['source'], resourceMatches: null as boolean | null };
  for (const [source, href] of candidates) {
    const r = await send(href, 'GET', { accept: 'application/json' }, undefined, timeoutMs).catch(() => null);
    if (!r || r.status !== 200) continue;
    let doc: { resource?: unknown; authorization_servers?: unknown };
    try {
      doc = JSON.parse(r.text);
    } catch {
      continue;
    }
    if (typeof doc?.resource === 'string' && Array.isArray(doc.authorization_servers) && doc.authorization_servers.length > 0) {
      facts.source = source;
      facts.resourceMatches = doc.resource === (source === 'well-known-root' ? u.origin : url);
      break;
    }
  }
  return facts;
}

async function send(url: string, method: 'POST' | 'GET', headers: Record<string, string>, body: string | undefined, timeoutMs: number, hops = 0): Promise<Answer> {
  let r;
  try {
    r = await request(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs), dispatcher: agent });
  } catch (err) {
    throw new Unreachable(`${method} ${url}: ${(err as Error).name} ${(err as Error).message}`);
  }
  let text: string;
  try {
    text = await r.body.text();
  } catch (err) {
    throw new Unreachable(`${method} ${url} body: ${(err as Error).name}`);
  }
  if (r.statusCode >= 300 && r.statusCode < 400 && typeof r.headers.location === 'string' && hops < 3) {
    return send(new URL(r.headers.location, url).toString(), method, headers, body, timeoutMs, hops + 1);
  }
  const { msg, msgText } = jsonRpc(text, String(r.headers['content-type'] ?? ''));
  return { status: r.statusCode, headers: r.headers, text, msg, msgText };
}

function jsonRpc(text: string, contentType: string): Pick<Answer, 'msg' | 'msgText'> {
  const parse = (t: string) => {
    try {
      const m = JSON.parse(t) as (Answer['msg'] & { jsonrpc?: unknown }) | null;
      return m && typeof m === 'object' && m.jsonrpc === '2.0' && ('result' in m || 'error' in m) ? m : null;
    } catch {
      return null;
    }
  };
  if (!contentType.startsWith('text/event-stream')) return { msg: parse(text), msgText: text };
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const t = line.slice(5).trim();
    const m = parse(t);
    if (m) return { msg: m, msgText: t };
  }
  return { msg: null, msgText: null };
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export async function closeV2MiniProbe(): Promise<void> {
  await agent.close();
}
