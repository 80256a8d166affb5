// parseWwwAuthenticate(value): RFC 9110 §11.6.1 challenges, several per field, quoted commas, token68.
import { describe, expect, it } from 'vitest';
import {
  parseWwwAuthenticate,
  resourceMetadataHint,
  type Challenge,
} from '../../src/lib/www-authenticate.ts';

const ch = (scheme: string, params: Record<string, string> = {}, token68: string | null = null): Challenge => ({ scheme, token68, params: Object.assign(Object.create(null), params) });
const plain = (cs: Challenge[]) => cs.map((c) => ({ scheme: c.scheme, token68: c.token68, params: { ...c.params } }));

describe('parseWwwAuthenticate(value)', () => {
  it.each<[string, string, Challenge[]]>([
    ['a bare scheme', 'Bearer', [ch('bearer')]],
    ['MCP 2026-07-28 401 shape', 'Bearer resource_metadata="https://r.example/.well-known/oauth-protected-resource"', [ch('bearer', { resource_metadata: 'https://r.example/.well-known/oauth-protected-resource' })]],
    [
      'MCP 403 insufficient_scope shape',
      'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://r.example/m", error_description="Additional file write permission required"',
      [ch('bearer', { error: 'insufficient_scope', scope: 'files:read files:write', resource_metadata: 'https://r.example/m', error_description: 'Additional file write permission required' })],
    ],
    ['two challenges, a comma inside a quoted realm, Bearer second', 'Basic realm="era, zoo", Bearer error="invalid_token", resource_metadata="http://h/m"', [ch('basic', { realm: 'era, zoo' }), ch('bearer', { error: 'invalid_token', resource_metadata: 'http://h/m' })]],
    // RFC 9110 §11.6.1's own example.
    ['the RFC example', 'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"', [ch('newauth', { realm: 'apps', type: '1', title: 'Login to "apps"' }), ch('basic', { realm: 'simple' })]],
    ['token68', 'Negotiate YIIFyQYGKwYBBQUCoII=', [ch('negotiate', {}, 'YIIFyQYGKwYBBQUCoII=')]],
    ['token68 then another challenge', 'Negotiate abc==, Bearer realm="x"', [ch('negotiate', {}, 'abc=='), ch('bearer', { realm: 'x' })]],
    ['schemes and names are case-insensitive; values are not', 'BEARER Realm="MiXeD", RESOURCE_METADATA="https://h/m", Max_Age=60', [ch('bearer', { realm: 'MiXeD', resource_metadata: 'https://h/m', max_age: '60' })]],
    ['bad whitespace around "=" and empty list elements', ' , Bearer realm = "x" ,, scope=a , Basic', [ch('bearer', { realm: 'x', scope: 'a' }), ch('basic')]],
    ['a scheme without parameters before another', 'Bearer, Basic realm="r"', [ch('bearer'), ch('basic', { realm: 'r' })]],
    ['a repeated parameter keeps the first value', 'Bearer realm="a", realm="b"', [ch('bearer', { realm: 'a' })]],
    ['an escaped backslash', 'Bearer realm="a\\\\b"', [ch('bearer', { realm: 'a\\b' })]],
    ['__proto__ is just a name', 'Bearer __proto__="x"', [ch('bearer', { ['__proto__']: 'x' })]],
    ['an empty value', '', []],
    ['tabs are white space around "=" and commas', 'Bearer realm\t=\t"x"\t,\tscope=a\t,\tBasic', [ch('bearer', { realm: 'x', scope: 'a' }), ch('basic')]],
    ['a trailing comma after the last parameter', 'Bearer realm="x",', [ch('bearer', { realm: 'x' })]],
    ['empty list elements between parameters', 'Bearer realm="a",, ,scope="b"', [ch('bearer', { realm: 'a', scope: 'b' })]],
    ['a token68 without padding, and one that is all token characters', 'Negotiate a.b~c+d/e_f-g', [ch('negotiate', {}, 'a.b~c+d/e_f-g')]],
    ['a token68 followed by white space and a comma', 'Negotiate abc=  , Basic', [ch('negotiate', {}, 'abc='), ch('basic')]],
  ])('%s', (_l, value, want) => {
    const got = parseWwwAuthenticate(value);
    expect(got.error).toBeNull();
    expect(plain(got.challenges)).toEqual(plain(want));
  });

  it.each([
    ['an unterminated quoted string', 'Basic realm="r", Bearer realm="abc', 1],
    ['a missing comma between parameters', 'Bearer realm="a" scope="b"', 0],
    ['an unquoted URL (":" and "/" are not token characters): never half-read as "https"', 'Basic realm="r", Bearer resource_metadata=https://h/m', 1],
    ['a non-token scheme', '"Bearer"', 0],
    ['garbage after a token68', 'Negotiate abc== def', 0],
  ])('stops at a syntax error (%s), keeping what it read', (_l, value, kept) => {
    const got = parseWwwAuthenticate(value);
    expect(got.error).toMatch(/at character \d+/);
    expect(got.challenges).toHaveLength(kept);
    expect(resourceMetadataHint(got.challenges)).toBeNull();
  });

  // What the probe records as the challenge's error: why, and where (a 0-based index into the value).
  it.each([
    ['a non-token scheme', '"Bearer"', 'expected an auth-scheme at character 0'],
    ['a tab right after the scheme (the grammar asks for a space)', 'Bearer\trealm="x"', 'expected a space or a comma after the auth-scheme at character 6'],
    ['a missing comma between parameters', 'Bearer realm="a" scope="b"', 'expected a comma between parameters at character 17'],
    ['an unquoted URL, read as far as a token goes', 'Basic realm="r", Bearer resource_metadata=https://h/m', 'expected a comma between parameters at character 47'],
    ['neither a token68 nor parameters', 'Negotiate @@', 'expected a token68 or parameters at character 10'],
    ['a token68 that does not start the text after the scheme', 'Negotiate @abc', 'expected a token68 or parameters at character 10'],
    ['"=" with no parameter name before it', 'Bearer =x', 'expected a token68 or parameters at character 7'],
    ['"=" with no parameter name after a comma (a new challenge, which needs a scheme)', 'Bearer a=b, =c', 'expected an auth-scheme at character 12'],
    ['garbage after a token68', 'Negotiate abc== def', 'expected a comma after the token68 at character 16'],
    // `realm=` is itself a token68 (token characters, then "="): the error is after it.
    ['an unquoted value that is no token', 'Bearer realm=@', 'expected a comma after the token68 at character 13'],
  ])('names the error and its place: %s', (_l, value, error) => {
    expect(parseWwwAuthenticate(value).error).toBe(error);
  });

  it('an unterminated quoted string, or one ending in a lone backslash, is never read as a value', () => {
    for (const value of ['Bearer realm="abc', 'Bearer realm="abc\\']) {
      const got = parseWwwAuthenticate(value);
      expect(got.error, value).not.toBeNull();
      expect(got.challenges, value).toEqual([]);
    }
  });

  it('the bounds are exact: 32 challenges and 64 parameters are read whole, one more is an error', () => {
    const at = parseWwwAuthenticate(Array(32).fill('Basic').join(', '));
    expect(at).toMatchObject({ error: null });
    expect(at.challenges).toHaveLength(32);
    const over = parseWwwAuthenticate(Array(33).fill('Basic').join(', '));
    expect(over.challenges).toHaveLength(32);
    expect(over.error).toBe(`more than 32 challenges at character ${32 * 'Basic, '.length}`);
    const params = (k: number) => `Bearer ${Array.from({ length: k }, (_, i) => `p${i}=v`).join(', ')}`;
    const p64 = parseWwwAuthenticate(params(64));
    expect(p64.error).toBeNull();
    expect(Object.keys(p64.challenges[0]!.params)).toHaveLength(64);
    const p65 = parseWwwAuthenticate(params(65));
    expect(p65.error).toMatch(/^more than 64 parameters at character \d+$/);
    expect(p65.challenges).toEqual([]);
  });

  it('bounds hostile input: at most 32 challenges and 64 parameters each', () => {
    expect(parseWwwAuthenticate(Array(40).fill('Basic').join(', ')).challenges).toHaveLength(32);
    const many = parseWwwAuthenticate(`Bearer ${Array.from({ length: 70 }, (_, i) => `p${i}=v`).join(', ')}`);
    expect(many.error).toMatch(/more than 64 parameters/);
  });
});

describe('resourceMetadataHint(challenges)', () => {
  it("prefers a Bearer challenge's resource_metadata, else any challenge's", () => {
    expect(resourceMetadataHint(parseWwwAuthenticate('DPoP resource_metadata="https://a/m", Bearer resource_metadata="https://b/m"').challenges)).toBe('https://b/m');
    expect(resourceMetadataHint(parseWwwAuthenticate('DPoP resource_metadata="https://a/m"').challenges)).toBe('https://a/m');
    expect(resourceMetadataHint(parseWwwAuthenticate('Basic realm="x"').challenges)).toBeNull();
    // A Bearer challenge without the parameter does not hide another challenge's.
    expect(resourceMetadataHint(parseWwwAuthenticate('Bearer realm="x", DPoP resource_metadata="https://a/m"').challenges)).toBe('https://a/m');
    expect(resourceMetadataHint(parseWwwAuthenticate('Bearer realm="x", Bearer resource_metadata="https://b/m"').challenges)).toBe('https://b/m');
    expect(resourceMetadataHint(parseWwwAuthenticate('Basic resource_metadata="https://a/m", DPoP resource_metadata="https://c/m"').challenges)).toBe('https://a/m');
    expect(resourceMetadataHint([])).toBeNull();
  });
});
