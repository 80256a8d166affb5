// The registry listing at its real size for `npm run bench:years`: ≈ 115,000 name+version
// rows of ≈ 1 KB, ≈ 42,000 names, ≈ 26,000 of them with a streamable-http endpoint, ordered by name then
// version as the registry orders them (sandbox/registry-server.ts compareEntries), and changing every
// day at the real rate.
//
//   - Built by cloning the real entries of fixtures/registry/real (the 2025-12-12 listing, 2,628 rows,
//     1,055 names): a name's whole group of versions is cloned under a new, unique name, so every entry
//     keeps its real size and shape (key order, packages, headers, _meta); the name takes a real
//     namespace drawn at random (so clones of one server spread over the listing instead of sitting
//     side by side), remote URLs and the repository URL get the clone's tag. Objects are shallow copies
//     sharing their unchanged parts, and every change replaces an entry (never mutates it), so one day
//     of the listing costs little memory and the serialized entry can be cached by object.
//   - The daily change is measured from the two dated real listings (REAL_RATE below) and scaled
//     proportionally to the listing's size: a new server is one new row (its latest); a new version is
//     a new row, and the previous latest entry's `_meta` changes too (`isLatest` false, `updatedAt`
//     the day), as the real registry does.
//   - Pages are serialized exactly as the registry answers: compact JSON
//     `{"servers":[…],"metadata":{"nextCursor":"<name>:<version>","count":100}}`; the last page has no
//     nextCursor, and a full last page is followed by `{"servers":[],"metadata":{"count":0}}`.
import { loadRealListing } from '../sandbox/fixtures.ts';
import { rng, type Rng } from '../sandbox/prng.ts';
import { compareEntries, type RegistryEntry } from '../sandbox/registry-server.ts';
import { OFFICIAL_META, probedRemote } from '../src/lib/index.ts';

/** The source every cloned entry's shape comes from. */
export const BASE_LISTING = '2025-12-12' as const;

/** Counted from the two dated real listings (counts, not assumptions); see realRate(). */
export interface RealRate {
  from: string;
  to: string;
  days: number;
  rows: [number, number];
  names: [number, number];
  /** Rows present in both whose bytes changed (any field), and of those whose isLatest flipped. */
  changed_common_rows: number;
  islatest_flips: number;
  /** Per day, as measured. */
  new_rows_per_day: number;
  new_names_per_day: number;
  /** The listing's mean size over the period: what "proportionally" divides by. */
  mean_rows: number;
}

/** Commit times of the two listings (fixtures/registry/real/PROVENANCE.md). */
const LISTED_AT = { '2025-10-20': '2025-10-20T19:10:04Z', '2025-12-12': '2025-12-12T02:36:05Z' } as const;

export function realRate(): RealRate {
  const a = loadRealListing('2025-10-20');
  const b = loadRealListing('2025-12-12');
  const key = (e: RegistryEntry) => `${e.server.name}\0${e.server.version}`;
  const before = new Map(a.map((e) => [key(e), e]));
  let changed = 0;
  let flips = 0;
  for (const e of b) {
    const o = before.get(key(e));
    if (!o || JSON.stringify(o) === JSON.stringify(e)) continue;
    changed++;
    if (o._meta?.[OFFICIAL_META]?.isLatest !== e._meta?.[OFFICIAL_META]?.isLatest) flips++;
  }
  const days = (Date.parse(LISTED_AT['2025-12-12']) - Date.parse(LISTED_AT['2025-10-20'])) / 86_400_000;
  const names = [new Set(a.map((e) => e.server.name)).size, new Set(b.map((e) => e.server.name)).size] as [number, number];
  return {
    from: '2025-10-20',
    to: '2025-12-12',
    days: +days.toFixed(2),
    rows: [a.length, b.length],
    names,
    changed_common_rows: changed,
    islatest_flips: flips,
    new_rows_per_day: (b.length - a.length) / days,
    new_names_per_day: (names[1] - names[0]) / days,
    mean_rows: (a.length + b.length) / 2,
  };
}

export interface RegistryShape {
  rows: number;
  names: number;
  endpoints: number;
  seed: string;
}

export interface DailyChange {
  /** New servers a day (one row each, the latest of a new name). */
  newNames: number;
  /** New versions of listed servers a day (a row each, and the old latest's _meta changes). */
  newVersions: number;
}

/** The real rate scaled to a listing of `rows` rows: the same fraction of the listing each day. */
export function scaledChange(rate: RealRate, rows: number): DailyChange {
  const f = rows / rate.mean_rows;
  return { newNames: rate.new_names_per_day * f, newVersions: (rate.new_rows_per_day - rate.new_names_per_day) * f };
}

interface Group {
  name: string;
  /** The group's entries, in listing order. */
  entries: RegistryEntry[];
  endpoint: boolean;
}

