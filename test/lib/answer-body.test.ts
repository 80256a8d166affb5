import { describe, expect, it } from 'vitest';
import { answerFromBody, AnswerBodyError, answerTextFromBody } from '../../src/lib/index.ts';

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
