// Formatting shared by pages and components: one spelling of each number and status on every page.
// Pure: no settings, no archive.
import type { ServerStatus } from '../loader/views.ts';

/** Days as the site writes them: whole days as integers, others to one decimal. */
export function days(d: number): string {
  return Number.isInteger(d) ? `${d}` : d.toFixed(1);
}

/** A share as a percentage to one decimal; '—' when unknown (null, or NaN: no denominator). */
export function pct(x: number | null): string {
  return x === null || Number.isNaN(x) ? '—' : `${(x * 100).toFixed(1)}%`;
}

/** A server's ttlMs in words: milliseconds with separators (to three decimals), a huge one in exponent form; '—' when unknown. */
export function ttlText(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  return ms >= 1e15 ? `${ms.toExponential(3)} ms` : `${ms.toLocaleString('en', { maximumFractionDigits: 3 })} ms`;
}

/** How long a ttlMs lets a caller reuse a list, in the largest whole-ish unit (`5 min`, `1.5 h`, `250 ms`). */
export function reuseText(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'days'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1_000, 's'],
  ];
  for (const [size, unit] of units) {
    if (ms >= size) {
      const n = Math.round((ms / size) * 10) / 10;
      return `${n.toLocaleString('en')} ${unit === 'days' && n === 1 ? 'day' : unit}`;
    }
  }
  return `${ms.toLocaleString('en', { maximumFractionDigits: 3 })} ms`;
}

/** A server's list caching (methodology v2, "What servers say about their lists") in one line for its page. */
export function listCachingText(c: { cacheScope: 'public' | 'private' | null; cacheScopeInvalid: boolean; ttlMs: number | null; ttlMsInvalid: boolean; missing: readonly string[] }): string {
  const scope =
    c.cacheScope === 'private'
      ? "private-scope: this list may differ per caller; the archive saw an anonymous caller's list"
      : c.cacheScope === 'public'
        ? 'public-scope: the same list for every caller'
        : c.cacheScopeInvalid
          ? 'cacheScope is neither public nor private'
          : 'no cacheScope';
  // ttlMs 0: the server asks callers not to reuse the list at all.
  const ttl =
    c.ttlMs === null
      ? c.ttlMsInvalid
        ? 'ttlMs not a number of milliseconds ≥ 0'
        : 'no ttlMs'
      : c.ttlMs === 0
        ? 'not to be reused (ttlMs 0)'
        : `may be reused for ${c.ttlMs >= 1e15 ? ttlText(c.ttlMs) : reuseText(c.ttlMs)} (ttlMs ${c.ttlMs >= 1e15 ? c.ttlMs.toExponential(3) : c.ttlMs.toLocaleString('en', { maximumFractionDigits: 3 })})`;
  const missing = c.missing.length > 0 ? `; lacks what 2026-07-28 requires: ${c.missing.join(', ')}` : '';
  return `${scope}; ${ttl}${missing}`;
}

/** A count with thousands separators; '—' when unknown. */
export function count(x: number | null): string {
  return x === null ? '—' : x.toLocaleString('en');
}

/**
 * An outcome in words: `error: <class>` (with its HTTP status when given), `not attempted (<reason>)`
 * for a target the run did not contact, else the outcome. `detail` is the error class of an error
 * and the not_attempted_reason of a not_attempted row.
 */
export function statusText(status: ServerStatus, detail: string | null, http?: number | null): string {
  if (status === 'error') return `error: ${detail}${http ? ` (HTTP ${http})` : ''}`;
  if (status === 'not_attempted') return `not attempted${detail ? ` (${detail.replaceAll('_', ' ')})` : ''}`;
  return status.replaceAll('_', ' ');
}


/** "Data as of" for a reader: the run's instant to the minute, in UTC ("2026-02-12 06:00 UTC"), not a raw timestamp. */
export function asOfText(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A file size in decimal units, as downloads are labelled ("1.4 MB", "820 bytes"). */
export function bytes(n: number): string {
  if (n < 1000) return `${n} byte${n === 1 ? '' : 's'}`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** Whole UTC days from one day (YYYY-MM-DD) to another. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Outcome classes in words (the error-class tables and charts). */
export const CLASS_LABELS: Record<string, string> = { ok: 'answered OK', timeout: 'timeout', tls: 'TLS failure', http_4xx: 'HTTP 4xx', http_5xx: 'HTTP 5xx', auth: 'authentication required', rate_limited: 'rate limited', no_endpoint: 'no endpoint', parse: 'unparseable answer' };

/**
 * A page title that fits `max` characters of HTML source once escaped (html-validate long-title counts
 * the source: `<` is `&lt;`), clipped with an ellipsis: search results and tabs cut long titles anyway,
 * and a registry name can be 512 characters. The page's h1 keeps the whole name.
 */
export function fitTitle(text: string, max: number): string {
  const cost = (ch: string) => ({ '&': 5, '<': 4, '>': 4, '"': 6, "'": 5 })[ch] ?? ch.length;
  const chars = [...text];
  if (chars.reduce((n, ch) => n + cost(ch), 0) <= max) return text;
  let out = '';
  let used = 1; // the ellipsis
  for (const ch of chars) {
    if (used + cost(ch) > max) break;
    out += ch;
    used += cost(ch);
  }
  return `${out}…`;
}
