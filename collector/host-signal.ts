// What a finished job tells the schedule about its host (schedule.ts HostSignal), read off the
// classified failure (errors.ts) rather than off HTTP again, so the probe (v1 or v2) stays the one
// place that looks at answers:
//   no error                                   → ok
//   timeout (our deadline or an undici timer)  → unreachable
//   tls, except our own address refusal        → unreachable (DNS, refused, reset, TLS handshake: no answer)
//   429 rate_limited, or a 5xx whose status is 503 → throttled, with its Retry-After in ms
//   anything else (an answer we could not use) → other
// An address refusal (step `address`) never reached the host: it says nothing about whether it answers.
import type { ProbeError } from './errors.ts';
import type { ProbeV2Result } from './probe-v2/index.ts';
import type { HostSignal } from './schedule.ts';

/** `now`: wall-clock ms (Date.now()), for a Retry-After given as an HTTP-date. */
export function hostSignal(error: ProbeError | null, now: number): HostSignal {
  if (error === null) return { kind: 'ok' };
  switch (error.errorClass) {
    case 'timeout':
      return { kind: 'unreachable' };
    case 'tls':
      return error.payload.step === 'address' ? { kind: 'other' } : { kind: 'unreachable' };
    case 'rate_limited':
      return { kind: 'throttled', retryAfterMs: retryAfterMs(error.payload.retryAfter, now) };
    case 'http_5xx':
      return error.payload.httpStatus === 503 ? { kind: 'throttled', retryAfterMs: retryAfterMs(error.payload.retryAfter ?? null, now) } : { kind: 'other' };
    case 'http_4xx':
    case 'auth':
    case 'parse':
      return { kind: 'other' };
    default: {
      const never: never = error;
      throw new Error(`unmapped error class ${(never as ProbeError).errorClass}`);
    }
  }
}

/**
 * Retry-After (RFC 9110 §10.2.3) as milliseconds from `now`: delay-seconds (digits only) or an
 * HTTP-date; null when absent or unreadable (the schedule then backs off exponentially). A date in
 * the past is 0. The schedule caps what it honours.
 */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000;
  // IMF-fixdate and the two obsolete forms all parse with Date.parse; anything with a digit-only prefix was handled above.
  if (!/[a-z]/i.test(v)) return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** What a v2 probe tells the schedule: its 429/503 first, then its deciding failure as v1's would. */
export function hostSignalV2(r: Pick<ProbeV2Result, 'status' | 'throttled' | 'failure' | 'facts'>, now: number): HostSignal {
  if (r.throttled) return { kind: 'throttled', retryAfterMs: retryAfterMs(r.throttled.retryAfter, now) };
  if (r.status === 'ok') return { kind: 'ok' };
  if (r.failure) return hostSignal(r.failure.error, now);
  return r.facts.answered ? { kind: 'other' } : { kind: 'unreachable' };
}

/**
 * One job's signal over its probes (v2 then v1 during the bridge): a 429/503 from either is the host
 * asking us to slow down (the longer Retry-After wins; null only when neither gave one); else any
 * answer means the host answers; unreachable only when no probe got an answer.
 */
export function jobSignal(signals: readonly HostSignal[]): HostSignal {
  const throttled = signals.filter((s): s is Extract<HostSignal, { kind: 'throttled' }> => s.kind === 'throttled');
  if (throttled.length) {
    const given = throttled.map((s) => s.retryAfterMs).filter((ms): ms is number => ms !== null);
    return { kind: 'throttled', retryAfterMs: given.length ? Math.max(...given) : null };
  }
  if (signals.some((s) => s.kind === 'ok')) return { kind: 'ok' };
  if (signals.some((s) => s.kind === 'other')) return { kind: 'other' };
  return signals.length ? { kind: 'unreachable' } : { kind: 'ok' };
}
