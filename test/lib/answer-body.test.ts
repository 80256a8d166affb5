// Bodies are framed the way the official SDK writes them (@modelcontextprotocol/sdk 1.32,
// server/webStandardStreamableHttp.js): answers as `event: message\nid: …\ndata: <json>\n\n`, the
// resumability priming event as `id: …\ndata: \n\n`; `: keepalive` comments as FIELD-NOTES lists.
import { describe, expect, it } from 'vitest';
import {
  AnswerBodyError,
  answerFromBody,
  answerTextFromBody,
  INITIALIZE_REQUEST_ID,
  isAnswer,
  TOOLS_LIST_REQUEST_ID,
} from '../../src/lib/answer-body.ts';

const toolsAnswer = { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } };
const sse = (...events: string[]) => events.join('');
const message = (msg: unknown, id?: string) => `event: message\n${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(msg)}\n\n`;
const priming = 'id: 0\nretry: 1000\ndata: \n\n';

describe('answerFromBody(body, contentType, id)', () => {
  it('reads a JSON body as the message, from text or from bytes', () => {
    const text = JSON.stringify(toolsAnswer);
    expect(answerFromBody(text, 'application/json')).toEqual(toolsAnswer);
    expect(answerFromBody(new TextEncoder().encode(text), 'application/json; charset=utf-8')).toEqual(toolsAnswer);
  });
  it('reads a body with no content type, or any type but an event stream, as JSON', () => {
    const text = JSON.stringify(toolsAnswer);
    expect(answerFromBody(text, null)).toEqual(toolsAnswer);
    expect(answerFromBody(text, 'text/plain')).toEqual(toolsAnswer);
  });
  it('asks for the tools/list id (2) unless told otherwise', () => {
    const init = { jsonrpc: '2.0', id: INITIALIZE_REQUEST_ID, result: { protocolVersion: '2025-06-18' } };
    expect([INITIALIZE_REQUEST_ID, TOOLS_LIST_REQUEST_ID]).toEqual([1, 2]);
    expect(answerFromBody(JSON.stringify(init), 'application/json', 1)).toEqual(init);
    expect(() => answerFromBody(JSON.stringify(init), 'application/json')).toThrow(new AnswerBodyError('json is not the json-rpc answer with id 2'));
  });
  it('throws an AnswerBodyError naming the content type when a JSON body does not parse', () => {
    expect(() => answerFromBody('<html>502</html>', 'text/html')).toThrow(new AnswerBodyError('body is not json (content-type text/html)'));
    expect(() => answerFromBody('', null)).toThrow(new AnswerBodyError('body is not json (content-type absent)'));
    expect(() => answerFromBody('', null)).toThrow(AnswerBodyError);
    expect(() => answerFromBody('', null)).toThrow(expect.objectContaining({ name: 'AnswerBodyError' }));
  });
  it('takes a JSON-RPC error answer as the answer', () => {
    const err = { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } };
    expect(answerFromBody(JSON.stringify(err), 'application/json')).toEqual(err);
  });
  it('skips the priming event, keep-alive comments and notifications in an event stream', () => {
    const body = sse(priming, ': keepalive\n\n', message({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } }), message(toolsAnswer, '7'));
    expect(answerFromBody(body, 'text/event-stream')).toEqual(toolsAnswer);
  });
  it('matches the media type case-insensitively and ignores its parameters', () => {
    expect(answerFromBody(message(toolsAnswer), ' Text/Event-Stream ; charset=utf-8')).toEqual(toolsAnswer);
  });
  it('takes the first event with the id, not a later one, and skips events with another id or bad JSON', () => {
    const later = { ...toolsAnswer, result: { tools: [] } };
    const body = sse(message({ jsonrpc: '2.0', id: 1, result: {} }), 'data: {not json\n\n', message(toolsAnswer), message(later));
    expect(answerFromBody(body, 'text/event-stream')).toEqual(toolsAnswer);
  });
  // WHATWG HTML §9.2.6: "If the file ends in the middle of an event, before the final empty line, the
  // incomplete event is not dispatched." The collector reads live bodies the same way, so a stored body
  // cut off like this was recorded without an answer and must not gain one when re-read.
  it.each([
    ['no line end', `${priming}data: ${JSON.stringify(toolsAnswer)}`],
    ['its line end but no blank line', `${priming}${message(toolsAnswer).slice(0, -1)}`],
  ])('does not take a last event the stream ended before its blank line as the answer (%s)', (_what, body) => {
    expect(() => answerFromBody(body, 'text/event-stream')).toThrow(new AnswerBodyError('event stream holds no json-rpc answer with id 2'));
    expect(answerFromBody(`${body}\n\n`, 'text/event-stream')).toEqual(toolsAnswer);
  });
  it('throws an AnswerBodyError when no event carries the answer (a JSON body inside an event stream is not one)', () => {
    expect(() => answerFromBody(sse(priming, ': keepalive\n\n', message({ jsonrpc: '2.0', id: 1, result: {} })), 'text/event-stream')).toThrow(
      new AnswerBodyError('event stream holds no json-rpc answer with id 2'),
    );
    expect(() => answerFromBody(JSON.stringify(toolsAnswer), 'text/event-stream')).toThrow(AnswerBodyError);
  });
});

