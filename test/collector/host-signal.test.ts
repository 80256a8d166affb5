// What a finished job tells the schedule about its host (collector/host-signal.ts): the
// schedule backs off a host on `throttled` (for its Retry-After), stops it after K `unreachable`, and
// treats `ok`/`other` as a host that answers. Each mapping with its near miss.
import { describe, expect, it } from 'vitest';
import { AuthError, Http4xxError, Http5xxError, ParseError, RateLimitedError, TimeoutError, TlsError, type ProbeError, type ProbePayload } from '../../collector/errors.ts';
import { hostSignal, hostSignalV2, jobSignal, retryAfterMs } from '../../collector/host-signal.ts';
import type { HostSignal } from '../../collector/schedule.ts';

const NOW = Date.parse('2026-05-01T03:15:00Z');
const p = (over: Partial<{ step: string; httpStatus: number | null }> = {}): ProbePayload => ({ step: 'initialize', detail: 'x', httpStatus: null, jsonrpcCode: null, ...over }) as ProbePayload;

describe('hostSignal(error, now)', () => {
  it('no error: the host answers', () => {
    expect(hostSignal(null, NOW)).toEqual({ kind: 'ok' });
  });

  it('a timeout, and a connection or TLS failure, say the host did not answer', () => {
    expect(hostSignal(new TimeoutError(p()), NOW)).toEqual({ kind: 'unreachable' });
    expect(hostSignal(new TlsError(p({ step: 'initialize' })), NOW)).toEqual({ kind: 'unreachable' });
  });

  it('near miss: our own address refusal never reached the host, so it says nothing about it', () => {
    expect(hostSignal(new TlsError(p({ step: 'address' })), NOW)).toEqual({ kind: 'other' });
  });

  it('a 429 is throttled, with its Retry-After in ms (null when it gave none)', () => {
    expect(hostSignal(new RateLimitedError({ ...p({ httpStatus: 429 }), retryAfter: '30' }), NOW)).toEqual({ kind: 'throttled', retryAfterMs: 30_000 });
    expect(hostSignal(new RateLimitedError({ ...p({ httpStatus: 429 }), retryAfter: null }), NOW)).toEqual({ kind: 'throttled', retryAfterMs: null });
  });

  it('a 503 is throttled (with or without a Retry-After); near miss: a 500 or 502 is an answer we could not use', () => {
    expect(hostSignal(new Http5xxError({ ...p({ httpStatus: 503 }), retryAfter: '5' }), NOW)).toEqual({ kind: 'throttled', retryAfterMs: 5_000 });
    expect(hostSignal(new Http5xxError(p({ httpStatus: 503 })), NOW)).toEqual({ kind: 'throttled', retryAfterMs: null });
    expect(hostSignal(new Http5xxError({ ...p({ httpStatus: 500 }), retryAfter: '5' }), NOW)).toEqual({ kind: 'other' });
    expect(hostSignal(new Http5xxError(p({ httpStatus: 502 })), NOW)).toEqual({ kind: 'other' });
  });

  it('a 4xx, an auth wall and an answer that does not parse are answers: other', () => {
    expect(hostSignal(new Http4xxError(p({ httpStatus: 404 })), NOW)).toEqual({ kind: 'other' });
    expect(hostSignal(new AuthError({ ...p({ httpStatus: 401 }), wwwAuthenticate: null }), NOW)).toEqual({ kind: 'other' });
    expect(hostSignal(new ParseError(p()), NOW)).toEqual({ kind: 'other' });
  });

  it('refuses an error class it does not know (a new class must be mapped, not guessed)', () => {
    const odd = { errorClass: 'mystery', payload: p() } as unknown as ProbeError;
    expect(() => hostSignal(odd, NOW)).toThrow('unmapped error class mystery');
  });
});

