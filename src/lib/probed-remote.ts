// Which remote of a registry entry the v1 probe contacts (methodology v1, "Roster" → "Targets"): the
// first `remotes[]` entry of type streamable-http, scanning the whole array (real entries list an
// `sse` remote first). A URL still holding {template} variables, or not an http(s) URL, is no
// endpoint. The collector selects targets with it, and the per-server descriptor says with it which
// remote was probed and why: one rule, so the two cannot disagree. `remotes` is registry text.
import { isObject } from './canonical.ts';

export interface ProbedRemote {
  /** Index in `remotes[]` of the first streamable-http remote, or null when there is none. */
  index: number | null;
  /** Its URL, trimmed, when it can be probed. */
  endpoint: string | null;
  /** Why there is no endpoint: `no_streamable_http`, `templated_url`, `invalid_url`. */
  problem: string | null;
}

export function probedRemote(remotes: unknown): ProbedRemote {
  const index = Array.isArray(remotes) ? remotes.findIndex((r) => isObject(r) && r.type === 'streamable-http') : -1;
  const remote: unknown = index >= 0 ? (remotes as unknown[])[index] : undefined;
  if (!isObject(remote) || typeof remote.url !== 'string') return { index: index >= 0 ? index : null, endpoint: null, problem: 'no_streamable_http' };
  const url = remote.url.trim();
  if (/\{[^}]*\}/.test(url)) return { index, endpoint: null, problem: 'templated_url' };
  if (url.length > 4096) return { index, endpoint: null, problem: 'invalid_url' };
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { index, endpoint: null, problem: 'invalid_url' };
  } catch {
    return { index, endpoint: null, problem: 'invalid_url' };
  }
  return { index, endpoint: url, problem: null };
}