const meta = (e: RegistryEntry) => e._meta?.[OFFICIAL_META] ?? {};

/** The registry's listing at one moment, and its change from day to day. */
export class Registry {
  /** Every row, sorted by compareEntries. */
  entries: RegistryEntry[] = [];
  /** The isLatest entry of each name. */
  readonly latest = new Map<string, RegistryEntry>();
  readonly #names: string[] = [];
  readonly #groups: { endpoint: Group[]; other: Group[] };
  readonly #namespaces: string[];
  readonly #r: Rng;
  readonly #endpointShare: number;
  #clones = 0;
  #carry = { names: 0, versions: 0 };
  readonly #text = new WeakMap<RegistryEntry, string>();
  /** name \0 version of every row: a bumped version that exists already is bumped again. */
  readonly #keys = new Set<string>();

  constructor(readonly shape: RegistryShape) {
    this.#r = rng(`${shape.seed}|registry`);
    this.#endpointShare = shape.endpoints / shape.names;
    const base = loadRealListing(BASE_LISTING);
    const byName = new Map<string, RegistryEntry[]>();
    for (const e of base) byName.set(e.server.name, [...(byName.get(e.server.name) ?? []), e]);
    const groups: Group[] = [...byName].map(([name, entries]) => {
      const latest = entries.find((e) => meta(e).isLatest === true) ?? entries.at(-1)!;
      return { name, entries, endpoint: probedRemote((latest.server as { remotes?: unknown }).remotes).endpoint !== null };
    });
    this.#groups = { endpoint: groups.filter((g) => g.endpoint), other: groups.filter((g) => !g.endpoint) };
    this.#namespaces = [...new Set(base.map((e) => e.server.name.split('/')[0]!))].sort();
    // Names: exactly `endpoints` from groups whose latest has a streamable-http endpoint, the rest from the others.
    const all: RegistryEntry[] = [];
    for (let i = 0; i < shape.names; i++) {
      const g = this.#r.pick(i < shape.endpoints ? this.#groups.endpoint : this.#groups.other);
      all.push(...this.#cloneGroup(g));
    }
    // Rows: top up with older versions of random names, or drop random non-latest rows, to the size asked.
    const names = [...this.latest.keys()];
    let k = 0;
    while (all.length < shape.rows) {
      const latest = this.latest.get(names[this.#r.int(0, names.length - 1)]!)!;
      all.push(this.#withVersion(latest, `${latest.server.version}-r${(k++).toString(36)}`, { isLatest: false }));
    }
    while (all.length > shape.rows) {
      const i = this.#r.int(0, all.length - 1);
      if (meta(all[i]!).isLatest === true) continue;
      all[i] = all.at(-1)!;
      all.pop();
    }
    this.#names.push(...names);
    for (const e of all) this.#keys.add(`${e.server.name}\0${e.server.version}`);
    this.entries = all.sort(compareEntries);
  }

  get names(): number {
    return this.latest.size;
  }

  /** A new, unique name with a real namespace drawn at random and the group's own server part. */
  #cloneName(group: Group, tag: string): string {
    const ns = this.#r.pick(this.#namespaces);
    const slash = group.name.indexOf('/');
    return `${ns}-${tag}/${slash < 0 ? group.name : group.name.slice(slash + 1)}`.slice(0, 512);
  }

  #cloneGroup(g: Group): RegistryEntry[] {
    const tag = (this.#clones++).toString(36).padStart(4, '0');
    const name = this.#cloneName(g, tag);
    const out = g.entries.map((e) => cloneEntry(e, name, tag));
    const latest = out.find((e) => meta(e).isLatest === true) ?? out.at(-1)!;
    if (meta(latest).isLatest !== true) out[out.indexOf(latest)] = withMeta(latest, { isLatest: true });
    this.latest.set(name, out.find((e) => meta(e).isLatest === true)!);
    return out;
  }

  #withVersion(e: RegistryEntry, version: string, m: Record<string, unknown>): RegistryEntry {
    return withMeta({ ...e, server: { ...e.server, version } }, m);
  }

  /**
   * One day of change at `rate` (fractions carried to the next day): new servers (one row each) and new
   * versions (one row each, and the previous latest row's `_meta` rewritten). Returns what it did.
   */
  advance(rate: DailyChange, at: string): { newNames: number; newVersions: number } {
    this.#carry.names += rate.newNames;
    this.#carry.versions += rate.newVersions;
    const n = Math.floor(this.#carry.names);
    const v = Math.floor(this.#carry.versions);
    this.#carry.names -= n;
    this.#carry.versions -= v;
    const stamp = microIso(at);
    const added: RegistryEntry[] = [];
    const replaced = new Map<RegistryEntry, RegistryEntry>();
    for (let i = 0; i < n; i++) {
      const g = this.#r.pick(this.#r.chance(this.#endpointShare) ? this.#groups.endpoint : this.#groups.other);
      const tag = (this.#clones++).toString(36).padStart(4, '0');
      const name = this.#cloneName(g, tag);
      const src = g.entries.find((e) => meta(e).isLatest === true) ?? g.entries.at(-1)!;
      const e = withMeta(cloneEntry(src, name, tag), { publishedAt: stamp, updatedAt: stamp, isLatest: true });
      this.latest.set(name, e);
      this.#names.push(name);
      this.#keys.add(`${name}\0${e.server.version}`);
      added.push(e);
    }
    for (let i = 0; i < v; i++) {
      const name = this.#names[this.#r.int(0, this.#names.length - 1)]!;
      const old = this.latest.get(name)!;
      let version = bump(old.server.version);
      while (this.#keys.has(`${name}\0${version}`)) version = bump(version);
      this.#keys.add(`${name}\0${version}`);
      const e = this.#withVersion(old, version, { publishedAt: stamp, updatedAt: stamp, isLatest: true });
      const was = withMeta(old, { updatedAt: stamp, isLatest: false });
      // The old latest may itself be new today (two versions in a day): replace it where it is.
      const at0 = added.indexOf(old);
      if (at0 >= 0) added[at0] = was;
      else replaced.set(old, was);
      this.latest.set(name, e);
      added.push(e);
    }
    if (replaced.size > 0) this.entries = this.entries.map((e) => replaced.get(e) ?? e);
    this.entries.push(...added);
    this.entries.sort(compareEntries);
    return { newNames: n, newVersions: v };
  }

  /** An entry's compact JSON, as the registry serializes it (cached per entry object). */
  text(e: RegistryEntry): string {
    let t = this.#text.get(e);
    if (t === undefined) this.#text.set(e, (t = JSON.stringify(e)));
    return t;
  }

  /** Today's listing as the registry pages it (limit 100), one page at a time. */
  *pages(limit = 100): Generator<{ index: number; cursor: string | null; next: string | null; entries: RegistryEntry[]; bytes: Buffer }> {
    let cursor: string | null = null;
    let index = 0;
    for (let from = 0; ; from += limit, index++) {
      const slice = this.entries.slice(from, from + limit);
      const last = slice.at(-1);
      const next = slice.length === limit && last ? `${last.server.name}:${last.server.version}` : null;
      const body = `{"servers":[${slice.map((e) => this.text(e)).join(',')}],"metadata":{${next !== null ? `"nextCursor":${JSON.stringify(next)},` : ''}"count":${slice.length}}}`;
      yield { index, cursor, next, entries: slice, bytes: Buffer.from(body) };
      if (next === null) return;
      cursor = next;
    }
  }
}

function withMeta(e: RegistryEntry, m: Record<string, unknown>): RegistryEntry {
  return { ...e, _meta: { ...e._meta, [OFFICIAL_META]: { ...meta(e), ...m } } };
}

/** A real entry under a new name: same keys in the same order, URLs tagged so they are the clone's own. */
function cloneEntry(e: RegistryEntry, name: string, tag: string): RegistryEntry {
  const s = e.server as RegistryEntry['server'] & { remotes?: unknown; repository?: unknown; websiteUrl?: unknown };
  const server: Record<string, unknown> = { ...s, name };
  if (Array.isArray(s.remotes)) server.remotes = s.remotes.map((r) => (r && typeof r === 'object' && typeof (r as { url?: unknown }).url === 'string' ? { ...r, url: tagUrl((r as { url: string }).url, tag) } : r));
  const repo = s.repository as { url?: unknown } | undefined;
  if (repo && typeof repo.url === 'string' && repo.url !== '') server.repository = { ...repo, url: `${repo.url}-${tag}` };
  if (typeof s.websiteUrl === 'string') server.websiteUrl = tagUrl(s.websiteUrl, tag);
  return { ...e, server: server as RegistryEntry['server'] };
}

/** `https://mcp.example.com/x` → `https://mcp-<tag>.example.com/x` (the text is edited, never re-serialized). */
function tagUrl(url: string, tag: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/.:?#]+)/i, `$1$2-${tag}`);
}

/** The next version: the last number in the string plus one (`1.2.9` → `1.2.10`), or `.1` appended. */
function bump(version: string): string {
  const m = /(\d+)(?!.*\d)/.exec(version);
  if (!m) return `${version}.1`;
  return version.slice(0, m.index) + String(Number(m[1]) + 1) + version.slice(m.index + m[1]!.length);
}

/** The registry's timestamp form: microseconds, Z. */
function microIso(at: string): string {
  return new Date(at).toISOString().replace(/\.(\d{3})Z$/, '.$1123Z');
}
