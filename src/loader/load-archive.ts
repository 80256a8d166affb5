// The one module that reads the archive (methodology v1, "Rows", "Runs", "Roster").
//
// Pages call `loadArchive()` and get one derived, cached state per build; nothing else in src/
// touches the archive. Memory stays bounded by targets, not by rows:
//   1. every day file is read once, line by line, validated with the zod contract, and reduced to a
//      columnar digest (src/archive-cache.ts) that is cached between builds by the content hash of
//      the day's files — a daily rebuild validates one new day, not a year;
//   2. the digests are folded, in time order, into a compact state per target: its status strip as
//      runs of equal outcome, its ok rows as a few numbers each (hash ids, instant, run, day), its
//      retired rows, and where its latest rows sit (day, line) — never Observation objects;
//   3. each target is derived through src/lib (detectDrift, contractIntervals on its lean rows;
//      summariseDiff, classifyChange, trackTombstones on the bodies of its versions — cached per
//      target by the hashes of those bodies and of src/lib), then the population (kaplanMeier,
//      halfLife, errorClassShares over the full rows of the latest full run, read back from its day);
//   4. the few full rows pages show (each target's latest, its last with an endpoint, its last with
//      a registry page) are read back from their day files by line number.
// Raw objects are read on demand. Every statistic comes from src/lib.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CODES, DigestCache, DERIVE_VERSION, intern, libFingerprint, OK, RETIRED, cachedRowsAt, prebuildDigests, type DayDigest, type DigestSource, type Problem } from './cache.ts';
import { listDays, objectPath, readDayLines, type DayFiles } from '../archive/day-files.ts';
import { mark, markSince } from '../site/timings.ts';
import { rosterMemberPath } from '../outputs/members.ts';
import {
  answerFromBody,
  byCodeUnits,
  classifyChange,
  contractIntervals,
  detectDrift,
  errorClassShares,
  halfLife,
  kaplanMeier,
  METHODOLOGY_SERIES,
  Observation,
  parseToolsList,
  Roster,
  Run,
  SERIES,
  sha256Hex,
  summariseDiff,
  TOOLS_LIST_REQUEST_ID,
  trackTombstones,
  type DiffSummary,
  type Drift,
  type DriftRow,
  type ErrorClassShares as ErrorShares,
  type Interval,
  type KMRow,
  type Tool,
} from '../lib/index.ts';
import { slugFor } from '../lib/slug.ts';
import { dataDir } from '../site/settings.ts';
import { createHash } from 'node:crypto';

export type { Problem } from './cache.ts';

const SHA256 = /^[0-9a-f]{64}$/;
/** Registry text is unvetted; a single validation message never carries more than this. */
const MAX_MESSAGE = 300;

// ---------------------------------------------------------------------------------------------
// Pass 1 and 2: digests, folded into compact per-target state.
// ---------------------------------------------------------------------------------------------

/** Where a full row lives: index into RawArchive.dayFiles, and its line number across that day's files. */
interface RowRef {
  d: number;
  line: number;
}

/** One target's compact state. Arrays are parallel; ids point into the Fold's tables. */
export interface TargetState {
  name: string;
  rows: number;
  firstMs: number;
  /** observed_at text of the first/latest row when it is not the ISO form of its instant. */
  firstIso: string | null;
  latest: RowRef;
  latestMs: number;
  latestIso: string | null;
  endpointRef: RowRef | null;
  pageRef: RowRef | null;
  /** Status strip as runs: [code, http, count, firstDayId, lastDayId, toolsId] per segment. */
  seg: number[];
  okMs: number[];
  okTools: number[];
  okBody: number[];
  okDay: number[];
  okRun: number[];
  okCount: number[];
  /** observed_at of ok rows whose text is not the ISO form of their instant, by ok index. */
  okIso: Map<number, string> | null;
  retired: { ms: number; day: number; run: number }[] | null;
}

export interface Fold {
  targets: Map<string, TargetState>;
  /** Interned tools/body hashes, run ids, row days, content types. */
  hashes: string[];
  hashId: Map<string, number>;
  runIds: string[];
  dayIds: string[];
  /** body hash id → content type of the rows that carried it. */
  bodyType: Map<number, string | null>;
}

export interface DayInfo {
  day: string;
  /** Paths relative to the archive, gzipped part first. */
  files: string[];
  /** Valid rows, and lines that failed validation. */
  rows: number;
  problems: number;
  /** Content hash of the day's files (the digest's cache key). */
  key: string;
}

