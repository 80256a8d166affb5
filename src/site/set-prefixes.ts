// The lookup's index without JavaScript (/lookup/<xx>/): set hashes grouped by their first two hex
// characters, so each page stays short (at 25,000 servers over a year, tens of thousands of hashes
// make about a hundred per page).
import type { SetView } from '../loader/views.ts';

/** The first and last day any server served a set (UTC days, from its servers' first and last seen). */
export function setSpan(set: Pick<SetView, 'servers'>): { first: string; last: string } {
  let first = '';
  let last = '';
  for (const s of set.servers) {
    if (first === '' || s.firstSeen < first) first = s.firstSeen;
    if (s.lastSeen > last) last = s.lastSeen;
  }
  return { first: first.slice(0, 10), last: last.slice(0, 10) };
}

export function setPrefixes(sets: readonly SetView[]): { prefix: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const s of sets) counts.set(s.setHash.slice(0, 2), (counts.get(s.setHash.slice(0, 2)) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([prefix, count]) => ({ prefix, count }));
}
