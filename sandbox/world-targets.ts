// The first steps of buildWorld: check the options, choose which real names (and synthetic copies)
// make up the world, put their hosts on loopback listeners, and draw each target's profile, drift,
// plans and registry life. Every draw comes from a key of its own (WorldSetup.key), so a later draw
// never moves an earlier one.
import { OFFICIAL_META, type RegistryEntry } from './registry-server.ts';
import { rng, unit } from './prng.ts';
import { authPlan, eraPlan, extraSchedule, instructionsPlan, paginationPlan, versionSchedule } from './world-plans.ts';
import { driftSchedule, githubChanges } from './world-drift.ts';
import { cmpBytes, githubReleases, timestampFrom, toolLibrary, type Base, type Remote } from './world-sources.ts';
import {
  AUTH_RATE,
  DEFAULT_START_DATE,
  DRIFT_RATE,
  GITHUB_NAME,
  PAYMENT_REQUIRED_RATE,
  PROFILE_WEIGHTS,
  SANDBOX_META,
  SSE_LEGACY_RATE,
  type DriftClass,
  type EraStep,
  type Profile,
  type WorldOptions,
  type WorldSetup,
  type WorldTarget,
} from './world-model.ts';

/** A base chosen for the world: `copy` 0 is the real name, k > 0 its synthetic copy `<name>-sim-<k>`. */
export interface Chosen {
  base: Base;
  copy: number;
  name: string;
}

/** The options checked (size 1..100000, a parseable start date) with their defaults filled in. */
export function worldSetup(opts: WorldOptions): WorldSetup {
  const seed = String(opts.seed);
  const size = Math.floor(opts.size);
  if (!(size >= 1 && size <= 100_000)) throw new Error(`world size must be 1..100000, got ${opts.size}`);
  const startDate = opts.startDate ?? DEFAULT_START_DATE;
  const startMs = Date.parse(`${startDate}T00:00:00Z`);
  if (Number.isNaN(startMs)) throw new Error(`bad startDate ${startDate}`);
  const maxListeners = Math.max(1, Math.min(opts.maxListeners ?? 250, 250 * 250));
  const key = (...parts: Array<string | number>) => [seed, ...parts].join('|');
  return { seed, size, startDate, startMs, maxListeners, key };
}

/**
 * Which bases make up a world of `size`, in name order: up to the real listing's size, a stratified
 * sample of it (github-mcp-server always in); beyond, every real name and synthetic copies.
 */
export function chooseBases({ size, key }: WorldSetup, bases: readonly Base[]): Chosen[] {
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
  return named;
}

/** The host a chosen target's remotes stand for (a synthetic copy's host is a copy too), or null. */
function hostKeyOf(n: Chosen): string | null {
  return n.base.hostKey === null ? null : n.copy === 0 ? n.base.hostKey : `sim${n.copy}.${n.base.hostKey}`;
}

/** Loopback listeners: one per distinct (real or synthetic) host, up to maxListeners, shared round-robin beyond. */
export function placeOnListeners(named: readonly Chosen[], maxListeners: number): { listeners: number; listenerOfHost: Map<string, number> } {
  const hostKeys = [...new Set(named.map(hostKeyOf).filter((h): h is string => h !== null))].sort(cmpBytes);
  const listeners = Math.max(1, Math.min(maxListeners, hostKeys.length));
  const listenerOfHost = new Map(hostKeys.map((h, i) => [h, i % listeners]));
  return { listeners, listenerOfHost };
}

/** Each chosen base as a target: its profile, drift, tool source, plans, versions and listing rows. */
export function drawTargets({ key, startMs }: WorldSetup, named: readonly Chosen[], listenerOfHost: ReadonlyMap<string, number>): WorldTarget[] {
  const { lists } = toolLibrary();
  const startIso = (day: number, k: string) => timestampFrom(startMs, day, k);

  return named.map((n, index) => {
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
    const hostKey = hostKeyOf(n);
    const toolSource = serves ? (isGithub ? `github-mcp-server/v0.24.1` : r.pick(lists).source) : null;
    const joinDay = !isGithub && r.chance(0.08) ? r.int(1, 90) : 0;
    const leaveDay = !isGithub && r.chance(0.03) ? r.int(Math.max(5, joinDay + 3), 120) : null;
    const deprecateDay = !isGithub && r.chance(0.03) ? r.int(joinDay + 1, 120) : null;
    const dieDay = profile === 'dies' ? r.int(3, 90) : null;

    const changes = isGithub ? githubChanges(startMs) : driftSchedule(drift, rng(key('drift', name)));

    // Later additions, each from a key of its own so that no draw above moves. Carve-outs first: a
    // 402 wall out of auth walls, an HTTP+SSE-only server out of `ok` endpoints (it keeps its tools).
    if (profile === 'auth' && unit(key('paywall', name)) < PAYMENT_REQUIRED_RATE) profile = 'payment_required';
    else if (profile === 'ok' && !isGithub && unit(key('sse-legacy', name)) < SSE_LEGACY_RATE) profile = 'sse_legacy';
    const streamable = profile === 'ok' || profile === 'flapping' || profile === 'dies' || profile === 'redirect';
    const baseTools = toolSource === null ? [] : isGithub ? githubReleases().find((x) => x.tag === 'v0.24.1')!.tools : lists.find((l) => l.source === toolSource)!.tools;
    const eras: EraStep[] = !streamable ? [] : isGithub ? [{ day: 0, era: 'legacy', tools: false }] : eraPlan(rng(key('era', name)));
    const instructions = (streamable || profile === 'sse_legacy') && !isGithub ? instructionsPlan(rng(key('instructions', name)), n.base, baseTools) : [];
    const pageSize = streamable && !isGithub ? paginationPlan(rng(key('paginate', name)), baseTools.length) : null;
    const extraChanges = streamable && !isGithub ? extraSchedule(changes, eras, rng(key('security', name))) : [];
    const auth = profile === 'auth' ? authPlan(rng(key(name, 'auth')).next(), rng(key(name, 'auth-meta'))) : null;
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
      extraChanges,
      eras,
      instructions,
      pageSize,
      auth,
      versions,
      baseRows,
    };
  });
}
