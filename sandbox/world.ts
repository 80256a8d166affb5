// The local world: a pure function of (seed, size, day). No clock, no I/O after the fixtures are read,
// no Math.random. `buildWorld({ seed, size })` returns the registry listing and the behaviour of every
// endpoint on any simulated day; `sandbox/fleet.ts` serves it over loopback.
//
// What it is made of (see sandbox/README.md for the rates and why):
//   - targets: real registry names, descriptions, versions and remote shapes from
//     fixtures/registry/real (listing of 2025-12-12, 1,055 names). Worlds up to 1,055 targets are a
//     stratified sample of them; larger worlds add synthetic copies named `<real name>-sim-<k>` whose
//     entries say so in `server._meta["io.mcp-schema.sandbox/simulated"]`;
//   - endpoints: every remote URL is rewritten to a loopback listener (127.0.x.y, one per distinct real
//     host, so politeness per host behaves as it would in the wild); TLS-failure targets get `https://`
//     on a plain-HTTP listener, a real handshake failure;
//   - outcomes: the listing's own shape decides no_endpoint (no remote, sse-only) and, mostly, auth
//     (required header declarations); the rest get a profile (ok, 4xx, 5xx, HTML, broken JSON, TLS,
//     timeouts, 429, modern-only, session lost, flapping, dying, redirect);
//   - drift: most contracts never change; an occasional minority changes once or twice; a volatile
//     few change repeatedly, by every kind of change (tools added/removed, required property added,
//     enum narrowed, description rewritten, annotation flipped to destructive, tool hidden then
//     returned, a rare revert, a reorder that changes the bytes but not the canonical hash);
//     io.github.github/github-mcp-server steps through its real releases (fixtures), with its real
//     version tags published to the registry;
//   - registry over days: new versions (isLatest moves; `+build` versions too), deprecations, servers
//     joining late and leaving (status deleted, hidden from the default listing).
import type { Behaviour, ToolDef } from './mcp-host.ts';
import { OFFICIAL_META, type RegistryEntry } from './registry-server.ts';
import { loadGithubManifest, loadRealListing, loadRealToolLists, type RealToolList } from './fixtures.ts';
import { rng, unit, type Rng } from './prng.ts';

export const SANDBOX_META = 'io.mcp-schema.sandbox/simulated';
export const DEFAULT_START_DATE = '2025-12-15';
export const GITHUB_NAME = 'io.github.github/github-mcp-server';
/** github-mcp-server's real release dates are replayed this many times faster. */
export const GITHUB_COMPRESSION = 4;
const DAY_MS = 86_400_000;
/** Drift and registry events are generated up to this day; later days repeat the last state. */
export const HORIZON_DAYS = 730;

export type Profile =
  | 'no_endpoint'
  | 'ok'
  | 'auth'
  | 'flapping'
  | 'dies'
  | 'redirect'
  | 'http_404'
  | 'http_405'
  | 'http_5xx'
  | 'html_200'
  | 'broken_json'
  | 'broken_tools'
  | 'tls'
  | 'hang'
  | 'sse_stall'
  | 'rate_limited'
  | 'modern_only'
  | 'session_lost';

/** Shares among endpoint targets that are not auth-walled (weights, normalised). */
export const PROFILE_WEIGHTS: ReadonlyArray<readonly [Profile, number]> = [
  ['ok', 67],
  ['flapping', 6],
  ['dies', 2],
  ['redirect', 2],
  ['http_404', 3],
  ['http_405', 2],
  ['http_5xx', 4],
  ['html_200', 2],
  ['broken_json', 2],
  ['broken_tools', 1],
  ['tls', 3],
  ['hang', 2],
  ['sse_stall', 1],
  ['rate_limited', 1.5],
  ['modern_only', 2],
  ['session_lost', 1.5],
];

/** Auth walls by header declaration of the first streamable-http remote (tuned to ~13% of all targets). */
export const AUTH_RATE = { required: 0.85, optional: 0.15, none: 0.05 } as const;

export type DriftClass = 'stable' | 'occasional' | 'volatile' | 'github';
export const DRIFT_RATE = { volatile: 0.08, occasional: 0.15 } as const;

export type ChangeKind =
  | 'describe'
  | 'add_tool'
  | 'remove_tool'
  | 'add_required'
  | 'narrow_enum'
  | 'destructive'
  | 'hide'
  | 'unhide'
  | 'revert'
  | 'reorder'
  | 'release';

const CHANGE_WEIGHTS: ReadonlyArray<readonly [ChangeKind, number]> = [
  ['describe', 26],
  ['add_tool', 14],
  ['remove_tool', 11],
  ['add_required', 14],
  ['narrow_enum', 10],
  ['destructive', 8],
  ['hide', 8],
  ['revert', 3],
  ['reorder', 3],
];

export interface ChangeEvent {
  day: number;
  kind: ChangeKind;
  /** For `hide`: the day the tool returns. For `release`: the manifest file. */
  until?: number;
  file?: string;
}

export interface VersionEvent {
  day: number;
  version: string;
  at: string;
}

