// What an endpoint does on a day: the behaviour the fleet serves for each profile (an SDK server with
// that day's tools, an auth wall and its metadata documents, a fixed failure), and the routing of a
// request path (`/<target>/<remote>/…`, and RFC 9728 well-known paths) to it.
import { rng } from './prng.ts';
import type { AuthDoc, Behaviour } from './mcp-host.ts';
import { OFFICIAL_META } from './registry-server.ts';
import type { Timelines } from './world-drift.ts';
import { firstStreamableIndex, remotesOf } from './world-sources.ts';
import type { AuthPlan, WorldSetup, WorldTarget } from './world-model.ts';

/** RFC 9728 §3: the well-known URI string inserted before an endpoint's path. */
export const WELL_KNOWN = '/.well-known/oauth-protected-resource';
/** What the world's `modern_only` servers name in their -32022 `supported` list. */
export const FUTURE_ONLY: readonly string[] = ['2027-01-01'];

/** World's behaviour and resolve. */
export interface Behaviours {
  behaviour(index: number, day: number, remote?: number): Behaviour;
  resolve(path: string, day: number): Behaviour | undefined;
}

/** Behaviours per target and day; an SDK server's behaviour object is memoised (the fleet reuses it). */
export function serveBehaviours({ key }: WorldSetup, targets: readonly WorldTarget[], { toolsAt, eraAt, instructionsAt, repeatAt }: Timelines): Behaviours {
  const fixed = fixedBehaviours();
  const mcpCache = new Map<string, Behaviour>();
  const remember = (k: string, make: () => Behaviour): Behaviour => {
    let b = mcpCache.get(k);
    if (!b) {
      if (mcpCache.size > 20_000) mcpCache.clear();
      b = make();
      mcpCache.set(k, b);
    }
    return b;
  };
  function behaviour(index: number, day: number, remote = -1): Behaviour {
    const t = targets[index];
    if (!t) return fixed.notFound;
    const first = firstStreamableIndex(t);
    if (remote >= 0 && remote !== first) {
      const rem = remotesOf(t.baseRows[t.baseRows.length - 1]!)[remote];
      if (rem?.type === 'sse') return fixed.sseOnly;
    }
    const r = rng(key('day', t.name, day));
    switch (t.profile) {
      case 'no_endpoint':
        return fixed.notFound;
      case 'auth':
        return authBehaviour(t, remote >= 0 ? remote : first);
      case 'payment_required':
        return fixed.paymentRequired;
      case 'sse_legacy':
        return httpSse(t, day, remote >= 0 ? remote : first);
      case 'flapping':
        if (r.chance(0.25)) return fixed.flaps[r.int(0, fixed.flaps.length - 1)]!;
        return mcp(t, day);
      case 'dies':
        if (t.dieDay !== null && day >= t.dieDay) return fixed.dead;
        return mcp(t, day);
      case 'redirect':
        return remote === -2 ? mcp(t, day) : { kind: 'redirect', location: `/${t.index}/moved`, status: 308 };
      case 'ok':
        return mcp(t, day);
      case 'http_404':
        return fixed.http404;
      case 'http_405':
        return fixed.http405;
      case 'http_5xx':
        return fixed.http5xx[index % fixed.http5xx.length]!;
      case 'html_200':
        return fixed.html200;
      case 'broken_json':
        return fixed.brokenJson;
      case 'broken_tools':
        return fixed.brokenTools;
      case 'tls':
        return fixed.notFound; // never reached over https; a plain-http request gets a 404
      case 'hang':
        return { kind: 'hang' };
      case 'sse_stall':
        return fixed.sseStall;
      case 'rate_limited':
        return fixed.rateLimited;
      case 'modern_only':
        return fixed.modern;
      case 'session_lost':
        return { kind: 'session-lost' };
    }
  }
  function mcp(t: WorldTarget, day: number): Behaviour {
    return remember(`${t.index}|${day}`, () => ({
      kind: 'mcp',
      tools: toolsAt(t.index, day)!,
      stateful: t.stateful,
      json: t.json,
      name: serverName(t),
      version: currentVersion(t, day),
      era: eraAt(t.index, day) ?? 'legacy',
      instructions: instructionsAt(t.index, day),
      pageSize: t.pageSize,
      repeat: repeatAt(t.index, day),
    }));
  }
  function httpSse(t: WorldTarget, day: number, remote: number): Behaviour {
    return remember(`${t.index}|${day}|sse|${remote}`, () => ({
      kind: 'http-sse',
      tools: toolsAt(t.index, day)!,
      messagesPath: `/${t.index}/${remote}/sse-messages`,
      name: serverName(t),
      version: currentVersion(t, day),
      instructions: instructionsAt(t.index, day),
    }));
  }
  const authCache = new Map<string, Behaviour>();
  function authBehaviour(t: WorldTarget, remote: number): Behaviour {
    const k = `${t.index}|${remote}`;
    let b = authCache.get(k);
    if (!b) {
      if (authCache.size > 50_000) authCache.clear();
      b = authWall(t.auth!, endpointPath(t, remote));
      authCache.set(k, b);
    }
    return b;
  }
  function serverName(t: WorldTarget): string {
    return t.realName.split('/').pop() ?? 'server';
  }
  function currentVersion(t: WorldTarget, day: number): string {
    let v = String(t.baseRows.find((e) => e._meta?.[OFFICIAL_META]?.isLatest === true)?.server.version ?? '1.0.0');
    for (const e of t.versions) if (e.day <= day) v = e.version;
    return v;
  }

  function resolve(path: string, day: number): Behaviour | undefined {
    // RFC 9728 §3.1 path-form metadata of an endpoint: only auth walls serve one.
    if (path.startsWith(`${WELL_KNOWN}/`)) {
      const b = resolve(path.slice(WELL_KNOWN.length), day);
      return b?.kind === 'auth' ? b : undefined;
    }
    const m = /^\/(\d+)\/(\d+|moved)(?:\/|$)/.exec(path);
    if (!m) return undefined;
    const index = Number(m[1]);
    if (!targets[index]) return undefined;
    return behaviour(index, day, m[2] === 'moved' ? -2 : Number(m[2]));
  }
  return { behaviour, resolve };
}

