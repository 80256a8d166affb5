// What crosses to another origin on a redirect: the collector follows 307/308 across
// origins (it sends no credentials), but nothing it learnt from a server's answer may go with it —
// not the Mcp-Session-Id that origin issued, nor the MCP-Protocol-Version negotiated with it. Seen
// at the receiving servers: the era zoo's legacy-session-redirect case (SDK v1 servers) and a pair
// of counting hosts that negotiate 2025-06-18 (the first revision that defines the header).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpContext } from '../../collector/http.ts';
import { DEFAULT_PROBE_LIMITS, probe } from '../../collector/probe.ts';
import { USER_AGENT } from '../../collector/version.ts';
import { mcpResponder, startCountingHosts, type CountingHosts, type Responder } from '../../sandbox/counting-hosts.ts';
import { startEraZoo, type EraZoo } from '../../sandbox/era-servers.ts';
import { realTools } from './world.ts';

const limits = { ...DEFAULT_PROBE_LIMITS, timeoutMs: 5_000 };
let zoo: EraZoo<'legacy-session-redirect'>;
let pair: CountingHosts;

beforeAll(async () => {
  zoo = await startEraZoo({ cases: ['legacy-session-redirect'] });
  pair = await startCountingHosts(['127.0.6.1', '127.0.6.2'], { record: true });
  const [a, b] = pair.hosts;
  b!.mount('/mcp', mcpResponder({ tools: realTools(0) }));
  // Origin A: initialize answered here with a session and revision 2025-06-18; everything else → 307 to B.
  const serveA = mcpResponder({ tools: realTools(0), stateful: true, protocolVersion: '2025-06-18' });
  const away: Responder = (req, res, body, at) => {
    const rpc = (JSON.parse(body.toString() || '{}') as { method?: string }).method;
    if (rpc === 'initialize') serveA(req, res, body, at);
    else res.writeHead(307, { location: `${b!.origin}/mcp` }).end();
  };
  a!.mount('/mcp', away);
});
afterAll(async () => {
  await zoo?.close();
  await pair?.close();
});

describe('probe(endpoint) across a cross-origin redirect', () => {
  it('does not send the session id an SDK server issued to the origin it is redirected to', async () => {
    const url = zoo.urls['legacy-session-redirect'];
    const http = createHttpContext({ allowPrivate: true, timeoutMs: limits.timeoutMs });
    const r = await probe(http, url, limits);
    await http.dispatcher.close();
    expect(r.ok).toBe(true);
    expect(r.session).toBe(true);
    const seen = zoo.requests('legacy-session-redirect');
    const a = new URL(url).origin;
    const atB = seen.filter((x) => x.origin !== a);
    expect(atB.length).toBeGreaterThanOrEqual(2); // notifications/initialized and tools/list, followed
    for (const x of atB) expect(x.headers, `${x.method} ${x.path}`).not.toHaveProperty('mcp-session-id');
    // The session id did go to A, where it belongs (the redirected requests and the DELETE, which is not followed).
    expect(seen.filter((x) => x.origin === a && x.headers['mcp-session-id'] !== undefined).length).toBeGreaterThanOrEqual(2);
    expect(seen.every((x) => x.headers['user-agent'] === USER_AGENT)).toBe(true);
  });

  it('sends neither the session id nor the negotiated protocol version to the other origin', async () => {
    const [a, b] = pair.hosts;
    const http = createHttpContext({ allowPrivate: true, timeoutMs: limits.timeoutMs });
    const r = await probe(http, `${a!.origin}/mcp`, limits);
    await http.dispatcher.close();
    expect(r).toMatchObject({ ok: true, session: true, protocolVersion: '2025-06-18', redirects: 1 });
    const atA = pair.log.filter((x) => x.host === a!.host);
    const atB = pair.log.filter((x) => x.host === b!.host);
    expect(atB.map((x) => x.rpc)).toEqual(['notifications/initialized', 'tools/list']);
    for (const x of atB) expect([x.sessionId, x.protocolVersion]).toEqual([null, null]);
    // At A the same requests carried both: they were set, and dropped at the origin change.
    const redirected = atA.filter((x) => x.rpc === 'notifications/initialized' || x.rpc === 'tools/list');
    expect(redirected).toHaveLength(2);
    for (const x of redirected) {
      expect(x.sessionId).toMatch(/^s-/);
      expect(x.protocolVersion).toBe('2025-06-18');
    }
  });
});
