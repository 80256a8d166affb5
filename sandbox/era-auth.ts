// Auth-gated endpoints for the era zoo: the 401/403 challenges and RFC 9728 protected-resource
// metadata documents the v2 probe must follow and judge (methodology v2, step 5). Each case is a
// whole origin, because where metadata lives is a property of the origin: the resource_metadata URL
// from the challenge, then `/.well-known/oauth-protected-resource{path}`, then the root
// `/.well-known/oauth-protected-resource` (MCP 2026-07-28 Authorization Server Discovery; RFC 9728 §3).
//
// A document is "valid" here the way the study counts it (a `resource` string and a non-empty
// `authorization_servers`); its `resource` is also the exact value RFC 9728 §3.3 requires: the URL
// the client requested (when found through the challenge) or the identifier the well-known URL was
// built from (the endpoint URL for the path form, the bare origin for the root form).
//
// The private-address cases NAME 10.0.0.1 and 169.254.169.254 but nothing here ever contacts them: a
// client that follows those URLs is the bug the probe's tests exist to catch (and this workplace flags
// traffic to private ranges), so probe tests must refuse them before connecting.
import type { Serve } from './era-sdk.ts';

export const AUTH_CASES = [
  'auth-header-metadata',
  'auth-wellknown-path',
  'auth-wellknown-root',
  'auth-no-metadata',
  'auth-not-bearer',
  'auth-multi-challenge',
  'auth-403-challenge',
  'auth-metadata-private',
  'auth-metadata-link-local',
  'auth-metadata-redirect-private',
  'auth-metadata-oversized',
  'auth-metadata-not-json',
  'auth-metadata-no-resource',
  'auth-metadata-empty-authorization-servers',
  'auth-metadata-resource-mismatch',
] as const;
export type AuthCase = (typeof AUTH_CASES)[number];

/** Where the challenge's resource_metadata points, on the case's own origin. */
export const HINTED_METADATA_PATH = '/meta/protected-resource.json';
export const WELL_KNOWN = '/.well-known/oauth-protected-resource';
export const PRIVATE_METADATA_URL = 'http://10.0.0.1/.well-known/oauth-protected-resource';
export const LINK_LOCAL_METADATA_URL = 'http://169.254.169.254/latest/meta-data/iam/security-credentials/';

type Doc =
  | { json: unknown }
  | { text: string; contentType: string }
  | { redirect: string; status: 302 | 307 }
  /** A JSON document of exactly `bytes` bytes, sent chunked (no Content-Length to trust). */
  | { oversized: number };

interface AuthSpec {
  status: 401 | 403;
  challenge: string;
  /** GET routes (exact path) → document; everything else is 404. */
  docs: Record<string, Doc>;
}

export function authEndpoint(c: AuthCase, origin: string, path: string, opts: { oversizedMetadataBytes: number }): Serve {
  const spec = authSpec(c, origin, path, opts.oversizedMetadataBytes);
  return async (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === path) {
      res.writeHead(spec.status, { 'content-type': 'application/json', 'www-authenticate': spec.challenge });
      res.end(JSON.stringify({ error: spec.status === 401 ? 'invalid_token' : 'insufficient_scope', error_description: 'era zoo: authorization required' }));
      return;
    }
    const doc = req.method === 'GET' ? spec.docs[url.pathname] : undefined;
    if (!doc) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    sendDoc(res, doc);
  };
}

