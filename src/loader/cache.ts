// The loader's build cache: what one pass over a day file yields (a compact, columnar digest of its
// valid rows, digest.ts) and per-target derived changes (changes.ts), kept between builds so a daily
// rebuild reads and validates one new day, not a year.
//
// Layout (the folder the caller names: the site's is `.cache/mcp-schema/` or $MCP_SCHEMA_CACHE,
// src/site/settings.ts; git-ignored, safe to delete):
//   stat-index.json            "<abs path>|<size>|<mtimeMs>" → sha256 of the file's bytes, so an
//                              unchanged file is not hashed again; any write changes size or mtime
//   days/<key>.v8              a day's digest, key = sha256(DIGEST_VERSION, contract fingerprint,
//                              every file of the day with its sha256): content-addressed, so an
//                              appended, rewritten or replaced day file gets a new key
//   changes/<key>.v8           one target's derived changes (diffs, findings), key = sha256 of
//                              DERIVE_VERSION, the src/lib fingerprint and its version bodies
//   changes/<key>.rows.v8      the full rows a build read back from a day (rows.ts)
//   members/                   the bundle members (src/outputs/members.ts), kept here by their writer
// Writes go through src/archive/atomic.ts (temp file, rename), so concurrent builds (the test suite)
// never read half a file. A missing or unreadable entry is rebuilt; nothing here is ever the only copy.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { writeAtomic } from '../archive/atomic.ts';
import type { DayFiles } from '../archive/day-files.ts';
import { buildDigest, DIGEST_VERSION, type DayDigest } from './digest.ts';

/** Where the cache lives and where the sources its keys depend on are. */
export interface CacheOptions {
  dir: string;
  /** The repository root: src/lib is fingerprinted from here (a change to the derivation code is a new key). */
  sourceRoot: string;
}

export interface DigestSource {
  day: DayFiles;
  /** Cache key (content hash of the day's files). */
  key: string;
  /** sha256 of each file, in day.files order. */
  shas: string[];
}

export class DigestCache {
  /** null: no cache (every day is read and validated, nothing is written). */
  readonly dir: string | null;
  private readonly stats: StatIndex;
  private readonly contract: string;
  private readonly sourceRoot: string | null;
  hits = 0;
  misses = 0;
  /** Keys whose digests this build wrote (in workers): counted as misses when read. */
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

  /** Where a day's digest is kept. */
  digestFile(key: string): string | null {
    return this.dir && path.join(this.dir, 'days', `${key}.v8`);
  }

  async source(archive: string, day: DayFiles): Promise<DigestSource> {
    const shas: string[] = [];
    for (const f of day.files) shas.push(await this.stats.sha256(path.join(archive, f)));
    const h = createHash('sha256').update(DIGEST_VERSION).update('\0').update(this.contract).update('\0').update(day.day);
    day.files.forEach((f, i) => h.update('\0').update(path.basename(f)).update(':').update(shas[i]!));
    return { day, key: h.digest('hex'), shas };
  }

  /** The digest of a day, from the cache or by reading and validating its files. */
  async digest(archive: string, src: DigestSource): Promise<DayDigest> {
    const file = this.digestFile(src.key);
    if (file && existsSync(file)) {
      try {
        const d = deserialize(readFileSync(file)) as DayDigest;
        if (d.v === DIGEST_VERSION && d.day === src.day.day) {
          if (this.fresh.has(src.key)) this.misses++;
          else this.hits++;
          return d;
        }
      } catch {
        /* rebuilt below */
      }
    }
    this.misses++;
    const d = await buildDigest(archive, src.day);
    if (file) writeAtomic(file, serialize(d));
    return d;
  }

  readChanges<T>(key: string): T | null {
    if (!this.dir) return null;
    try {
      return deserialize(readFileSync(path.join(this.dir, 'changes', `${key}.v8`))) as T;
    } catch {
      return null;
    }
  }

  writeChanges(key: string, value: unknown): void {
    if (!this.dir) return;
    writeAtomic(path.join(this.dir, 'changes', `${key}.v8`), serialize(value));
  }

  save(): void {
    this.stats.save();
  }
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

/** The digest depends on the row contract (what validates): its sources, when readable. */
function contractFingerprint(sourceRoot: string): string {
  const h = createHash('sha256');
  for (const f of ['src/lib/contract/observation.ts', 'src/lib/methodology-series.ts', 'src/lib/canonical.ts']) {
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
