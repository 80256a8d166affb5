// Auth walls (methodology v2, "Probe", step 5; the study's RQ3): after a 401 (or a 403 with
// WWW-Authenticate) we parse every challenge and look for RFC 9728 protected-resource metadata at, in
// order, the `resource_metadata` URL of a challenge, the path-form well-known URL, the root one —
// stopping at the first VALID document (a `resource` string and a non-empty `authorization_servers`
// array of strings). MCP's own discovery stops at a present hint; trying the well-knowns after a
// dead or invalid hint is the study's procedure, and it is what we record (v2-protocol notes §7.6).
//
// These URLs come from the server: they get exactly the same address checks (before sending, on every
// redirect hop, and in the connector), redirect bound, deadline and a body cap (64 KiB) as every other
// request. A refused URL costs no request. Candidates are the requests dropped first when the
// per-endpoint budget would be exceeded (`reserve` keeps room for the session DELETE).
import {
  checkProtectedResourceMetadata,
  parseWwwAuthenticate,
  protectedResourceMetadataUrls,
  resourceMetadataHint,
  type AUTH_METADATA_SOURCES,
} from '../../src/lib/index.ts';
import { hostRefusal } from '../address-policy.ts';
import { GUARD } from '../errors.ts';
import { readCapped, formatBytes } from '../http.ts';
import { NOT_SENT, wwwAuthenticate, type Exchange, type Wire } from './wire.ts';

export type MetadataSource = (typeof AUTH_METADATA_SOURCES)[number];

export interface AuthFacts {
  httpStatus: 401 | 403;
  /** Every WWW-Authenticate line of the answer, joined (null: none, possible on a 401). */
  challenge: string | null;
  /** Every challenge's scheme, lower-cased. */
  schemes: string[];
  bearer: boolean;
  /** Why the challenge could not be read whole, or null. */
  challengeError: string | null;
  metadataValid: boolean;
  source: MetadataSource | null;
  metadataUrl: string | null;
  resourceMatches: boolean | null;
  /** What each candidate that gave no valid document gave instead. */
  problems: Array<{ source: MetadataSource; url: string | null; problem: string }>;
}

/** Whether an answer is an auth challenge the probe follows: a 401, or a 403 with WWW-Authenticate. */
export function isChallenge(x: Exchange): boolean {
  return x.status === 401 || (x.status === 403 && wwwAuthenticate(x.headers) !== null);
}

export async function authFacts(w: Wire, x: Exchange, resourceUrl: string, reserve: number): Promise<AuthFacts> {
  const challenge = wwwAuthenticate(x.headers);
  const parsed = parseWwwAuthenticate((challenge ?? '').slice(0, 8192));
  const facts: AuthFacts = {
    httpStatus: x.status === 403 ? 403 : 401,
    challenge,
    schemes: parsed.challenges.map((c) => c.scheme.slice(0, 64)),
    bearer: parsed.challenges.some((c) => c.scheme === 'bearer'),
    challengeError: parsed.error,
    metadataValid: false,
    source: null,
    metadataUrl: null,
    resourceMatches: null,
    problems: [],
  };
  // The resource is the URL that answered with the challenge (after redirects).
  const resource = x.url ?? resourceUrl;
  const candidates: Array<{ source: MetadataSource; url: string | null; expected: string; why?: string }> = [];
  const hint = resourceMetadataHint(parsed.challenges);
  if (hint !== null) {
    let url: string | null = null;
    try {
      url = new URL(hint, resource).href;
    } catch {
      /* recorded below */
    }
    candidates.push({ source: 'hint', url, expected: resource, why: url === null ? 'resource_metadata is not a url' : undefined });
  }
  const wellKnown = protectedResourceMetadataUrls(resource);
  if (wellKnown.path) candidates.push({ source: 'well_known_path', url: wellKnown.path.url, expected: wellKnown.path.resource });
  candidates.push({ source: 'well_known_root', url: wellKnown.root.url, expected: wellKnown.root.resource });

  const tried = new Set<string>();
  for (const c of candidates) {
    const problem = (p: string) => facts.problems.push({ source: c.source, url: c.url, problem: p });
    if (c.url === null) {
      problem(c.why ?? 'no url');
      continue;
    }
    // The same URL twice (a hint naming the well-known URL itself) is fetched once.
    if (tried.has(c.url)) continue;
    tried.add(c.url);
    const refusal = hostRefusal(new URL(c.url), w.ctx.policy);
    if (refusal) {
      problem(`refused address: ${refusal}`);
      continue;
    }
    if (w.left <= reserve) {
      problem('not fetched: request budget spent');
      continue;
    }
    const got = await w.get('metadata', c.url, 'application/json', w.limits.timeoutMs, async (a) => {
      if (a.status !== 200) {
        await a.body.dump({ limit: 64 * 1024 }).catch(() => {});
        return null;
      }
      return (await readCapped(a.body, w.limits.metadataCap, 'metadata')).toString('utf8');
    });
    if (got === NOT_SENT) {
      problem('not fetched: request budget spent');
      continue;
    }
    if (got.error !== null) {
      problem(describe(got.error, w.limits.metadataCap));
      continue;
    }
    if (got.value === null) {
      problem(`http ${got.status}`);
      continue;
    }
    const check = checkProtectedResourceMetadata(got.value, c.expected);
    if (!check.valid) {
      problem(check.problem ?? 'invalid');
      continue;
    }
    facts.metadataValid = true;
    facts.source = c.source;
    facts.metadataUrl = c.url;
    facts.resourceMatches = check.resourceMatches;
    break;
  }
  return facts;
}

function describe(error: unknown, cap: number): string {
  const e = error as { code?: unknown; name?: unknown; message?: unknown };
  if (e?.code === GUARD.addressRefused) return String(e.message);
  if (e?.code === GUARD.overCap) return `metadata over ${formatBytes(cap)} cap`;
  if (e?.code === GUARD.redirectNotFollowed) return String(e.message);
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  const code = typeof e?.code === 'string' ? e.code : String(e?.name ?? 'error');
  return `request failed: ${code}`;
}
