// Pass 1 of the loader: one day file read once (through src/archive's observation reader, every line
// validated by the zod contract) and reduced to a compact, columnar digest of its valid rows — what
// the build cache keeps (cache.ts) and the fold reads (fold.ts). A digest worker (workers.ts) may
// hand the same rows to taps on the way (a first build's bundle members), so a day is parsed once;
// the digest itself never writes anything.
import { observationLines } from '../archive/observations.ts';
import type { DayFiles } from '../archive/day-files.ts';
import type { Problem } from '../archive/problems.ts';
import { byCodeUnits, ERROR_CLASSES, NOT_ATTEMPTED_REASONS, type Observation } from '../lib/index.ts';

/** Bump when the digest's shape or meaning changes. */
export const DIGEST_VERSION = 'digest-4';

/**
 * outcome/class codes of the status strip and the digest: ok, each error class, no_endpoint, retired,
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
  /** latency_ms (NaN: null), for the descriptor's health block. */
  latency: Float32Array;
  /** bit 1: endpoint not null; bit 2: registry_page_sha256 not null. */
  flags: Uint8Array;
  line: Int32Array;
  problems: Problem[];
}

/** Work done on a day's valid rows while its digest is built (see workers.ts). */
export interface DayTap {
  /** Each valid row with its line as stored, in file order. */
  row(text: string, row: Observation): void;
  /** The day is read; `problems` of its lines failed validation. */
  end(problems: number): void;
}

/** Read and validate every line of one day, and keep the columns the site needs. */
export async function buildDigest(archive: string, day: DayFiles, taps: readonly DayTap[] = []): Promise<DayDigest> {
  const problems: Problem[] = [];
  const rows: { r: Observation; ms: number; line: number }[] = [];
  for await (const { row, text, file, n, line } of observationLines(archive, day)) {
    if (!row) continue;
    // A torn last line (crash mid-append) is repaired by the collector's next run; until then it is skipped and listed.
    if (!row.ok) {
      problems.push({ file, line: n, message: row.message });
      continue;
    }
    rows.push({ r: row.value, ms: Date.parse(row.value.observed_at), line });
    for (const t of taps) t.row(text, row.value);
  }
  for (const t of taps) t.end(problems.length);
  rows.sort((a, b) => a.ms - b.ms || byCodeUnits(a.r.run_id, b.r.run_id));
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
    latency: new Float32Array(n),
    flags: new Uint8Array(n),
    line: new Int32Array(n),
    problems,
  };
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
  });
  return d;
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
