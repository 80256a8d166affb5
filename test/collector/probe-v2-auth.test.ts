// collector/probe-v2/auth.ts through its real input: a challenge answered by a raw loopback server to a
// v2 Wire's POST, then the RFC 9728 metadata search against the same server — the hint, the path-form
// and the root well-known URL, in that order, stopping at the first valid document — with each way a
// candidate can fail, the challenge's own reading, and the request budget's edge.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { authFacts, isChallenge, type AuthFacts } from '../../collector/probe-v2/auth.ts';
import { initializeBody } from '../../collector/probe-v2/requests.ts';
import { Wire, type Exchange, type ProbeV2Limits } from '../../collector/probe-v2/wire.ts';
import { withLoopback, type Loopback } from './loopback.ts';

const WK = '/.well-known/oauth-protected-resource';
type Route = (req: IncomingMessage, res: ServerResponse, origin: string) => unknown;
const doc = (resource: string, servers: unknown = ['https://as.example']) => JSON.stringify({ resource, authorization_servers: servers });
const ok = (text: (origin: string) => string): Route => (_req, res, origin) => res.writeHead(200, { 'content-type': 'application/json' }).end(text(origin));
/** POST /mcp (or `at`) answers `status` with these WWW-Authenticate lines (`{o}` becomes the origin). */
const wall = (lines: string[], status = 401): Route => (_req, res, origin) => {
  if (lines.length) res.setHeader('www-authenticate', lines.map((l) => l.replaceAll('{o}', origin)));
  res.writeHead(status).end();
};

interface Run {
  x: Exchange;
  facts: AuthFacts;
  l: Loopback;
  origin: string;
  /** The GETs sent (first hop), by path. */
  gets: string[];
}
async function probe(routes: Record<string, Route>, o: { limits?: Partial<ProbeV2Limits>; reserve?: number; at?: string } = {}): Promise<Run> {
  return withLoopback(
    (_m, req, res) => {
      const origin = `http://${req.headers.host}`;
      const r = routes[`${req.method} ${req.url}`];
      if (r) return r(req, res, origin);
      res.writeHead(404, { 'content-type': 'text/html' }).end('<p>not found</p>');
    },
    o.limits ?? {},
    async (l) => {
      const origin = new URL(l.url).origin;
      const url = `${origin}${o.at ?? '/mcp'}`;
      const x = (await l.wire.post('initialize', 'initialize', url, initializeBody('2025-06-18'), Wire.base(), 1, l.wire.limits.smallCap)) as Exchange;
      const facts = await authFacts(l.wire, x, url, o.reserve ?? 0);
      return { x, facts, l, origin, gets: l.wire.log.filter((e) => e.method === 'GET').map((e) => e.url.slice(origin.length)) };
    },
  );
}

describe('isChallenge: a 401, or a 403 that carries WWW-Authenticate', () => {
  it.each<[string, Route, boolean]>([
    ['401 with a challenge', wall(['Bearer']), true],
    ['401 without one', wall([]), true],
    ['403 with a challenge', wall(['Bearer'], 403), true],
    ['near miss: 403 without one', wall([], 403), false],
    ['near miss: 400 with a challenge', wall(['Bearer'], 400), false],
  ])('%s: %s', async (_, route, want) => {
    const { x } = await probe({ 'POST /mcp': route });
    expect(isChallenge(x)).toBe(want);
  });
});

describe('the challenge as read', () => {
  it('every line joined, every scheme lower-cased, bearer found among others', async () => {
    const { facts } = await probe({ 'POST /mcp': wall(['Basic realm="a, b"', 'BEARER realm="x"']) });
    expect(facts).toMatchObject({ httpStatus: 401, challenge: 'Basic realm="a, b", BEARER realm="x"', schemes: ['basic', 'bearer'], bearer: true, challengeError: null });
  });
  it('near miss: no bearer among the schemes; a 403 is recorded as 403', async () => {
    const { facts } = await probe({ 'POST /mcp': wall(['Basic realm="x"'], 403) });
    expect(facts).toMatchObject({ httpStatus: 403, schemes: ['basic'], bearer: false, challengeError: null });
  });
  it('a 401 without WWW-Authenticate: no challenge, no schemes', async () => {
    const { facts } = await probe({ 'POST /mcp': wall([]) });
    expect(facts).toMatchObject({ httpStatus: 401, challenge: null, schemes: [], bearer: false, challengeError: null });
  });
  it('a challenge that breaks off: the error is kept with what was read before it', async () => {
    const { facts } = await probe({ 'POST /mcp': wall(['Bearer realm="x", Basic realm="open']) });
    expect(facts.schemes).toEqual(['bearer']);
    expect(facts.challengeError).toEqual(expect.any(String));
  });
  it('only the first 8,192 characters are parsed; a scheme is kept to 64 characters', async () => {
    const first = `Bearer realm="${'a'.repeat(8192 - 'Bearer realm=""'.length)}"`;
    expect(first).toHaveLength(8192);
    const { facts } = await probe({ 'POST /mcp': wall([`${first}, Basic realm="x"`]) });
    expect(facts.schemes).toEqual(['bearer']);
    expect(facts.challengeError).toBeNull();
    const long = await probe({ 'POST /mcp': wall([`${'X'.repeat(100)} realm="x"`]) });
    expect(long.facts.schemes).toEqual(['x'.repeat(64)]);
  });
});

