// Shards of the loader: the targets split by a stable hash of their name into S groups, so the build
// folds and derives one group at a time and holds one group's full state (fold.ts TargetState, the
// ServerViews of derive.ts) at once, never every server's. What the site-wide pages need of every
// server stays: its summary (src/lib serverSummary: the headline figures' inputs) and a compact row.
// S follows the archive's size (shardCount): one shard, the everything-at-once build, up to
// SHARD_TARGETS targets; the sharded path is the same fold and the same derivation with S > 1.
import type { AnyRun } from '../lib/index.ts';

/**
 * Targets a shard holds at most on average. The loaded state costs ≈ 5–6 kB a target (fold ≈ 2 kB,
 * derived views ≈ 3.6 kB at 1,000 × 60 days): 20,000 targets ≈ 120 MB a shard.
 */
export const SHARD_TARGETS = 20_000;

/** The number of shards for an archive of `targets` targets: 1 up to SHARD_TARGETS, then one more per SHARD_TARGETS. */
export function shardCount(targets: number, perShard: number = SHARD_TARGETS): number {
  if (!Number.isFinite(targets) || targets <= perShard) return 1;
  return Math.ceil(targets / perShard);
}

/** The archive's size for shardCount, read off runs.jsonl (the largest roster a run counted). */
export function targetsOf(runs: readonly AnyRun[]): number {
  let most = 0;
  for (const r of runs) if (r.targets > most) most = r.targets;
  return most;
}

/**
 * The shard of a target name: FNV-1a (32 bits) over its UTF-16 code units, modulo S. Stable across
 * builds, machines and Node versions (no seed, no locale), and cheap enough to ask per row per pass;
 * it needs no cryptographic strength (a name only picks a group).
 */
export function shardOf(name: string, shards: number): number {
  if (shards <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

/** Membership of shard `k` of `shards`, as the fold asks it (fold.ts Fold.only); null: every target (one shard). */
export function shardMember(k: number, shards: number): { has(name: string): boolean } | null {
  if (shards <= 1) return null;
  if (!Number.isInteger(k) || k < 0 || k >= shards) throw new RangeError(`shard ${k} is not one of 0..${shards - 1}`);
  return { has: (name) => shardOf(name, shards) === k };
}

/**
 * Every server of a derived archive, shard by shard (Archive.serversIn), each shard's in name order:
 * how a writer that visits every server holds one shard's views at a time. `[shard, server]`.
 */
export async function* eachServer<S>(a: { shards: number; serversIn(k: number): Promise<S[]> }): AsyncGenerator<[number, S]> {
  for (let k = 0; k < a.shards; k++) for (const s of await a.serversIn(k)) yield [k, s];
}
