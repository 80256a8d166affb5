// Fold checkpoints: the fold's state (fold.ts Fold) after a prefix of the days, kept in the build cache
// (cache.ts checkpoints/), so a build folds only the days after it, and the day summaries of the days it
// holds are deleted: the cache grows with targets and what they changed, not with the archive's age.
//
// A checkpoint is found by what it was folded from, never by a date: its id is a hash chain, from a base
// (this format, the fold's sources and src/lib's, the headline's series, seam and bridge length, the
// number of shards, exact mode) through each day folded, in order (day, series, content key of its
// files, whether its ok rows were kept whole). A build computes the chain of its own days and takes the
// longest prefix it has a checkpoint for; a day file that changed, a headline that switched, another
// number of shards or other sources give other ids, so nothing matches and every day is folded again.
//
// Where the checkpoint is cut: after the last closed day (every file gzipped, older than the newest
// day), the days compaction no longer rewrites; the newest days, still appended to, are folded from
// their summaries on every build until they close. An archive never compacted (tests, a local world) is
// cut before its newest day. Each entry is sealed like every other (cache.ts), so one cut short or
// changed is refused and the build folds from the start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { serialize } from 'node:v8';
import type { Problem } from '../archive/problems.ts';
import type { RunSeries } from '../lib/index.ts';
import type { BuildCache } from './cache.ts';
import type { Fold, FoldTables } from './fold.ts';

/** Bump when what a checkpoint holds changes shape. */
export const CHECKPOINT_VERSION = 'fold-checkpoint 1';

/** One day of the fold's order: what a checkpoint's id is chained from. */
export interface FoldEntry {
  day: string;
  series: RunSeries;
  /** The day summary's cache key (cache.ts DaySource.key: content hash of the day's files). */
  key: string;
  /** Its ok rows kept whole (a bridge day: fold.ts Fold.wholeDays). */
  whole: boolean;
  /** Every file of the day is gzipped (a closed day). */
  closed: boolean;
}

/** What the first shard's pass took from a day besides the fold: its rows and problems (load-archive.ts). */
export interface DaySeen {
  n: number;
  problems: Problem[];
}

/** A shard's checkpoint: the fold after `at` days of the order, and (shard 0) what each of them added. */
interface Snapshot {
  v: string;
  id: string;
  at: number;
  fold: Fold;
  seen: DaySeen[] | null;
}

/** What fixes a fold besides its days: hashed into the first link of the chain. */
export interface CheckpointBase {
  sourceRoot: string;
  libPrint: string;
  series: string;
  seamDay: string | null;
  bridgeLength: number;
  shards: number;
  exact: boolean;
}

/** The loader's sources that decide a fold's state and which shard holds a target (their bytes: any edit is another base). */
const FOLD_SOURCES = ['src/loader/fold.ts', 'src/loader/day-summary.ts', 'src/loader/shards.ts', 'src/loader/checkpoint.ts', 'src/loader/load-archive.ts'];

/** Where to cut: after the last closed day older than the newest (any day before the newest when none is closed). */
export function checkpointCut(entries: readonly FoldEntry[]): number {
  const newest = entries.at(-1)?.day;
  const anyClosed = entries.some((e) => e.closed);
  let cut = 0;
  entries.forEach((e, i) => {
    if (e.day < newest! && (e.closed || !anyClosed)) cut = i + 1;
  });
  return cut;
}

/** The checkpoints of one build: its chain of ids, lookup, save and pruning. */
export class Checkpoints {
  /** ids[L]: the id of a checkpoint after the first L days (ids[0]: the base). */
  readonly ids: string[];
  /** How many days the checkpoint this build writes holds (0: none). */
  readonly cut: number;
  /** Per shard, how many days the checkpoint it started from held (0: folded from the start). */
  readonly restored = new Map<number, number>();
  private readonly saved = new Set<number>();
  private readonly shards: number;

