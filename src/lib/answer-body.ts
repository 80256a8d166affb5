// The JSON-RPC answer inside a stored tools/list body (methodology v1, "Probe"). The collector keeps
// the raw HTTP body verbatim; everything derived later (the site, restatements) reads the answer back
// out of those bytes with this one function, using the same rule the collector applied live:
//   - `application/json` (or any body that is not an event stream): the whole body is the message;
//   - `text/event-stream`: parsed with eventsource-parser; comments (`: keepalive`) and events with
//     empty data (the SDK's resumability priming event) are skipped, and the answer is the first
//     event whose JSON has the request's `id`. An event the body ends before its blank line is never
//     dispatched, as WHATWG HTML §9.2.6 says ("the incomplete event is not dispatched") and as the
//     collector read the live stream.
import { createParser } from 'eventsource-parser';

/** JSON-RPC ids the prober sends: constant, so identical servers give identical raw bodies. */
export const INITIALIZE_REQUEST_ID = 1;
export const TOOLS_LIST_REQUEST_ID = 2;

export class AnswerBodyError extends Error {
  override readonly name = 'AnswerBodyError';
}

/**
 * The JSON-RPC message answering request `id` in a raw response body. Throws an AnswerBodyError when
 * the body holds no such message (not JSON, or an event stream without an event carrying that id).
 */
export function answerFromBody(body: string | Uint8Array, contentType: string | null, id: number = TOOLS_LIST_REQUEST_ID): Record<string, unknown> {
  return findAnswer(body, contentType, id).message;
}

/**
 * The JSON text of that same message, exactly as served (the whole body, or the data of the answering
 * event): what the tool definition hash and the repeated-member check read, since JSON.parse has
 * already dropped every copy of a repeated member name but the last.
 */
export function answerTextFromBody(body: string | Uint8Array, contentType: string | null, id: number = TOOLS_LIST_REQUEST_ID): string {
  return findAnswer(body, contentType, id).text;
}

function findAnswer(body: string | Uint8Array, contentType: string | null, id: number): { text: string; message: Record<string, unknown> } {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media !== 'text/event-stream') {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      throw new AnswerBodyError(`body is not json (content-type ${contentType ?? 'absent'})`);
    }
    if (!isAnswer(msg, id)) throw new AnswerBodyError(`json is not the json-rpc answer with id ${id}`);
    return { text, message: msg };
  }
  let found: { text: string; message: Record<string, unknown> } | undefined;
  const parser = createParser({
    onEvent(ev) {
      if (found !== undefined || ev.data === '') return;
      try {
        const msg: unknown = JSON.parse(ev.data);
        if (isAnswer(msg, id)) found = { text: ev.data, message: msg };
      } catch {
        // Not every event is our answer (notifications, keep-alive junk); keep looking.
      }
    },
  });
  parser.feed(text);
  if (found === undefined) throw new AnswerBodyError(`event stream holds no json-rpc answer with id ${id}`);
  return found;
}

/** A JSON-RPC response object for request `id` (with a result or an error). */
export function isAnswer(msg: unknown, id: number): msg is Record<string, unknown> {
  return typeof msg === 'object' && msg !== null && !Array.isArray(msg) && (msg as { id?: unknown }).id === id && ('result' in msg || 'error' in msg);
}
