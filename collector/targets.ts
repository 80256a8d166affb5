// Stage 2: from raw roster pages to targets (methodology v1, "Roster" → "Targets").
//   - one target per server.name, taken from the entry flagged isLatest — never by position:
//     versions sort as strings (1.10.0 before 1.9.0), so the latest is often not last in its group;
//   - endpoint = the first remotes[] entry of type streamable-http, scanning the whole array
//     (real entries list an `sse` remote first); a URL still holding {template} variables, or not
//     an http(s) URL, is no endpoint: src/lib probedRemote, which the descriptor's connectability
//     block uses too;
//   - opt-outs (optout.txt: registry names or hosts) are excluded and never contacted;
//   - retirement: in the previous complete roster, absent from today's complete roster;
//   - eligible (the coverage denominator): with an endpoint and not opted out.
import fs from 'node:fs';
import { isObject, OFFICIAL_META, probedRemote, type Roster, type RosterTarget } from '../src/lib/index.ts';
import type { FetchedPage } from './roster.ts';

export function selectTargets(pages: FetchedPage[]): { targets: RosterTarget[]; entries: number } {
  const byName = new Map<string, RosterTarget | null>(); // null: name seen, no isLatest entry yet
  const first = new Map<string, { page: string; index: number; version: string }>();
  let entries = 0;
  for (const page of pages) {
    page.servers.forEach((entry, index) => {
      entries++;
      if (!isObject(entry) || !isObject(entry.server) || typeof entry.server.name !== 'string' || entry.server.name.length === 0) return;
      const name = entry.server.name.slice(0, 512);
      if (!byName.has(name)) {
        byName.set(name, null); // roster order = first appearance of the name
        first.set(name, { page: page.sha256, index, version: typeof entry.server.version === 'string' ? entry.server.version.slice(0, 256) : '' });
      }
      const meta = isObject(entry._meta) && isObject(entry._meta[OFFICIAL_META]) ? entry._meta[OFFICIAL_META] : {};
      if (meta.isLatest !== true || byName.get(name)) return;
      const { endpoint, problem } = probedRemote(entry.server.remotes);
      byName.set(name, {
        name,
        version: typeof entry.server.version === 'string' ? entry.server.version.slice(0, 256) : '',
        status: typeof meta.status === 'string' ? meta.status.slice(0, 64) : null,
        endpoint,
        endpoint_problem: problem,
        page_sha256: page.sha256,
        page_index: index,
      });
    });
  }
  // A name with no visible isLatest entry (the registry hides deleted rows) is still a target, but
  // we will not guess its endpoint from a position: no_endpoint, pointing at its first entry.
  const targets = [...byName.entries()].map(([name, t]): RosterTarget => {
    if (t) return t;
    const f = first.get(name)!;
    return { name, version: f.version, status: null, endpoint: null, endpoint_problem: 'no_latest_entry', page_sha256: f.page, page_index: f.index };
  });
  return { targets, entries };
}

/** Targets of `previous` that are absent from `today`; none unless both rosters are complete. */
export function retiredTargets(previous: { complete: boolean; targets: RosterTarget[] } | null, today: { complete: boolean; targets: RosterTarget[] }): RosterTarget[] {
  if (!previous || !previous.complete || !today.complete) return [];
  const now = new Set(today.targets.map((t) => t.name));
  return previous.targets.filter((t) => !now.has(t.name));
}

export interface OptOut {
  names: Set<string>;
  hosts: Set<string>;
}

/** optout.txt: one registry name or host per line, `#` starts a comment. A missing file opts nobody out. */
export function readOptOut(path: string | null): OptOut {
  const out: OptOut = { names: new Set(), hosts: new Set() };
  if (path === null || !fs.existsSync(path)) return out;
  for (const line of fs.readFileSync(path, 'utf8').split('\n')) {
    const entry = line.replace(/#.*/, '').trim();
    if (!entry) continue;
    out.names.add(entry);
    if (!entry.includes('/')) out.hosts.add(entry.toLowerCase().replace(/\.$/, ''));
  }
  return out;
}

export function isOptedOut(t: Pick<RosterTarget, 'name' | 'endpoint'>, optOut: OptOut): boolean {
  if (optOut.names.has(t.name)) return true;
  if (t.endpoint === null || optOut.hosts.size === 0) return false;
  const u = new URL(t.endpoint);
  const hostname = u.hostname.toLowerCase().replace(/\.$/, '');
  return optOut.hosts.has(hostname) || optOut.hosts.has(u.host.toLowerCase());
}

/**
 * Targets meant to be contacted (methodology v1, "Coverage"): of `selected` (today's roster after
 * --limit), those with an endpoint that are not opted out; and, when today's roster was cut short
 * (and the run is not limited), the previous complete roster's such targets it could not list.
 */
export function eligibleCount(selected: readonly RosterTarget[], today: Roster, previous: Roster | null, optOut: OptOut, limited: boolean): number {
  const contactable = (t: RosterTarget) => t.endpoint !== null && !isOptedOut(t, optOut);
  let eligible = selected.filter(contactable).length;
  if (!today.complete && previous && !limited) {
    const listed = new Set(today.targets.map((t) => t.name));
    eligible += previous.targets.filter((t) => !listed.has(t.name) && contactable(t)).length;
  }
  return eligible;
}