  constructor(
    private readonly cache: BuildCache,
    base: CheckpointBase,
    private readonly entries: readonly FoldEntry[],
  ) {
    const h = createHash('sha256').update(CHECKPOINT_VERSION).update('\0').update(base.libPrint);
    for (const f of FOLD_SOURCES) {
      let bytes: Buffer | string = '?';
      try {
        bytes = readFileSync(path.join(base.sourceRoot, f));
      } catch {
        /* a source not readable: '?' */
      }
      h.update('\0').update(f).update('\0').update(bytes);
    }
    h.update('\0').update(JSON.stringify([base.series, base.seamDay, base.bridgeLength, base.shards, base.exact]));
    this.ids = [h.digest('hex')];
    for (const e of entries) this.ids.push(createHash('sha256').update(this.ids.at(-1)!).update('\0').update(`${e.day}|${e.series}|${e.key}|${e.whole ? 1 : 0}`).digest('hex'));
    this.cut = checkpointCut(entries);
    this.shards = base.shards;
  }

  private name(at: number, k: number): string {
    return `${this.ids[at]!}-${k}of${this.shards}`;
  }

  /** The longest prefix shard k has a checkpoint for (0: none). */
  find(k: number): number {
    const files = new Set(this.cache.checkpointFiles());
    for (let at = this.entries.length; at > 0; at--) if (files.has(`${this.name(at, k)}.v8`)) return at;
    return 0;
  }

  /**
   * Shard k's fold restored from its newest checkpoint of this build's days, with its string tables and
   * (shard 0) what its days added; null: none, or refused (the caller folds from the start).
   */
  restore(k: number, wholeDays: ReadonlySet<string>, only: Fold['only']): { fold: Fold; tables: FoldTables; at: number; seen: DaySeen[] | null } | null {
    const at = this.find(k);
    if (at === 0) return null;
    const snap = this.cache.readCheckpoint<Snapshot>(this.name(at, k));
    if (!snap || snap.v !== CHECKPOINT_VERSION || snap.id !== this.ids[at] || snap.at !== at || (k === 0 && (!snap.seen || snap.seen.length !== at))) return null;
    const fold: Fold = { ...snap.fold, wholeDays, only };
    const byValue = <T>(list: readonly T[]) => new Map(list.map((v, i) => [v, i]));
    const tables: FoldTables = { hash: fold.hashId, run: byValue(fold.runIds), day: byValue(fold.dayIds), era: byValue(fold.eras) };
    this.restored.set(k, at);
    return { fold, tables, at, seen: snap.seen };
  }

  /** Write shard k's fold after `at` days (the cut), before the days after it are folded into it. */
  save(k: number, at: number, fold: Fold, seen: readonly DaySeen[] | null): void {
    if (at === 0 || at !== this.cut || this.saved.has(k)) return;
    const snap: Snapshot = { v: CHECKPOINT_VERSION, id: this.ids[at]!, at, fold: { ...fold, wholeDays: new Set(), only: null }, seen: seen ? seen.slice(0, at) : null };
    this.cache.writeCheckpoint(this.name(at, k), serialize(snap));
    this.saved.add(k);
    if (this.saved.size === this.shards) this.prune();
  }

  /**
   * Once every shard's checkpoint at the cut is written: keep it and the one before it (the newest of
   * this build's chain below it), delete every other checkpoint, and every day summary but the days
   * after the cut (a later build reads only those; any other is read again from its files if asked).
   */
  private prune(): void {
    const files = this.cache.checkpointFiles();
    const present = new Set(files);
    const keep = new Set<string>([this.ids[this.cut]!]);
    for (let at = this.cut - 1; at > 0; at--) {
      if (present.has(`${this.name(at, 0)}.v8`)) {
        keep.add(this.ids[at]!);
        break;
      }
    }
    this.cache.dropCheckpoints(files.filter((f) => !keep.has(f.slice(0, 64))));
    this.cache.pruneDaySummaries(new Set(this.entries.slice(this.cut).map((e) => e.key)));
  }
}
