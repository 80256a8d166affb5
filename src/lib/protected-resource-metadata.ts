// RFC 9728 protected-resource metadata, as methodology v2 ("Auth") reads it. Where to look (§3.1),
// and whether a document counts (the study's validity rule, which MCP 2026-07-28's Authorization
// Server Discovery tightens from RFC 9728 §2: a `resource` string and a non-empty
// `authorization_servers` array). RFC 9728 §3.3's stricter rule — `resource` identical to the
// identifier the client used — is kept as a secondary fact (`resourceMatches`), never as validity, so
// the published share is comparable with the study's.
import { isObject } from './canonical.ts';

/** The default well-known URI string (RFC 9728 §3). */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The well-known metadata URLs of a resource, and the resource identifier each was built from (what §3.3 compares `resource` with). */
export interface WellKnownMetadataUrls {
  /** Path form: the well-known string inserted between host and path (query kept); null when the resource has neither path nor query. */
  path: { url: string; resource: string } | null;
  /** Root form: the well-known string on the bare origin. */
  root: { url: string; resource: string };
}

/**
 * RFC 9728 §3.1: "a URL formed by inserting a well-known URI string into the protected resource's
 * resource identifier between the host component and the path and/or query components", a terminating
 * slash after the host removed first: `https://h/a/mcp?x=1` → `https://h/.well-known/oauth-protected-resource/a/mcp?x=1`.
 * The root form is the one MCP also names ("or at the root"). Fragments and userinfo are dropped.
 * Throws a TypeError for a string that is not an absolute URL.
 */
export function protectedResourceMetadataUrls(resource: string): WellKnownMetadataUrls {
  const u = new URL(resource);
  const path = u.pathname === '/' ? '' : u.pathname;
  const root = { url: `${u.origin}${PROTECTED_RESOURCE_WELL_KNOWN}`, resource: u.origin };
  if (path === '' && u.search === '') return { path: null, root };
  return { path: { url: `${u.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}${u.search}`, resource: `${u.origin}${path}${u.search}` }, root };
}

export interface ProtectedResourceMetadataCheck {
  /** A JSON object with a `resource` string and a non-empty `authorization_servers` array of strings. */
  valid: boolean;
  /** The document's `resource` when it is a string (clipped to 2,048 characters), else null. */
  resource: string | null;
  /** RFC 9728 §3.3: `resource` is identical to `expectedResource` (code points); null when not valid. */
  resourceMatches: boolean | null;
  /** Why the document is not valid (short text), or null. */
  problem: string | null;
}

/** Judge a metadata document's text (the body of a 200 answer) against the resource identifier §3.3 expects. */
export function checkProtectedResourceMetadata(text: string, expectedResource: string): ProtectedResourceMetadataCheck {
  const no = (problem: string, resource: string | null = null): ProtectedResourceMetadataCheck => ({ valid: false, resource, resourceMatches: null, problem });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return no('not json');
  }
  if (!isObject(doc)) return no('not a json object');
  const resource = typeof doc.resource === 'string' ? doc.resource.slice(0, 2048) : null;
  if (resource === null) return no(doc.resource === undefined ? 'no resource' : 'resource is not a string');
  const servers = doc.authorization_servers;
  if (!Array.isArray(servers)) return no(servers === undefined ? 'no authorization_servers' : 'authorization_servers is not an array', resource);
  if (servers.length === 0) return no('authorization_servers is empty', resource);
  if (!servers.every((s) => typeof s === 'string')) return no('authorization_servers holds a non-string', resource);
  return { valid: true, resource, resourceMatches: doc.resource === expectedResource, problem: null };
}
