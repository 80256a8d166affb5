// Contract families (methodology v1 and v2, "Contract families"): registry names that serve one hosted
// template. A template writes each tenant into its tools (`search_acme`, "Search the Acme docs"), so
// every tenant has its own contract hash while the schemas, the platform and the day each change lands
// are the template's; counted as independent servers, one platform release looks like many servers
// changing. A family is defined from what the archive records and nothing else:
//   - a server's *template key* for a contract = the canonical hash (canonicalJson, sha256Hex: the one
//     implementation) of { platform, tools } where every string in its tools has the server's own
//     tenant words (from its registry name and endpoint) replaced by TENANT_PLACEHOLDER, and the
//     platform is the endpoint's host with the same words replaced;
//   - servers holding one template key on the same day, two or more, form a family that day; a server
//     leaves the family the day its key differs (or the day it is the only one left holding it);
//   - a family follows its members across a change of the same shape on the same day: when two or
//     more members move from key K1 to key K2 on one day, K1 and K2 are one family.
// The unit-once figures beside the per-name headlines (familyOnce, familyOnceDrifts) count each family
// once. No recorded row or published hash changes meaning: families are a view beside them.
import { canonicalJson, isObject, MAX_CANONICAL_DEPTH, sha256Hex } from './canonical.ts';
import type { Interval } from './contract-intervals.ts';
import type { Change, Drift } from './detect-drift.ts';
import type { FirstChangeInterval } from './first-change-intervals.ts';
import { byCodeUnits } from './tool-map.ts';

/** What a tenant word is replaced by in a template key's text. */
export const TENANT_PLACEHOLDER = '{tenant}';

/**
 * Words never taken as a tenant's: registry namespaces, URL furniture and words a documentation
 * template writes for every tenant alike ("Search the Acme docs"). Part of the definition: changing
 * this list changes families, so it changes only with a dated methodology note.
 */
export const TENANT_STOPWORDS: readonly string[] = [
  'api', 'app', 'com', 'dev', 'docs', 'documentation', 'github', 'gitlab', 'http', 'https', 'io', 'mcp', 'net', 'org',
  'remote', 'search', 'server', 'servers', 'sse', 'the', 'tools', 'www',
];
const STOP = new Set(TENANT_STOPWORDS);

/** A family's part of the events behind a figure from which the site names it beside the figure. */
export const FAMILY_NOTE_SHARE = 0.25;

const SPLIT = /[^\p{L}\p{N}]+/u;
const MIN_WORD = 3;
const MAX_WORDS = 64;

function hostParts(endpoint: string | null): { host: string[]; path: string[] } {
  if (endpoint === null) return { host: [], path: [] };
  try {
    const url = new URL(endpoint);
    return { host: url.hostname.toLowerCase().split('.'), path: url.pathname.split('/').filter((s) => s !== '') };
  } catch (cause) {
    void cause; // not a URL: no host, no path (such an endpoint was never probed ok)
    return { host: [], path: [] };
  }
}

/**
 * The words of a server's own that a template writes for it: tokens (letters and digits, lowercased,
 * at least 3 characters, not all digits) of its registry name, of its endpoint's path segments and of
 * its endpoint's host labels but the last two, plus each name or path segment with its separators
 * removed (`acme-corp` → `acmecorp`); never a stopword, nor a word of the host's last two labels (the
 * platform's own name). Longest first, then by code units; at most 64.
 */
export function tenantWords(name: string, endpoint: string | null): string[] {
  const { host, path } = hostParts(endpoint);
  const platformWords = new Set(host.slice(-2).flatMap((l) => l.split(SPLIT)));
  const segments = [...name.toLowerCase().split(/[/.]/), ...path.map((p) => p.toLowerCase()), ...host.slice(0, -2)];
  const words = new Set<string>();
  for (const seg of segments) {
    const tokens = seg.split(SPLIT).filter((t) => t !== '');
    for (const t of tokens) words.add(t);
    if (tokens.length > 1) words.add(tokens.join(''));
  }
  return [...words]
    .filter((w) => w.length >= MIN_WORD && !/^\p{N}+$/u.test(w) && !STOP.has(w) && !platformWords.has(w))
    .sort((a, b) => b.length - a.length || byCodeUnits(a, b))
    .slice(0, MAX_WORDS);
}