describe('retryAfterMs(value, now)', () => {
  it('delay-seconds, trimmed, up to ten digits', () => {
    expect(retryAfterMs('0', NOW)).toBe(0);
    expect(retryAfterMs('120', NOW)).toBe(120_000);
    expect(retryAfterMs('  7 ', NOW)).toBe(7_000);
    expect(retryAfterMs('9999999999', NOW)).toBe(9_999_999_999_000);
  });

  it('near misses of delay-seconds are not read as seconds: eleven digits, a sign, a fraction, digits and letters', () => {
    expect(retryAfterMs('99999999999', NOW)).toBeNull();
    expect(retryAfterMs('-5', NOW)).toBeNull();
    expect(retryAfterMs('1.5', NOW)).toBeNull();
    expect(retryAfterMs('5s', NOW)).toBeNull();
    expect(retryAfterMs('x5', NOW)).toBeNull();
  });

  it('an HTTP-date: ms from now, 0 when it is past', () => {
    expect(retryAfterMs('Fri, 01 May 2026 03:16:00 GMT', NOW)).toBe(60_000);
    expect(retryAfterMs('Fri, 01 May 2026 03:15:00 GMT', NOW)).toBe(0);
    expect(retryAfterMs('Fri, 01 May 2026 03:00:00 GMT', NOW)).toBe(0);
  });

  it('absent, empty or unreadable: null (the schedule backs off on its own)', () => {
    expect(retryAfterMs(null, NOW)).toBeNull();
    expect(retryAfterMs('', NOW)).toBeNull();
    expect(retryAfterMs('   ', NOW)).toBeNull();
    expect(retryAfterMs('soon', NOW)).toBeNull();
    // Digits without a letter are not a date either (Date.parse would read some of these).
    expect(retryAfterMs('2026-05-01', NOW)).toBeNull();
    expect(retryAfterMs('12 34', NOW)).toBeNull();
  });
});

describe('hostSignalV2(result, now)', () => {
  const facts = (answered: boolean) => ({ answered }) as never;
  it('a 429/503 the probe stopped on comes first, even on a result that is otherwise ok', () => {
    expect(hostSignalV2({ status: 'ok', throttled: { status: 429, retryAfter: '3' }, failure: null, facts: facts(true) }, NOW)).toEqual({ kind: 'throttled', retryAfterMs: 3_000 });
    expect(hostSignalV2({ status: 'unreachable', throttled: { status: 503, retryAfter: null }, failure: null, facts: facts(true) }, NOW)).toEqual({ kind: 'throttled', retryAfterMs: null });
  });

  it('ok is ok; near miss: another status without a failure is other when something answered, unreachable when nothing did', () => {
    expect(hostSignalV2({ status: 'ok', throttled: null, failure: { step: 'initialize', error: new TimeoutError(p()), url: null }, facts: facts(false) }, NOW)).toEqual({ kind: 'ok' });
    expect(hostSignalV2({ status: 'auth_compliant', throttled: null, failure: null, facts: facts(true) }, NOW)).toEqual({ kind: 'other' });
    expect(hostSignalV2({ status: 'unreachable', throttled: null, failure: null, facts: facts(false) }, NOW)).toEqual({ kind: 'unreachable' });
  });

  it('a deciding failure is read as v1 reads it', () => {
    expect(hostSignalV2({ status: 'unreachable', throttled: null, failure: { step: 'initialize', error: new TimeoutError(p()), url: null }, facts: facts(true) }, NOW)).toEqual({ kind: 'unreachable' });
    expect(hostSignalV2({ status: 'not_mcp', throttled: null, failure: { step: 'initialize', error: new ParseError(p()), url: null }, facts: facts(false) }, NOW)).toEqual({ kind: 'other' });
  });
});

describe('jobSignal(signals)', () => {
  const ok: HostSignal = { kind: 'ok' };
  const other: HostSignal = { kind: 'other' };
  const down: HostSignal = { kind: 'unreachable' };
  const slow = (ms: number | null): HostSignal => ({ kind: 'throttled', retryAfterMs: ms });

  it('a 429/503 from either probe is the host asking to slow down: the longest Retry-After wins', () => {
    expect(jobSignal([ok, slow(5_000)])).toEqual(slow(5_000));
    expect(jobSignal([slow(5_000), slow(20_000)])).toEqual(slow(20_000));
    expect(jobSignal([slow(20_000), slow(5_000)])).toEqual(slow(20_000));
    expect(jobSignal([slow(null), slow(5_000)])).toEqual(slow(5_000));
    expect(jobSignal([slow(0), down])).toEqual(slow(0));
  });

  it('near miss: throttled without any Retry-After stays null (not 0, not -Infinity)', () => {
    expect(jobSignal([slow(null)])).toEqual(slow(null));
    expect(jobSignal([slow(null), slow(null), ok])).toEqual(slow(null));
  });

  it('else any answer means the host answers; unreachable only when no probe got one', () => {
    expect(jobSignal([down, ok])).toEqual(ok);
    expect(jobSignal([ok, other])).toEqual(ok);
    expect(jobSignal([down, other])).toEqual(other);
    expect(jobSignal([other, down])).toEqual(other);
    expect(jobSignal([down, down])).toEqual(down);
    expect(jobSignal([down])).toEqual(down);
  });

  it('no probe at all says nothing against the host: ok', () => {
    expect(jobSignal([])).toEqual(ok);
  });
});
