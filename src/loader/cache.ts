// The loader's build cache: what one pass over a day file yields (a compact, columnar summary of its
// valid rows, day-summary.ts) and per-target derived changes (changes.ts), kept between builds so a daily
// rebuild reads and validates one new day, not a year.
//
// Layout (the folder the caller names: the site's is `.cache/mcp-schema/` or $MCP_SCHEMA_CACHE,
// src/site/settings.ts; git-ignored, safe to delete):
//   stat-index.json            "<abs path>|<size>|<mtimeMs>" → sha256 of the file's bytes, so an
//                              unchanged file is not hashed again; any write changes size or mtime
//   days/<key>.v8              a day's summary (sealed: see below), key = sha256(DAY_SUMMARY_VERSION, contract fingerprint, the
//                              series, every file of the day with its sha256): content-addressed, so an
//                              appended, rewritten or replaced day file gets a new key
//   changes/<key>.v8           one target's derived changes (diffs, findings), key = sha256 of
//                              DERIVE_VERSION, the src/lib fingerprint and its version bodies
//   days/<key>-<k>of<S>.v8     shard k of S of that summary: its targets' rows only (splitDaySummary), so a
//                              build in S shards (shards.ts) reads each day whole once, then one part a shard
//   changes/<key>.rows.v8      the full rows a build read back from a day (rows.ts); .rows.<k>of<S>: one shard's
//   checkpoints/<id>-<k>of<S>.v8  shard k's fold state after a prefix of the days (checkpoint.ts, sealed), id =
//                              a hash chain over what it was folded from: a build folds only the days after it;
//                              days/ entries of the days it holds are deleted
//   members/                   the bundle members (src/outputs/members.ts), kept here by their writer
// Writes go through src/archive/atomic.ts (temp file, rename), so concurrent builds (the test suite)
// never read half a file. A missing or unreadable entry is rebuilt; nothing here is ever the only copy.
//
// The cache may be carried between machines (deploy.yml restores yesterday's with actions/cache), so an
// entry is trusted only as what this code wrote under its key: every days/ and changes/ entry is
// CACHE_ENTRY_MAGIC, then SHA-256 of (key, payload), then the v8 payload. An entry cut short, with a
// changed byte, or copied under another key fails the check: it is refused (counted in `rejected`) and
// computed again. A day-summary worker (workers.ts) writes its days unsealed; this build seals them when it
// first reads them (`fresh`), and an unsealed entry from anywhere else is refused.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { writeAtomic } from '../archive/atomic.ts';
import type { DayFiles } from '../archive/day-files.ts';
import { storeFor } from '../archive/objects.ts';
import { isLocal, materialize, readStoredIndex, type StoredIndex } from '../archive/stored-files.ts';
import type { RunSeries } from '../lib/index.ts';
import { buildDaySummary, DAY_SUMMARY_VERSION, splitDaySummary, type DaySummary } from './day-summary.ts';

/** Where the cache lives and where the sources its keys depend on are. */
export interface CacheOptions {
  /** The cache folder; null: none (a day's key is still computed under the contract, nothing is kept). */
  dir: string | null;
  /** The repository root: src/lib is fingerprinted from here (a change to the derivation code is a new key). */
  sourceRoot: string;
}

export interface DaySource {
  day: DayFiles;
  /** The series of the day's folder (observations/ v1, observations-v2/ v2). */
  series: RunSeries;
  /** Cache key (content hash of the day's files). */
  key: string;
  /** sha256 of each file, in day.files order. */
  shas: string[];
}

export class BuildCache {
  /** null: no cache (every day is read and validated, nothing is written). */
  readonly dir: string | null;
  private readonly stats: StatIndex;
  private readonly contract: string;
  private readonly sourceRoot: string | null;
  hits = 0;
  misses = 0;
  /** Entries found under their key whose bytes were not what this cache wrote there (refused, then recomputed). */
  rejected = 0;
  /** Keys whose day summaries this build wrote (in workers): counted as misses when read. */
  readonly fresh = new Set<string>();

  constructor(opts: CacheOptions | null) {
    this.dir = opts?.dir ?? null;
    if (this.dir) mkdirSync(path.join(this.dir, 'days'), { recursive: true });
    this.stats = new StatIndex(this.dir ? path.join(this.dir, 'stat-index.json') : null);
    this.contract = opts ? contractFingerprint(opts.sourceRoot) : '';
    this.sourceRoot = opts?.sourceRoot ?? null;
  }

  /** What cached derived changes depend on besides their bodies: src/lib's sources ('' without a cache). */
  libPrint(): string {
    return this.sourceRoot === null ? '' : libFingerprint(this.sourceRoot);
  }

  private readonly indexes = new Map<string, StoredIndex>();
  /** stored.jsonl of an archive, read once per build. */
  storedIndex(archive: string): StoredIndex {
    let index = this.indexes.get(archive);
    if (!index) this.indexes.set(archive, (index = readStoredIndex(archive)));
    return index;
  }