/**
 * `text` with every tenant word replaced by TENANT_PLACEHOLDER, case-insensitively, where it is not
 * part of a longer run of letters and digits (`search_acme`, "Acme docs"; not `acmetrics`).
 */
export function normaliseTenant(text: string, words: readonly string[]): string {
  if (words.length === 0) return text;
  // Words are letters and digits only (tenantWords), so they need no escaping; longest first wins.
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  return text.replace(re, TENANT_PLACEHOLDER);
}

/** The platform a server is served from: its endpoint's host, lowercased, with its tenant words replaced ('' without one). */
export function platformOf(endpoint: string | null, words: readonly string[]): string {
  const { host } = hostParts(endpoint);
  return host.map((label) => normaliseTenant(label, words)).join('.');
}

export interface TemplateKey {
  key: string;
  platform: string;
}

/**
 * A contract's template key: sha256Hex(canonicalJson({ platform, tools })) with every string value of
 * `tools` (at any depth; object keys kept) normalised by the server's tenant words. The tool count is
 * in it (canonicalJson keeps every tool); the server's version and server info are not (a release
 * bumps them on every tenant; the contract hash does not read them either). null when there is no
 * endpoint or the tools nest deeper than MAX_CANONICAL_DEPTH or hold a non-JSON value.
 */
export function templateKey(name: string, endpoint: string | null, tools: readonly unknown[]): TemplateKey | null {
  if (endpoint === null) return null;
  const words = tenantWords(name, endpoint);
  const platform = platformOf(endpoint, words);
  if (platform === '') return null;
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > MAX_CANONICAL_DEPTH) throw new RangeError('too deep');
    if (typeof v === 'string') return normaliseTenant(v, words);
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, depth + 1)]));
    return v;
  };
  try {
    return { key: sha256Hex(canonicalJson({ platform, tools: walk(tools, 1) })), platform };
  } catch (cause) {
    void cause; // a contract canonicalJson refuses has no template key (it could not be hashed either)
    return null;
  }
}

/** A target's contract interval with its template key (null: none could be made; never in a family). */
export interface KeyedInterval extends Interval {
  key: string | null;
  platform: string | null;
}

/** One stretch of a target's membership of a family (days inclusive). */
export interface FamilyMembership {
  family: string;
  target: string;
  first_day: string;
  last_day: string;
  /** Still a member at the target's last ok observation (its last contract is censored, not left). */
  open: boolean;
}

export interface Family {
  /** The first 16 hex of its earliest template key (earliest shared day, then code units): kept across joint changes. */
  id: string;
  /** The platform of its latest template key. */
  platform: string;
  /** Its template keys in the order they were first shared. */
  keys: string[];
  /** Every target ever a member, by code units. */
  members: string[];
  /** Members still in it at their last ok observation. */
  size: number;
  first_day: string;
  last_day: string;
  /** Contract changes members made while members (a member on the day before the change). */
  changes: number;
  /** Days on which two or more members changed (the corroboration: a template moves its tenants together). */
  joint_days: number;
  /** Member changes made on those days. */
  joint_changes: number;
  memberships: FamilyMembership[];
}

const DAY_MS = 86_400_000;
const dayNum = (day: string) => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
const dayStr = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** Half-open day ranges [from, to) a target held one key. */
interface Held {
  target: string;
  key: string;
  platform: string;
  from: number;
  to: number;
  /** The held range ends with a change to another key on day `to`. */
  changed: boolean;
  last: boolean;
}

