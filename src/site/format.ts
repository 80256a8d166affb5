// Formatting shared by pages and components: one spelling of each number and status on every page.
// Pure: no settings, no archive.
import type { ServerStatus, StripSegment } from '../loader/views.ts';

/** Days as the site writes them: whole days as integers, others to one decimal. */
export function days(d: number): string {
  return Number.isInteger(d) ? `${d}` : d.toFixed(1);
}

/** A share as a percentage to one decimal; '—' when unknown (null, or NaN: no denominator). */
export function pct(x: number | null): string {
  return x === null || Number.isNaN(x) ? '—' : `${(x * 100).toFixed(1)}%`;
}

/** A count with thousands separators; '—' when unknown. */
export function count(x: number | null): string {
  return x === null ? '—' : x.toLocaleString('en');
}

/** An outcome in words: `error: <class>` (with its HTTP status when given), else the outcome. */
export function statusText(status: ServerStatus, errorClass: string | null, http?: number | null): string {
  return status === 'error' ? `error: ${errorClass}${http ? ` (HTTP ${http})` : ''}` : status.replace('_', ' ');
}

/** A status strip cell's text alternative: its days, what happened, and how many observations. */
export function stripLabel(s: StripSegment): string {
  const what = s.kind === 'changed' ? 'ok, contract changed' : statusText(s.kind, s.errorClass, s.http);
  return `${s.firstDay === s.lastDay ? s.firstDay : `${s.firstDay} to ${s.lastDay}`}: ${what}${s.count > 1 ? ` (${s.count} observations)` : ''}`;
}