// --- fixed behaviours (shared objects: no allocation per request) ---------------------------------

function fixedBehaviours() {
  const json = { 'content-type': 'application/json' };
  return {
    notFound: { kind: 'status', status: 404, headers: { 'content-type': 'text/plain' }, body: 'Not Found' } as Behaviour,
    sseOnly: { kind: 'status', status: 405, headers: { allow: 'GET', 'content-type': 'text/plain' }, body: 'This endpoint speaks the deprecated HTTP+SSE transport (GET only).' } as Behaviour,
    http404: { kind: 'status', status: 404, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>404</title><h1>Page not found</h1>' } as Behaviour,
    http405: { kind: 'status', status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain' }, body: 'Method Not Allowed' } as Behaviour,
    http5xx: [
      { kind: 'status', status: 500, headers: json, body: '{"error":"internal server error"}' },
      { kind: 'status', status: 502, headers: { 'content-type': 'text/html' }, body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>' },
      { kind: 'status', status: 503, headers: { 'content-type': 'text/plain', 'retry-after': '120' }, body: 'Service Unavailable' },
    ] as Behaviour[],
    dead: { kind: 'status', status: 503, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>Application error</title><p>An error occurred in the application and your page could not be served.</p>' } as Behaviour,
    html200: { kind: 'status', status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1><p>Sign in to continue.</p></body></html>' } as Behaviour,
    brokenJson: { kind: 'status', status: 200, headers: json, body: '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{' } as Behaviour,
    brokenTools: { kind: 'raw', handler: brokenToolsHandler } as Behaviour,
    sseStall: { kind: 'sse-stall', everyMs: 250 } as Behaviour,
    rateLimited: { kind: 'status', status: 429, headers: { ...json, 'retry-after': '3600' }, body: '{"error":"rate limit exceeded"}' } as Behaviour,
    // A modern server of a revision nobody speaks yet: the v2 probe's modern_rejected (v1: http_4xx).
    modern: { kind: 'modern-only', supported: FUTURE_ONLY } as Behaviour,
    paymentRequired: { kind: 'status', status: 402, headers: json, body: '{"error":"payment_required","message":"This endpoint requires a paid plan."}' } as Behaviour,
    flaps: [
      { kind: 'status', status: 503, headers: { 'content-type': 'text/plain' }, body: 'upstream connect error or disconnect/reset before headers' },
      { kind: 'status', status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
      { kind: 'status', status: 429, headers: { 'content-type': 'text/plain', 'retry-after': '60' }, body: 'Too Many Requests' },
      { kind: 'status', status: 500, headers: json, body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}' },
    ] as Behaviour[],
  };
}

/** The path (and query) of a target's remote `j` on its listener: `/<index>/<j><original path>`. */
function endpointPath(t: WorldTarget, j: number): string {
  const latest = t.baseRows.find((e) => e._meta?.[OFFICIAL_META]?.isLatest === true) ?? t.baseRows[t.baseRows.length - 1]!;
  const url = String(remotesOf(latest)[j]?.url ?? `{scheme}://{host}/${t.index}/${j}/`);
  return url.replace(/^\{scheme\}:\/\/\{host\}/, '');
}

/**
 * An auth wall's behaviour: the challenge (a hint is always an absolute URL on the origin the client
 * used) and the metadata documents by pathname. The path-form well-known URL of the endpoint is
 * `WELL_KNOWN + pathname` (its `resource` keeps the query, RFC 9728 §3.1). A hint that leads nowhere
 * points to `/.oauth-missing/<index>/<j>`, a path no target owns (404).
 */
function authWall(a: AuthPlan, path: string): Behaviour {
  const pathname = path.split('?')[0]!;
  const wellKnown = WELL_KNOWN + pathname;
  const resource = `{origin}${path}`;
  const json = (doc: unknown): AuthDoc => ({ status: 200, contentType: 'application/json', body: JSON.stringify(doc) });
  const valid = (res: string) => json({ resource: res, authorization_servers: ['{origin}/oauth'], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'] });
  const malformed = (): AuthDoc =>
    a.malformedAs === 'no-resource'
      ? json({ authorization_servers: ['{origin}/oauth'] })
      : a.malformedAs === 'empty-authorization-servers'
        ? json({ resource, authorization_servers: [] })
        : { status: 200, contentType: 'application/json', body: '<!doctype html><title>Sign in</title><p>Sign in to continue</p>' };
  const docs: Record<string, AuthDoc> = {};
  if (a.metadata === 'hint' || a.metadata === 'well-known') docs[wellKnown] = valid(resource);
  else if (a.metadata === 'mismatch') docs[wellKnown] = valid('https://mcp.example.com/mcp');
  else if (a.metadata === 'malformed') docs[wellKnown] = malformed();
  // With a hint, the documents above are found through it, except for `well-known`, whose hint is dead.
  const hint = a.metadata === 'well-known' || a.metadata === 'none' ? `{origin}/.oauth-missing${pathname.replace(/^(\/\d+\/\d+).*$/, '$1')}` : `{origin}${wellKnown}`;
  // The three challenges (and bodies) the world has always served; only the hint became absolute.
  if (a.challenge === 'hint') {
    const body = '{"error":"invalid_token","error_description":"Missing or invalid access token"}';
    return { kind: 'auth', status: a.status, challenge: `Bearer realm="mcp", resource_metadata="${hint}"`, contentType: 'application/json', body, docs };
  }
  if (a.challenge === 'plain') return { kind: 'auth', status: a.status, challenge: 'Bearer', contentType: 'text/plain', body: 'Unauthorized', docs };
  const body = '{"error":"forbidden","message":"API key required"}';
  return { kind: 'auth', status: a.status, challenge: 'Bearer error="insufficient_scope", scope="mcp:tools"', contentType: 'application/json', body, docs };
}

/** initialize and notifications answer properly; tools/list answers a truncated JSON body. */
function brokenToolsHandler(_req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, body: Buffer): void {
  let msg: { id?: unknown; method?: string } | undefined;
  try {
    msg = JSON.parse(body.toString('utf8'));
  } catch {
    msg = undefined;
  }
  if (msg?.method === 'initialize') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'half-built', version: '0.0.1' } } }));
  } else if (msg?.method?.startsWith('notifications/')) {
    res.writeHead(202).end();
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(msg?.id ?? null)},"result":{"tools":[{"name":"search","inputSchema":{"type":"obj`);
  }
}