describe('isAnswer(msg, id)', () => {
  it.each([
    ['a result with the id', true, { jsonrpc: '2.0', id: 2, result: {} }],
    ['an error with the id', true, { jsonrpc: '2.0', id: 2, error: { code: -1 } }],
    ['a null result with the id', true, { id: 2, result: null }],
    ['a result with another id', false, { id: 1, result: {} }],
    ['a result with the id as a string', false, { id: '2', result: {} }],
    ['a request (neither result nor error)', false, { id: 2, method: 'tools/list' }],
    ['null', false, null],
    ['an array holding an answer', false, [{ id: 2, result: {} }]],
    ['a string of JSON', false, '{"id":2,"result":{}}'],
    ['undefined (nothing at all)', false, undefined],
    ['a number', false, 2],
  ])('takes %s as an answer: %s', (_what, want, msg) => {
    expect(isAnswer(msg, 2)).toBe(want);
  });
});

const answer = '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","title":"x","title":"y"}]}}';

describe('answerTextFromBody(body, contentType, id?)', () => {
  it('gives a JSON body whole, repeated member names and all', () => {
    expect(answerTextFromBody(answer, 'application/json')).toBe(answer);
  });
  it('gives the data of the answering event of an event stream, skipping priming and other events', () => {
    const body = `: keepalive\n\nid: 0\ndata:\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\nevent: message\ndata: ${answer}\n\n`;
    expect(answerTextFromBody(body, 'text/event-stream; charset=utf-8')).toBe(answer);
    expect(answerFromBody(body, 'text/event-stream')).toEqual(JSON.parse(answer));
  });
  it('throws the AnswerBodyError answerFromBody throws when there is no answer', () => {
    expect(() => answerTextFromBody('{"jsonrpc":"2.0","id":1,"result":{}}', 'application/json')).toThrow(AnswerBodyError);
  });
});

describe('answerFromBody(body, contentType) on stored SSE bodies', () => {
  it('skips a priming event and a notification and returns the response with our id', () => {
    const sse = 'id: 1\ndata: \n\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\nevent: message\ndata: {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n\n';
    expect(answerFromBody(sse, 'text/event-stream')).toEqual({ jsonrpc: '2.0', id: 2, result: { tools: [] } });
  });
  it('throws when the stream holds no response', () => {
    expect(() => answerFromBody(': keepalive\n\n', 'text/event-stream')).toThrow(/no json-rpc answer with id 2/);
  });
  it('does not take a server-to-client request that reuses id 2 for the answer', () => {
    const sse = 'data: {"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{}}\n\ndata: {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}]}}\n\n';
    expect(answerFromBody(sse, 'text/event-stream; charset=utf-8')).toMatchObject({ result: { tools: [{ name: 'a' }] } });
  });
});
