// collector/probe-v2/canary.ts through its real input: the unknown-tool canary POSTed by a v2 Wire (the
// bytes index.ts sends) to an SDK v1 server and to raw loopback servers, and the verdict read from
// what came back. In-channel means a JSON-RPC error or a result with `isError: true` for our id,
// whatever the HTTP status; no HTTP answer means nothing to judge.
import { describe, expect, it } from 'vitest';
import { CANARY_ID, CANARY_TOOL_NAME, canaryResult, type CanaryResult } from '../../collector/probe-v2/canary.ts';
import { initializeBody, legacyCanaryBody, modernCanaryBody, modernHeaders } from '../../collector/probe-v2/requests.ts';
import { Wire, type ProbeV2Limits } from '../../collector/probe-v2/wire.ts';
import { sdkV1 } from '../../sandbox/era-sdk.ts';
import { json, withLoopback, type Handler } from './loopback.ts';

const canary = (h: Handler, limits: Partial<ProbeV2Limits> = {}) =>
  withLoopback(h, limits, async (l) => {
    const x = await l.wire.post('tools/call canary', 'tools/list', l.url, legacyCanaryBody(), Wire.base(), CANARY_ID, l.wire.limits.smallCap, { protocol: false });
    return { verdict: canaryResult(x), l };
  });
const answer = (status: number, body: unknown): Handler => (_m, _req, res) => json(res, status, body);
const verdict = (httpStatus: number | null, inChannel: boolean | null, jsonrpcCode: number | null = null): CanaryResult => ({ sent: true, httpStatus, inChannel, jsonrpcCode });

describe('the canary asks for a tool that cannot exist, and says who asked', () => {
  it('its name is the project’s, plain visible ASCII (it goes into Mcp-Name as is), and it is what is sent', async () => {
    expect(CANARY_TOOL_NAME).toMatch(/^mcp-schema\.[\x21-\x7e]+$/);
    const { l } = await canary(answer(200, { jsonrpc: '2.0', id: CANARY_ID, error: { code: -32602, message: 'Unknown tool' } }));
    expect(l.got.map((g) => [g.msg?.method, g.msg?.params?.name, g.msg?.id])).toEqual([['tools/call', CANARY_TOOL_NAME, CANARY_ID]]);
    expect(JSON.parse(modernCanaryBody()).params.name).toBe(CANARY_TOOL_NAME);
    expect(modernHeaders('tools/call', CANARY_TOOL_NAME)['mcp-name']).toBe(CANARY_TOOL_NAME);
  });
});

describe('canaryResult: in-channel or not, judged apart from the HTTP status', () => {
  it('SDK v1 (stateless, JSON) after initialize: a JSON-RPC error for the unknown tool, in-channel', async () => {
    const sdk = sdkV1({ stateful: false, json: true, pager: () => ({ tools: [] }), canary: 'jsonrpc-error' });
    try {
      const r = await withLoopback((_m, req, res, body) => sdk.serve(req, res, body), {}, async (l) => {
        await l.wire.post('initialize', 'initialize', l.url, initializeBody('2025-06-18'), Wire.base(), 1, l.wire.limits.smallCap);
        return canaryResult(await l.wire.post('tools/call canary', 'tools/list', l.url, legacyCanaryBody(), Wire.base(), CANARY_ID, l.wire.limits.smallCap, { protocol: false }));
      });
      expect(r).toEqual(verdict(200, true, -32602));
    } finally {
      await sdk.close();
    }
  });

  it('SDK v1 answering with a result whose isError is true: in-channel, no JSON-RPC code', async () => {
    const sdk = sdkV1({ stateful: false, json: true, pager: () => ({ tools: [] }), canary: 'is-error' });
    try {
      const r = await withLoopback((_m, req, res, body) => sdk.serve(req, res, body), {}, async (l) => {
        await l.wire.post('initialize', 'initialize', l.url, initializeBody('2025-06-18'), Wire.base(), 1, l.wire.limits.smallCap);
        return canaryResult(await l.wire.post('tools/call canary', 'tools/list', l.url, legacyCanaryBody(), Wire.base(), CANARY_ID, l.wire.limits.smallCap, { protocol: false }));
      });
      expect(r).toEqual(verdict(200, true, null));
    } finally {
      await sdk.close();
    }
  });

  it.each<[string, Handler, CanaryResult]>([
    ['HTTP 500 with a JSON-RPC error (the conformance mock)', answer(500, { jsonrpc: '2.0', id: CANARY_ID, error: { code: -32602, message: 'Unknown tool' } }), verdict(500, true, -32602)],
    ['HTTP 400 with a JSON-RPC error whose id is null', answer(400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } }), verdict(400, true, -32600)],
    ['HTTP 200, result isError true', answer(200, { jsonrpc: '2.0', id: CANARY_ID, result: { content: [], isError: true } }), verdict(200, true)],
    ['near miss: result isError false', answer(200, { jsonrpc: '2.0', id: CANARY_ID, result: { content: [], isError: false } }), verdict(200, false)],
    ['near miss: result isError "true" (a string)', answer(200, { jsonrpc: '2.0', id: CANARY_ID, result: { isError: 'true' } }), verdict(200, false)],
    ['near miss: isError true, but for another id', answer(200, { jsonrpc: '2.0', id: CANARY_ID + 1, result: { isError: true } }), verdict(200, false)],
    ['near miss: isError true outside a result', answer(200, { jsonrpc: '2.0', id: CANARY_ID, result: null, isError: true }), verdict(200, false)],
    ['HTTP 200 with an HTML page', (_m, _req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>'), verdict(200, false)],
    ['HTTP 404 with an empty body', (_m, _req, res) => res.writeHead(404).end(), verdict(404, false)],
  ])('%s', async (_, h, want) => {
    expect((await canary(h)).verdict).toEqual(want);
  });

  it('no HTTP answer (the connection dropped): sent, nothing to judge', async () => {
    const { verdict: v } = await canary((_m, _req, res) => res.socket?.destroy());
    expect(v).toEqual(verdict(null, null));
  });

  it('a redirect not followed (a 302 would turn the POST into a GET): an answer, but no status to judge', async () => {
    const { verdict: v, l } = await canary((_m, _req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
    expect(l.got).toHaveLength(1);
    expect(v).toEqual(verdict(null, null));
  });

  it('headers, then an event stream that never brings the answer: no answer, although a status arrived', async () => {
    const { verdict: v, l } = await canary((_m, _req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': wait\n\n'), { timeoutMs: 300 });
    expect(l.wire.log[0]?.status).toBe(200);
    expect(v).toEqual(verdict(null, null));
  });

  it('the budget spent: not sent', async () => {
    const { verdict: v, l } = await canary(answer(200, {}), { budget: 0 });
    expect(l.got).toEqual([]);
    expect(v).toEqual({ sent: false, httpStatus: null, inChannel: null, jsonrpcCode: null });
  });
});