describe('where the metadata is looked for, and where the search stops', () => {
  it('a valid document at the hint: one GET, source hint, its resource the URL that was challenged', async () => {
    const r = await probe({ 'POST /mcp': wall(['Bearer resource_metadata="{o}/meta"']), 'GET /meta': ok((o) => doc(`${o}/mcp`)) });
    expect(r.gets).toEqual(['/meta']);
    expect(r.facts).toMatchObject({ metadataValid: true, source: 'hint', metadataUrl: `${r.origin}/meta`, resourceMatches: true, problems: [] });
    expect(r.l.wire.log.at(-1)).toMatchObject({ kind: 'metadata', method: 'GET', counted: true, status: 200 });
    expect(r.l.got.at(-1)?.headers.accept).toBe('application/json');
  });
  it('a relative hint is resolved against the challenged URL', async () => {
    const r = await probe({ 'POST /mcp': wall(['Bearer resource_metadata="meta"']), 'GET /meta': ok((o) => doc(`${o}/mcp`)) });
    expect(r.facts).toMatchObject({ metadataValid: true, source: 'hint', metadataUrl: `${r.origin}/meta` });
  });
  it('a valid document whose resource is another: valid, the search stops, resourceMatches false', async () => {
    const r = await probe({ 'POST /mcp': wall(['Bearer resource_metadata="{o}/meta"']), 'GET /meta': ok(() => doc('https://elsewhere.example/mcp')) });
    expect(r.gets).toEqual(['/meta']);
    expect(r.facts).toMatchObject({ metadataValid: true, source: 'hint', resourceMatches: false });
  });
  it('a dead hint: the path-form well-known URL next, judged against the resource with its path', async () => {
    const r = await probe({ 'POST /mcp': wall(['Bearer resource_metadata="{o}/gone"']), [`GET ${WK}/mcp`]: ok((o) => doc(`${o}/mcp`)) });
    expect(r.gets).toEqual(['/gone', `${WK}/mcp`]);
    expect(r.facts).toMatchObject({ metadataValid: true, source: 'well_known_path', metadataUrl: `${r.origin}${WK}/mcp`, resourceMatches: true, problems: [{ source: 'hint', url: `${r.origin}/gone`, problem: 'http 404' }] });
  });
  it('no hint, no path-form document: the root one, judged against the origin', async () => {
    const r = await probe({ 'POST /mcp': wall(['Bearer']), [`GET ${WK}`]: ok((o) => doc(o)) });
    expect(r.gets).toEqual([`${WK}/mcp`, WK]);
    expect(r.facts).toMatchObject({ metadataValid: true, source: 'well_known_root', metadataUrl: `${r.origin}${WK}`, resourceMatches: true, problems: [{ source: 'well_known_path', url: `${r.origin}${WK}/mcp`, problem: 'http 404' }] });
  });
  it('an endpoint at the root has no path form: the root well-known URL only', async () => {
    const r = await probe({ 'POST /': wall(['Bearer']) }, { at: '/' });
    expect(r.gets).toEqual([WK]);
    expect(r.facts).toMatchObject({ metadataValid: false, source: null, metadataUrl: null, resourceMatches: null, problems: [{ source: 'well_known_root', url: `${r.origin}${WK}`, problem: 'http 404' }] });
  });
  it('a challenge after a redirect: the resource is the URL that answered', async () => {
    const r = await probe({ 'POST /mcp': (_req, res) => res.writeHead(307, { location: '/v2/mcp' }).end(), 'POST /v2/mcp': wall(['Bearer']), [`GET ${WK}/v2/mcp`]: ok((o) => doc(`${o}/v2/mcp`)) });
    expect(r.gets).toEqual([`${WK}/v2/mcp`]);
    expect(r.facts).toMatchObject({ metadataValid: true, source: 'well_known_path', resourceMatches: true });
  });
  it('a hint naming the path-form URL itself is fetched once', async () => {
    const r = await probe({ 'POST /mcp': wall([`Bearer resource_metadata="{o}${WK}/mcp"`]) });
    expect(r.gets).toEqual([`${WK}/mcp`, WK]);
    expect(r.facts.problems.map((p) => [p.source, p.problem])).toEqual([
      ['hint', 'http 404'],
      ['well_known_root', 'http 404'],
    ]);
  });
  it('a hint that is not a URL is a problem of its own, and the well-knowns follow', async () => {
    const r = await probe({ 'POST /mcp': wall(['Bearer resource_metadata="http://["']) });
    expect(r.gets).toEqual([`${WK}/mcp`, WK]);
    expect(r.facts.problems[0]).toEqual({ source: 'hint', url: null, problem: 'resource_metadata is not a url' });
  });
});

