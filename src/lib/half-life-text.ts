// The half-life in words for the public (methodology v1, "Half-life"; a bare headline
// can mislead). Pure formatting of what halfLife and volatility already computed, kept here so each branch
// is tested with literal strings; only the site uses it, so the lead may move it under src/.
//
// Before the curve crosses 50% the median is not unknown: S(t) > 0.5 at every row, and the curve is
// defined up to its last row (the longest lifetime observed, event or censored), so the estimated
// median is past that time. "more than T days" says exactly that, where "—" said nothing. The 95%
// interval follows the same rule: a band that never reaches 0.5 leaves its bound open at T.
import { halfLife } from './survival/half-life.ts';
import type { KMRow } from './survival/kaplan-meier.ts';
import type { Volatility } from './volatility.ts';

export interface HalfLifeText {
  /** median: the curve reached 50%; beyond: not yet, the median is past the last time; none: nothing observed past day 0. */
  kind: 'median' | 'beyond' | 'none';
  /** "46 days", "more than 59 days" or "—". */
  value: string;
  /** "95% CI 30 to more than 179"; null for none. */
  interval: string | null;
  /** The value with its interval in parentheses: "46 days (95% CI 30 to more than 179)". */
  text: string;
}

/** The half-life of a Kaplan–Meier curve as a reader sees it, with its 95% interval and open bounds. */
export function halfLifeText(rows: readonly KMRow[]): HalfLifeText {
  const last = rows[rows.length - 1]?.time ?? 0;
  const more = `more than ${days(last)}`;
  const h = halfLife(rows);
  if (h !== null) {
    // lower ≤ S on every row, so the lower band reaches 0.5 no later than S does: never null here.
    const interval = `95% CI ${days(h.lower!)} to ${h.upper === null ? more : days(h.upper)}`;
    const value = `${days(h.median)} ${unit(h.median)}`;
    return { kind: 'median', value, interval, text: `${value} (${interval})` };
  }
  // Nothing past day 0 (an archive's first day): "more than 0 days" would be true and say nothing.
  if (last === 0) return { kind: 'none', value: '—', interval: null, text: '—' };
  // halfLife's rule applied to the lower band alone, as halfLife does for its own `lower`.
  const lower = halfLife(rows.map((r) => ({ ...r, survival: r.lower })))?.median ?? null;
  const interval = lower === null ? `95% CI ${more}` : `95% CI ${days(lower)} to ${more}`;
  const value = `${more} ${unit(last)}`;
  return { kind: 'beyond', value, interval, text: `${value} (${interval})` };
}

/**
 * The sentence under the half-life: what it counts and who dominates it, in plain words, from
 * volatility over the same rows. Names no server (registry text stays out of prose; the site lists the
 * repeat movers). null when no server answered.
 */
export function halfLifeNote(v: Volatility): string | null {
  if (v.answering === 0) return null;
  const lead = 'It counts contracts, not servers: ';
  if (v.changes === 0) {
    return lead + (v.answering === 1 ? 'the one server that answered has not changed its contract yet.' : `none of the ${v.answering} servers that answered has changed its contract yet.`);
  }
  const from = v.changed === v.answering ? (v.answering === 1 ? 'the one server that answered' : `all ${v.answering} servers that answered`) : `${v.changed} of the ${v.answering} ${v.answering === 1 ? 'server' : 'servers'} that answered`;
  let note = `${lead}its ${v.changes} ${v.changes === 1 ? 'change' : 'changes'} came from ${from}.`;
  const k = v.volatile.length;
  if (k > 0) {
    const made = v.volatileChanges === v.changes ? (v.changes === 2 ? 'both' : `all ${v.changes}`) : `${v.volatileChanges} of the ${v.changes} (${percent(v.volatileChanges, v.changes)})`;
    note += ` ${k === 1 ? 'One server' : `${k} servers`} changed more than once and made ${made}`;
    if (k > 1) note += `; the busiest alone made ${v.volatile[0]!.changes} (${percent(v.volatile[0]!.changes, v.changes)})`;
    note += '.';
  }
  return note;
}

/** Whole days as integers, R's plateau midpoints (x.5) with one decimal. */
function days(d: number): string {
  return Number.isInteger(d) ? String(d) : d.toFixed(1);
}

function unit(d: number): string {
  return d === 1 ? 'day' : 'days';
}

/** Rounded to a whole percent, but never 0% or 100% unless exact: 199 of 200 is "over 99%". */
function percent(part: number, whole: number): string {
  const p = Math.round((100 * part) / whole);
  if (p === 0 && part > 0) return 'under 1%';
  if (p === 100 && part < whole) return 'over 99%';
  return `${p}%`;
}
