// Reads one JSON-RPC answer from a streamable-HTTP response (MCP 2025-03-26+ "Sending Messages to
// the Server"): either `application/json` or a `text/event-stream`. SSE is parsed with
// eventsource-parser (a maintained, spec-following parser) rather than by hand: comments
// (`: keepalive`) and events with empty data (the SDK's resumability priming event) are skipped,
// and the message whose `id` matches ours is the answer. The raw bytes are kept: for tools/list they
// are the artifact.
import { createParser } from 'eventsource-parser';
import type { Answer } from './http.ts';
import { asBuffer, formatBytes, header, readCapped } from './http.ts';
import { GUARD, GuardError } from './errors.ts';
import { isAnswer } from '../src/lib/index.ts';

export interface ReadLimits {
  /** Maximum raw body bytes. */
  cap: number;
  /** Maximum SSE events with data before giving up. */
  maxEvents: number;
  /** Once the answer has arrived, how long to wait for the server to close the stream. */
  graceMs: number;
}

export interface ReadResult {
  raw: Buffer;
  contentType: string | null;
  /** The parsed JSON message: the SSE event with our id, or the whole JSON body; undefined when none. */
  message: unknown;
  /** Why `message` is undefined, or an oddity worth keeping in the row. */
  note: string | null;
}

export async function readAnswer(a: Answer, id: number, limits: ReadLimits): Promise<ReadResult> {
  const contentType = header(a.headers, 'content-type');
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'text/event-stream') return readSse(a, id, limits, contentType);
  const raw = await readCapped(a.body, limits.cap, 'body');
  const text = raw.toString('utf8');
  try {
    return { raw, contentType, message: JSON.parse(text), note: null };
  } catch {
    return { raw, contentType, message: undefined, note: `body is not json (content-type ${contentType ?? 'absent'})` };
  }
}

async function readSse(a: Answer, id: number, limits: ReadLimits, contentType: string | null): Promise<ReadResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  let events = 0;
  let found: unknown;
  let unparsable = 0;
  let note: string | null = null;
  const parser = createParser({
    onEvent(ev) {
      if (found !== undefined || ev.data === '') return; // priming events carry empty data
      events++;
      let msg: unknown;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        unparsable++;
        return;
      }
      // The same rule as answerFromBody (src/lib), which re-reads stored bodies: a response with our id.
      // A server-to-client request that happens to reuse id 2 is not our answer.
      if (isAnswer(msg, id)) found = msg;
    },
  });
  const decoder = new TextDecoder();
  const it = a.body[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array> | 'grace';
    if (found === undefined) {
      next = await it.next();
    } else {
      // Answer in hand: the spec says the server SHOULD now close the stream; don't wait forever.
      let timer: NodeJS.Timeout | undefined;
      try {
        next = await Promise.race([it.next(), new Promise<'grace'>((resolve) => (timer = setTimeout(() => resolve('grace'), limits.graceMs)))]);
      } catch {
        next = 'grace';
      } finally {
        clearTimeout(timer);
      }
    }
    if (next === 'grace') {
      a.body.destroy();
      note = 'sse stream left open after the answer; body kept up to that point';
      break;
    }
    if (next.done) break;
    const buf = asBuffer(next.value);
    if (size + buf.length > limits.cap) {
      a.body.destroy();
      throw new GuardError(GUARD.overCap, `sse body over ${formatBytes(limits.cap)} cap`);
    }
    size += buf.length;
    chunks.push(buf);
    parser.feed(decoder.decode(buf, { stream: true }));
    if (found === undefined && events > limits.maxEvents) {
      a.body.destroy();
      throw new GuardError(GUARD.overCap, `sse over ${limits.maxEvents} events without the answer`);
    }
  }
  if (found === undefined) {
    parser.feed(decoder.decode());
    parser.reset({ consume: true }); // a last event without its blank line still counts
  }
  const raw = Buffer.concat(chunks);
  if (found === undefined) {
    note = `sse stream ended without a json-rpc message with id ${id} (${events} events${unparsable ? `, ${unparsable} not json` : ''})`;
  }
  return { raw, contentType, message: found, note };
}