describe('what each candidate that gave no valid document gave instead', () => {
  const hinted = (meta: Route, limits: Partial<ProbeV2Limits> = {}) => probe({ 'POST /mcp': wall(['Bearer resource_metadata="{o}/meta"']), 'GET /meta': meta }, { limits });
  const first = async (meta: Route, limits?: Partial<ProbeV2Limits>) => (await hinted(meta, limits)).facts.problems[0]?.problem;

  it.each<[string, Route, string]>([
    ['a valid document with status 201 (only 200 counts)', (_req, res, o) => res.writeHead(201, { 'content-type': 'application/json' }).end(doc(`${o}/mcp`)), 'http 201'],
    ['not JSON', (_req, res) => res.writeHead(200).end('<html>'), 'not json'],
    ['no resource', (_req, res) => res.writeHead(200).end('{"authorization_servers":["https://as"]}'), 'no resource'],
    ['no authorization server', (_req, res, o) => res.writeHead(200).end(doc(`${o}/mcp`, [])), 'authorization_servers is empty'],
    ['a redirect loop', (_req, res) => res.writeHead(302, { location: '/meta' }).end(), 'redirect not followed: more than 3 redirects'],
  ])('%s', async (_, meta, problem) => {
    expect(await first(meta)).toBe(problem);
  });

  it('a document over the metadata cap', async () => {
    expect(await first((_req, res, o) => res.writeHead(200).end(doc(`${o}/mcp`) + ' '.repeat(2048)), { metadataCap: 1024 })).toBe('metadata over 1 KiB cap');
  });
  it('no answer by the deadline', async () => {
    expect(await first(() => undefined, { timeoutMs: 300 })).toBe('timeout');
  });
  // Liveness, not timing: read to the 30 s deadline, this test would not finish.
  it('a 404 that keeps streaming is dropped after 64 KiB, not read to the deadline', async () => {
    const meta: Route = (_req, res) => (res.writeHead(404, { 'content-type': 'text/html' }), res.write('x'.repeat(100 * 1024)));
    expect(await first(meta, { timeoutMs: 30_000 })).toBe('http 404');
  });
  it('the connection dropped', async () => {
    expect(await first((req) => req.socket.destroy())).toMatch(/^request failed: [A-Z_]+$/);
  });
  it('a redirect to a private address: refused on the hop, its reason kept', async () => {
    expect(await first((_req, res) => res.writeHead(307, { location: 'http://10.0.0.1/meta' }).end())).toBe('refused address: 10.0.0.1 is private');
  });
  it('a hint at a private address costs no request', async () => {
    const r = await probe({ 'POST /mcp': wall(['Bearer resource_metadata="http://10.0.0.1/meta"']) });
    expect(r.gets).toEqual([`${WK}/mcp`, WK]);
    expect(r.facts.problems[0]).toEqual({ source: 'hint', url: 'http://10.0.0.1/meta', problem: 'refused address: 10.0.0.1 is private' });
  });
});

describe('the request budget: candidates are dropped first, `reserve` kept', () => {
  // The challenge's POST spends one request; `left` is budget - 1 when the search starts.
  it.each<[string, number, number, string[]]>([
    ['left equal to reserve: nothing fetched', 3, 2, []],
    ['left one above reserve: one fetched', 4, 2, ['/meta']],
  ])('%s', async (_, budget, reserve, gets) => {
    const r = await probe({ 'POST /mcp': wall(['Bearer resource_metadata="{o}/meta"']) }, { limits: { budget }, reserve });
    expect(r.gets).toEqual(gets);
    expect(r.facts.problems.filter((p) => p.problem === 'not fetched: request budget spent')).toHaveLength(3 - gets.length);
    expect(r.l.wire.spent).toBe(1 + gets.length);
  });
});
