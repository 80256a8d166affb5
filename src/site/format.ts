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

/** A status strip cell's text alternative: its days, what happened, and how many observations. */
export function stripLabel(s: StripSegment): string {
  const what = s.kind === 'changed' ? 'ok, contract changed' : statusText(s.kind, s.errorClass, s.http);
  return `${s.firstDay === s.lastDay ? s.firstDay : `${s.firstDay} to ${s.lastDay}`}: ${what}${s.count > 1 ? ` (${s.count} observations)` : ''}`;
}