export interface WorldTarget {
  index: number;
  name: string;
  /** The real registry name this target is built from (itself unless synthetic). */
  realName: string;
  synthetic: boolean;
  profile: Profile;
  drift: DriftClass;
  /** Day the target first appears in the listing (0 for most). */
  joinDay: number;
  /** Day its entries become `deleted` (null: never within the horizon). */
  leaveDay: number | null;
  deprecateDay: number | null;
  /** For `dies`: first failing day. */
  dieDay: number | null;
  /** Listener (loopback host) serving its remotes. */
  listener: number;
  tls: boolean;
  stateful: boolean;
  json: boolean;
  /** Where its tool list comes from. */
  toolSource: string | null;
  changes: ChangeEvent[];
  versions: VersionEvent[];
  /** Rows of the base listing (renamed for synthetic targets), remote URLs as `{path}` templates. */
  baseRows: RegistryEntry[];
}

export interface WorldOptions {
  seed: string | number;
  size: number;
  /** ISO date of day 0 (default 2025-12-15, the first day after the newest real listing). */
  startDate?: string;
  /** Upper bound on loopback listeners (default 250). */
  maxListeners?: number;
}

export interface Expected {
  listed: boolean;
  /** What an anonymous probe of the latest entry should see, in v1 outcome terms. */
  outcome: 'ok' | 'error' | 'no_endpoint' | 'absent';
  errorClass: string | null;
  toolsCount: number | null;
}

export interface World {
  readonly seed: string;
  readonly size: number;
  readonly startDate: string;
  readonly targets: readonly WorldTarget[];
  /** Number of loopback listeners the fleet must open (address i is listenerAddress(i)). */
  readonly listeners: number;
  listenerAddress(i: number): string;
  /** ISO date (YYYY-MM-DD) of a simulated day. */
  date(day: number): string;
  /** The registry listing on `day`, every version and status; `hostports[i]` is listener i's `host:port`. */
  registryEntries(day: number, hostports?: readonly string[]): RegistryEntry[];
  /** What target `index` does on `day` when remote `remote` is requested. */
  behaviour(index: number, day: number, remote?: number): Behaviour;
  /** Route a request path (`/<target>/<remote>/...`) to a behaviour. */
  resolve(path: string, day: number): Behaviour | undefined;
  /** The tool list the target serves on `day` (null when it never serves one). */
  toolsAt(index: number, day: number): ToolDef[] | null;
  /** The expected outcome of probing the target on `day` (for population tests). */
  expected(index: number, day: number): Expected;
  /** The registry's own trouble on `day` (429s, a 5xx, an outage cutting the listing short). */
  registryWeather(day: number): RegistryWeather;
}

export interface RegistryWeather {
  /** The first `throttle` list requests of the day answer 429 with this Retry-After. */
  throttle: number;
  retryAfter: string;
  /** The first `fail` list requests (after any throttling) answer `failStatus`. */
  fail: number;
  failStatus: number;
  /** Every page whose cursor sorts at or after this name answers 503 all day: the roster is cut short. */
  outageFrom: string | null;
}

/** Shares of days with registry trouble (never day 0). */
export const WEATHER_RATE = { throttle: 0.06, fail: 0.04, outage: 0.02 } as const;

// ---------------------------------------------------------------------------------------------------

interface Base {
  name: string;
  rows: RegistryEntry[];
  latest: RegistryEntry;
  stratum: 'no_endpoint' | 'required' | 'optional' | 'none';
  hostKey: string | null;
}

let cachedBases: Base[] | null = null;
function realBases(): Base[] {
  if (cachedBases) return cachedBases;
  const byName = new Map<string, RegistryEntry[]>();
  for (const e of loadRealListing('2025-12-12')) {
    const list = byName.get(e.server.name) ?? [];
    list.push(e);
    byName.set(e.server.name, list);
  }
  const out: Base[] = [];
  for (const [name, rows] of byName) {
    const latest = rows.find((r) => r._meta?.[OFFICIAL_META]?.isLatest === true) ?? rows[rows.length - 1]!;
    const sh = firstStreamable(latest);
    let stratum: Base['stratum'] = 'no_endpoint';
    let hostKey: string | null = null;
    if (sh) {
      const headers = (sh.headers as Array<{ isRequired?: boolean }> | undefined) ?? [];
      stratum = headers.some((h) => h.isRequired) ? 'required' : headers.length > 0 ? 'optional' : 'none';
      try {
        hostKey = new URL(String(sh.url)).host;
      } catch {
        stratum = 'no_endpoint';
      }
    }
    out.push({ name, rows, latest, stratum, hostKey });
  }
  out.sort((a, b) => cmpBytes(a.name, b.name));
  cachedBases = out;
  return out;
}

type Remote = { type?: string; url?: string; headers?: unknown; [k: string]: unknown };
function remotesOf(e: RegistryEntry): Remote[] {
  const r = e.server.remotes;
  return Array.isArray(r) ? (r as Remote[]) : [];
}
function firstStreamable(e: RegistryEntry): Remote | undefined {
  return remotesOf(e).find((r) => r.type === 'streamable-http');
}

function cmpBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

let cachedTools: { lists: RealToolList[]; pool: ToolDef[] } | null = null;
function toolLibrary() {
  if (cachedTools) return cachedTools;
  const lists = loadRealToolLists();
  const pool = lists.flatMap((l) => l.tools);
  cachedTools = { lists, pool };
  return cachedTools;
}

let cachedGithub: { tag: string; date: string; file: string; tools: ToolDef[] }[] | null = null;
function githubReleases() {
  if (!cachedGithub) cachedGithub = loadGithubManifest();
  return cachedGithub;
}

// ---------------------------------------------------------------------------------------------------

