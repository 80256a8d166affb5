// The HTTP+SSE detect (methodology v2, "Probe", step 4): the deprecated 2024-11-05 transport has no
// POST endpoint of its own; a client GETs the SSE URL and the server "MUST send an `endpoint` event"
// first (2024-11-05 Transports §HTTP with SSE; SDK v1's SSEServerTransport sends a relative
// `/messages?sessionId=…`). Detected and recorded, never handshaken. The wait is bounded by one overall
// deadline (5 s), not by undici's idle timers, which keep-alive comments reset.
import { createParser } from 'eventsource-parser';
import { asBuffer, header, type Answer } from '../http.ts';
import { NOT_SENT, type Wire } from './wire.ts';

const DETECT_CAP = 64 * 1024;

export interface SseDetect {
  sent: boolean;
  status: number | null;
  /** The `endpoint` event's data, clipped to 512 characters; null when the first event was not one. */
  endpoint: string | null;
}

export async function detectHttpSse(w: Wire, url: string): Promise<SseDetect> {
  const got = await w.get('sse detect', url, 'text/event-stream', Math.min(w.limits.sseDetectMs, w.limits.timeoutMs), firstEndpointEvent);
  if (got === NOT_SENT) return { sent: false, status: null, endpoint: null };
  return { sent: true, status: got.status, endpoint: got.value ?? null };
}

/** The data of the stream's first event if it is `endpoint`; reading stops at the first event or the cap. */
async function firstEndpointEvent(a: Answer): Promise<string | null> {
  const media = (header(a.headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (a.status !== 200 || media !== 'text/event-stream') {
    await a.body.dump({ limit: DETECT_CAP }).catch(() => {});
    return null;
  }
  let first: { event: string | undefined; data: string } | null = null;
  const parser = createParser({
    onEvent(ev) {
      first ??= { event: ev.event, data: ev.data };
    },
  });
  const decoder = new TextDecoder();
  let size = 0;
  try {
    for await (const chunk of a.body) {
      const buf = asBuffer(chunk);
      size += buf.length;
      parser.feed(decoder.decode(buf, { stream: true }));
      if (first || size >= DETECT_CAP) break;
    }
  } finally {
    a.body.destroy();
  }
  const ev = first as { event: string | undefined; data: string } | null;
  return ev && ev.event === 'endpoint' ? ev.data.slice(0, 512) : null;
}