function authSpec(c: AuthCase, origin: string, path: string, oversized: number): AuthSpec {
  const endpoint = origin + path;
  const hinted = origin + HINTED_METADATA_PATH;
  const pathForm = WELL_KNOWN + path;
  const valid = (resource: string) => ({
    json: {
      resource,
      authorization_servers: [`${origin}/as`],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
    },
  });
  const bearer = (url: string) => `Bearer realm="era-zoo", resource_metadata="${url}"`;
  switch (c) {
    case 'auth-header-metadata':
      return { status: 401, challenge: bearer(hinted), docs: { [HINTED_METADATA_PATH]: valid(endpoint) } };
    case 'auth-wellknown-path':
      return { status: 401, challenge: 'Bearer realm="era-zoo"', docs: { [pathForm]: valid(endpoint) } };
    case 'auth-wellknown-root':
      return { status: 401, challenge: 'Bearer realm="era-zoo"', docs: { [WELL_KNOWN]: valid(origin) } };
    case 'auth-no-metadata':
      return { status: 401, challenge: 'Bearer realm="era-zoo"', docs: {} };
    case 'auth-not-bearer':
      // Valid metadata, but a Basic challenge: "is the challenge Bearer" is recorded apart from "is the metadata valid".
      return { status: 401, challenge: 'Basic realm="era-zoo"', docs: { [pathForm]: valid(endpoint) } };
    case 'auth-multi-challenge':
      // Two challenges in one field (RFC 9110 §11.6.1), a comma inside a quoted realm, Bearer second.
      return {
        status: 401,
        challenge: `Basic realm="era, zoo", Bearer error="invalid_token", resource_metadata="${hinted}"`,
        docs: { [HINTED_METADATA_PATH]: valid(endpoint) },
      };
    case 'auth-403-challenge':
      // The 2026-07-28 insufficient-scope shape (Authorization, "Scope Challenge Handling").
      return {
        status: 403,
        challenge: `Bearer error="insufficient_scope", scope="mcp:tools", resource_metadata="${hinted}", error_description="era zoo"`,
        docs: { [HINTED_METADATA_PATH]: valid(endpoint) },
      };
    case 'auth-metadata-private':
      return { status: 401, challenge: bearer(PRIVATE_METADATA_URL), docs: {} };
    case 'auth-metadata-link-local':
      return { status: 401, challenge: bearer(LINK_LOCAL_METADATA_URL), docs: {} };
    case 'auth-metadata-redirect-private':
      // The hinted URL is on loopback but redirects to a private address; the path-form well-known
      // redirects to the cloud metadata address, so a fallback does not escape the check either.
      return {
        status: 401,
        challenge: bearer(hinted),
        docs: { [HINTED_METADATA_PATH]: { redirect: PRIVATE_METADATA_URL, status: 302 }, [pathForm]: { redirect: LINK_LOCAL_METADATA_URL, status: 307 } },
      };
    case 'auth-metadata-oversized':
      return { status: 401, challenge: bearer(hinted), docs: { [HINTED_METADATA_PATH]: { oversized } } };
    case 'auth-metadata-not-json':
      return { status: 401, challenge: bearer(hinted), docs: { [HINTED_METADATA_PATH]: { text: '<!doctype html><title>Sign in</title><p>Sign in to continue</p>', contentType: 'application/json' } } };
    case 'auth-metadata-no-resource':
      return { status: 401, challenge: bearer(hinted), docs: { [HINTED_METADATA_PATH]: { json: { authorization_servers: [`${origin}/as`] } } } };
    case 'auth-metadata-empty-authorization-servers':
      return { status: 401, challenge: bearer(hinted), docs: { [HINTED_METADATA_PATH]: { json: { resource: endpoint, authorization_servers: [] } } } };
    case 'auth-metadata-resource-mismatch':
      // Shaped like a valid document, but RFC 9728 §3.3 says its data MUST NOT be used.
      return { status: 401, challenge: bearer(hinted), docs: { [HINTED_METADATA_PATH]: { json: { resource: 'https://elsewhere.example/mcp', authorization_servers: [`${origin}/as`] } } } };
  }
}

function sendDoc(res: Parameters<Serve>[1], doc: Doc): void {
  if ('json' in doc) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc.json));
  } else if ('text' in doc) {
    res.writeHead(200, { 'content-type': doc.contentType }).end(doc.text);
  } else if ('redirect' in doc) {
    res.writeHead(doc.status, { location: doc.redirect }).end();
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    writeOversized(res, doc.oversized);
  }
}

/** `{"resource":"…","authorization_servers":["…"],"padding":"xxxx…"}` of exactly `bytes` bytes, in 64 KiB chunks. */
function writeOversized(res: Parameters<Serve>[1], bytes: number): void {
  const head = '{"resource":"https://oversized.example/mcp","authorization_servers":["https://as.example"],"padding":"';
  const tail = '"}';
  let left = bytes - head.length - tail.length;
  if (left < 0) throw new Error(`oversized metadata needs at least ${head.length + tail.length} bytes`);
  res.write(head);
  const chunk = 'x'.repeat(64 * 1024);
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      left -= n;
      if (!res.write(n === chunk.length ? chunk : chunk.slice(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    res.end(tail);
  };
  // A client that stops reading at its cap closes the socket: stop writing then.
  res.once('close', () => (left = 0));
  pump();
}
