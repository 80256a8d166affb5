// Pass 1 of the loader: one day file read once (through src/archive's observation reader, every line
// validated by the zod contract) and reduced to a compact, columnar summary of its valid rows — what
// the build cache keeps (cache.ts) and the fold reads (fold.ts). A day-summary worker (workers.ts) may
// hand the same rows to taps on the way (a first build's bundle members), so a day is parsed once;
// the summary itself never writes anything. A day of the v2 series (observations-v2/, methodology v2)
// is summarised the same way into the same columns, plus what v2 drift reads (era and negotiated
// protocol version, instructions hash); the headline's fold takes v1 or v2 days (load-archive.ts).
import { observationLines, observationV2Lines } from '../archive/observations.ts';
import type { DayFiles } from '../archive/day-files.ts';
import type { Problem } from '../archive/problems.ts';
import { byCodeUnits, ERROR_CLASSES, NOT_ATTEMPTED_REASONS, type Observation, type ObservationV2, type RunSeries } from '../lib/index.ts';
import { shardOf } from './shards.ts';

/**
 * Bump when the summary's shape or meaning changes. The value keeps the summary's old name ("digest"): it is
 * part of every cache key and of CACHE_FORMAT, so renaming it would discard every carried cache for nothing.
 */
export const DAY_SUMMARY_VERSION = 'digest-5';

/**
 * outcome/class codes of the status strip and the summary: ok, each error class, no_endpoint, retired,
 * excluded, then not_attempted with each reason (appended, so earlier codes keep their numbers).
 */
export const CODES = [
  'ok',
  ...ERROR_CLASSES.filter((c) => c !== 'no_endpoint').map((c) => `error:${c}` as const),
  'no_endpoint',
  'retired',
  'excluded',
  ...NOT_ATTEMPTED_REASONS.map((r) => `not_attempted:${r}` as const),
] as const;
export type Code = (typeof CODES)[number];
const CODE_OF = new Map<string, number>(CODES.map((c, i) => [c, i]));
export const OK = 0;
export const RETIRED = CODES.indexOf('retired');

/** Codes of probes (ok and each error class): rows that contacted the endpoint, or tried to. */
export const ATTEMPT: readonly boolean[] = CODES.map((c) => c === 'ok' || c.startsWith('error:'));

export function codeOf(row: Pick<Observation, 'outcome' | 'error_class' | 'not_attempted_reason'>): number {
  if (row.outcome === 'error') return CODE_OF.get(`error:${row.error_class}`)!;
  if (row.outcome === 'not_attempted') return CODE_OF.get(`not_attempted:${row.not_attempted_reason}`)!;
  return CODE_OF.get(row.outcome)!;
}

/**
 * One day's valid rows, sorted by (observed_at instant, run_id), as columns. Text kept: target names,
 * run ids, hashes and content types (each interned per day); observed_at only where it is not the
 * `toISOString()` of its instant (the collector always writes that form). `line` is the row's line
 * number across the day's files (gz part first), to read the full row back when a page needs it.
 */
export interface DaySummary {
  v: string;
  /** The series the day's rows belong to (its folder: observations/ v1, observations-v2/ v2). */
  series: RunSeries;
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
  /** latency_ms (NaN: null), for the descriptor's health block. */
  latency: Float32Array;
  /** bit 1: endpoint not null; bit 2: registry_page_sha256 not null. */
  flags: Uint8Array;
  line: Int32Array;
  /** v2 rows: index into `eras` of "<era>|" or "<era>|=<protocol_version>" (-1: a v1 row). */
  era: Int32Array;
  eras: string[];
  /** v2 rows: index into `hashes` of instructions_sha256 (-1: null, or a v1 row). */
  instr: Int32Array;
  /** v2 ok rows that read more than one tools/list page: [row, page body sha256s, their content types]. */
  pages: [number, string[], (string | null)[]][];
  problems: Problem[];
}

/** Work done on a day's valid rows while its summary is built (see workers.ts). */
export interface DayTap {
  /** Each valid row with its line as stored, in file order. */
  row(text: string, row: Observation): void;
  /** The day is read; `problems` of its lines failed validation. */
  end(problems: number): void;
}

