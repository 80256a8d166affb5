// RFC 9728 metadata: where to look (§3.1) and what counts (validity; §3.3 match as a secondary fact).
import { describe, expect, it } from 'vitest';
import {
  checkProtectedResourceMetadata,
  protectedResourceMetadataUrls,
} from '../../src/lib/protected-resource-metadata.ts';

describe('protectedResourceMetadataUrls(resource)', () => {
  it.each([
    ['https://h/a/mcp?x=1', 'https://h/.well-known/oauth-protected-resource/a/mcp?x=1', 'https://h/a/mcp?x=1'],
    ['https://h/public/mcp', 'https://h/.well-known/oauth-protected-resource/public/mcp', 'https://h/public/mcp'],
    ['https://h:8443/mcp/', 'https://h:8443/.well-known/oauth-protected-resource/mcp/', 'https://h:8443/mcp/'],
    ['https://h/?x=1', 'https://h/.well-known/oauth-protected-resource?x=1', 'https://h?x=1'],
    ['https://user:pw@H.example/mcp#frag', 'https://h.example/.well-known/oauth-protected-resource/mcp', 'https://h.example/mcp'],
  ])('%s → path form %s', (resource, url, id) => {
    const got = protectedResourceMetadataUrls(resource);
    expect(got.path).toEqual({ url, resource: id });
    expect(got.root.url).toBe(`${new URL(resource).origin}/.well-known/oauth-protected-resource`);
  });

  it('a resource without path or query has only the root form (the terminating slash is removed)', () => {
    expect(protectedResourceMetadataUrls('https://h/')).toEqual({ path: null, root: { url: 'https://h/.well-known/oauth-protected-resource', resource: 'https://h' } });
    expect(protectedResourceMetadataUrls('https://h').path).toBeNull();
  });

  it('throws on a relative URL', () => {
    expect(() => protectedResourceMetadataUrls('/mcp')).toThrow(TypeError);
  });
});

describe('checkProtectedResourceMetadata(text, expectedResource)', () => {
  const doc = (o: unknown) => JSON.stringify(o);
  it('valid: a resource string and a non-empty authorization_servers array of strings; §3.3 match apart', () => {
    expect(checkProtectedResourceMetadata(doc({ resource: 'https://h/mcp', authorization_servers: ['https://as'], extra: 1 }), 'https://h/mcp')).toEqual({ valid: true, resource: 'https://h/mcp', resourceMatches: true, problem: null });
    expect(checkProtectedResourceMetadata(doc({ resource: 'https://elsewhere/mcp', authorization_servers: ['https://as'] }), 'https://h/mcp')).toMatchObject({ valid: true, resourceMatches: false });
    // Code-point equality: a trailing slash or a case difference is a mismatch.
    expect(checkProtectedResourceMetadata(doc({ resource: 'https://h/mcp/', authorization_servers: ['x'] }), 'https://h/mcp').resourceMatches).toBe(false);
  });
  it('a resource is kept up to 2,048 characters; a longer one is cut there, and the §3.3 match reads the whole one', () => {
    const base = 'https://h/';
    const at = base + 'a'.repeat(2048 - base.length);
    expect(at).toHaveLength(2048);
    expect(checkProtectedResourceMetadata(doc({ resource: at, authorization_servers: ['x'] }), at)).toEqual({ valid: true, resource: at, resourceMatches: true, problem: null });
    const over = `${at}b`;
    const got = checkProtectedResourceMetadata(doc({ resource: over, authorization_servers: ['x'] }), over);
    expect(got.resource).toBe(at);
    expect(got.resourceMatches).toBe(true);
    // Cut on an invalid document too: the problem is reported with the clipped resource.
    expect(checkProtectedResourceMetadata(doc({ resource: over, authorization_servers: [] }), over)).toEqual({ valid: false, resource: at, resourceMatches: null, problem: 'authorization_servers is empty' });
    // The cut value never matches by accident: a resource equal to the expected one only in its first 2,048 characters does not match.
    expect(checkProtectedResourceMetadata(doc({ resource: over, authorization_servers: ['x'] }), at).resourceMatches).toBe(false);
  });
  it.each([
    ['<!doctype html><title>Sign in</title>', 'not json'],
    ['[1,2]', 'not a json object'],
    [doc({ authorization_servers: ['https://as'] }), 'no resource'],
    [doc({ resource: 7, authorization_servers: ['https://as'] }), 'resource is not a string'],
    [doc({ resource: 'https://h/mcp' }), 'no authorization_servers'],
    [doc({ resource: 'https://h/mcp', authorization_servers: 'https://as' }), 'authorization_servers is not an array'],
    [doc({ resource: 'https://h/mcp', authorization_servers: [] }), 'authorization_servers is empty'],
    [doc({ resource: 'https://h/mcp', authorization_servers: ['https://as', { url: 'x' }] }), 'authorization_servers holds a non-string'],
  ])('invalid: %s → %s', (text, problem) => {
    expect(checkProtectedResourceMetadata(text, 'https://h/mcp')).toMatchObject({ valid: false, resourceMatches: null, problem });
  });
});
