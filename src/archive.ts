// The one module that reads the archive (methodology v1, "Rows", "Runs", "Roster").
//
// Pages call `loadArchive()` and get one derived, cached state per build; nothing else in src/
// touches `data/`. Day files are streamed line by line (never a whole day, let alone the whole
// archive, in one string), every line is validated with the zod contract, raw objects are read on
// demand, and every statistic comes from src/lib. Work is linear in rows: one pass to read, one
// pass per target to derive (the real archive grows by ~25,000 rows a day).
import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import {
  answerFromBody,
  classifyChange,
  contractIntervals,
  detectDrift,
  errorClassShares,
  halfLife,
  kaplanMeier,
  Observation,
  parseToolsList,
  Roster,
  Run,
  sha256Hex,
  summariseDiff,
  TOOLS_LIST_REQUEST_ID,
  trackTombstones,
  type DiffSummary,
  type Drift,
  type ErrorClassShares as ErrorShares,
  type Interval,
  type KMRow,
  type Tool,
} from './lib/index.ts';
import { slugFor } from './lib/slug.ts';
import { dataDir } from './settings.ts';

export interface Problem {
  file: string;
  line: number | null;
  message: string;
}

/** What one pass over the files yields, before any derivation. */
export interface RawArchive {
  dir: string;
  /** Day files present, oldest first (`YYYY-MM-DD`). */
  days: string[];
  runs: Run[];
  /** Observation rows grouped by target, each group ordered by observed_at. */
  byTarget: Map<string, Observation[]>;
  rowCount: number;
  rosterFiles: string[];
  /** Lines or files that failed validation: skipped, counted, and shown on /data/. */
  problems: Problem[];
}

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** Registry text is unvetted; a single validation message never carries more than this. */
const MAX_MESSAGE = 300;

export async function readRawArchive(dir: string = dataDir()): Promise<RawArchive> {
  const problems: Problem[] = [];
  const days = (await listDir(path.join(dir, 'observations')))
    .map((f) => DAY_FILE.exec(f)?.[1])
    .filter((d): d is string => d !== undefined)
    .sort();
  const byTarget = new Map<string, Observation[]>();
  let rowCount = 0;
  for (const day of days) {
    const file = path.join('observations', `${day}.jsonl`);
    await eachLine(path.join(dir, file), (line, n) => {
      const row = parseLine(line, Observation, file, n, problems);
      if (!row) return;
      rowCount++;
      const group = byTarget.get(row.target);
      if (group) group.push(row);
      else byTarget.set(row.target, [row]);
    });
  }
  for (const rows of byTarget.values()) rows.sort(byObservedAt);

  const runs: Run[] = [];
  await eachLine(path.join(dir, 'runs.jsonl'), (line, n) => {
    const run = parseLine(line, Run, 'runs.jsonl', n, problems);
    if (run) runs.push(run);
  });
  runs.sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  const rosterFiles = (await listDir(path.join(dir, 'rosters'))).filter((f) => f.endsWith('.json')).sort();
  return { dir, days, runs, byTarget, rowCount, rosterFiles, problems };
}

/** Valid observation rows of one day file, in file order, streamed (for the bundles). */
export async function eachObservation(dir: string, day: string, onRow: (row: Observation) => void | Promise<void>): Promise<void> {
  const pending: Observation[] = [];
  const problems: Problem[] = [];
  await eachLine(path.join(dir, 'observations', `${day}.jsonl`), (line, n) => {
    const row = parseLine(line, Observation, day, n, problems);
    if (row) pending.push(row);
  });
  for (const row of pending) await onRow(row);
}

/** Raw bytes of an object, or null when absent. The name is checked first, so it cannot escape objects/. */
export async function readObject(dir: string, sha256: string): Promise<Buffer | null> {
  if (!SHA256.test(sha256)) return null;
  try {
    const bytes = await readFile(path.join(dir, 'objects', sha256.slice(0, 2), sha256));
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

/** Streams a file line by line; a missing file is an empty archive, not an error. */
async function eachLine(file: string, onLine: (line: string, n: number) => void): Promise<void> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const opened = await new Promise<boolean>((resolve, reject) => {
    stream.once('open', () => resolve(true));
    stream.once('error', (error) => (isMissing(error) ? resolve(false) : reject(error)));
  });
  if (!opened) return;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() !== '') onLine(line, n);
  }
}

interface Parser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { path: (string | number)[]; message: string }[] } };
}

function parseLine<T>(line: string, schema: Parser<T>, file: string, n: number, problems: Problem[]): T | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // A torn last line (crash mid-append) is repaired by the collector's next run; until then it is skipped.
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