/** Read and validate every line of one day, and keep the columns the site needs (`series`: the day's folder). */
export async function buildDaySummary(archive: string, day: DayFiles, taps: readonly DayTap[] = [], series: RunSeries = 'v1'): Promise<DaySummary> {
  const problems: Problem[] = [];
  const rows: { r: Observation | ObservationV2; ms: number; line: number }[] = [];
  const lines = series === 'v2' ? observationV2Lines(archive, day) : observationLines(archive, day);
  for await (const { row, text, file, n, line } of lines) {
    if (!row) continue;
    // A torn last line (crash mid-append) is repaired by the collector's next run; until then it is skipped and listed.
    if (!row.ok) {
      problems.push({ file, line: n, message: row.message });
      continue;
    }
    rows.push({ r: row.value, ms: Date.parse(row.value.observed_at), line });
    // Taps (bundle members) are v1's.
    if (series === 'v1') for (const t of taps) t.row(text, row.value as Observation);
  }
  for (const t of taps) t.end(problems.length);
  rows.sort((a, b) => a.ms - b.ms || byCodeUnits(a.r.run_id, b.r.run_id));
  const n = rows.length;
  const d: DaySummary = {
    v: DAY_SUMMARY_VERSION,
    series,
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
    latency: new Float32Array(n),
    flags: new Uint8Array(n),
    line: new Int32Array(n),
    era: new Int32Array(n),
    eras: [],
    instr: new Int32Array(n),
    pages: [],
    problems,
  };
  const eraIdx = new Map<string, number>();
  const runIdx = new Map<string, number>();
  const hashIdx = new Map<string, number>();
  const ctypeIdx = new Map<string | null, number>();
  rows.forEach(({ r, ms, line }, i) => {
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
    d.latency[i] = r.latency_ms ?? NaN;
    d.flags[i] = (r.endpoint !== null ? 1 : 0) | (r.registry_page_sha256 !== null ? 2 : 0);
    d.line[i] = line;
    if (r.methodology_version === 'v2') {
      d.era[i] = intern(eraIdx, d.eras, `${r.era}|${r.protocol_version === null ? '' : `=${r.protocol_version}`}`);
      d.instr[i] = r.instructions_sha256 === null ? -1 : intern(hashIdx, d.hashes, r.instructions_sha256);
      if (r.outcome === 'ok' && r.tools_pages_sha256 && r.tools_pages_sha256.length > 1) d.pages.push([i, r.tools_pages_sha256, r.tools_pages_content_types ?? r.tools_pages_sha256.map(() => null)]);
    } else {
      d.era[i] = -1;
      d.instr[i] = -1;
    }
  });
  return d;
}

/**
 * A summary cut into S parts by target (shards.ts shardOf): part k holds the rows of shard k's targets,
 * in the same order, with their own hash table; run, content-type and era tables are kept whole (a
 * day's few). Lines (RowRef) are unchanged. Problems stay with the whole summary: a part has none.
 */
export function splitDaySummary(g: DaySummary, shards: number): DaySummary[] {
  const of = new Uint32Array(g.n);
  const counts = new Array<number>(shards).fill(0);
  for (let i = 0; i < g.n; i++) counts[(of[i] = shardOf(g.names[i]!, shards))]!++;
  const isoOverride = new Map(g.isoOverride);
  const dayOverride = new Map(g.dayOverride);
  const pages = new Map(g.pages.map(([i, p, t]) => [i, [p, t] as const]));
  const parts = counts.map((n): { d: DaySummary; hashIdx: Map<string, number>; at: number } => ({
    d: {
      ...g, n, names: new Array<string>(n), code: new Uint8Array(n), http: new Uint16Array(n), ms: new Float64Array(n), isoOverride: [], dayOverride: [], run: new Uint32Array(n),
      tools: new Int32Array(n), body: new Int32Array(n), hashes: [], ctype: new Int32Array(n), toolCount: new Int32Array(n), latency: new Float32Array(n), flags: new Uint8Array(n),
      line: new Int32Array(n), era: new Int32Array(n), instr: new Int32Array(n), pages: [], problems: [],
    },
    hashIdx: new Map(),
    at: 0,
  }));
  for (let i = 0; i < g.n; i++) {
    const p = parts[of[i]!]!;
    const { d } = p;
    const j = p.at++;
    const hash = (h: number) => (h < 0 ? -1 : intern(p.hashIdx, d.hashes, g.hashes[h]!));
    d.names[j] = g.names[i]!;
    d.code[j] = g.code[i]!;
    d.http[j] = g.http[i]!;
    d.ms[j] = g.ms[i]!;
    d.run[j] = g.run[i]!;
    d.tools[j] = hash(g.tools[i]!);
    d.body[j] = hash(g.body[i]!);
    d.ctype[j] = g.ctype[i]!;
    d.toolCount[j] = g.toolCount[i]!;
    d.latency[j] = g.latency[i]!;
    d.flags[j] = g.flags[i]!;
    d.line[j] = g.line[i]!;
    d.era[j] = g.era[i]!;
    d.instr[j] = hash(g.instr[i]!);
    const iso = isoOverride.get(i);
    if (iso !== undefined) d.isoOverride.push([j, iso]);
    const day = dayOverride.get(i);
    if (day !== undefined) d.dayOverride.push([j, day]);
    const pg = pages.get(i);
    if (pg) d.pages.push([j, pg[0], pg[1]]);
  }
  return parts.map((p) => p.d);
}

/** The index of `value` in `list`, appending it the first time (string tables of day summaries and folds). */
export function intern<T>(map: Map<T, number>, list: T[], value: T): number {
  let i = map.get(value);
  if (i === undefined) {
    i = list.length;
    list.push(value);
    map.set(value, i);
  }
  return i;
}
