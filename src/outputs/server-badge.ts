// The badge a maintainer can embed in a README: /servers/<slug>/badge.svg, one per server,
// "contract unchanged since DATE" or "changed on DATE", drawn by badgen (shields-style, text widths
// measured in Verdana, no dependencies). Days are the rows' UTC `day` fields, as everywhere on the
// site. It names a day, not a count of days: a count ("unchanged for N days") moved with every run,
// so every server's badge (and page, which shows its text) changed daily with nothing new to say, and
// a build could not redraw only the servers that changed (DESIGN "Incremental server pages"). The one
// date-driven turn left is "changed on DATE" becoming "unchanged since DATE" RECENT_DAYS later.
import { createHash } from 'node:crypto';
import { badgen } from 'badgen';
import type { ServerView } from '../loader/views.ts';

/** A change this recent reads "changed on DATE" rather than "unchanged since DATE". */
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
  return { label, status: `unchanged since ${changed ?? s.head.firstSeen.slice(0, 10)}`, color: 'green' };
}

/** The badge's text: a day, never a running count (see the header), so it is one of a page's fingerprinted inputs as it is. */
export const stableBadgeText = badgeText;

/**
 * The badge's SVG. badgen names its gradient and mask with random ids, so two builds of one archive
 * wrote different bytes (and SHA256SUMS moved daily for nothing); the ids are renamed, in order of
 * first appearance, to ones derived from the badge's own text — unique within the file, same every build.
 */
export function serverBadge(t: BadgeText): string {
  const svg = badgen({ label: t.label, status: t.status, color: t.color });
  const key = createHash('sha256').update(JSON.stringify([t.label, t.status, t.color])).digest('hex').slice(0, 8);
  const ids = new Map<string, string>();
  for (const m of svg.matchAll(/\bid="([^"]+)"/g)) if (!ids.has(m[1]!)) ids.set(m[1]!, `b${key}-${ids.size}`);
  return svg.replace(/\bid="([^"]+)"|url\(#([^)]+)\)/g, (whole, id?: string, ref?: string) => {
    if (id !== undefined) return `id="${ids.get(id) ?? id}"`;
    return ids.has(ref!) ? `url(#${ids.get(ref!)})` : whole;
  });
}

function days(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