/** What one pass over the files yields, before any derivation. */
export interface RawArchive {
  dir: string;
  /** Days with a day file, oldest first (`YYYY-MM-DD`). */
  days: string[];
  dayFiles: DayInfo[];
  runs: Run[];
  fold: Fold;
  rowCount: number;
  rosterFiles: string[];
  /** Lines or files that failed validation: skipped, counted, and shown on /data/. */
  problems: Problem[];
  restatements: RestatementView[];
  cache: DigestCache;
  cacheStats: { hits: number; misses: number };
}

export interface ReadOptions {
  /** Cache folder for digests and derived changes; null disables the cache (every day is read). */
  cacheDir?: string | null;
}

export async function readRawArchive(dir: string = dataDir(), opts: ReadOptions = {}): Promise<RawArchive> {
  markSince('startup');
  const problems: Problem[] = [];
  const cache = new DigestCache(opts.cacheDir ?? undefined, opts.cacheDir !== null);
  const t0 = performance.now();
  const days = listDays(dir);
  const sources: DigestSource[] = [];
  for (const day of days) sources.push(await cache.source(dir, day));
  if (opts.cacheDir !== null) {
    try {
      const rosterJobs = [];
      for (const file of await listDir(path.join(dir, 'rosters'))) {
        const member = file.endsWith('.json') ? await rosterMemberPath(dir, file) : null;
        if (member) rosterJobs.push({ file, member });
      }
      await prebuildDigests(cache, dir, sources, rosterJobs);
    } catch (error) {
      // Workers are an optimisation: without them every day is read in this thread below.
      process.stderr.write(`[archive] digest workers unavailable (${String(error).slice(0, 200)}); reading in one thread\n`);
    }
  }
  const tables = { hash: new Map<string, number>(), run: new Map<string, number>(), day: new Map<string, number>() };
  const fold: Fold = { targets: new Map(), hashes: [], hashId: tables.hash, runIds: [], dayIds: [], bodyType: new Map() };
  const dayFiles: DayInfo[] = [];
  let rowCount = 0;
  let foldMs = 0;
  for (const [d, src] of sources.entries()) {
    const digest = await cache.digest(dir, src);
    const f0 = performance.now();
    foldDay(fold, tables, digest, d);
    foldMs += performance.now() - f0;
    rowCount += digest.n;
    problems.push(...digest.problems);
    dayFiles.push({ day: src.day.day, files: src.day.files, rows: digest.n, problems: digest.problems.length, key: src.key });
  }
  cache.save();
  mark('load', performance.now() - t0 - foldMs, { days: days.length, rows: rowCount, cache_hits: cache.hits, cache_misses: cache.misses });
  mark('fold', foldMs, { targets: fold.targets.size });

  const runs: Run[] = [];
  let n = 0;
  for await (const line of eachLine(path.join(dir, 'runs.jsonl'))) {
    n++;
    if (line.trim() === '') continue;
    const run = parseLine(line, Run, 'runs.jsonl', n, problems);
    if (run) runs.push(run);
  }
  runs.sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  const rosterFiles = (await listDir(path.join(dir, 'rosters'))).filter((f) => f.endsWith('.json')).sort();
  const restatements = await readRestatements(dir, problems);
  return { dir, days: dayFiles.map((d) => d.day), dayFiles, runs, fold, rowCount, rosterFiles, problems, restatements, cache, cacheStats: { hits: cache.hits, misses: cache.misses } };
}

/** Fold one day's digest (rows in time order) into the per-target state. */
function foldDay(fold: Fold, t: { hash: Map<string, number>; run: Map<string, number>; day: Map<string, number> }, g: DayDigest, d: number): void {
  const hashId = g.hashes.map((h) => intern(t.hash, fold.hashes, h));
  const runId = g.runs.map((r) => intern(t.run, fold.runIds, r));
  const fileDay = intern(t.day, fold.dayIds, g.day);
  const isoOverride = new Map(g.isoOverride);
  const dayOverride = new Map(g.dayOverride.map(([i, day]) => [i, intern(t.day, fold.dayIds, day)]));
  for (let i = 0; i < g.n; i++) {
    const name = g.names[i]!;
    const ms = g.ms[i]!;
    const iso = isoOverride.get(i) ?? null;
    const ref: RowRef = { d, line: g.line[i]! };
    let s = fold.targets.get(name);
    if (!s) {
      s = {
        name, rows: 0, firstMs: ms, firstIso: iso, latest: ref, latestMs: ms, latestIso: iso, endpointRef: null, pageRef: null, seg: [],
        okMs: [], okTools: [], okBody: [], okDay: [], okRun: [], okCount: [], okIso: null, retired: null,
      };
      fold.targets.set(name, s);
    }
    s.rows++;
    s.latest = ref;
    s.latestMs = ms;
    s.latestIso = iso;
    if (g.flags[i]! & 1) s.endpointRef = ref;
    if (g.flags[i]! & 2) s.pageRef = ref;
    const code = g.code[i]!;
    const http = g.http[i]!;
    const day = dayOverride.get(i) ?? fileDay;
    const tools = g.tools[i]! >= 0 ? hashId[g.tools[i]!]! : -1;
    const seg = s.seg;
    const k = seg.length - 6;
    if (k >= 0 && seg[k] === code && seg[k + 1] === http && seg[k + 5] === tools) {
      seg[k + 2]!++;
      seg[k + 4] = day;
    } else seg.push(code, http, 1, day, day, tools);
    if (code === OK && tools >= 0 && g.body[i]! >= 0) {
      const body = hashId[g.body[i]!]!;
      if (iso !== null) (s.okIso ??= new Map()).set(s.okMs.length, iso);
      s.okMs.push(ms);
      s.okTools.push(tools);
      s.okBody.push(body);
      s.okDay.push(day);
      s.okRun.push(runId[g.run[i]!]!);
      s.okCount.push(g.toolCount[i]!);
      if (!fold.bodyType.has(body)) fold.bodyType.set(body, g.ctypes[g.ctype[i]!] ?? null);
    } else if (code === RETIRED) {
      (s.retired ??= []).push({ ms, day, run: runId[g.run[i]!]! });
    }
  }
}

