// The badge a maintainer can embed in a README (issue 16): /servers/<slug>/badge.svg, one per server,
// "contract unchanged for N days" or "changed on DATE", drawn by badgen (shields-style, text widths
// measured in Verdana, no dependencies). Days are whole UTC days between the rows' `day` fields, as
// everywhere on the site; the count runs to the last successful answer, not to today: a server that
// stopped answering has not been seen unchanged since.
import { badgen } from 'badgen';
import type { ServerView } from '../loader/views.ts';

/** A change this recent reads "changed on DATE" rather than "unchanged for N days". */
export const RECENT_DAYS = 7;

export interface BadgeText {
  label: string;
  status: string;
  color: string;
}

export function badgeText(s: Pick<ServerView, 'status' | 'head' | 'lastChange' | 'lastOk' | 'lastObserved'>, asOfDay: string | null): BadgeText {
  const label = 'MCP contract';
  if (s.status === 'retired') return { label, status: `left the registry ${s.lastObserved.slice(0, 10)}`, color: 'grey' };
  if (s.head === null || s.lastOk === null) return { label, status: 'not observed yet', color: 'grey' };
  const changed = s.lastChange?.slice(0, 10) ?? null;
  if (changed && asOfDay && days(changed, asOfDay) < RECENT_DAYS) return { label, status: `changed on ${changed}`, color: 'blue' };
  const n = days(changed ?? s.head.firstSeen.slice(0, 10), s.lastOk.slice(0, 10));
  return { label, status: `unchanged for ${n} day${n === 1 ? '' : 's'}`, color: 'green' };
}

export function serverBadge(t: BadgeText): string {
  return badgen({ label: t.label, status: t.status, color: t.color });
}

function days(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
