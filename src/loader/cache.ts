// The loader's build cache: what one pass over a day file yields (a compact, columnar digest of its
// valid rows) and per-target derived changes, kept between builds so a daily rebuild reads and
// validates one new day, not a year.
//
// Layout (default `.cache/mcp-schema/`, or $MCP_SCHEMA_CACHE; git-ignored, safe to delete):
//   stat-index.json            "<abs path>|<size>|<mtimeMs>" → sha256 of the file's bytes, so an
//                              unchanged file is not hashed again; any write changes size or mtime
//   days/<key>.v8              a day's digest, key = sha256(DIGEST_VERSION, contract fingerprint,
//                              every file of the day with its sha256): content-addressed, so an
//                              appended, rewritten or replaced day file gets a new key
//   changes/<key>.v8           one target's derived changes (diffs, findings), key = sha256 of
//                              DERIVE_VERSION, the src/lib fingerprint and its version bodies
// Writes go to a temp file and are renamed into place, so concurrent builds (the test suite) never
// read half a file. A missing or unreadable entry is rebuilt; nothing here is ever the only copy.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { gunzipSync } from 'node:zlib';
import { readDayLines, type DayFiles } from '../archive/day-files.ts';
import { csvOf, gzipMembers, memberPaths, writeMember } from '../outputs/members.ts';
import { ERROR_CLASSES, Observation, OUTCOMES } from '../lib/index.ts';

/** Bump when the digest's shape or meaning changes. */
const DIGEST_VERSION = 'digest-2';
/** Bump when the site's change derivation (not src/lib, which is fingerprinted) changes. */
export const DERIVE_VERSION = 'changes-1';
const MAX_MESSAGE = 300;

export interface Problem {
  file: string;
  line: number | null;
  message: string;
}

/** outcome/class codes of the status strip and the digest: ok, each error class, no_endpoint, retired, excluded. */
export const CODES = ['ok', ...ERROR_CLASSES.filter((c) => c !== 'no_endpoint').map((c) => `error:${c}`), 'no_endpoint', 'retired', 'excluded'] as const;
export type Code = (typeof CODES)[number];
const CODE_OF = new Map<string, number>(CODES.map((c, i) => [c, i]));
export const OK = 0;
export const RETIRED = CODES.indexOf('retired');
void OUTCOMES;

export function codeOf(row: Pick<Observation, 'outcome' | 'error_class'>): number {
  return row.outcome === 'error' ? CODE_OF.get(`error:${row.error_class}`)! : CODE_OF.get(row.outcome)!;
}

/**
 * One day's valid rows, sorted by (observed_at instant, run_id), as columns. Text kept: target names,
 * run ids, hashes and content types (each interned per day); observed_at only where it is not the
 * `toISOString()` of its instant (the collector always writes that form). `line` is the row's line
 * number across the day's files (gz part first), to read the full row back when a page needs it.
 */
export interface DayDigest {
  v: string;
  day: string;
  n: number;
  names: string[];
  code: Uint8Array;
  http: Uint16Array;
  ms: Float64Array;
  isoOverride: [number, string][];
  dayOverride: [number, string][];
  run: Uint32Array;
  runs: string[];
  /** Earliest observed ms of each run's rows in this day. */
  runMs: number[];
  tools: Int32Array;
  body: Int32Array;
  hashes: string[];
  ctype: Int32Array;
  ctypes: (string | null)[];
  toolCount: Int32Array;
  /** bit 1: endpoint not null; bit 2: registry_page_sha256 not null. */
  flags: Uint8Array;
  line: Int32Array;
  problems: Problem[];
}

export function cacheDir(): string {
  return path.resolve(process.env.MCP_SCHEMA_CACHE || path.join('.cache', 'mcp-schema'));
}

/** sha256 of some source files (what a cached derivation depends on); '' parts when unreadable. */
let libPrint: string | null = null;
export function libFingerprint(): string {
  if (libPrint !== null) return libPrint;
  const h = createHash('sha256');
  const root = path.resolve('src/lib');
  try {
    const files = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(ts|json)$/.test(e.name))
      .map((e) => path.join(e.parentPath, e.name))
      .sort();
    for (const f of files) h.update(path.relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  } catch {
    h.update('no-src-lib');
  }
  libPrint = h.digest('hex');
  return libPrint;
}

// ---------------------------------------------------------------------------------------------
// Content hashes of day files, remembered by (path, size, mtime).

