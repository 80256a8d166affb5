// `npm run verify -- --plan-parts [--max-part-hours H] [--store-bytes B]`: how many parts the weekly
// full verify runs as, so each part finishes well inside a job (GitHub stops a job at 6 h; a part is
// planned to take at most half of that), following the archive instead of a fixed 4.
//
// The rate: bench/README.md "Years at the registry's size" projects one of 4 parts of a full verify
// at 5.6 h after five years of the registry growing (≈ 270 more servers each day), when the object
// store holds 356 GB: 4 × 5.6 h / 356 GB = 0.063 h a GB (≈ 3.8 min a GB; the same table gives
// 3.6 min a GB at year 1 — 4 × 18 min / 19.75 GB — and 3.7 at year 3: the time is linear in the bytes
// read, rows and objects alike). The size: every key of the store (objects/ and pages/, which include
// the closed day files and rosters stored.jsonl names), listed with its size — one List request per
// 1,000 keys — or --store-bytes when the provider's own figure is at hand. Then
//
//   parts = ceil(bytes in GB × 0.063 h × (1 + a week's growth) / H), at least 1, at most 64,
//
// where a week's growth is what stored.jsonl's last 7 days added to it, relative to all it names
// (the plan is made each week before the parts run), and H is --max-part-hours (default 3).
// Each part is a month class (month number mod n) and 1/n of the 256 shards (verify-scope.ts
// dayInPart, partShards), so any n partitions every day, run and shard.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FsObjectStore, type ObjectStore } from '../../src/archive/object-store.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { readStoredIndex, storedDay } from '../../src/archive/stored-files.ts';

/** Hours of full verify per GB (1e9 bytes) of the store: 4 parts × 5.6 h / 356 GB (bench:years, year 5, growing). */
export const FULL_VERIFY_HOURS_PER_GB = (4 * 5.6) / 356;
/** Half of GitHub's 6 h job limit. */
export const DEFAULT_MAX_PART_HOURS = 3;
export const MAX_PARTS = 64;

export interface PartPlan {
  /** Bytes the plan is made for, and where the figure came from. */
  bytes: number;
  measured: 'listed' | 'given';
  keys: number | null;
  /** The growth a week adds, as a fraction (from stored.jsonl's last 7 days). */
  weekGrowth: number;
  hoursPerGb: number;
  /** A full verify's projected hours, all parts together, and each part's. */
  hours: number;
  partHours: number;
  maxPartHours: number;
  parts: number;
  /** The matrix a workflow gives its job: {"part":[1..n]}. */
  matrix: { part: number[] };
}

/** The parts a full verify needs for `bytes` (see the header). */
export function partsFor(bytes: number, weekGrowth: number, maxPartHours: number): { hours: number; parts: number } {
  if (!(maxPartHours > 0)) throw new Error(`a part's hours must be positive, not ${maxPartHours}`);
  const hours = (bytes / 1e9) * FULL_VERIFY_HOURS_PER_GB * (1 + Math.max(0, weekGrowth));
  const parts = Math.min(MAX_PARTS, Math.max(1, Math.ceil(hours / maxPartHours)));
  if (hours / parts > maxPartHours) throw new Error(`a full verify of ${(bytes / 1e9).toFixed(1)} GB needs more than ${MAX_PARTS} parts of ${maxPartHours} h: raise --max-part-hours or split the shards further`);
  return { hours, parts };
}

/** The growth of stored.jsonl's last 7 days relative to all it names (0 with fewer than 8 days). */
export function weekGrowthOf(dir: string): number {
  const lines = [...readStoredIndex(dir).files.values()];
  const days = [...new Set(lines.map((l) => storedDay(l.path)))].sort();
  if (days.length < 8) return 0;
  const since = days[days.length - 7]!;
  const total = lines.reduce((n, l) => n + l.bytes, 0);
  const week = lines.filter((l) => storedDay(l.path) >= since).reduce((n, l) => n + l.bytes, 0);
  return total - week > 0 ? week / (total - week) : 0;
}

/** Every key of the store with its size: a bucket's listing, or the folder's files. */
export async function storeBytes(store: ObjectStore): Promise<{ bytes: number; keys: number }> {
  let bytes = 0;
  let keys = 0;
  for (const prefix of ['objects/', 'pages/']) {
    if (store instanceof S3ObjectStore) {
      for await (const { size } of store.sizes(prefix)) {
        bytes += size;
        keys++;
      }
    } else if (store instanceof FsObjectStore) {
      for await (const key of store.list(prefix)) {
        bytes += (await stat(join(store.dir, key))).size;
        keys++;
      }
    } else throw new Error(`cannot size ${store.description}: give --store-bytes`);
  }
  return { bytes, keys };
}

export async function planParts(dir: string, store: ObjectStore, opts: { maxPartHours?: number; storeBytes?: number } = {}): Promise<PartPlan> {
  const maxPartHours = opts.maxPartHours ?? DEFAULT_MAX_PART_HOURS;
  const sized = opts.storeBytes !== undefined ? { bytes: opts.storeBytes, keys: null } : await storeBytes(store);
  const weekGrowth = weekGrowthOf(dir);
  const { hours, parts } = partsFor(sized.bytes, weekGrowth, maxPartHours);
  return {
    bytes: sized.bytes,
    measured: opts.storeBytes !== undefined ? 'given' : 'listed',
    keys: sized.keys,
    weekGrowth,
    hoursPerGb: FULL_VERIFY_HOURS_PER_GB,
    hours,
    partHours: hours / parts,
    maxPartHours,
    parts,
    matrix: { part: Array.from({ length: parts }, (_, i) => i + 1) },
  };
}
