// src/site/format.ts: one spelling of each number and status on every page.
import { describe, expect, it } from 'vitest';
import { count, days, pct, statusText, stripLabel } from '../../src/site/format.ts';

describe('days(d), pct(x), count(x)', () => {
  it.each([
    [days(3), '3'],
    [days(2.25), '2.3'],
    [pct(0.1234), '12.3%'],
    [pct(null), '—'],
    [pct(Number.NaN), '—'],
    [count(12345), '12,345'],
    [count(null), '—'],
  ])('%s is %s', (got, want) => expect(got).toBe(want));
});

describe('statusText(status, detail, http?)', () => {
  it.each([
    ['ok', null, undefined, 'ok'],
    ['no_endpoint', 'no_endpoint', undefined, 'no endpoint'],
    ['error', 'auth', undefined, 'error: auth'],
    ['error', 'http_5xx', 503, 'error: http_5xx (HTTP 503)'],
    ['error', 'timeout', 0, 'error: timeout'],
    ['not_attempted', 'host_unresponsive', undefined, 'not attempted (host unresponsive)'],
    ['not_attempted', 'run_deadline', null, 'not attempted (run deadline)'],
    ['not_attempted', null, null, 'not attempted'],
  ] as const)('%s %s %s → %s', (status, cls, http, text) => expect(statusText(status, cls, http)).toBe(text));
});

describe('stripLabel(segment)', () => {
  it('names the days, what happened and the observations it covers', () => {
    const base = { errorClass: null, http: 200, firstDay: '2025-12-15', lastDay: '2025-12-18' };
    expect(stripLabel({ ...base, kind: 'ok', count: 4 })).toBe('2025-12-15 to 2025-12-18: ok (4 observations)');
    expect(stripLabel({ ...base, kind: 'changed', count: 1, lastDay: '2025-12-15' })).toBe('2025-12-15: ok, contract changed');
    expect(stripLabel({ ...base, kind: 'error', errorClass: 'rate_limited', http: 429, count: 1, lastDay: '2025-12-15' })).toBe('2025-12-15: error: rate_limited (HTTP 429)');
    expect(stripLabel({ ...base, kind: 'not_attempted', errorClass: 'host_unresponsive', http: 0, count: 2 })).toBe('2025-12-15 to 2025-12-18: not attempted (host unresponsive) (2 observations)');
  });
});