export function buildWorld(opts: WorldOptions): World {
  const seed = String(opts.seed);
  const size = Math.floor(opts.size);
  if (!(size >= 1 && size <= 100_000)) throw new Error(`world size must be 1..100000, got ${opts.size}`);
  const startDate = opts.startDate ?? DEFAULT_START_DATE;
  const startMs = Date.parse(`${startDate}T00:00:00Z`);
  if (Number.isNaN(startMs)) throw new Error(`bad startDate ${startDate}`);
  const maxListeners = Math.max(1, Math.min(opts.maxListeners ?? 250, 250 * 250));
  const bases = realBases();
  const key = (...parts: Array<string | number>) => [seed, ...parts].join('|');

  // 1. Choose which bases (and synthetic copies) make up the world.
  const chosen: Array<{ base: Base; copy: number }> = [];
  if (size <= bases.length) {
    const strata = new Map<Base['stratum'], Base[]>();
    for (const b of bases) {
      if (b.name === GITHUB_NAME) continue;
      const list = strata.get(b.stratum) ?? [];
      list.push(b);
      strata.set(b.stratum, list);
    }
    const github = bases.find((b) => b.name === GITHUB_NAME);
    const want = size - (github ? 1 : 0);
    if (github) chosen.push({ base: github, copy: 0 });
    // Largest-remainder allocation keeps the real listing's shape at any size.
    const total = bases.length - (github ? 1 : 0);
    const quotas = [...strata.entries()].map(([s, list]) => ({ s, list, exact: (want * list.length) / total }));
    const alloc = quotas.map((q) => ({ ...q, n: Math.floor(q.exact) }));
    let left = want - alloc.reduce((s, q) => s + q.n, 0);
    for (const q of [...alloc].sort((a, b) => b.exact - Math.floor(b.exact) - (a.exact - Math.floor(a.exact)) || cmpBytes(a.s, b.s))) {
      if (left <= 0) break;
      q.n++;
      left--;
    }
    for (const q of alloc) {
      const ranked = [...q.list].sort((a, b) => unit(key('pick', a.name)) - unit(key('pick', b.name)) || cmpBytes(a.name, b.name));
      for (const b of ranked.slice(0, q.n)) chosen.push({ base: b, copy: 0 });
    }
  } else {
    for (const b of bases) chosen.push({ base: b, copy: 0 });
    const ranked = [...bases].sort((a, b) => unit(key('copy', a.name)) - unit(key('copy', b.name)) || cmpBytes(a.name, b.name));
    for (let k = 0; chosen.length < size; k++) {
      chosen.push({ base: ranked[k % ranked.length]!, copy: Math.floor(k / ranked.length) + 1 });
    }
  }
  const named = chosen.map((c) => ({ ...c, name: c.copy === 0 ? c.base.name : `${c.base.name}-sim-${c.copy}` }));
  named.sort((a, b) => cmpBytes(a.name, b.name));

  // 2. Loopback listeners: one per distinct (real or synthetic) host, up to maxListeners.
  const hostKeys = [...new Set(named.map((n) => (n.base.hostKey === null ? null : n.copy === 0 ? n.base.hostKey : `sim${n.copy}.${n.base.hostKey}`)).filter((h): h is string => h !== null))].sort(cmpBytes);
  const listeners = Math.max(1, Math.min(maxListeners, hostKeys.length));
  const listenerOfHost = new Map(hostKeys.map((h, i) => [h, i % listeners]));

  const { lists } = toolLibrary();
  const startIso = (day: number, k: string) => timestampOn(startMs, day, rng(k));

  // 3. Per-target profile, drift and registry life.
  const targets: WorldTarget[] = named.map((n, index) => {
    const name = n.name;
    const r = rng(key('target', name));
    const isGithub = name === GITHUB_NAME;
    let profile: Profile = 'no_endpoint';
    if (n.base.stratum !== 'no_endpoint') {
      const authP = AUTH_RATE[n.base.stratum];
      if (isGithub) profile = 'ok';
      else if (r.chance(authP)) profile = 'auth';
      else profile = PROFILE_WEIGHTS[r.weighted(PROFILE_WEIGHTS.map((p) => p[1]))]![0];
    }
    const serves = profile === 'ok' || profile === 'flapping' || profile === 'dies' || profile === 'redirect';
    let drift: DriftClass = 'stable';
    if (isGithub) drift = 'github';
    else if (serves) {
      const x = r.next();
      drift = x < DRIFT_RATE.volatile ? 'volatile' : x < DRIFT_RATE.volatile + DRIFT_RATE.occasional ? 'occasional' : 'stable';
    }
    const hostKey = n.base.hostKey === null ? null : n.copy === 0 ? n.base.hostKey : `sim${n.copy}.${n.base.hostKey}`;
    const toolSource = serves ? (isGithub ? `github-mcp-server/v0.24.1` : r.pick(lists).source) : null;
    const joinDay = !isGithub && r.chance(0.08) ? r.int(1, 90) : 0;
    const leaveDay = !isGithub && r.chance(0.03) ? r.int(Math.max(5, joinDay + 3), 120) : null;
    const deprecateDay = !isGithub && r.chance(0.03) ? r.int(joinDay + 1, 120) : null;
    const dieDay = profile === 'dies' ? r.int(3, 90) : null;

    const changes = isGithub ? githubChanges(startMs) : driftSchedule(drift, rng(key('drift', name)));
    const versions = versionSchedule(name, n.base, changes, joinDay, leaveDay, isGithub, startMs, rng(key('versions', name)));

    const baseRows = n.base.rows.map((row) => {
      const server = structuredClone(row.server);
      const meta = structuredClone(row._meta ?? {});
      if (n.copy > 0) {
        server.name = name;
        server._meta = { ...((server._meta as object | undefined) ?? {}), [SANDBOX_META]: { copy_of: n.base.name, copy: n.copy } };
      }
      if (joinDay > 0) {
        const at = startIso(joinDay, key('join', name));
        const m = (meta[OFFICIAL_META] ??= {});
        m.publishedAt = at;
        m.updatedAt = at;
      }
      if (Array.isArray(server.remotes)) {
        server.remotes = (server.remotes as Remote[]).map((rem, j) => {
          let path = '/';
          try {
            const u = new URL(String(rem.url));
            path = u.pathname + u.search;
          } catch {
            /* keep "/" */
          }
          return { ...rem, url: `{scheme}://{host}/${index}/${j}${path}` };
        });
      }
      return { server, _meta: meta } as RegistryEntry;
    });

    return {
      index,
      name,
      realName: n.base.name,
      synthetic: n.copy > 0,
      profile,
      drift,
      joinDay,
      leaveDay,
      deprecateDay,
      dieDay,
      listener: hostKey === null ? 0 : listenerOfHost.get(hostKey)!,
      tls: profile === 'tls',
      stateful: r.chance(0.4),
      json: r.chance(0.3),
      toolSource,
      changes,
      versions,
      baseRows,
    };
  });

  // 4. Tool lists over days (memoised per target: the fold of its change events).
  const toolStates = new Map<number, Array<{ day: number; tools: ToolDef[] }>>();
  function timeline(t: WorldTarget): Array<{ day: number; tools: ToolDef[] }> {
    let tl = toolStates.get(t.index);
    if (tl) return tl;
    tl = foldChanges(t, rng(key('mutate', t.name)));
    toolStates.set(t.index, tl);
    return tl;
  }
  function toolsAt(index: number, day: number): ToolDef[] | null {
    const t = targets[index];
    if (!t || t.toolSource === null) return null;
    const tl = timeline(t);
    let cur = tl[0]!.tools;
    for (const s of tl) {
      if (s.day > day) break;
      cur = s.tools;
    }
    return cur;
  }

  // 5. Registry listing per day (memoised for the last few days asked).
  const listingCache = new Map<string, RegistryEntry[]>();
  function registryEntries(day: number, hostports?: readonly string[]): RegistryEntry[] {
    const hp = hostports ?? Array.from({ length: listeners }, (_, i) => `${listenerAddress(i)}:80`);
    const cacheKey = `${day}|${hp.join(',')}`;
    const hit = listingCache.get(cacheKey);
    if (hit) return hit;
    const out: RegistryEntry[] = [];
    for (const t of targets) {
      if (day < t.joinDay) continue;
      const host = hp[t.listener] ?? hp[0] ?? '127.0.0.1:9';
      const scheme = t.tls ? 'https' : 'http';
      const rows = t.baseRows.map((row) => ({ server: { ...row.server }, _meta: { ...row._meta, [OFFICIAL_META]: { ...row._meta?.[OFFICIAL_META] } } }));
      const meta = (e: RegistryEntry) => e._meta![OFFICIAL_META]!;
      for (const v of t.versions) {
        if (v.day > day) break;
        const prev = rows.find((e) => meta(e).isLatest === true);
        if (prev) {
          meta(prev).isLatest = false;
          meta(prev).updatedAt = v.at;
        }
        const template = prev ?? rows[rows.length - 1]!;
        const server: RegistryEntry['server'] = { ...template.server, version: v.version };
        if (Array.isArray(server.packages)) {
          server.packages = (server.packages as Array<Record<string, unknown>>).map((p) => (typeof p.version === 'string' ? { ...p, version: v.version } : p));
        }
        rows.push({ server, _meta: { [OFFICIAL_META]: { status: 'active', publishedAt: v.at, updatedAt: v.at, isLatest: true } } });
      }
      if (t.deprecateDay !== null && day >= t.deprecateDay) {
        const latest = rows.find((e) => meta(e).isLatest === true);
        if (latest) {
          const at = startIso(t.deprecateDay, key('deprecate', t.name));
          meta(latest).status = 'deprecated';
          if (!(Date.parse(String(meta(latest).updatedAt)) >= Date.parse(at))) meta(latest).updatedAt = at;
        }
      }
      if (t.leaveDay !== null && day >= t.leaveDay) {
        const at = startIso(t.leaveDay, key('leave', t.name));
        for (const e of rows) {
          meta(e).status = 'deleted';
          meta(e).updatedAt = at;
        }
      }
      // Targets are in name order already; within a name, versions sort as byte strings.
      rows.sort((a, b) => cmpBytes(a.server.version, b.server.version));
      for (const e of rows) {
        if (Array.isArray(e.server.remotes)) {
          e.server.remotes = (e.server.remotes as Remote[]).map((rem) => ({ ...rem, url: String(rem.url).replace('{scheme}', scheme).replace('{host}', host) }));
        }
        out.push(e);
      }
    }
    if (listingCache.size >= 4) listingCache.delete(listingCache.keys().next().value!);
    listingCache.set(cacheKey, out);
    return out;
  }

  // 6. Behaviours.
  const fixed = fixedBehaviours();
  const mcpCache = new Map<string, Behaviour>();
  function behaviour(index: number, day: number, remote = -1): Behaviour {
    const t = targets[index];
    if (!t) return fixed.notFound;
    const first = firstStreamableIndex(t);
    if (remote >= 0 && remote !== first) {
      const rem = remotesOf(t.baseRows[t.baseRows.length - 1]!)[remote];
      if (rem?.type === 'sse') return fixed.sseOnly;
    }
    const r = rng(key('day', t.name, day));
    switch (t.profile) {
      case 'no_endpoint':
        return fixed.notFound;
      case 'auth':
        return authBehaviour(t, seed);
      case 'flapping':
        if (r.chance(0.25)) return fixed.flaps[r.int(0, fixed.flaps.length - 1)]!;
        return mcp(t, day);
      case 'dies':
        if (t.dieDay !== null && day >= t.dieDay) return fixed.dead;
        return mcp(t, day);
      case 'redirect':
        return remote === -2 ? mcp(t, day) : { kind: 'redirect', location: `/${t.index}/moved`, status: 308 };
      case 'ok':
        return mcp(t, day);
      case 'http_404':
        return fixed.http404;
      case 'http_405':
        return fixed.http405;
      case 'http_5xx':
        return fixed.http5xx[index % fixed.http5xx.length]!;
      case 'html_200':
        return fixed.html200;
      case 'broken_json':
        return fixed.brokenJson;
      case 'broken_tools':
        return fixed.brokenTools;
      case 'tls':
        return fixed.notFound; // never reached over https; a plain-http request gets a 404
      case 'hang':
        return { kind: 'hang' };
      case 'sse_stall':
        return fixed.sseStall;
      case 'rate_limited':
        return fixed.rateLimited;
      case 'modern_only':
        return fixed.modern;
      case 'session_lost':
        return { kind: 'session-lost' };
    }
  }
  function mcp(t: WorldTarget, day: number): Behaviour {
    const tools = toolsAt(t.index, day)!;
    const k = `${t.index}|${day}`;
    let b = mcpCache.get(k);
    if (!b) {
      if (mcpCache.size > 20_000) mcpCache.clear();
      const real = t.realName.split('/').pop() ?? 'server';
      b = { kind: 'mcp', tools, stateful: t.stateful, json: t.json, name: real, version: currentVersion(t, day) };
      mcpCache.set(k, b);
    }
    return b;
  }
  function currentVersion(t: WorldTarget, day: number): string {
    let v = String(t.baseRows.find((e) => e._meta?.[OFFICIAL_META]?.isLatest === true)?.server.version ?? '1.0.0');
    for (const e of t.versions) if (e.day <= day) v = e.version;
    return v;
  }

  function resolve(path: string, day: number): Behaviour | undefined {
    const m = /^\/(\d+)\/(\d+|moved)(?:\/|$)/.exec(path);
    if (!m) return undefined;
    const index = Number(m[1]);
    if (!targets[index]) return undefined;
    return behaviour(index, day, m[2] === 'moved' ? -2 : Number(m[2]));
  }

  function expected(index: number, day: number): Expected {
    const t = targets[index]!;
    const listed = day >= t.joinDay && !(t.leaveDay !== null && day >= t.leaveDay);
    if (!listed) return { listed, outcome: 'absent', errorClass: null, toolsCount: null };
    const b = t.profile === 'tls' ? null : behaviour(index, day);
    const err = (errorClass: string): Expected => ({ listed, outcome: 'error', errorClass, toolsCount: null });
    switch (t.profile) {
      case 'no_endpoint':
        return { listed, outcome: 'no_endpoint', errorClass: 'no_endpoint', toolsCount: null };
      case 'auth':
        return err('auth');
      case 'tls':
        return err('tls');
      case 'hang':
      case 'sse_stall':
        return err('timeout');
      case 'http_404':
      case 'http_405':
      case 'modern_only':
      case 'session_lost':
        return err('http_4xx');
      case 'http_5xx':
        return err('http_5xx');
      case 'rate_limited':
        return err('rate_limited');
      case 'html_200':
      case 'broken_json':
      case 'broken_tools':
        return err('parse');
      case 'redirect': // ok for a collector that follows same-origin redirects
        return { listed, outcome: 'ok', errorClass: null, toolsCount: toolsAt(index, day)!.length };
      default:
        if (b?.kind === 'mcp') return { listed, outcome: 'ok', errorClass: null, toolsCount: toolsAt(index, day)!.length };
        if (b?.kind === 'status') return err(b.status === 429 ? 'rate_limited' : b.status >= 500 ? 'http_5xx' : 'http_4xx');
        return err('timeout');
    }
  }

  function registryWeather(day: number): RegistryWeather {
    const clear: RegistryWeather = { throttle: 0, retryAfter: '1', fail: 0, failStatus: 502, outageFrom: null };
    if (day === 0) return clear;
    const u = unit(key('weather', day));
    if (u < WEATHER_RATE.throttle) return { ...clear, throttle: 1 };
    if (u < WEATHER_RATE.throttle + WEATHER_RATE.fail) return { ...clear, fail: 1 };
    if (u < WEATHER_RATE.throttle + WEATHER_RATE.fail + WEATHER_RATE.outage) {
      const listed = targets.filter((t) => day >= t.joinDay);
      return { ...clear, outageFrom: listed[Math.floor(listed.length / 2)]?.name ?? null };
    }
    return clear;
  }

  function listenerAddress(i: number): string {
    return `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
  }

  return {
    seed,
    size,
    startDate,
    targets,
    listeners,
    listenerAddress,
    date: (day) => new Date(startMs + day * DAY_MS).toISOString().slice(0, 10),
    registryEntries,
    behaviour,
    resolve,
    toolsAt,
    expected,
    registryWeather,
  };
}

function firstStreamableIndex(t: WorldTarget): number {
  const latest = t.baseRows.find((e) => e._meta?.[OFFICIAL_META]?.isLatest === true) ?? t.baseRows[t.baseRows.length - 1]!;
  return remotesOf(latest).findIndex((r) => r.type === 'streamable-http');
}

/** An RFC 3339 instant early on `day` (before 06:00Z, when the demo collects), 0–6 fraction digits. */
function timestampOn(startMs: number, day: number, r: Rng): string {
  const ms = startMs + day * DAY_MS + r.int(0, 6 * 3600 - 1) * 1000;
  const base = new Date(ms).toISOString().slice(0, 19);
  const digits = r.int(0, 6);
  let frac = '';
  for (let i = 0; i < digits; i++) frac += String(r.int(0, 9));
  frac = frac.replace(/0+$/, '');
  return `${base}${frac ? `.${frac}` : ''}Z`;
}

// ---------------------------------------------------------------------------------------------------
// Drift

function driftSchedule(drift: DriftClass, r: Rng): ChangeEvent[] {
  const days: number[] = [];
  if (drift === 'occasional') {
    const n = r.chance(0.7) ? 1 : 2;
    for (let i = 0; i < n; i++) days.push(r.int(1, 180));
  } else if (drift === 'volatile') {
    // A rate between one change in 5 days and one a month; the first change comes on day 1 or 2 for
    // most of them (a census starting mid-stream sees a burst of recent changers, then a trickle:
    // 21 of 474 in the first 36 hours, 3 more in the next 36, 3 of the 21 again).
    const rate = 1 / (5 + r.next() * 25);
    let d = r.chance(0.6) ? r.int(1, 2) : 1 + Math.ceil(-Math.log(1 - r.next()) / rate);
    for (let i = 0; i < 200 && d <= HORIZON_DAYS; i++) {
      days.push(d);
      d += Math.max(1, Math.ceil(-Math.log(1 - r.next()) / rate));
    }
  }
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  const out: ChangeEvent[] = [];
  for (const day of sorted) {
    const kind = CHANGE_WEIGHTS[r.weighted(CHANGE_WEIGHTS.map((w) => w[1]))]![0];
    if (kind === 'hide') out.push({ day, kind, until: day + r.int(1, 6) });
    else out.push({ day, kind: kind === 'revert' && out.length === 0 ? 'describe' : kind });
  }
  return out;
}

function githubChanges(startMs: number): ChangeEvent[] {
  const rel = githubReleases();
  const baseIdx = rel.findIndex((x) => x.tag === 'v0.24.1');
  const baseMs = Date.parse(rel[baseIdx]!.date);
  const out: ChangeEvent[] = [];
  for (const x of rel.slice(baseIdx + 1)) {
    const day = githubDay(x.date, baseMs, startMs);
    out.push({ day, kind: 'release', file: x.file });
  }
  return out;
}

function githubDay(date: string, baseMs: number, startMs: number): number {
  // Release dates relative to the last release in the listing, replayed GITHUB_COMPRESSION× faster
  // from the world's day 1.
  void startMs;
  return 1 + Math.floor((Date.parse(date) - baseMs) / DAY_MS / GITHUB_COMPRESSION);
}

const REWORDINGS = [
  'Returns at most 100 items per call.',
  'Requires a connected workspace.',
  'Deprecated: prefer the newer search tool.',
  'Results are cached for 5 minutes.',
  'Use this tool before making any change.',
];
const NEW_PROPS = ['workspace_id', 'api_version', 'confirm', 'project_id', 'region', 'idempotency_key'];

/** Apply a target's change events in order; each state is a new array (tools cloned when touched). */
function foldChanges(t: WorldTarget, r: Rng): Array<{ day: number; tools: ToolDef[] }> {
  const { lists, pool } = toolLibrary();
  let baseTools: ToolDef[];
  if (t.drift === 'github') baseTools = githubReleases().find((x) => x.tag === 'v0.24.1')!.tools;
  else baseTools = lists.find((l) => l.source === t.toolSource)!.tools;
  const states: Array<{ day: number; tools: ToolDef[] }> = [{ day: 0, tools: baseTools }];
  const history: ToolDef[][] = [baseTools];
  // hide events schedule an unhide; merge them into the event stream in day order.
  const events: Array<ChangeEvent & { tool?: ToolDef }> = [...t.changes];
  const pending: Array<{ day: number; tool: ToolDef }> = [];
  let cur = baseTools;
  for (let i = 0; i < 1000; i++) {
    const nextEvent = events[0];
    pending.sort((a, b) => a.day - b.day);
    const nextUnhide = pending[0];
    let next: ToolDef[] | null = null;
    let day: number;
    if (nextUnhide && (!nextEvent || nextUnhide.day <= nextEvent.day)) {
      pending.shift();
      day = nextUnhide.day;
      if (!cur.some((x) => x.name === nextUnhide.tool.name)) next = [...cur, nextUnhide.tool];
    } else if (nextEvent) {
      events.shift();
      day = nextEvent.day;
      if (nextEvent.kind === 'release') {
        next = githubReleases().find((x) => x.file === nextEvent.file)!.tools;
      } else if (nextEvent.kind === 'revert') {
        next = history.length >= 2 ? history[history.length - 2]! : null;
      } else if (nextEvent.kind === 'hide') {
        if (cur.length > 1) {
          const victim = r.pick(cur);
          next = cur.filter((x) => x !== victim);
          pending.push({ day: nextEvent.until ?? day + 1, tool: victim });
        }
      } else {
        next = mutate(cur, nextEvent.kind, r, pool);
      }
    } else break;
    if (next && next !== cur) {
      cur = next;
      history.push(cur);
      const last = states[states.length - 1]!;
      if (last.day === day) last.tools = cur;
      else states.push({ day, tools: cur });
    }
  }
  return states;
}

function mutate(cur: ToolDef[], kind: ChangeKind, r: Rng, pool: ToolDef[]): ToolDef[] {
  const replaceAt = (i: number, tool: ToolDef) => cur.map((x, j) => (j === i ? tool : x));
  const i = r.int(0, cur.length - 1);
  const tool = cur[i]!;
  switch (kind) {
    case 'describe': {
      const c = structuredClone(tool);
      const extra = r.pick(REWORDINGS);
      c.description = typeof c.description === 'string' && c.description.length > 0 ? `${c.description.trimEnd()} ${extra}` : extra;
      return replaceAt(i, c);
    }
    case 'add_tool': {
      for (let k = 0; k < 20; k++) {
        const cand = r.pick(pool);
        if (!cur.some((x) => x.name === cand.name)) return [...cur, cand];
      }
      const cand = structuredClone(r.pick(pool));
      cand.name = `${cand.name}_v2`;
      return cur.some((x) => x.name === cand.name) ? mutate(cur, 'describe', r, pool) : [...cur, cand];
    }
    case 'remove_tool':
      return cur.length > 1 ? cur.filter((_, j) => j !== i) : mutate(cur, 'describe', r, pool);
    case 'add_required': {
      const c = structuredClone(tool);
      const schema = (c.inputSchema && typeof c.inputSchema === 'object' ? c.inputSchema : { type: 'object' }) as Record<string, unknown>;
      const props = (schema.properties && typeof schema.properties === 'object' ? schema.properties : {}) as Record<string, unknown>;
      let prop = r.pick(NEW_PROPS);
      for (let k = 2; prop in props && k < 50; k++) prop = `${r.pick(NEW_PROPS)}_${k}`;
      props[prop] = { type: 'string', description: `Required since this version: ${prop.replace(/_/g, ' ')}.` };
      schema.properties = props;
      schema.required = [...(Array.isArray(schema.required) ? (schema.required as string[]) : []), prop];
      c.inputSchema = schema;
      return replaceAt(i, c);
    }
    case 'narrow_enum': {
      for (let k = 0; k < cur.length; k++) {
        const j = (i + k) % cur.length;
        const c = structuredClone(cur[j]!);
        if (narrowFirstEnum(c.inputSchema, 0)) return replaceAt(j, c);
      }
      // No enum anywhere: narrow an open string property to two values.
      for (let k = 0; k < cur.length; k++) {
        const j = (i + k) % cur.length;
        const c = structuredClone(cur[j]!);
        const props = (c.inputSchema as { properties?: Record<string, { type?: unknown; enum?: unknown }> } | undefined)?.properties;
        const p = props && Object.values(props).find((v) => v && typeof v === 'object' && v.type === 'string' && !('enum' in v));
        if (p) {
          p.enum = ['default', 'basic'];
          return replaceAt(j, c);
        }
      }
      return mutate(cur, 'add_required', r, pool);
    }
    case 'destructive': {
      for (let k = 0; k < cur.length; k++) {
        const j = (i + k) % cur.length;
        const a = cur[j]!.annotations as { destructiveHint?: boolean } | null | undefined;
        if (a?.destructiveHint === true) continue;
        const c = structuredClone(cur[j]!);
        c.annotations = { ...((c.annotations as object | null) ?? {}), readOnlyHint: false, destructiveHint: true };
        return replaceAt(j, c);
      }
      return mutate(cur, 'describe', r, pool);
    }
    case 'reorder':
      return cur.length > 1 ? [...cur.slice(1), cur[0]!] : mutate(cur, 'describe', r, pool);
    default:
      return mutate(cur, 'describe', r, pool);
  }
}

function narrowFirstEnum(node: unknown, depth: number): boolean {
  if (depth > 20 || !node || typeof node !== 'object') return false;
  const o = node as Record<string, unknown>;
  if (Array.isArray(o.enum) && o.enum.length >= 2) {
    o.enum = o.enum.slice(0, -1);
    return true;
  }
  for (const v of Object.values(o)) {
    if (Array.isArray(v)) {
      for (const x of v) if (narrowFirstEnum(x, depth + 1)) return true;
    } else if (narrowFirstEnum(v, depth + 1)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Registry versions

function versionSchedule(name: string, base: Base, changes: ChangeEvent[], joinDay: number, leaveDay: number | null, isGithub: boolean, startMs: number, r: Rng): VersionEvent[] {
  const taken = new Set(base.rows.map((e) => e.server.version));
  let latest = String(base.latest.server.version);
  const out: VersionEvent[] = [];
  const add = (day: number, version: string) => {
    if (taken.has(version)) return;
    taken.add(version);
    latest = version;
    const prev = out[out.length - 1];
    let at = timestampOn(startMs, day, r);
    // Versions published the same day keep their order in time.
    if (prev && Date.parse(at) <= Date.parse(prev.at)) at = new Date(Date.parse(prev.at) + 1000).toISOString();
    out.push({ day, version, at });
  };
  if (isGithub) {
    const rel = githubReleases();
    const baseIdx = rel.findIndex((x) => x.tag === 'v0.24.1');
    const baseMs = Date.parse(rel[baseIdx]!.date);
    for (const x of rel.slice(baseIdx + 1)) add(githubDay(x.date, baseMs, startMs), x.tag.replace(/^v/, ''));
    return out;
  }
  const days = new Set<number>();
  for (const c of changes) if (c.kind !== 'unhide' && r.chance(0.5)) days.add(c.day);
  // Re-publications without a contract change: about one per 200 days per server.
  let d = joinDay + 1 + Math.ceil(-Math.log(1 - r.next()) * 200);
  for (let i = 0; i < 50 && d <= HORIZON_DAYS; i++) {
    days.add(d);
    d += Math.ceil(-Math.log(1 - r.next()) * 200);
  }
  for (const day of [...days].sort((a, b) => a - b)) {
    if (day < joinDay || (leaveDay !== null && day >= leaveDay)) continue;
    add(day, bump(latest, r, day));
  }
  void name;
  return out;
}

function bump(v: string, r: Rng, day: number): string {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v);
  let next: string;
  if (m) {
    const [maj, min, pat] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const x = r.next();
    next = x < 0.6 ? `${maj}.${min}.${pat + 1}` : x < 0.95 ? `${maj}.${min + 1}.0` : `${maj + 1}.0.0`;
    if (v.startsWith('v')) next = `v${next}`;
  } else {
    next = `${v}.${day}`;
  }
  // Build metadata sometimes (versions with '+' exercise cursor encoding).
  if (r.chance(0.1)) next += `+build.${day}`;
  return next;
}

// ---------------------------------------------------------------------------------------------------
// Fixed behaviours (shared objects: no allocation per request)

function fixedBehaviours() {
  const json = { 'content-type': 'application/json' };
  return {
    notFound: { kind: 'status', status: 404, headers: { 'content-type': 'text/plain' }, body: 'Not Found' } as Behaviour,
    sseOnly: { kind: 'status', status: 405, headers: { allow: 'GET', 'content-type': 'text/plain' }, body: 'This endpoint speaks the deprecated HTTP+SSE transport (GET only).' } as Behaviour,
    http404: { kind: 'status', status: 404, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>404</title><h1>Page not found</h1>' } as Behaviour,
    http405: { kind: 'status', status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain' }, body: 'Method Not Allowed' } as Behaviour,
    http5xx: [
      { kind: 'status', status: 500, headers: json, body: '{"error":"internal server error"}' },
      { kind: 'status', status: 502, headers: { 'content-type': 'text/html' }, body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>' },
      { kind: 'status', status: 503, headers: { 'content-type': 'text/plain', 'retry-after': '120' }, body: 'Service Unavailable' },
    ] as Behaviour[],
    dead: { kind: 'status', status: 503, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>Application error</title><p>An error occurred in the application and your page could not be served.</p>' } as Behaviour,
    html200: { kind: 'status', status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1><p>Sign in to continue.</p></body></html>' } as Behaviour,
    brokenJson: { kind: 'status', status: 200, headers: json, body: '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{' } as Behaviour,
    brokenTools: { kind: 'raw', handler: brokenToolsHandler } as Behaviour,
    sseStall: { kind: 'sse-stall', everyMs: 250 } as Behaviour,
    rateLimited: { kind: 'status', status: 429, headers: { ...json, 'retry-after': '3600' }, body: '{"error":"rate limit exceeded"}' } as Behaviour,
    modern: { kind: 'modern-only' } as Behaviour,
    flaps: [
      { kind: 'status', status: 503, headers: { 'content-type': 'text/plain' }, body: 'upstream connect error or disconnect/reset before headers' },
      { kind: 'status', status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
      { kind: 'status', status: 429, headers: { 'content-type': 'text/plain', 'retry-after': '60' }, body: 'Too Many Requests' },
      { kind: 'status', status: 500, headers: json, body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}' },
    ] as Behaviour[],
  };
}

const authCache = new Map<string, Behaviour>();
function authBehaviour(t: WorldTarget, seed: string): Behaviour {
  const k = `${seed}|${t.name}`;
  const hit = authCache.get(k);
  if (hit) return hit;
  const r = rng(`${k}|auth`);
  const x = r.next();
  let b: Behaviour;
  if (x < 0.7) {
    b = {
      kind: 'status',
      status: 401,
      headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer realm="mcp", resource_metadata="/.well-known/oauth-protected-resource/${t.index}/mcp"` },
      body: '{"error":"invalid_token","error_description":"Missing or invalid access token"}',
    };
  } else if (x < 0.85) {
    b = { kind: 'status', status: 401, headers: { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }, body: 'Unauthorized' };
  } else {
    b = {
      kind: 'status',
      status: 403,
      headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:tools"' },
      body: '{"error":"forbidden","message":"API key required"}',
    };
  }
  if (authCache.size > 50_000) authCache.clear();
  authCache.set(k, b);
  return b;
}

/** initialize and notifications answer properly; tools/list answers a truncated JSON body. */
function brokenToolsHandler(_req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, body: Buffer): void {
  let msg: { id?: unknown; method?: string } | undefined;
  try {
    msg = JSON.parse(body.toString('utf8'));
  } catch {
    msg = undefined;
  }
  if (msg?.method === 'initialize') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'half-built', version: '0.0.1' } } }));
  } else if (msg?.method?.startsWith('notifications/')) {
    res.writeHead(202).end();
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(msg?.id ?? null)},"result":{"tools":[{"name":"search","inputSchema":{"type":"obj`);
  }
}
