// probedRemote: which remote of a registry entry the v1 probe contacts, and why none when none.
// The collector picks its targets with it and the descriptor explains the pick with it.
import { describe, expect, it } from 'vitest';
import { probedRemote } from '../../src/lib/probed-remote.ts';

const http = (url: unknown) => ({ type: 'streamable-http', url });

describe('probedRemote(remotes)', () => {
  it('takes the first streamable-http remote, past an sse remote listed first (real entries do)', () => {
    expect(probedRemote([{ type: 'sse', url: 'https://a.example/sse' }, http('https://a.example/mcp'), http('https://b.example/mcp')])).toEqual({
      index: 1,
      endpoint: 'https://a.example/mcp',
      problem: null,
    });
  });

  it('takes index 0 when the first remote is streamable-http (index 0 is an index, not "none")', () => {
    expect(probedRemote([http('http://a.example/mcp')])).toEqual({ index: 0, endpoint: 'http://a.example/mcp', problem: null });
  });

  it('trims the URL it probes', () => {
    expect(probedRemote([http('  https://a.example/mcp \n')]).endpoint).toBe('https://a.example/mcp');
  });

  it('skips non-objects and other types while scanning', () => {
    expect(probedRemote([null, 'streamable-http', ['streamable-http'], { type: 'sse' }, { type: 'Streamable-HTTP', url: 'https://x.example' }, http('https://a.example')])).toEqual({
      index: 5,
      endpoint: 'https://a.example',
      problem: null,
    });
  });

  it.each([
    ['no remotes array', undefined],
    ['null', null],
    ['an object, not an array', { 0: http('https://a.example') }],
    ['an empty array', []],
    ['only an sse remote', [{ type: 'sse', url: 'https://a.example/sse' }]],
  ])('has no endpoint and no index for %s', (_about, remotes) => {
    expect(probedRemote(remotes)).toEqual({ index: null, endpoint: null, problem: 'no_streamable_http' });
  });

  it('keeps the index of a streamable-http remote whose url is not a string, with no endpoint', () => {
    expect(probedRemote([{ type: 'sse' }, { type: 'streamable-http' }])).toEqual({ index: 1, endpoint: null, problem: 'no_streamable_http' });
    expect(probedRemote([http(42)])).toEqual({ index: 0, endpoint: null, problem: 'no_streamable_http' });
  });

  it('refuses a URL that still holds a {template} variable, and only a closed one', () => {
    expect(probedRemote([http('https://{tenant}.example/mcp')])).toEqual({ index: 0, endpoint: null, problem: 'templated_url' });
    expect(probedRemote([http('https://a.example/mcp/{}')]).problem).toBe('templated_url');
    // a brace that never closes is no variable: the URL parser decides (it percent-encodes it in the path)
    expect(probedRemote([http('https://a.example/mcp{x')])).toEqual({ index: 0, endpoint: 'https://a.example/mcp{x', problem: null });
    expect(probedRemote([http('https://a.example/mcp}x{')]).problem).toBe(null);
  });

  it('refuses a URL over 4096 characters; 4096 exactly is probed', () => {
    const base = 'https://a.example/';
    const at = base + 'a'.repeat(4096 - base.length);
    expect(at).toHaveLength(4096);
    expect(probedRemote([http(at)])).toEqual({ index: 0, endpoint: at, problem: null });
    expect(probedRemote([http(at + 'a')])).toEqual({ index: 0, endpoint: null, problem: 'invalid_url' });
  });

  it('measures the bound after trimming', () => {
    const base = 'https://a.example/';
    const at = base + 'a'.repeat(4096 - base.length);
    expect(probedRemote([http(` ${at} `)]).endpoint).toBe(at);
  });

  it.each([
    ['not a URL', 'a.example/mcp'],
    ['an empty string', ''],
    ['ftp', 'ftp://a.example/mcp'],
    ['ws', 'wss://a.example/mcp'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a protocol only ending in http', 'xhttp://a.example'],
  ])('refuses %s as invalid_url', (_about, url) => {
    expect(probedRemote([http(url)])).toEqual({ index: 0, endpoint: null, problem: 'invalid_url' });
  });

  it('accepts http and https in any case (the URL parser lowercases the scheme)', () => {
    expect(probedRemote([http('HTTP://a.example/mcp')])).toEqual({ index: 0, endpoint: 'HTTP://a.example/mcp', problem: null });
    expect(probedRemote([http('HTTPS://a.example/mcp')]).problem).toBe(null);
  });
});