/** Code-unit order: the same everywhere, independent of locale. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byObservedAt(a: Observation, b: Observation): number {
  return Date.parse(a.observed_at) - Date.parse(b.observed_at) || a.run_id.localeCompare(b.run_id);
}

// ---------------------------------------------------------------------------------------------
// Derived state: what the pages show. Built once per build (cached per archive directory) from the
// raw pass above; every statistic and every diff is a src/lib call.
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

export interface ServerView {
  name: string;
  slug: string;
  latest: Observation;
  status: ServerStatus;
  errorClass: Observation['error_class'];
  endpoint: string | null;
  toolCount: number | null;
  firstObserved: string;
  lastObserved: string;
  lastOk: string | null;
  head: VersionView | null;
  versions: VersionView[];
  changes: ChangeView[];
  lastChange: string | null;
  repeatMover: boolean;
  rows: Observation[];
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
  months: string[];
  rowCount: number;
  rosterFiles: string[];
  problems: Problem[];
  proberVersions: string[];
  methodologyVersions: string[];
  /** A raw tools/list body's tool list, read and parsed on demand (not cached: heads of 20k servers would not fit). */
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
export function loadArchive(dir: string = dataDir()): Promise<Archive> {
  const holder = globalThis as CacheHolder;
  const cache = (holder[CACHE] ??= new Map());
  let pending = cache.get(dir);
  if (!pending) {
    pending = readRawArchive(dir).then(deriveArchive);
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
  // A stored body is read back with its content type (JSON or an event stream), as the collector read it.
  const contentTypes = new Map<string, string | null>();
  for (const rows of raw.byTarget.values()) for (const r of rows) if (r.body_sha256 !== null) contentTypes.set(r.body_sha256, r.body_content_type);
  const servers: ServerView[] = [];
  const intervals: Interval[] = [];
  const changes: ChangeView[] = [];
  const names = [...raw.byTarget.keys()].sort(byCodeUnits);
  for (const name of names) {
    const rows = raw.byTarget.get(name)!;
    const drift = detectDrift(rows);
    intervals.push(...contractIntervals(rows));
    const slug = slugFor(name);
    // One cache per target: its versions are read once for the diffs, then released.
    const serverChanges = await deriveChanges(drift, slug, new ToolsCache(raw.dir, contentTypes));
    changes.push(...serverChanges);
    servers.push(serverView(name, slug, rows, drift, serverChanges));
  }
  changes.sort((a, b) => Date.parse(b.observedAt) - Date.parse(a.observedAt) || byCodeUnits(a.target, b.target));

  const km = kaplanMeier(
    intervals.map((i) => i.duration),
    intervals.map((i) => i.event),
  );
  const median = halfLife(km);
  const latestRun = findLast(raw.runs, (r) => r.status === 'finished') ?? raw.runs.at(-1) ?? null;
  const latestFullRun = findLast(raw.runs, (r) => r.status === 'finished' && !r.partial) ?? null;
  const fullRows = latestFullRun ? rowsOfRun(raw, latestFullRun.run_id) : [];
  const asOf = latestRun?.finished_at ?? servers.map((s) => s.lastObserved).sort().at(-1) ?? null;
  const asOfDay = latestRun?.day ?? raw.days.at(-1) ?? null;
  const bySlug = new Map(servers.map((s) => [s.slug, s]));
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
    months: [...new Set(raw.days.map((d) => d.slice(0, 7)))],
    rowCount: raw.rowCount,
    rosterFiles: raw.rosterFiles,
    problems: raw.problems,
    proberVersions: [...new Set(raw.runs.map((r) => r.prober_version))],
    methodologyVersions: [...new Set(raw.runs.map((r) => r.methodology_version))],
    tools: (bodySha256) => new ToolsCache(raw.dir, contentTypes).get(bodySha256),
    registryEntry: (row) => registryEntry(raw.dir, row),
  };
}

async function registryEntry(dir: string, row: Observation): Promise<unknown> {
  if (row.registry_page_sha256 === null || row.registry_page_index === null) return null;
  const bytes = await readObject(dir, row.registry_page_sha256);
  if (!bytes) return null;
  try {
    const page = JSON.parse(bytes.toString('utf8')) as { servers?: unknown };
    return Array.isArray(page.servers) ? (page.servers[row.registry_page_index] ?? null) : null;
  } catch {
    return null;
  }
}

function serverView(name: string, slug: string, rows: Observation[], drift: Drift, changes: ChangeView[]): ServerView {
  const latest = rows[rows.length - 1]!;
  const lastOkRow = findLast(rows, (r) => r.outcome === 'ok') ?? null;
  const versions: VersionView[] = drift.versions.map((v) => ({
    toolsSha256: v.tools_sha256,
    bodySha256: v.body_sha256,
    firstSeen: v.first_seen,
    lastSeen: v.last_seen,
    toolCount: rows.find((r) => r.outcome === 'ok' && r.tools_sha256 === v.tools_sha256)?.tool_count ?? null,
  }));
  return {
    name,
    slug,
    latest,
    status: latest.outcome,
    errorClass: latest.error_class,
    endpoint: latest.endpoint ?? findLast(rows, (r) => r.endpoint !== null)?.endpoint ?? null,
    toolCount: lastOkRow?.tool_count ?? null,
    firstObserved: rows[0]!.observed_at,
    lastObserved: latest.observed_at,
    lastOk: lastOkRow?.observed_at ?? null,
    head: versions.at(-1) ?? null,
    versions,
    changes: [...changes].reverse(),
    lastChange: changes.at(-1)?.observedAt ?? null,
    repeatMover: drift.repeatMover,
    rows,
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

function rowsOfRun(raw: RawArchive, runId: string): Observation[] {
  const out: Observation[] = [];
  for (const rows of raw.byTarget.values()) for (const r of rows) if (r.run_id === runId) out.push(r);
  return out;
}

async function deriveChanges(drift: Drift, slug: string, tools: ToolsCache): Promise<ChangeView[]> {
  if (drift.changes.length === 0) return [];
  // Tombstones need every version's tool list in order: a tool that hides and returns changed is
  // compared with its last known definition (src/lib trackTombstones).
  const lists = await Promise.all(drift.versions.map((v) => tools.get(v.body_sha256)));
  const usable = lists.every((l): l is Tool[] => Array.isArray(l));
  const tombstones = usable ? trackTombstones(lists) : null;
  const out: ChangeView[] = [];
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
 * Tool lists by raw body hash, parsed once per build. A tools/list body is JSON or a
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

