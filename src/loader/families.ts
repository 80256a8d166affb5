// Contract families (methodology, "Contract families"; src/lib families.ts) as a view of a derived
// archive: each target's headline contract intervals (Archive.intervals) keyed by src/lib templateKey
// over the tools of each contract (read on demand, Archive.tools), grouped by contractFamilies, and the
// per-name headlines counted once per family beside them (familyOnce, familyOnceDrifts). Derived from
// the Archive's own views only: the loader's passes are untouched, and the view is built once per
// archive object (a WeakMap on globalThis), on first use by a page or an output.
//
// The endpoint a key reads is the target's latest (ServerView.endpoint): the loader keeps no endpoint
// history per contract, and a server that moves platform changes its contract hash rarely on the same
// day; said in the methodology.
import {
  byCodeUnits, contractFamilies, sha256Hex, everChangedShare, familyOnce, familyOnceChanged, familyOnceDrifts, halfLife, kaplanMeier, templateKey, volatility,
  type EverChangedRow, type Family, type FamilyMembership, type FamilyOnceChanged, type FamilyShare, type FirstChangeInterval, type HalfLife, type KeyedInterval, type KMRow, type TemplateKey, type Volatility,
} from '../lib/index.ts';
import type { Archive, ServerView } from './views.ts';
import type { Drift, Interval } from '../lib/index.ts';
import { eachServer } from './shards.ts';

export interface FamiliesView {
  /** Every family, by first day then id. */
  families: Family[];
  byId: Map<string, Family>;
  /** Each target's memberships, oldest first. */
  byTarget: Map<string, FamilyMembership[]>;
  /** Contracts whose tools could not be read (object missing, unparseable): no template key, never in a family. */
  unkeyed: number;
  /** The server-level figures with each family counted once (as its earliest member). */
  once: {
    intervals: FirstChangeInterval[];
    km: KMRow[];
    halfLife: HalfLife | null;
    everChanged: EverChangedRow[];
    volatility: Volatility;
    /** The family behind the largest part of the per-name first changes / all changes. */
    firstChangeLargest: FamilyShare | null;
    changesLargest: FamilyShare | null;
    /** The dashboard's "changed in the last 7 / 30 days" tiles with each family's joint change counted once. */
    changed7: FamilyOnceChanged;
    changed30: FamilyOnceChanged;
  };
}

// On globalThis, as loadArchive's cache is: the Astro pages and the post-build outputs load this module
// as two instances, and share one Archive object.
const BUILT = Symbol.for('mcp-schema.families');
type Holder = { [BUILT]?: WeakMap<Archive, Promise<FamiliesView>> };

/** The families of a derived archive, built once per archive object. */
export function familiesOf(a: Archive): Promise<FamiliesView> {
  const built = ((globalThis as Holder)[BUILT] ??= new WeakMap());
  let view = built.get(a);
  if (!view) built.set(a, (view = buildFamilies(a)));
  return view;
}

