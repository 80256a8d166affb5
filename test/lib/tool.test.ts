import { describe, expect, it } from 'vitest';
import { parseToolsList, ToolsListError } from '../../src/lib/tool.ts';
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
    ['null', null, 'tools/list response is not a json object'],
    ['a null result', { jsonrpc: '2.0', id: 2, result: null }, 'tools/list response has no result object'],
    ['an error without a numeric code', { jsonrpc: '2.0', id: 2, error: { code: '-32601', message: 'nope' } }, 'tools/list answered json-rpc error unknown: nope'],
    ['an error that is not an object', { jsonrpc: '2.0', id: 2, error: 'boom' }, 'tools/list answered json-rpc error unknown'],
    ['an error without a message', { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 42 } }, 'tools/list answered json-rpc error -32000'],
  ])('throws a ToolsListError for %s', (_what, json, message) => {
    expect(() => parseToolsList(json)).toThrow(ToolsListError);
    expect(() => parseToolsList(json)).toThrow(new ToolsListError(message));
    expect(() => parseToolsList(json)).toThrow(expect.objectContaining({ name: 'ToolsListError', message }));
  });
  it('reads a result next to an "error" member holding undefined (a caller-built object) as a result', () => {
    const tools = [{ name: 'a' }];
    expect(parseToolsList({ id: 2, result: { tools }, error: undefined })).toBe(tools);
  });
  it('reads a result next to "error": null (JSON-RPC 1.0 style) as a result', () => {
    const tools = [{ name: 'a' }];
    expect(parseToolsList({ id: 2, result: { tools }, error: null })).toBe(tools);
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
  it('keeps a server message of 120 characters whole and cuts a longer one to 120 and an ellipsis', () => {
    const said = (message: string) => () => parseToolsList({ error: { code: 1, message } });
    expect(said('x'.repeat(120))).toThrow(new ToolsListError(`tools/list answered json-rpc error 1: ${'x'.repeat(120)}`));
    expect(said('x'.repeat(121))).toThrow(new ToolsListError(`tools/list answered json-rpc error 1: ${'x'.repeat(120)}…`));
  });
});