  /** Bring a day's stored files into the folder before they are read (a cache miss), through the archive's object store. */
  async bring(archive: string, day: DayFiles): Promise<void> {
    for (const f of day.files) await materialize(archive, f, this.storedIndex(archive), storeFor(archive));
  }

  /** Where a day's summary is kept. */
  summaryFile(key: string): string | null {
    return this.dir && path.join(this.dir, 'days', `${key}.v8`);
  }

  /**
   * A day's cache key. A file only in the object store (stored.jsonl names it, the folder lacks it) is
   * keyed by the index's SHA-256 of its bytes, the same hash its local copy would give: a build with
   * the day's summary cached never fetches it.
   */
  async source(archive: string, day: DayFiles, series: RunSeries = 'v1'): Promise<DaySource> {
    const shas: string[] = [];
    for (const f of day.files) shas.push(isLocal(archive, f) ? await this.stats.sha256(path.join(archive, f)) : storedSha(this.storedIndex(archive), f));
    const h = createHash('sha256').update(DAY_SUMMARY_VERSION).update('\0').update(this.contract).update('\0').update(series).update('\0').update(day.day);
    day.files.forEach((f, i) => h.update('\0').update(path.basename(f)).update(':').update(shas[i]!));
    return { day, series, key: h.digest('hex'), shas };
  }

  /** The summary of a day, from the cache or by reading and validating its files. */
  async daySummary(archive: string, src: DaySource): Promise<DaySummary> {
    const file = this.summaryFile(src.key);
    if (file && existsSync(file)) {
      const fresh = this.fresh.has(src.key);
      const d = this.readEntry<DaySummary>(src.key, file, fresh);
      if (d && d.v === DAY_SUMMARY_VERSION && d.day === src.day.day && d.series === src.series) {
        if (fresh) this.misses++;
        else this.hits++;
        return d;
      }
      if (d) this.rejected++;
    }
    this.misses++;
    await this.bring(archive, src.day);
    const d = await buildDaySummary(archive, src.day, [], src.series);
    if (file) writeAtomic(file, sealEntry(src.key, serialize(d)));
    return d;
  }

  /**
   * Shard k of S of a day's summary (its targets' rows: shards.ts shardOf), read from the cache, or cut
   * from the whole summary on a miss, which writes every part of the day at once. Without a cache the
   * whole summary is returned (the fold keeps only the shard's targets either way). Part reads count as
   * neither hits nor misses: the days' own counts stay one per day.
   */
  async daySummaryPart(archive: string, src: DaySource, k: number, shards: number): Promise<DaySummary> {
    if (!this.dir) return this.daySummary(archive, src);
    const partKey = (j: number) => `${src.key}-${j}of${shards}`;
    const file = this.summaryFile(partKey(k))!;
    if (existsSync(file)) {
      const d = this.readEntry<DaySummary>(partKey(k), file);
      if (d && d.v === DAY_SUMMARY_VERSION && d.day === src.day.day && d.series === src.series) return d;
    }
    const parts = splitDaySummary(await this.daySummary(archive, src), shards);
    parts.forEach((part, j) => writeAtomic(this.summaryFile(partKey(j))!, sealEntry(partKey(j), serialize(part))));
    return parts[k]!;
  }

  /**
   * A sealed entry's value; null when it is absent, or present but not what this cache wrote under
   * `key` (counted in `rejected`). `unsealed`: the file may be a day-summary worker's, written this build
   * without a seal — read as it is and sealed in place.
   */
  private readEntry<T>(key: string, file: string, unsealed = false): T | null {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      return null;
    }
    const payload = openEntry(key, bytes);
    try {
      if (payload) return deserialize(payload) as T;
      if (unsealed) {
        const value = deserialize(bytes) as T;
        writeAtomic(file, sealEntry(key, bytes));
        return value;
      }
    } catch {
      /* refused below */
    }
    this.rejected++;
    return null;
  }

  readChanges<T>(key: string): T | null {
    if (!this.dir) return null;
    return this.readEntry<T>(key, path.join(this.dir, 'changes', `${key}.v8`));
  }

  writeChanges(key: string, value: unknown): void {
    if (!this.dir) return;
    writeAtomic(path.join(this.dir, 'changes', `${key}.v8`), sealEntry(key, serialize(value)));
  }

  /** Fold checkpoints kept in checkpoints/ (checkpoint.ts): their file names; none without a cache. */
  checkpointFiles(): string[] {
    if (!this.dir) return [];
    try {
      return readdirSync(path.join(this.dir, 'checkpoints')).filter((f) => f.endsWith('.v8'));
    } catch {
      return [];
    }
  }

  /** A sealed checkpoint entry (checkpoints/<key>.v8); null when absent or refused (counted in `rejected`). */
  readCheckpoint<T>(key: string): T | null {
    if (!this.dir) return null;
    return this.readEntry<T>(key, path.join(this.dir, 'checkpoints', `${key}.v8`));
  }

  /** Seal and write a checkpoint entry already serialised (v8) under its key. */
  writeCheckpoint(key: string, payload: Buffer): void {
    if (!this.dir) return;
    writeAtomic(path.join(this.dir, 'checkpoints', `${key}.v8`), sealEntry(key, payload));
  }

  /** Delete checkpoint entries by file name (an entry already gone is no error). */
  dropCheckpoints(files: readonly string[]): void {
    if (!this.dir) return;
    for (const f of files) rmSync(path.join(this.dir, 'checkpoints', f), { force: true });
  }

  /**
   * Delete every day summary (whole or a shard's part) whose day key is not in `keep`: the days a fold
   * checkpoint holds are not read again (checkpoint.ts), and a summary gone is a miss, read again from
   * the day's files. Returns how many entries were deleted.
   */
  pruneDaySummaries(keep: ReadonlySet<string>): number {
    if (!this.dir) return 0;
    let dropped = 0;
    const folder = path.join(this.dir, 'days');
    for (const f of readdirSync(folder)) {
      const key = /^([0-9a-f]{64})(?:-\d+of\d+)?\.v8$/.exec(f)?.[1];
      if (key === undefined || keep.has(key)) continue;
      rmSync(path.join(folder, f), { force: true });
      dropped++;
    }
    return dropped;
  }

  save(): void {
    this.stats.save();
  }
}