async function buildFamilies(a: Archive): Promise<FamiliesView> {
  // Shard by shard (Archive.serversIn: one shard's views alive at a time): each interval's template key,
  // and the Drift values volatility reads; then both in the order one pass over every server gives.
  const byTarget0 = new Map<string, Interval[]>();
  for (const i of a.intervals) {
    let list = byTarget0.get(i.target);
    if (!list) byTarget0.set(i.target, (list = []));
    list.push(i);
  }
  const keys = new Map<Interval, ReturnType<typeof templateKey>>();
  const drifts: Drift[] = [];
  const memo = keysMemo(a);
  for await (const [, s] of eachServer(a)) {
    for (const i of byTarget0.get(s.name) ?? []) {
      const body = s.versions.find((v) => v.toolsSha256 === i.tools_sha256)?.bodySha256 ?? null;
      if (body === null) continue;
      const id = memo.id(s.name, s.endpoint, i.tools_sha256, body);
      let key = memo.get(id) ?? null;
      if (!key) {
        const tools = await a.tools(body, i.tools_sha256);
        if (typeof tools !== 'string') key = templateKey(s.name, s.endpoint, tools);
        if (key) memo.set(id, key);
      }
      keys.set(i, key);
    }
    drifts.push(driftOf(s));
  }
  memo.save();
  drifts.sort((x, y) => byCodeUnits(x.target, y.target));
  const keyed: KeyedInterval[] = [];
  let unkeyed = 0;
  for (const i of a.intervals) {
    const key = keys.get(i) ?? null;
    if (key === null) unkeyed++;
    keyed.push({ ...i, key: key?.key ?? null, platform: key?.platform ?? null });
  }
  const families = contractFamilies(keyed);
  const byTarget = new Map<string, FamilyMembership[]>();
  for (const f of families) for (const m of f.memberships) {
    let list = byTarget.get(m.target);
    if (!list) byTarget.set(m.target, (list = []));
    list.push(m);
  }
  for (const list of byTarget.values()) list.sort((x, y) => byCodeUnits(x.first_day, y.first_day));
  const once = familyOnce(families, a.serverIntervals);
  const km = kaplanMeier(
    once.intervals.map((i) => i.duration),
    once.intervals.map((i) => i.event),
  );
  const d = familyOnceDrifts(families, drifts);
  return {
    families,
    byId: new Map(families.map((f) => [f.id, f])),
    byTarget,
    unkeyed,
    once: { intervals: once.intervals, km, halfLife: halfLife(km), everChanged: everChangedShare(once.intervals), volatility: volatility(d.drifts), firstChangeLargest: once.largest, changesLargest: d.largest,
      changed7: familyOnceChanged(families, a.changes, a.asOfDay, 7),
      changed30: familyOnceChanged(families, a.changes, a.asOfDay, 30),
    },
  };
}

/**
 * Template keys kept across builds in the build cache (Archive.memo): a key depends only on the name, the
 * endpoint and the contract's tools, so a contract keyed once is never read again and a day's build keys
 * only its new contracts. One entry for the whole map (not a file per contract), sealed under the src/lib
 * fingerprint so a change to the definition keys everything again; what could not be keyed is not kept.
 */
function keysMemo(a: Archive) {
  type Stored = { keys: [string, string, string][] };
  const name = `family-keys-${sha256Hex(a.memo?.libPrint ?? '').slice(0, 32)}`;
  const stored = a.memo?.read<Stored>(name) ?? null;
  const map = new Map<string, TemplateKey>((stored?.keys ?? []).map(([id, key, platform]) => [id, { key, platform }]));
  let added = 0;
  return {
    id: (target: string, endpoint: string | null, tools: string, body: string) => sha256Hex([target, endpoint ?? '', tools, body].join('\0')).slice(0, 32),
    get: (id: string) => map.get(id),
    set(id: string, key: TemplateKey) {
      map.set(id, key);
      added++;
    },
    save() {
      if (added > 0) a.memo?.write(name, { keys: [...map].map(([id, k]) => [id, k.key, k.platform]) } satisfies Stored);
    },
  };
}

/** The Drift value volatility reads (target, changes' days, versions' days), from a server's view: its changes oldest first. */
function driftOf(s: ServerView): Drift {
  return {
    target: s.name,
    head: null,
    versions: s.versions.map((v) => ({ tools_sha256: v.toolsSha256, body_sha256: v.bodySha256 ?? '', first_seen: v.firstSeen, last_seen: v.lastSeen, first_day: v.firstSeen.slice(0, 10), last_day: v.lastSeen.slice(0, 10), observations: 0 })),
    changes: [...s.changes].reverse().map((c, index) => ({ target: c.target, index, day: c.day, observed_at: c.observedAt, run_id: c.runId, before: { tools_sha256: c.beforeSha256, body_sha256: c.beforeBody ?? '', observed_at: c.observedAt, day: c.day, run_id: c.runId }, after: { tools_sha256: c.afterSha256, body_sha256: c.afterBody ?? '', observed_at: c.observedAt, day: c.day, run_id: c.runId }, revert: c.revert })),
    repeatMover: s.repeatMover,
  };
}
