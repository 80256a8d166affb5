// src/site/format.ts: one spelling of each number and status on every page.
import { describe, expect, it } from 'vitest';
import { asOfText, bytes, count, days, fitTitle, listCachingText, pct, reuseText, statusText } from '../../src/site/format.ts';
import { stripCellLabel as stripLabel, stripKind } from '../../src/site/strip-kinds.ts';

describe('reuseText(ms) and the list-caching line', () => {
  it.each([
    [250, '250 ms'],
    [999, '999 ms'],
    [1_000, '1 s'],
    [59_999, '60 s'],
    [60_000, '1 min'],
    [300_000, '5 min'],
    [5_400_000, '1.5 h'],
    [86_400_000, '1 day'],
    [172_800_000, '2 days'],
  ])('%s ms reads %s', (ms, want) => expect(reuseText(ms)).toBe(want));
  const line = (ttlMs: number | null, ttlMsInvalid = false) => listCachingText({ cacheScope: 'public', cacheScopeInvalid: false, ttlMs, ttlMsInvalid, missing: [] });
  it('says what ttlMs asks of a caller: 0 is not to be reused, more is for how long, with the raw value', () => {
    expect(line(0)).toBe('public-scope: the same list for every caller; not to be reused (ttlMs 0)');
    expect(line(1)).toBe('public-scope: the same list for every caller; may be reused for 1 ms (ttlMs 1)');
    expect(line(3_600_000)).toBe('public-scope: the same list for every caller; may be reused for 1 h (ttlMs 3,600,000)');
    expect(line(1e20)).toContain('(ttlMs 1.000e+20)');
    expect(line(null)).toBe('public-scope: the same list for every caller; no ttlMs');
    expect(line(null, true)).toBe('public-scope: the same list for every caller; ttlMs not a number of milliseconds ≥ 0');
  });
});

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

describe('stripCellLabel(segment)', () => {
  it('names the days, what happened and the observations it covers', () => {
    const base = { errorClass: null, http: 200, firstDay: '2025-12-15', lastDay: '2025-12-18' };
    expect(stripLabel({ ...base, kind: 'ok', count: 4 })).toBe('2025-12-15 to 2025-12-18: ok (4 observations)');
    expect(stripLabel({ ...base, kind: 'changed', count: 1, lastDay: '2025-12-15' })).toBe('2025-12-15: ok, contract changed');
    expect(stripLabel({ ...base, kind: 'error', errorClass: 'rate_limited', http: 429, count: 1, lastDay: '2025-12-15' })).toBe('2025-12-15: error: rate_limited (HTTP 429)');
    expect(stripLabel({ ...base, kind: 'not_attempted', errorClass: 'host_unresponsive', http: 0, count: 2 })).toBe('2025-12-15 to 2025-12-18: not attempted (host unresponsive) (2 observations)');
  });
});

describe('stripKind(kind)', () => {
  it('knows every outcome of the strip, and draws an outcome it does not know yet in grey under its own name', () => {
    for (const k of ['ok', 'changed', 'error', 'no_endpoint', 'excluded', 'retired', 'not_attempted', 'missing']) expect(stripKind(k).label).not.toContain('_');
    expect(stripKind('not_attempted').background).not.toBe(stripKind('missing').background);
    expect(stripKind('some_later_outcome')).toEqual({ label: 'some later outcome', background: '#afb8c1' });
    expect(stripLabel({ kind: 'not_attempted', firstDay: '2026-01-02', lastDay: '2026-01-02', count: 1, errorClass: null, http: 0 })).toBe('2026-01-02: not attempted');
  });
});

describe('asOfText(iso)', () => {
  it('writes the instant to the minute in UTC, without milliseconds', () => {
    expect(asOfText('2026-02-12T06:00:01.140Z')).toBe('2026-02-12 06:00 UTC');
    expect(asOfText('2026-02-12T07:30:00+01:00')).toBe('2026-02-12 06:30 UTC');
  });
});

describe('bytes(n)', () => {
  it.each([[1, '1 byte'], [820, '820 bytes'], [1_400, '1.4 kB'], [21_000_000, '21 MB'], [1_480_000_000, '1.5 GB']])('%d is %s', (n, text) => {
    expect(bytes(n)).toBe(text);
  });
});

describe('fitTitle(text, max) (html-validate long-title counts the escaped source)', () => {
  it('keeps a title that fits, clips one that does not, counting < > & " \' as their escapes', () => {
    expect(fitTitle('io.github.x/y', 57)).toBe('io.github.x/y');
    expect(fitTitle('a'.repeat(57), 57)).toBe('a'.repeat(57));
    expect(fitTitle('a'.repeat(58), 57)).toBe(`${'a'.repeat(56)}…`);
    // 14 × `<` is 56 characters of source: one more would not fit beside the ellipsis.
    expect(fitTitle('<'.repeat(20), 57)).toBe(`${'<'.repeat(14)}…`);
    // Counted in UTF-16 code units, as the source's length is; a character is never cut in two.
    expect(fitTitle('😀'.repeat(60), 10)).toBe(`${'😀'.repeat(4)}…`);
  });
});