class StatIndex {
  private entries: Record<string, string> = {};
  private dirty = false;
  constructor(private readonly file: string) {
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
    if (!this.dirty) return;
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

export interface DigestSource {
  day: DayFiles;
  /** Cache key (content hash of the day's files). */
  key: string;
  /** sha256 of each file, in day.files order. */
  shas: string[];
}

export class DigestCache {
  readonly dir: string;
  private readonly stats: StatIndex;
  hits = 0;
  misses = 0;
  /** Keys whose digests this build wrote (in workers): counted as misses when read. */
  readonly fresh = new Set<string>();

  constructor(dir: string = cacheDir(), private readonly enabled = true) {
    this.dir = dir;
    if (enabled) mkdirSync(path.join(dir, 'days'), { recursive: true });
    this.stats = new StatIndex(path.join(dir, 'stat-index.json'));
  }

  async source(archive: string, day: DayFiles): Promise<DigestSource> {
    const shas: string[] = [];
    for (const f of day.files) shas.push(await this.stats.sha256(path.join(archive, f)));
    const h = createHash('sha256').update(DIGEST_VERSION).update('\0').update(contractFingerprint()).update('\0').update(day.day);
    day.files.forEach((f, i) => h.update('\0').update(path.basename(f)).update(':').update(shas[i]!));
    return { day, key: h.digest('hex'), shas };
  }

  /** The digest of a day, from the cache or by reading and validating its files. */
  async digest(archive: string, src: DigestSource): Promise<DayDigest> {
    const file = path.join(this.dir, 'days', `${src.key}.v8`);
    if (this.enabled && existsSync(file)) {
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
    if (this.enabled) writeAtomic(file, serialize(d));
    return d;
  }

  readChanges<T>(key: string): T | null {
    if (!this.enabled) return null;
    try {
      return deserialize(readFileSync(path.join(this.dir, 'changes', `${key}.v8`))) as T;
    } catch {
      return null;
    }
  }

  writeChanges(key: string, value: unknown): void {
    if (!this.enabled) return;
    mkdirSync(path.join(this.dir, 'changes'), { recursive: true });
    writeAtomic(path.join(this.dir, 'changes', `${key}.v8`), serialize(value));
  }

  save(): void {
    if (this.enabled) this.stats.save();
  }
}

let contractPrint: string | null = null;
/** The digest depends on the row contract (what validates): its source, when readable. */
function contractFingerprint(): string {
  if (contractPrint !== null) return contractPrint;
  const h = createHash('sha256');
  for (const f of ['src/lib/contract/observation.ts', 'src/lib/methodology-series.ts']) {
    try {
      h.update(readFileSync(path.resolve(f)));
    } catch {
      h.update('?');
    }
  }
  contractPrint = h.digest('hex');
  return contractPrint;
}

function writeAtomic(file: string, bytes: Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
}

/** Read and validate every line of one day (zod contract), and keep the columns the site needs. */
export async function buildDigest(archive: string, day: DayFiles, members?: { jsonl: string | null; csv: string | null }): Promise<DayDigest> {
  const problems: Problem[] = [];
  const rows: { r: Observation; ms: number; line: number }[] = [];
  // The /data/ bundle members of this day (src/bundle-members.ts), in file order, while we are here.
  const jsonl: string[] = [];
  const csv: string[] = [];
  let line = 0;
  for await (const { line: text, file, n } of readDayLines(archive, day)) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // A torn last line (crash mid-append) is repaired by the collector's next run; until then it is skipped.
      problems.push({ file, line: n, message: 'not json (torn or corrupt line)' });
      continue;
    }
    const parsed = Observation.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push({ file, line: n, message: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`.slice(0, MAX_MESSAGE) });
      continue;
    }
    rows.push({ r: parsed.data, ms: Date.parse(parsed.data.observed_at), line });
    if (members?.jsonl) jsonl.push(text + '\n');
    if (members?.csv) csv.push(csvOf(parsed.data));
  }
  // A closed, clean day is bundled as its compacted file itself: no JSONL member needed.
  const direct = day.files.length === 1 && day.files[0]!.endsWith('.gz') && problems.length === 0;
  if (members?.jsonl && !direct) writeMember(members.jsonl, gzipMembers(jsonl));
  if (members?.csv) writeMember(members.csv, gzipMembers(csv));
  rows.sort((a, b) => a.ms - b.ms || (a.r.run_id < b.r.run_id ? -1 : a.r.run_id > b.r.run_id ? 1 : 0));
  const n = rows.length;
  const d: DayDigest = {
    v: DIGEST_VERSION,
    day: day.day,
    n,
    names: new Array<string>(n),
    code: new Uint8Array(n),
    http: new Uint16Array(n),
    ms: new Float64Array(n),
    isoOverride: [],
    dayOverride: [],
    run: new Uint32Array(n),
    runs: [],
    runMs: [],
    tools: new Int32Array(n),
    body: new Int32Array(n),
    hashes: [],
    ctype: new Int32Array(n),
    ctypes: [],
    toolCount: new Int32Array(n),
    flags: new Uint8Array(n),
    line: new Int32Array(n),
    problems,
  };
  const runIdx = new Map<string, number>();
  const hashIdx = new Map<string, number>();
  const ctypeIdx = new Map<string | null, number>();
  rows.forEach(({ r, ms, line: ln }, i) => {
    d.names[i] = r.target;
    d.code[i] = codeOf(r);
    d.http[i] = r.http_status !== null && r.http_status >= 0 && r.http_status < 65535 ? r.http_status : 0;
    d.ms[i] = ms;
    if (new Date(ms).toISOString() !== r.observed_at) d.isoOverride.push([i, r.observed_at]);
    if (r.day !== day.day) d.dayOverride.push([i, r.day]);
    const ri = intern(runIdx, d.runs, r.run_id);
    if (ri === d.runMs.length) d.runMs.push(ms);
    d.run[i] = ri;
    d.tools[i] = r.tools_sha256 === null ? -1 : intern(hashIdx, d.hashes, r.tools_sha256);
    d.body[i] = r.body_sha256 === null ? -1 : intern(hashIdx, d.hashes, r.body_sha256);
    d.ctype[i] = intern(ctypeIdx, d.ctypes, r.body_content_type);
    d.toolCount[i] = r.tool_count ?? -1;
    d.flags[i] = (r.endpoint !== null ? 1 : 0) | (r.registry_page_sha256 !== null ? 2 : 0);
    d.line[i] = ln;
  });
  return d;
}

/** Full, validated rows of one day at the given line numbers (for the few rows a page shows whole). */
export async function rowsAtLines(archive: string, day: DayFiles, lines: ReadonlySet<number>, alsoRun?: string): Promise<{ byLine: Map<number, Observation>; ofRun: Observation[] }> {
  const byLine = new Map<number, Observation>();
  const ofRun: Observation[] = [];
  let line = 0;
  for await (const text of dayLineTexts(archive, day, lines, alsoRun !== undefined)) {
    line++;
    if (text === null) continue;
    const want = lines.has(line);
    if (!want && alsoRun === undefined) continue;
    if (!want && !text.includes(alsoRun!)) continue;
    let parsed;
    try {
      parsed = Observation.safeParse(JSON.parse(text));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    if (want) byLine.set(line, parsed.data);
    if (alsoRun !== undefined && parsed.data.run_id === alsoRun) ofRun.push(parsed.data);
  }
  return { byLine, ofRun };
}

/**
 * The lines of a day, numbered as readDayLines numbers them; a line nobody asked for is yielded as
 * null without being decoded (a whole day is one buffer: a day file is tens of MB at most). A file
 * holding a CR falls back to readline, whose line breaks we would otherwise have to mimic.
 */
async function* dayLineTexts(archive: string, day: DayFiles, lines: ReadonlySet<number>, all: boolean): AsyncGenerator<string | null> {
  const buffers = day.files.map((f) => {
    const raw = readFileSync(path.join(archive, f));
    return f.endsWith('.gz') ? gunzipSync(raw) : raw;
  });
  if (buffers.some((b) => b.includes(0x0d))) {
    for await (const { line } of readDayLines(archive, day)) yield line;
    return;
  }
  let n = 0;
  for (const buf of buffers) {
    let start = 0;
    while (start < buf.length) {
      let end = buf.indexOf(0x0a, start);
      if (end < 0) end = buf.length;
      n++;
      yield all || lines.has(n) ? buf.toString('utf8', start, end) : null;
      start = end + 1;
    }
  }
}

/**
 * rowsAtLines through the cache: the full rows a build asked of a day (by its content key) are kept,
 * so a rebuild reads back only days it never asked before (a retired server's last rows sit in an
 * old day; asking the same of it every day would re-read that day every day).
 */
export async function cachedRowsAt(
  cache: DigestCache,
  archive: string,
  day: DayFiles,
  key: string,
  lines: ReadonlySet<number>,
  alsoRun?: string,
): Promise<{ byLine: Map<number, Observation>; ofRun: Observation[] }> {
  type Entry = { lines: [number, Observation][]; runs: [string, Observation[]][] };
  const file = `${key}.rows`;
  const hit = cache.readChanges<Entry>(file);
  const byLine = new Map(hit?.lines ?? []);
  const runs = new Map(hit?.runs ?? []);
  const missing = [...lines].filter((l) => !byLine.has(l));
  if (missing.length === 0 && (alsoRun === undefined || runs.has(alsoRun))) return { byLine, ofRun: alsoRun === undefined ? [] : runs.get(alsoRun)! };
  const got = await rowsAtLines(archive, day, new Set([...lines, ...byLine.keys()]), alsoRun);
  for (const [l, r] of got.byLine) byLine.set(l, r);
  if (alsoRun !== undefined) runs.set(alsoRun, got.ofRun);
  // Keep only the latest run's rows (the one errorClassShares needs), not every run ever asked for.
  cache.writeChanges(file, { lines: [...byLine], runs: alsoRun === undefined ? [...runs].slice(-1) : [[alsoRun, got.ofRun]] } satisfies Entry);
  return { byLine, ofRun: alsoRun === undefined ? [] : got.ofRun };
}

/** Build one day's digest and store it under its key (what a worker does). */
export async function buildDigestToCache(archive: string, day: DayFiles, file: string, members?: { jsonl: string | null; csv: string | null }): Promise<void> {
  writeAtomic(file, serialize(await buildDigest(archive, day, members)));
}

/**
 * Digests of many uncached days (a first build) in worker threads: reading and validating is CPU
 * bound and days are independent. Each worker loads this module through tsx (the site's modules are
 * bundled by Vite; the worker needs the source) and writes digests into the cache, which the main
 * thread then reads in order. MCP_SCHEMA_WORKERS sets the number (0: none, read in the main thread).
 */
export async function prebuildDigests(cache: DigestCache, archive: string, sources: DigestSource[], rosters: { file: string; member: string }[] = []): Promise<number> {
  const { availableParallelism } = await import('node:os');
  const wanted = Number(process.env.MCP_SCHEMA_WORKERS ?? Math.min(4, availableParallelism()));
  const todo = sources.filter((s) => !existsSync(path.join(cache.dir, 'days', `${s.key}.v8`)));
  const module = path.resolve('src/loader/cache.ts');
  if (!(wanted > 0) || todo.length < 8 || !existsSync(module)) return 0;
  const { Worker } = await import('node:worker_threads');
  const { pathToFileURL } = await import('node:url');
  const n = Math.min(wanted, todo.length);
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { tsImport } = await import('tsx/esm/api');
      const mod = await tsImport(workerData.module, workerData.parent);
      for (const job of workerData.jobs) await mod.buildDigestToCache(workerData.archive, job.day, job.file, job.members);
      if (workerData.rosters.length) {
        const m = await tsImport(workerData.members, workerData.parent);
        for (const r of workerData.rosters) m.writeRosterMember(workerData.archive, r.file, r.member);
      }
      parentPort.postMessage('done');
    })().catch((e) => parentPort.postMessage({ error: String((e && e.stack) || e) }));`;
  const runs = Array.from({ length: n }, (_, w) => {
    const jobs = todo.filter((_, i) => i % n === w).map((s) => {
      const m = memberPaths(cache.dir, s.key);
      return { day: s.day, file: path.join(cache.dir, 'days', `${s.key}.v8`), members: { jsonl: existsSync(m.jsonl) ? null : m.jsonl, csv: existsSync(m.csv) ? null : m.csv } };
    });
    const mine = rosters.filter((r, i) => i % n === w && !existsSync(r.member));
    return new Promise<void>((resolve, reject) => {
      const worker = new Worker(code, { eval: true, workerData: { module, members: path.resolve('src/outputs/members.ts'), parent: pathToFileURL(path.resolve('package.json')).href, archive, jobs, rosters: mine } });
      worker.once('message', (m: unknown) => {
        void worker.terminate();
        if (m === 'done') resolve();
        else reject(new Error(`digest worker: ${(m as { error?: string }).error ?? String(m)}`));
      });
      worker.once('error', reject);
    });
  });
  await Promise.all(runs);
  for (const s of todo) cache.fresh.add(s.key);
  return todo.length;
}

/** The index of `value` in `list`, appending it the first time (string tables of digests and folds). */
export function intern<T>(map: Map<T, number>, list: T[], value: T): number {
  let i = map.get(value);
  if (i === undefined) {
    i = list.length;
    list.push(value);
    map.set(value, i);
  }
  return i;
}