/** A target's lean rows for src/lib: its ok rows and its retired rows, drift fields only. */
export function leanRows(fold: Fold, s: TargetState): DriftRow[] {
  const out: DriftRow[] = [];
  for (let i = 0; i < s.okMs.length; i++) {
    out.push({
      target: s.name,
      outcome: 'ok',
      observed_at: s.okIso?.get(i) ?? new Date(s.okMs[i]!).toISOString(),
      day: fold.dayIds[s.okDay[i]!]!,
      run_id: fold.runIds[s.okRun[i]!]!,
      tools_sha256: fold.hashes[s.okTools[i]!]!,
      body_sha256: fold.hashes[s.okBody[i]!]!,
    });
  }
  for (const r of s.retired ?? []) {
    out.push({ target: s.name, outcome: 'retired', observed_at: new Date(r.ms).toISOString(), day: fold.dayIds[r.day]!, run_id: fold.runIds[r.run]!, tools_sha256: null, body_sha256: null });
  }
  return out;
}

/** Valid observation rows of one day, in file order, streamed (for the bundles). */
export async function eachObservation(dir: string, day: string, onRow: (row: Observation, line: string) => void | Promise<void>): Promise<void> {
  const files = listDays(dir).find((d) => d.day === day);
  if (!files) return;
  for await (const { line } of readDayLines(dir, files)) {
    if (line.trim() === '') continue;
    let parsed;
    try {
      parsed = Observation.safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (parsed.success) await onRow(parsed.data, line);
  }
}

/** Raw bytes of an object, or null when absent. The name is checked first, so it cannot escape objects/. */
export async function readObject(dir: string, sha256: string): Promise<Buffer | null> {
  if (!SHA256.test(sha256)) return null;
  try {
    const bytes = await readFile(objectPath(dir, sha256));
    // The file name is the hash of its bytes: a mismatch is corruption, and corrupt bytes are never shown.
    return sha256Hex(bytes) === sha256 ? bytes : null;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

export async function readRoster(dir: string, file: string): Promise<Roster | null> {
  if (!/^[\w.-]+\.json$/.test(file)) return null;
  try {
    const parsed = Roster.safeParse(JSON.parse(await readFile(path.join(dir, 'rosters', file), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch (error) {
    if (isMissing(error) || error instanceof SyntaxError) return null;
    throw error;
  }
}

/** Lines of a small plain file (runs.jsonl); a missing file has none. */
async function* eachLine(file: string): AsyncGenerator<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  yield* text.split('\n').filter((l, i, all) => i < all.length - 1 || l !== '');
}

interface Parser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { path: (string | number)[]; message: string }[] } };
}

function parseLine<T>(line: string, schema: Parser<T>, file: string, n: number, problems: Problem[]): T | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    problems.push({ file, line: n, message: 'not json (torn or corrupt line)' });
    return null;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  problems.push({ file, line: n, message: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`.slice(0, MAX_MESSAGE) });
  return null;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'ENOENT';
}

/** Array.prototype.findLast (ES2023) is in Node 20 but not in this project's ES2022 lib typings. */
export function findLast<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return items[i];
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Restatements: data/restatements/<series>/manifest.json, written by `npm run restate`.
// ---------------------------------------------------------------------------------------------

const HalfLifeJson = z.object({ median: z.number(), lower: z.number().nullable(), upper: z.number().nullable(), atRisk: z.number().int() }).strict().nullable();
const SeriesSummaryJson = z
  .object({
    targets_with_ok_rows: z.number().int().nonnegative(),
    changes: z.number().int().nonnegative(),
    targets_changed: z.number().int().nonnegative(),
    intervals: z.number().int().nonnegative(),
    events: z.number().int().nonnegative(),
    half_life: HalfLifeJson,
  })
  .strict();
/** The manifest `npm run restate` writes (collector/restate.ts RestateManifest), validated. */
export const RestateManifestJson = z
  .object({
    series: z.enum(METHODOLOGY_SERIES),
    title: z.string().max(200),
    summary: z.string().max(1000),
    basis: z.literal('v1'),
    note: z.string().max(300),
    source_rows: z.number().int().nonnegative(),
    ok_rows: z.number().int().nonnegative(),
    unreadable_rows: z.number().int().nonnegative(),
    differing_rows: z.number().int().nonnegative(),
    days: z.array(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)),
    original: SeriesSummaryJson,
    restated: SeriesSummaryJson,
  })
  .strict();
export type RestateManifestJson = z.infer<typeof RestateManifestJson>;

export interface RestatementView {
  series: RestateManifestJson['series'];
  /** Title and summary from src/lib SERIES (the manifest's own copy is not shown). */
  title: string;
  summary: string;
  firstDay: string | null;
  lastDay: string | null;
  days: number;
  sourceRows: number;
  okRows: number;
  unreadableRows: number;
  differingRows: number;
  original: z.infer<typeof SeriesSummaryJson>;
  restated: z.infer<typeof SeriesSummaryJson>;
}

async function readRestatements(dir: string, problems: Problem[]): Promise<RestatementView[]> {
  const out: RestatementView[] = [];
  for (const name of (await listDir(path.join(dir, 'restatements'))).sort()) {
    if (name.startsWith('.')) continue;
    const file = path.join('restatements', name, 'manifest.json');
    let text: string;
    try {
      text = await readFile(path.join(dir, file), 'utf8');
    } catch (error) {
      if (isMissing(error) || (error as { code?: string }).code === 'ENOTDIR') continue;
      throw error;
    }
    const m = parseLine(text, RestateManifestJson, file, null as unknown as number, problems);
    if (!m || m.series !== name) {
      if (m) problems.push({ file, line: null, message: `manifest names series ${m.series}, folder ${name.slice(0, 40)}` });
      continue;
    }
    const s = SERIES[m.series];
    out.push({
      series: m.series, title: s.title, summary: s.summary, firstDay: m.days[0] ?? null, lastDay: m.days.at(-1) ?? null, days: m.days.length,
      sourceRows: m.source_rows, okRows: m.ok_rows, unreadableRows: m.unreadable_rows, differingRows: m.differing_rows, original: m.original, restated: m.restated,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Derived state: what the pages show. Built once per build (cached per archive directory) from the
// fold above; every statistic and every diff is a src/lib call.
// ---------------------------------------------------------------------------------------------

export type CompatibilityLevel = 'ERR' | 'WARN' | 'INFO';
export type SecurityLevel = 'HIGH' | 'WARN';
export type ServerStatus = Observation['outcome'];

export interface VersionView {
  toolsSha256: string;
  bodySha256: string | null;
  firstSeen: string;
  lastSeen: string;
  toolCount: number | null;
}

export interface ChangeView {
  /** Stable anchor: `<day>-<first 12 hex of the new tools_sha256>`. */
  id: string;
  target: string;
  slug: string;
  day: string;
  observedAt: string;
  runId: string;
  beforeSha256: string;
  afterSha256: string;
  beforeBody: string | null;
  afterBody: string | null;
  /** The new hash was seen before on this target (a revert). */
  revert: boolean;
  compatibility: CompatibilityLevel | null;
  security: SecurityLevel | null;
  findings: FindingView[];
  diff: DiffSummary | null;
  /** Why the diff could not be computed (object missing, body unparseable), else null. */
  diffProblem: string | null;
}

export interface FindingView {
  rule: string;
  axis: string;
  level: string;
  tool: string;
  path: string;
  before: unknown;
  after: unknown;
  fingerprint: string;
  message: string;
}

/** A run of consecutive observations with the same outcome (and, for ok, the same contract). */
export interface StripSegment {
  kind: 'ok' | 'changed' | 'error' | 'no_endpoint' | 'retired' | 'excluded';
  label: string;
  count: number;
  firstDay: string;
  lastDay: string;
}

export interface ServerView {
  name: string;
  slug: string;
  /** The latest row, whole. */
  latest: Observation;
  /** The latest row that points at a registry page (the API's registry entry), whole. */
  registryRow: Observation | null;
  status: ServerStatus;
  errorClass: Observation['error_class'];
  endpoint: string | null;
  toolCount: number | null;
  firstObserved: string;
  lastObserved: string;
  lastOk: string | null;
  head: VersionView | null;
  versions: VersionView[];
  /** Newest first. */
  changes: ChangeView[];
  lastChange: string | null;
  repeatMover: boolean;
  /** Observation rows of this target. */
  observations: number;
  /** Status by run, oldest first, as runs of equal outcome. */
  strip: StripSegment[];
}

export interface HalfLifeView {
  median: number;
  lower: number | null;
  upper: number | null;
  atRisk: number;
}

export interface Tiles {
  population: number | null;
  withEndpoint: number | null;
  okLatestFull: number | null;
  eligibleLatestFull: number | null;
  changed7: number;
  changed30: number;
  coverage: number | null;
  degraded: boolean;
}

export interface Archive {
  dir: string;
  empty: boolean;
  /** Latest run's finished_at: "data as of". */
  asOf: string | null;
  asOfDay: string | null;
  runs: Run[];
  latestRun: Run | null;
  /** Latest finished, non-partial run: the only source of published error-class shares. */
  latestFullRun: Run | null;
  servers: ServerView[];
  bySlug: Map<string, ServerView>;
  /** Every change of every target, newest first. */
  changes: ChangeView[];
  intervals: Interval[];
  km: KMRow[];
  halfLife: HalfLifeView | null;
  errorShares: ErrorShares | null;
  tiles: Tiles;
  days: string[];
  dayFiles: DayInfo[];
  months: string[];
  rowCount: number;
  rosterFiles: string[];
  problems: Problem[];
  proberVersions: string[];
  methodologyVersions: string[];
  /** Restated series (`npm run restate`), validated manifests: v1 and each restatement side by side. */
  restatements: RestatementView[];
  cacheStats: { hits: number; misses: number; changeHits: number; changeMisses: number };
  /** A raw tools/list body's tool list, read and parsed on demand (not cached: heads of 25k servers would not fit). */
  tools(bodySha256: string): Promise<Tool[] | string>;
  /** The registry entry a row points at, verbatim from its roster page object; null when unavailable. */
  registryEntry(row: Observation): Promise<unknown>;
}

const CACHE = Symbol.for('mcp-schema.archive');
type CacheHolder = { [CACHE]?: Map<string, Promise<Archive>> };

/**
 * The derived archive, built once per directory per process. The cache sits on globalThis because
 * the Astro pages and the post-build bundle writer load this module as two separate instances.
 */
export function loadArchive(dir: string = dataDir(), opts: ReadOptions = {}): Promise<Archive> {
  const holder = globalThis as CacheHolder;
  const cache = (holder[CACHE] ??= new Map());
  let pending = cache.get(dir);
  if (!pending) {
    pending = readRawArchive(dir, opts).then(deriveArchive);
    cache.set(dir, pending);
  }
  return pending;
}

/** Drop the cache (tests that rewrite an archive directory between builds). */
export function forgetArchive(dir?: string): void {
  const cache = (globalThis as CacheHolder)[CACHE];
  if (dir === undefined) cache?.clear();
  else cache?.delete(dir);
}

export async function deriveArchive(raw: RawArchive): Promise<Archive> {
  const t0 = performance.now();
  const { fold } = raw;
  const contentTypes = new Map<string, string | null>();
  for (const [id, type] of fold.bodyType) contentTypes.set(fold.hashes[id]!, type);
  const latestRun = findLast(raw.runs, (r) => r.status === 'finished') ?? raw.runs.at(-1) ?? null;
  const latestFullRun = findLast(raw.runs, (r) => r.status === 'finished' && !r.partial) ?? null;

  // Full rows pages show whole: each target's latest and its last with a registry page, and every
  // row of the latest full run (for errorClassShares), read back from their day files.
  const t1 = performance.now();
  const wanted = new Map<number, Set<number>>();
  const want = (ref: RowRef | null) => {
    if (!ref) return;
    let set = wanted.get(ref.d);
    if (!set) wanted.set(ref.d, (set = new Set()));
    set.add(ref.line);
  };
  for (const s of fold.targets.values()) {
    want(s.latest);
    want(s.pageRef);
    want(s.endpointRef);
  }
  const fullDay = latestFullRun ? raw.dayFiles.findIndex((d) => d.day === latestFullRun.day) : -1;
  const full = new Map<number, Map<number, Observation>>();
  let fullRows: Observation[] = [];
  const daysToRead = new Set([...wanted.keys(), ...(fullDay >= 0 ? [fullDay] : [])]);
  for (const d of [...daysToRead].sort((a, b) => a - b)) {
    const info = raw.dayFiles[d]!;
    const got = await cachedRowsAt(raw.cache, raw.dir, { day: info.day, files: info.files } as DayFiles, info.key, wanted.get(d) ?? new Set(), d === fullDay ? latestFullRun!.run_id : undefined);
    full.set(d, got.byLine);
    if (d === fullDay) fullRows = got.ofRun;
  }
  const rowAt = (ref: RowRef | null) => (ref ? (full.get(ref.d)?.get(ref.line) ?? null) : null);
  const rowsMs = performance.now() - t1;
  mark('rows', rowsMs, { days_read: daysToRead.size });

  const servers: ServerView[] = [];
  const intervals: Interval[] = [];
  const changes: ChangeView[] = [];
  const names = [...fold.targets.keys()].sort(byCodeUnits);
  const lib = libFingerprint();
  const stats = { changeHits: 0, changeMisses: 0 };
  for (const name of names) {
    const s = fold.targets.get(name)!;
    const lean = leanRows(fold, s);
    const drift: Drift = lean.length > 0 ? detectDrift(lean) : { target: name, head: null, versions: [], changes: [], repeatMover: false };
    intervals.push(...contractIntervals(lean));
    const slug = slugFor(name);
    const serverChanges = await cachedChanges(raw.cache, lib, drift, slug, contentTypes, raw.dir, stats);
    changes.push(...serverChanges);
    const latest = rowAt(s.latest);
    if (!latest) continue; // its day file changed under us: the row is counted in problems on the next build
    servers.push(serverView(fold, s, slug, latest, rowAt(s.pageRef), rowAt(s.endpointRef), drift, serverChanges));
  }
  changes.sort((a, b) => Date.parse(b.observedAt) - Date.parse(a.observedAt) || byCodeUnits(a.target, b.target));

  const km = kaplanMeier(
    intervals.map((i) => i.duration),
    intervals.map((i) => i.event),
  );
  const median = halfLife(km);
  const asOf = latestRun?.finished_at ?? servers.map((s) => s.lastObserved).sort().at(-1) ?? null;
  const asOfDay = latestRun?.day ?? raw.days.at(-1) ?? null;
  const bySlug = new Map(servers.map((s) => [s.slug, s]));
  const pages = new PageCache(raw.dir);
  mark('derive', performance.now() - t0 - rowsMs, { servers: servers.length, changes: changes.length, intervals: intervals.length, change_cache_hits: stats.changeHits, change_cache_misses: stats.changeMisses });
  return {
    dir: raw.dir,
    empty: raw.rowCount === 0,
    asOf,
    asOfDay,
    runs: raw.runs,
    latestRun,
    latestFullRun,
    servers,
    bySlug,
    changes,
    intervals,
    km,
    halfLife: median,
    errorShares: latestFullRun && fullRows.length > 0 ? errorClassShares(fullRows, { run: latestFullRun }) : null,
    tiles: tiles(latestRun, latestFullRun, changes, asOfDay),
    days: raw.days,
    dayFiles: raw.dayFiles,
    months: [...new Set(raw.days.map((d) => d.slice(0, 7)))],
    rowCount: raw.rowCount,
    rosterFiles: raw.rosterFiles,
    problems: raw.problems,
    proberVersions: [...new Set(raw.runs.map((r) => r.prober_version))],
    methodologyVersions: [...new Set(raw.runs.map((r) => r.methodology_version))],
    restatements: raw.restatements,
    cacheStats: { ...raw.cacheStats, ...stats },
    tools: (bodySha256) => new ToolsCache(raw.dir, contentTypes).get(bodySha256),
    registryEntry: (row) => pages.entry(row),
  };
}

/** Parsed roster pages, a few at a time: a hundred servers share one page, in name order. */
class PageCache {
  private readonly pages = new Map<string, Promise<unknown[] | null>>();
  constructor(private readonly dir: string) {}

  async entry(row: Observation): Promise<unknown> {
    if (row.registry_page_sha256 === null || row.registry_page_index === null) return null;
    let page = this.pages.get(row.registry_page_sha256);
    if (!page) {
      page = this.load(row.registry_page_sha256);
      this.pages.set(row.registry_page_sha256, page);
      if (this.pages.size > 32) this.pages.delete(this.pages.keys().next().value!);
    }
    return (await page)?.[row.registry_page_index] ?? null;
  }

  private async load(sha: string): Promise<unknown[] | null> {
    const bytes = await readObject(this.dir, sha);
    if (!bytes) return null;
    try {
      const page = JSON.parse(bytes.toString('utf8')) as { servers?: unknown };
      return Array.isArray(page.servers) ? page.servers : null;
    } catch {
      return null;
    }
  }
}

const STATUS_TEXT: Record<string, string> = { ok: 'ok', no_endpoint: 'no endpoint', retired: 'retired', excluded: 'excluded' };

function strip(fold: Fold, s: TargetState, changes: ChangeView[]): StripSegment[] {
  const changeDays = new Set(changes.map((c) => `${c.day}|${c.afterSha256}`));
  const out: StripSegment[] = [];
  for (let k = 0; k < s.seg.length; k += 6) {
    const [code, http, count, first, last, tools] = s.seg.slice(k, k + 6) as [number, number, number, number, number, number];
    const c = CODES[code]!;
    const firstDay = fold.dayIds[first]!;
    const lastDay = fold.dayIds[last]!;
    const what = c.startsWith('error:') ? `error: ${c.slice(6)}${http ? ` (HTTP ${http})` : ''}` : STATUS_TEXT[c]!;
    const kind = (c.startsWith('error:') ? 'error' : c) as StripSegment['kind'];
    const span = (a: string, b: string, n: number, w: string) => `${a === b ? a : `${a} to ${b}`}: ${w}${n > 1 ? ` (${n} observations)` : ''}`;
    if (code === OK && tools >= 0 && changeDays.has(`${firstDay}|${fold.hashes[tools]}`)) {
      out.push({ kind: 'changed', label: span(firstDay, firstDay, 1, 'ok, contract changed'), count: 1, firstDay, lastDay: firstDay });
      if (count > 1) out.push({ kind, label: span(firstDay, lastDay, count - 1, what), count: count - 1, firstDay, lastDay });
    } else out.push({ kind, label: span(firstDay, lastDay, count, what), count, firstDay, lastDay });
  }
  return out;
}

function serverView(fold: Fold, s: TargetState, slug: string, latest: Observation, registryRow: Observation | null, endpointRow: Observation | null, drift: Drift, changes: ChangeView[]): ServerView {
  const lastOk = s.okMs.length > 0 ? (s.okIso?.get(s.okMs.length - 1) ?? new Date(s.okMs.at(-1)!).toISOString()) : null;
  const versions: VersionView[] = drift.versions.map((v) => {
    const id = fold.hashId.get(v.tools_sha256) ?? -1;
    const i = s.okTools.indexOf(id);
    return { toolsSha256: v.tools_sha256, bodySha256: v.body_sha256, firstSeen: v.first_seen, lastSeen: v.last_seen, toolCount: i >= 0 && s.okCount[i]! >= 0 ? s.okCount[i]! : null };
  });
  return {
    name: s.name,
    slug,
    latest,
    registryRow,
    status: latest.outcome,
    errorClass: latest.error_class,
    endpoint: latest.endpoint ?? endpointRow?.endpoint ?? null,
    toolCount: s.okCount.length > 0 && s.okCount.at(-1)! >= 0 ? s.okCount.at(-1)! : null,
    firstObserved: s.firstIso ?? new Date(s.firstMs).toISOString(),
    lastObserved: s.latestIso ?? new Date(s.latestMs).toISOString(),
    lastOk,
    head: versions.at(-1) ?? null,
    versions,
    changes: [...changes].reverse(),
    lastChange: changes.at(-1)?.observedAt ?? null,
    repeatMover: drift.repeatMover,
    observations: s.rows,
    strip: strip(fold, s, changes),
  };
}

function tiles(latestRun: Run | null, latestFullRun: Run | null, changes: ChangeView[], asOfDay: string | null): Tiles {
  const changedWithin = (days: number) => {
    if (!asOfDay) return 0;
    const since = Date.parse(`${asOfDay}T00:00:00Z`) - (days - 1) * 86_400_000;
    return new Set(changes.filter((c) => Date.parse(`${c.day}T00:00:00Z`) >= since).map((c) => c.target)).size;
  };
  return {
    population: latestRun?.targets ?? null,
    withEndpoint: latestRun ? latestRun.eligible : null,
    okLatestFull: latestFullRun?.outcomes.ok ?? null,
    eligibleLatestFull: latestFullRun?.eligible ?? null,
    changed7: changedWithin(7),
    changed30: changedWithin(30),
    coverage: latestRun?.coverage ?? null,
    degraded: latestRun?.degraded ?? false,
  };
}

/** The derived part of a change: what reading its bodies through src/lib yields. */
type ChangeDerived = Pick<ChangeView, 'compatibility' | 'security' | 'findings' | 'diff' | 'diffProblem'>;

/**
 * A target's changes, with their diffs and findings from the build cache when the bodies of its
 * versions (and src/lib) are unchanged: the key hashes everything the derivation reads. Results that
 * hit a missing or unreadable body are not cached (the object may come back).
 */
async function cachedChanges(
  cache: DigestCache,
  lib: string,
  drift: Drift,
  slug: string,
  contentTypes: ReadonlyMap<string, string | null>,
  dir: string,
  stats: { changeHits: number; changeMisses: number },
): Promise<ChangeView[]> {
  if (drift.changes.length === 0) return [];
  const h = createHash('sha256').update(DERIVE_VERSION).update('\0').update(lib);
  for (const v of drift.versions) h.update('\0').update(v.body_sha256).update(':').update(contentTypes.get(v.body_sha256) ?? '');
  for (const c of drift.changes) h.update('\0').update(c.before.body_sha256).update('>').update(c.after.body_sha256).update('@').update(c.after.observed_at);
  const key = h.digest('hex');
  const hit = cache.readChanges<ChangeDerived[]>(key);
  let derived: ChangeDerived[];
  if (hit && hit.length === drift.changes.length) {
    stats.changeHits++;
    derived = hit;
  } else {
    stats.changeMisses++;
    derived = await deriveChanges(drift, new ToolsCache(dir, contentTypes));
    if (derived.every((d) => d.diffProblem === null)) cache.writeChanges(key, derived);
  }
  return drift.changes.map((change, i) => ({
    id: `${change.day}-${change.after.tools_sha256.slice(0, 12)}`,
    target: drift.target,
    slug,
    day: change.day,
    observedAt: change.observed_at,
    runId: change.run_id,
    beforeSha256: change.before.tools_sha256,
    afterSha256: change.after.tools_sha256,
    beforeBody: change.before.body_sha256,
    afterBody: change.after.body_sha256,
    revert: change.revert,
    ...derived[i]!,
  }));
}

async function deriveChanges(drift: Drift, tools: ToolsCache): Promise<ChangeDerived[]> {
  // Tombstones need every version's tool list in order: a tool that hides and returns changed is
  // compared with its last known definition (src/lib trackTombstones).
  const lists = await Promise.all(drift.versions.map((v) => tools.get(v.body_sha256)));
  const usable = lists.every((l): l is Tool[] => Array.isArray(l));
  const tombstones = usable ? trackTombstones(lists) : null;
  const out: ChangeDerived[] = [];
  for (const change of drift.changes) {
    const before = await tools.get(change.before.body_sha256);
    const after = await tools.get(change.after.body_sha256);
    // The version whose list precedes this change's `after` is the version index of the change.
    const previousVersion = drift.versions.findIndex((v) => v.first_seen === change.after.observed_at) - 1;
    const tombs = tombstones && previousVersion >= 0 ? tombstones[previousVersion] : undefined;
    let diff: DiffSummary | null = null;
    let findings: FindingView[] = [];
    let diffProblem: string | null = null;
    if (Array.isArray(before) && Array.isArray(after)) {
      diff = summariseDiff(before, after, { tombstones: tombs });
      const verdict = classifyChange(before, after, { tombstones: tombs });
      findings = [...verdict.compatibility, ...verdict.security];
    } else {
      diffProblem = [before, after].find((x): x is string => typeof x === 'string') ?? 'raw body unavailable';
    }
    out.push({
      compatibility: highest(findings, 'compatibility', ['ERR', 'WARN', 'INFO']) as CompatibilityLevel | null,
      security: highest(findings, 'security', ['HIGH', 'WARN']) as SecurityLevel | null,
      findings,
      diff,
      diffProblem,
    });
  }
  return out;
}

function highest(findings: FindingView[], axis: string, order: string[]): string | null {
  for (const level of order) if (findings.some((f) => f.axis === axis && f.level === level)) return level;
  return null;
}

/**
 * Tool lists by raw body hash, parsed once per target. A tools/list body is JSON or a
 * text/event-stream answer (the SDK answers over SSE as `event: message`, sometimes after a priming
 * event with empty data); either way the JSON-RPC response goes to src/lib parseToolsList.
 * A value that is a string says why no list could be read.
 */
class ToolsCache {
  private readonly lists = new Map<string, Promise<Tool[] | string>>();
  constructor(
    private readonly dir: string,
    private readonly contentTypes: ReadonlyMap<string, string | null>,
  ) {}

  get(bodySha256: string): Promise<Tool[] | string> {
    let list = this.lists.get(bodySha256);
    if (!list) {
      list = this.load(bodySha256);
      this.lists.set(bodySha256, list);
    }
    return list;
  }

  private async load(bodySha256: string): Promise<Tool[] | string> {
    const bytes = await readObject(this.dir, bodySha256);
    if (!bytes) return `raw body ${bodySha256.slice(0, 12)} missing or corrupt`;
    try {
      return parseToolsList(answerFromBody(bytes, this.contentTypes.get(bodySha256) ?? null, TOOLS_LIST_REQUEST_ID));
    } catch (error) {
      return error instanceof Error ? error.message.slice(0, MAX_MESSAGE) : 'unreadable tools/list body';
    }
  }
}