function heldRanges(intervals: readonly KeyedInterval[]): Map<string, Held[]> {
  const byTarget = new Map<string, KeyedInterval[]>();
  for (const i of intervals) {
    let list = byTarget.get(i.target);
    if (!list) byTarget.set(i.target, (list = []));
    list.push(i);
  }
  const out = new Map<string, Held[]>();
  for (const [target, list] of byTarget) {
    list.sort((a, b) => byCodeUnits(a.start_day, b.start_day));
    const held: Held[] = [];
    list.forEach((i, k) => {
      const from = dayNum(i.start_day);
      const to = i.event ? dayNum(i.end_day) : dayNum(i.end_day) + 1;
      const prev = held.at(-1);
      // A contract change that moves only tenant words keeps the key: one held range.
      if (prev && i.key !== null && prev.key === i.key && prev.to >= from) {
        prev.to = Math.max(prev.to, to);
        prev.changed = i.event;
        prev.last = k === list.length - 1;
        return;
      }
      if (i.key === null || i.platform === null) return;
      held.push({ target, key: i.key, platform: i.platform, from, to, changed: i.event, last: k === list.length - 1 });
    });
    out.set(target, held.filter((h) => h.to > h.from));
  }
  return out;
}

/** The day ranges on which two or more targets held `ranges`' key. */
function sharedRanges(ranges: readonly Held[]): [number, number][] {
  const points = ranges.flatMap((r) => [[r.from, 1], [r.to, -1]] as [number, number][]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  let n = 0;
  let start = 0;
  for (const [at, d] of points) {
    const before = n;
    n += d;
    if (before < 2 && n >= 2) start = at;
    if (before >= 2 && n < 2 && at > start) {
      const prev = out.at(-1);
      if (prev && prev[1] === start) prev[1] = at;
      else out.push([start, at]);
    }
  }
  return out;
}

/**
 * The families of an archive from every target's contract intervals (in any order) with their
 * template keys. Families are sorted by first day, then id; memberships by target, then first day.
 */
export function contractFamilies(intervals: readonly KeyedInterval[]): Family[] {
  const held = heldRanges(intervals);
  const byKey = new Map<string, Held[]>();
  for (const list of held.values()) for (const h of list) {
    let k = byKey.get(h.key);
    if (!k) byKey.set(h.key, (k = []));
    k.push(h);
  }
  const shared = new Map<string, [number, number][]>();
  for (const [key, ranges] of byKey) {
    const s = sharedRanges(ranges);
    if (s.length > 0) shared.set(key, s);
  }
  // Joint moves: two or more targets leaving K1 for K2 on the same day link K1 and K2 (union-find).
  const parent = new Map<string, string>([...shared.keys()].map((k) => [k, k]));
  const find = (k: string): string => {
    let r = k;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(k, r);
    return r;
  };
  const moves = new Map<string, Set<string>>();
  for (const list of held.values()) {
    for (let k = 0; k + 1 < list.length; k++) {
      const a = list[k]!;
      const b = list[k + 1]!;
      if (!a.changed || a.to !== b.from || !shared.has(a.key) || !shared.has(b.key)) continue;
      const move = `${a.key} ${b.key} ${a.to}`;
      let who = moves.get(move);
      if (!who) moves.set(move, (who = new Set()));
      who.add(a.target);
    }
  }
  for (const [move, who] of moves) {
    if (who.size < 2) continue;
    const [k1, k2] = move.split(' ') as [string, string];
    const r1 = find(k1);
    const r2 = find(k2);
    if (r1 !== r2) parent.set(r2, r1);
  }
  // Membership pieces: a held range of a family key, cut to the days it was shared.
  interface Piece { target: string; key: string; from: number; to: number; open: boolean }
  const pieces = new Map<string, Piece[]>();
  for (const [key, ranges] of shared) {
    const root = find(key);
    let list = pieces.get(root);
    if (!list) pieces.set(root, (list = []));
    for (const h of byKey.get(key)!) {
      for (const [s, e] of ranges) {
        const from = Math.max(h.from, s);
        const to = Math.min(h.to, e);
        if (to > from) list.push({ target: h.target, key, from, to, open: h.last && !h.changed && to === h.to });
      }
    }
  }
  const families: Family[] = [];
  for (const [root, list] of pieces) {
    const keys = [...new Set(list.map((p) => p.key))];
    const firstOf = (k: string) => shared.get(k)![0]![0];
    const lastOf = (k: string) => shared.get(k)!.at(-1)![1];
    keys.sort((a, b) => firstOf(a) - firstOf(b) || byCodeUnits(a, b));
    const latestKey = [...keys].sort((a, b) => lastOf(b) - lastOf(a) || byCodeUnits(a, b))[0]!;
    void root;
    const id = keys[0]!.slice(0, 16);
    list.sort((a, b) => byCodeUnits(a.target, b.target) || a.from - b.from);
    const memberships: FamilyMembership[] = [];
    let cur: (Piece & { family: string }) | null = null;
    const flush = () => cur && memberships.push({ family: id, target: cur.target, first_day: dayStr(cur.from), last_day: dayStr(cur.to - 1), open: cur.open });
    for (const p of list) {
      if (cur && cur.target === p.target && cur.to >= p.from) {
        cur.to = Math.max(cur.to, p.to);
        cur.open = p.open;
      } else {
        flush();
        cur = { ...p, family: id };
      }
    }
    flush();
    // Member changes: a held range ending in a change while the target was a member the day before.
    const changeDays = new Map<number, number>();
    for (const m of memberships) {
      for (const h of held.get(m.target)!) {
        if (h.changed && h.to - 1 >= dayNum(m.first_day) && h.to - 1 <= dayNum(m.last_day)) changeDays.set(h.to, (changeDays.get(h.to) ?? 0) + 1);
      }
    }
    const joint = [...changeDays.values()].filter((n) => n >= 2);
    const platform = byKey.get(latestKey)![0]!.platform;
    families.push({
      id, platform, keys,
      members: [...new Set(memberships.map((m) => m.target))].sort(byCodeUnits),
      size: memberships.filter((m) => m.open).length,
      first_day: dayStr(Math.min(...list.map((p) => p.from))),
      last_day: dayStr(Math.max(...list.map((p) => p.to)) - 1),
      changes: [...changeDays.values()].reduce((s, n) => s + n, 0),
      joint_days: joint.length,
      joint_changes: joint.reduce((s, n) => s + n, 0),
      memberships,
    });
  }
  return families.sort((a, b) => byCodeUnits(a.first_day, b.first_day) || byCodeUnits(a.id, b.id));
}

/** A family's part of the events behind a per-name figure. */
export interface FamilyShare {
  family: string;
  platform: string;
  /** The figure's events (first changes, or changes) that came from this family's members. */
  events: number;
  /** All the figure's events. */
  total: number;
  share: number;
}

export interface FamilyOnce {
  /** The first-change intervals with each family counted once, as its earliest member. */
  intervals: FirstChangeInterval[];
  /** Targets whose first contract was a family's template: target → family id (the representative included). */
  unitOf: Map<string, string>;
  /** The family that made the largest part of the per-name figure's first changes; null without one. */
  largest: FamilyShare | null;
}

function largestShare(families: readonly Family[], counts: Map<string, number>, total: number): FamilyShare | null {
  let best: FamilyShare | null = null;
  for (const f of families) {
    const events = counts.get(f.id) ?? 0;
    if (events === 0 || (best && (events < best.events || (events === best.events && byCodeUnits(f.id, best.family) > 0)))) continue;
    best = { family: f.id, platform: f.platform, events, total, share: events / total };
  }
  return best;
}

/**
 * Time to first change with each family counted once: a target whose first contract was, at some point,
 * a family's template belongs to that family's unit, and the unit is its earliest member (earliest
 * first observation, then code units), whose recorded timeline stands for it unchanged. Every other
 * target counts as itself. Give the result's `intervals` to kaplanMeier, halfLife, everChangedShare.
 */
export function familyOnce(families: readonly Family[], firstChange: readonly FirstChangeInterval[]): FamilyOnce {
  const byTarget = new Map<string, FamilyMembership[]>();
  for (const f of families) for (const m of f.memberships) {
    let list = byTarget.get(m.target);
    if (!list) byTarget.set(m.target, (list = []));
    list.push(m);
  }
  const unitOf = new Map<string, string>();
  for (const i of firstChange) {
    // The first contract's held days: [start, end) when it ended in a change, [start, end] when censored.
    const lastHeld = i.event ? dayNum(i.end_day) - 1 : dayNum(i.end_day);
    const m = (byTarget.get(i.target) ?? []).find((x) => dayNum(x.first_day) <= lastHeld && dayNum(x.first_day) >= dayNum(i.start_day));
    if (m) unitOf.set(i.target, m.family);
  }
  const rep = new Map<string, FirstChangeInterval>();
  for (const i of firstChange) {
    const f = unitOf.get(i.target);
    if (f === undefined) continue;
    const r = rep.get(f);
    if (!r || byCodeUnits(i.start_day, r.start_day) < 0 || (i.start_day === r.start_day && byCodeUnits(i.target, r.target) < 0)) rep.set(f, i);
  }
  const intervals = firstChange.filter((i) => !unitOf.has(i.target) || rep.get(unitOf.get(i.target)!) === i);
  const counts = new Map<string, number>();
  let total = 0;
  for (const i of firstChange) {
    if (!i.event) continue;
    total++;
    const f = unitOf.get(i.target);
    if (f !== undefined) counts.set(f, (counts.get(f) ?? 0) + 1);
  }
  return { intervals, unitOf, largest: largestShare(families, counts, total) };
}

export interface FamilyOnceDrifts {
  /** The drifts with members' joint changes taken out, and one drift per family holding them once per day. */
  drifts: Drift[];
  /** The family that made the largest part of all changes (per name); null without one. */
  largest: FamilyShare | null;
}

/**
 * The drifts for volatility with each family counted once: a change a target made while a member of a
 * family (a member on the day before it) on a day when another member changed too is the family's
 * joint change, counted once per family per day on a drift named `family:<id>` (no versions: its members
 * keep theirs and answer as before). A member's change on a day no other member changed (leaving the
 * template, say) stays its own, as does every non-member's. The volatile subset of the result is the
 * family-once one.
 */
export function familyOnceDrifts(families: readonly Family[], drifts: readonly Drift[]): FamilyOnceDrifts {
  const all = drifts.flatMap((d) => d.changes);
  const { joint, counts } = jointChanges(families, all);
  const perFamily = new Map<string, Change[]>();
  for (const [family, days] of groupJoint(joint)) {
    perFamily.set(family, [...days.values()].map((list) => [...list].sort((a, b) => byCodeUnits(a.target, b.target))[0]!));
  }
  const out: Drift[] = drifts.map((d) => {
    const own = d.changes.filter((c) => !joint.has(c));
    return own.length === d.changes.length ? d : { ...d, changes: own, repeatMover: own.length >= 2 };
  });
  for (const [family, changes] of [...perFamily].sort((a, b) => byCodeUnits(a[0], b[0]))) {
    out.push({ target: `family:${family}`, head: null, versions: [], changes, repeatMover: changes.length >= 2 });
  }
  return { drifts: out, largest: largestShare(families, counts, all.length) };
}

/** A change as the joint-change rule reads it: whose, and on which day. */
export interface DayChange {
  target: string;
  day: string;
}

/**
 * The joint changes among `changes`: a change a target made while a member of a family (a member on
 * the day before it) on a day when another member of that family changed too, mapped to the family;
 * `counts` is each family's number of such changes. The one rule familyOnceDrifts and
 * familyOnceChanged count by.
 */
function jointChanges<C extends DayChange>(families: readonly Family[], changes: readonly C[]): { joint: Map<C, string>; counts: Map<string, number> } {
  const spans = new Map<string, { family: string; from: number; to: number }[]>();
  for (const f of families) for (const m of f.memberships) {
    let list = spans.get(m.target);
    if (!list) spans.set(m.target, (list = []));
    list.push({ family: f.id, from: dayNum(m.first_day), to: dayNum(m.last_day) });
  }
  const familyOf = (c: C) => (spans.get(c.target) ?? []).find((s) => s.from <= dayNum(c.day) - 1 && dayNum(c.day) - 1 <= s.to)?.family;
  // Member changes by family and day: a day with two or more members changing is a joint change.
  const byDay = new Map<string, { family: string; list: C[] }>();
  for (const c of changes) {
    const family = familyOf(c);
    if (family === undefined) continue;
    const k = `${family} ${c.day}`;
    let e = byDay.get(k);
    if (!e) byDay.set(k, (e = { family, list: [] }));
    e.list.push(c);
  }
  const joint = new Map<C, string>();
  const counts = new Map<string, number>();
  for (const { family, list } of byDay.values()) {
    if (new Set(list.map((c) => c.target)).size < 2) continue;
    for (const c of list) joint.set(c, family);
    counts.set(family, (counts.get(family) ?? 0) + list.length);
  }
  return { joint, counts };
}

/** Joint changes by family (code units) and day (oldest first). */
function groupJoint<C extends DayChange>(joint: Map<C, string>): [string, Map<string, C[]>][] {
  const by = new Map<string, Map<string, C[]>>();
  for (const [c, family] of joint) {
    let days = by.get(family);
    if (!days) by.set(family, (days = new Map()));
    let list = days.get(c.day);
    if (!list) days.set(c.day, (list = []));
    list.push(c);
  }
  return [...by]
    .sort((a, b) => byCodeUnits(a[0], b[0]))
    .map(([f, days]) => [f, new Map([...days].sort((a, b) => byCodeUnits(a[0], b[0])))]);
}

export interface FamilyOnceChanged {
  /** Servers whose contract moved in the window, per registry name (the tile's own figure). */
  servers: number;
  /** The same with each family counted once: a server whose change in the window was its family's joint change counts as that family. */
  units: number;
  /** The family whose members made the largest part of `servers`; null without one. */
  largest: FamilyShare | null;
}

/**
 * "Servers whose contract moved in the last `days` days" (the window ending on `asOfDay`, inclusive)
 * per registry name and with each family counted once: a target with a joint change (familyOnceDrifts'
 * rule) in the window counts as its family, every other changed target as itself. null day: nothing
 * counted.
 */
export function familyOnceChanged(families: readonly Family[], changes: readonly DayChange[], asOfDay: string | null, days: number): FamilyOnceChanged {
  if (asOfDay === null) return { servers: 0, units: 0, largest: null };
  const since = dayNum(asOfDay) - (days - 1);
  const within = changes.filter((c) => dayNum(c.day) >= since && dayNum(c.day) <= dayNum(asOfDay));
  const { joint } = jointChanges(families, within);
  const unitOf = new Map<string, string>();
  for (const c of [...within].sort((a, b) => byCodeUnits(a.day, b.day))) {
    const family = joint.get(c);
    if (family !== undefined && !unitOf.get(c.target)?.startsWith('family:')) unitOf.set(c.target, `family:${family}`);
    else if (!unitOf.has(c.target)) unitOf.set(c.target, `target:${c.target}`);
  }
  const counts = new Map<string, number>();
  for (const u of unitOf.values()) if (u.startsWith('family:')) counts.set(u.slice(7), (counts.get(u.slice(7)) ?? 0) + 1);
  return { servers: unitOf.size, units: new Set(unitOf.values()).size, largest: largestShare(families, counts, unitOf.size) };
}

/**
 * The sentence beside a per-name figure when one family made at least FAMILY_NOTE_SHARE of its events:
 * "6 of the 8 first changes behind this figure (75%) came from one contract family: servers of one
 * template that change on the same day." null below that. Names no server or platform (registry text
 * stays out of prose; the site links the family).
 */
export function familyNote(share: FamilyShare | null, events: string): string | null {
  if (share === null || share.total === 0 || share.share < FAMILY_NOTE_SHARE) return null;
  const p = Math.round(share.share * 100);
  const pct = share.events === share.total ? 'all of them' : p >= 100 ? 'over 99%' : `${p}%`;
  return `${share.events} of the ${share.total} ${events} behind this figure (${pct}) came from one contract family: servers of one template that change on the same day.`;
}
