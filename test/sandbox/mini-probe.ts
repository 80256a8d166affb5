// A deliberately small MCP probe for testing the world itself (the collector's probe is tested on its own):
// initialize → notifications/initialized → tools/list over streamable HTTP, bounded by one timeout,
// returning the raw tools/list body and a coarse class.
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';

export interface MiniResult {
  kind: 'ok' | 'auth' | 'http_4xx' | 'http_5xx' | 'rate_limited' | 'parse' | 'timeout' | 'tls' | 'other';
  status: number | null;
  body: string | null;
  bodySha: string | null;
  tools: Array<{ name: string }> | null;
  detail: string;
}

const agent = new Agent({ connect: { rejectUnauthorized: true }, keepAliveTimeout: 1000 });

export async function miniProbe(url: string, timeoutMs = 1500): Promise<MiniResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = async (body: unknown, target = url, hops = 0): Promise<{ status: number; headers: Record<string, unknown>; text: string }> => {
    const r = await request(target, { method: 'POST', headers, body: JSON.stringify(body), signal, dispatcher: agent });
    const text = await r.body.text();
    if (r.statusCode >= 300 && r.statusCode < 400 && typeof r.headers.location === 'string' && hops < 3) {
      return post(body, new URL(r.headers.location, target).toString(), hops + 1);
    }
    return { status: r.statusCode, headers: r.headers as Record<string, unknown>, text };
  };
  const fail = (kind: MiniResult['kind'], status: number | null, detail: string, body: string | null = null): MiniResult => ({ kind, status, body, bodySha: null, tools: null, detail });
  const classify = (status: number, text: string): MiniResult | null => {
    if (status === 401 || status === 403) return fail('auth', status, 'auth', text);
    if (status === 429) return fail('rate_limited', status, '429', text);
    if (status >= 500) return fail('http_5xx', status, String(status), text);
    if (status >= 400) return fail('http_4xx', status, String(status), text);
    return null;
  };
  try {
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'mini', version: '0' } } });
    const bad = classify(init.status, init.text);
    if (bad) return bad;
    if (!jsonMessage(init.text)?.result) return fail('parse', init.status, 'initialize answer not JSON-RPC', init.text);
    const sid = init.headers['mcp-session-id'];
    if (typeof sid === 'string') headers['mcp-session-id'] = sid;
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const bad2 = classify(note.status, note.text);
    if (bad2) return bad2;
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const bad3 = classify(list.status, list.text);
    if (bad3) return bad3;
    const msg = jsonMessage(list.text) as { result?: { tools?: Array<{ name: string }> } } | undefined;
    if (!Array.isArray(msg?.result?.tools)) return fail('parse', list.status, 'tools/list answer not JSON-RPC', list.text);
    return { kind: 'ok', status: list.status, body: list.text, bodySha: createHash('sha256').update(list.text).digest('hex'), tools: msg.result.tools, detail: '' };
  } catch (err) {
    const e = err as Error & { code?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code ?? e.name;
    if (/Timeout|Abort/i.test(e.name) || /TIMEOUT|ABORT/.test(String(code))) return fail('timeout', null, String(code));
    if (/SSL|TLS|EPROTO|CERT/i.test(`${code} ${e.message}`)) return fail('tls', null, `${code} ${e.message}`);
    return fail('other', null, `${code} ${e.message}`);
  }
}

/** A JSON body, or the first SSE `data:` line that parses as a JSON-RPC message. */
function jsonMessage(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      try {
        const m = JSON.parse(line.slice(5).trim()) as Record<string, unknown>;
        if (m && typeof m === 'object' && ('result' in m || 'error' in m)) return m;
      } catch {
        /* next */
      }
    }
    return undefined;
  }
}

export async function closeMiniProbe(): Promise<void> {
  await agent.close();
}