/** The first bytes of every entry under days/, changes/ and checkpoints/: the entry format (bump when the seal changes). */
export const CACHE_ENTRY_MAGIC = 'mcp-schema cache entry 1\n';
const MAGIC = Buffer.from(CACHE_ENTRY_MAGIC, 'latin1');
/** A stored file's SHA-256 from the index (a file neither local nor indexed is an error, named). */
function storedSha(index: StoredIndex, rel: string): string {
  const line = index.files.get(rel);
  if (!line) throw new Error(`${rel} is neither in the archive folder nor named by stored.jsonl`);
  return line.sha256;
}

/** The cache's format as a CI cache key names it (deploy.yml): the entry format and the summary version. */
export const CACHE_FORMAT = `entry-1.${DAY_SUMMARY_VERSION}`;

function entrySeal(key: string, payload: Uint8Array): Buffer {
  return createHash('sha256').update(CACHE_ENTRY_MAGIC).update(key).update('\0').update(payload).digest();
}

/** An entry's bytes: the magic, the seal of (key, payload), the payload. */
function sealEntry(key: string, payload: Buffer): Buffer {
  return Buffer.concat([MAGIC, entrySeal(key, payload), payload]);
}

/** The payload of a sealed entry when it is what was written under `key`, else null. */
function openEntry(key: string, bytes: Buffer): Buffer | null {
  const start = MAGIC.length + 32;
  if (bytes.length < start || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const payload = bytes.subarray(start);
  return entrySeal(key, payload).equals(bytes.subarray(MAGIC.length, start)) ? payload : null;
}

/** sha256 of src/lib's sources (what a cached derivation depends on), once per process and root. */
const libPrints = new Map<string, string>();
export function libFingerprint(sourceRoot: string): string {
  const known = libPrints.get(sourceRoot);
  if (known !== undefined) return known;
  const h = createHash('sha256');
  const root = path.join(sourceRoot, 'src', 'lib');
  try {
    const files = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(ts|json)$/.test(e.name))
      .map((e) => path.join(e.parentPath, e.name))
      .sort();
    for (const f of files) h.update(path.relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  } catch {
    h.update('no-src-lib');
  }
  const print = h.digest('hex');
  libPrints.set(sourceRoot, print);
  return print;
}

/** The summary depends on the row contract (what validates): its sources, when readable. */
function contractFingerprint(sourceRoot: string): string {
  const h = createHash('sha256');
  for (const f of ['src/lib/contract/observation.ts', 'src/lib/contract/observation-v2.ts', 'src/lib/methodology-series.ts', 'src/lib/canonical.ts']) {
    try {
      h.update(readFileSync(path.join(sourceRoot, f)));
    } catch {
      h.update('?');
    }
  }
  return h.digest('hex');
}

/** Content hashes of day files, remembered by (path, size, mtime); in memory only without a cache. */
class StatIndex {
  private entries: Record<string, string> = {};
  private dirty = false;
  constructor(private readonly file: string | null) {
    if (!file) return;
    try {
      this.entries = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    } catch {
      this.entries = {};
    }
  }

  async sha256(file: string): Promise<string> {
    const st = statSync(file);
    const key = `${file}|${st.size}|${st.mtimeMs}`;
    const known = this.entries[key];
    if (known) return known;
    const h = createHash('sha256');
    for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
    const sha = h.digest('hex');
    this.entries[key] = sha;
    this.dirty = true;
    return sha;
  }

  save(): void {
    if (!this.dirty || !this.file) return;
    // Keep the index small: drop entries of files that no longer exist at that size and mtime.
    const kept: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.entries)) {
      const [file, size, mtime] = k.split('|');
      try {
        const st = statSync(file!);
        if (String(st.size) === size && String(st.mtimeMs) === mtime) kept[k] = v;
      } catch {
        /* gone */
      }
    }
    writeAtomic(this.file, Buffer.from(JSON.stringify(kept)));
    this.dirty = false;
  }
}
