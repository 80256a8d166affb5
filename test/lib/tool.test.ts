import { describe, expect, it } from 'vitest';
import { parseToolsList, ToolsListError } from '../../src/lib/index.ts';
import { proxyTools } from './helpers/fixtures.ts';

describe('parseToolsList(json)', () => {
  it('returns result.tools of a JSON-RPC response, untouched', () => {
    const tools = proxyTools('cloudflare-docs');
    expect(parseToolsList({ jsonrpc: '2.0', id: 2, result: { tools } })).toBe(tools);
  });
  it.each([
    ['a JSON-RPC error', { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } }, 'tools/list answered json-rpc error -32601: Method not found'],
    ['no result', { jsonrpc: '2.0', id: 2 }, 'tools/list response has no result object'],
    ['tools not an array', { jsonrpc: '2.0', id: 2, result: { tools: {} } }, 'tools/list result.tools is not an array'],
    ['a tool without a name', { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'a' }, { description: 'x' }] } }, 'tools/list result.tools[1] has no string name'],
    ['an array', [], 'tools/list response is not a json object'],
  ])('throws a ToolsListError for %s', (_what, json, message) => {
    expect(() => parseToolsList(json)).toThrow(ToolsListError);
    expect(() => parseToolsList(json)).toThrow(message);
  });
  it('truncates a long server error message', () => {
    const err = (() => {
      try {
        parseToolsList({ error: { code: 1, message: 'x'.repeat(5000) } });
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(err!.message.length).toBeLessThan(200);
  });
});
