// endpointHost: the host a host-weighted share groups endpoints by (methodology v1 and v2,
// "Population figures"): one gateway serving hundreds of names counts once.
import { describe, expect, it } from 'vitest';
import { endpointHost } from '../../src/lib/endpoint-host.ts';

describe('endpointHost(endpoint)', () => {
  it('is the lowercased hostname, port and path ignored', () => {
    expect(endpointHost('https://API.Example.com:8443/mcp?x=1')).toBe('api.example.com');
    expect(endpointHost('http://api.example.com/other')).toBe('api.example.com');
  });

  it('groups two paths of one gateway together, and two hosts apart', () => {
    expect(endpointHost('https://gw.example/a/mcp')).toBe(endpointHost('https://gw.example/b/mcp'));
    expect(endpointHost('https://a.gw.example/mcp')).not.toBe(endpointHost('https://b.gw.example/mcp'));
  });

  it('gives "" for no endpoint', () => {
    expect(endpointHost(null)).toBe('');
  });

  it('lets an endpoint the URL parser refuses stand for itself', () => {
    expect(endpointHost('not a url')).toBe('not a url');
    expect(endpointHost('')).toBe('');
  });
});
