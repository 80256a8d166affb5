// The validation gate (the pre-registered study's §5; docs/VALIDATION.md): before v2 figures are
// published as validated, a reviewer re-checks a stratified sample of endpoints by hand and their
// statuses are compared with what the classifier recorded. This module holds the pure parts: the seeded
// PRNG, the stratified draw, Cohen's κ, shell quoting for the worksheet's curl commands, the worksheet's
// and the record's contracts, scoring, and which gate (if any) stands for a run's figures.
//
// The draw, in full (the same words are in the CLI's --help, docs/VALIDATION.md and the methodology):
//   population  the probed rows (outcome ok or error) of one run, each with its status;
//   strata      the statuses present among them, in the order of V2_STATUSES;
//   allocation  m = min(n, population). When m ≥ the number of strata S, every stratum gets one, and
//               the other m − S draws are shared in proportion to each stratum's size beyond that one
//               (N_s − 1), by largest remainder (Hamilton): ⌊quota⌋ each, then one more to the largest
//               fractional parts, ties to the larger stratum, then to the earlier status. When m < S,
//               the m largest strata get one each (ties: the earlier status);
//   selection   within each stratum, in the order of V2_STATUSES, its rows sorted by target (code
//               units), then a partial Fisher–Yates shuffle taking k rows, every index drawn from one
//               mulberry32 stream seeded with the seed (an unsigned 32-bit integer), as ⌊u · i⌋.
import { z } from 'zod';
import { SHA256_HEX } from './canonical.ts';
import { ERAS } from './eras.ts';
import { V2_STATUSES, type V2Status } from './v2-status.ts';
import { wilson, type WilsonInterval } from './wilson.ts';

/** The study's seed and sample size (§5). */
export const VALIDATION_SEED = 20261012;
export const VALIDATION_N = 30;
/** A gate passes at this agreement or above (the study: "at least 90%"). */
export const VALIDATION_THRESHOLD = 0.9;
/** What a reviewer may write: every status of a probed endpoint (`excluded` rows are never contacted, so never drawn). */
export const REVIEW_STATUSES = V2_STATUSES.filter((s) => s !== 'excluded') as Exclude<V2Status, 'excluded'>[];
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** The draw's rule in words: the worksheet and the record carry it, the CLI's --help prints it. */
export const DRAW_RULE =
  'Population: the probed rows (outcome ok or error) of the latest full v2 run; strata: the statuses present, in the order of the status table. ' +
  'm = min(n, population). If m >= the number of strata S, every stratum gets 1 and the other m - S are shared in proportion to each stratum\'s size minus 1, ' +
  'by largest remainder (floor of each quota, then one more to the largest fractional parts; ties to the larger stratum, then the earlier status); ' +
  'if m < S, the m largest strata get 1 each (ties: the earlier status). Within each stratum (status order), rows sorted by target, ' +
  'then a partial Fisher-Yates shuffle takes k, each index floor(u * i) from one mulberry32 stream seeded with the seed.';

/** mulberry32: a small, well-known 32-bit PRNG; returns u in [0, 1). The same seed gives the same stream everywhere. */
export function mulberry32(seed: number): () => number {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`mulberry32: the seed must be an integer from 0 to 4294967295, not ${seed}`);
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const statusRank = (s: string) => (V2_STATUSES as readonly string[]).indexOf(s);

/**
 * How many to draw from each stratum (the rule in this file's header). `sizes`: stratum → N_s (> 0).
 * Returns every stratum given, with its k (0 when m < S leaves it out), in status order.
 */
export function allocate(sizes: ReadonlyMap<V2Status, number>, n: number): Map<V2Status, number> {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`allocate: n must be a whole number from 1, not ${n}`);
  const strata = [...sizes].filter(([, size]) => size > 0).sort((a, b) => statusRank(a[0]) - statusRank(b[0]));
  const out = new Map<V2Status, number>(strata.map(([s]) => [s, 0]));
  const total = strata.reduce((t, [, size]) => t + size, 0);
  const m = Math.min(n, total);
  const S = strata.length;
  const larger = (a: [V2Status, number], b: [V2Status, number]) => b[1] - a[1] || statusRank(a[0]) - statusRank(b[0]);
  if (m < S) {
    for (const [s] of [...strata].sort(larger).slice(0, m)) out.set(s, 1);
    return out;
  }
  const rest = m - S;
  const spare = total - S;
  const quotas = strata.map(([s, size]) => {
    const q = spare === 0 ? 0 : (rest * (size - 1)) / spare;
    return { s, size, base: Math.floor(q), frac: q - Math.floor(q) };
  });
  let left = rest - quotas.reduce((t, q) => t + q.base, 0);
  for (const q of [...quotas].sort((a, b) => b.frac - a.frac || b.size - a.size || statusRank(a.s) - statusRank(b.s))) {
    if (left === 0) break;
    if (q.base < q.size - 1) {
      q.base++;
      left--;
    }
  }
  for (const q of quotas) out.set(q.s, 1 + q.base);
  return out;
}

/** A row the draw can take: its target (unique within the run) and its status. */
export interface DrawableRow {
  target: string;
  status: V2Status;
}

export interface StratifiedDraw<T extends DrawableRow> {
  /** Stratum → population size. */
  population: Map<V2Status, number>;
  /** Stratum → how many were drawn. */
  allocation: Map<V2Status, number>;
  /** The rows drawn, in draw order (stratum by stratum, in status order). */
  drawn: T[];
}

/** The stratified draw (this file's header): deterministic for (rows as a set, n, seed). */
export function drawStratified<T extends DrawableRow>(rows: readonly T[], n: number, seed: number): StratifiedDraw<T> {
  const byStatus = new Map<V2Status, T[]>();
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.target)) throw new RangeError(`drawStratified: target ${JSON.stringify(r.target)} appears twice`);
    seen.add(r.target);
    if (!byStatus.has(r.status)) byStatus.set(r.status, []);
    byStatus.get(r.status)!.push(r);
  }
  const population = new Map([...byStatus].sort((a, b) => statusRank(a[0]) - statusRank(b[0])).map(([s, list]) => [s, list.length]));
  const allocation = rows.length === 0 ? new Map<V2Status, number>() : allocate(population, n);
  const next = mulberry32(seed);
  const drawn: T[] = [];
  for (const [s, k] of allocation) {
    const list = [...byStatus.get(s)!].sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
    for (let i = 0; i < k; i++) {
      const j = i + Math.floor(next() * (list.length - i));
      [list[i], list[j]] = [list[j]!, list[i]!];
      drawn.push(list[i]!);
    }
  }
  return { population, allocation, drawn };
}

export interface Kappa {
  n: number;
  /** Pairs with the same label. */
  agree: number;
  /** pₒ, observed agreement (NaN when n = 0). */
  observed: number;
  /** pₑ = Σ_c (a_c / n)(b_c / n), agreement expected by chance from the two margins. */
  expected: number;
  /** (pₒ − pₑ) / (1 − pₑ); NaN when n = 0 or pₑ = 1 (both raters used one and the same label throughout). */
  kappa: number;
}

/** Cohen's κ of two raters over the same items: `pairs[i]` = [rater A's label, rater B's label]. */
export function cohensKappa(pairs: readonly (readonly [string, string])[]): Kappa {
  const n = pairs.length;
  if (n === 0) return { n, agree: 0, observed: NaN, expected: NaN, kappa: NaN };
  const a = new Map<string, number>();
  const b = new Map<string, number>();
  let agree = 0;
  for (const [x, y] of pairs) {
    if (x === y) agree++;
    a.set(x, (a.get(x) ?? 0) + 1);
    b.set(y, (b.get(y) ?? 0) + 1);
  }
  let expected = 0;
  for (const [label, k] of [...a].sort((p, q) => (p[0] < q[0] ? -1 : 1))) expected += (k / n) * ((b.get(label) ?? 0) / n);
  const observed = agree / n;
  return { n, agree, observed, expected, kappa: expected === 1 ? NaN : (observed - expected) / (1 - expected) };
}

/**
 * One shell word (POSIX sh, bash, zsh) that stands for `s` exactly: single quotes around it, each `'`
 * inside written '\''. Nothing is special inside single quotes, so `$`, backticks, `;`, spaces and
 * newlines stay text.
 */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const sha256 = z.string().regex(SHA256_HEX);
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const statusOf = z.enum(V2_STATUSES);

/** What the archive recorded for a drawn endpoint (from its row), as the worksheet shows it. */
export const RecordedV2 = z
  .object({
    status: statusOf,
    era: z.enum(ERAS),
    protocol_version: z.string().nullable(),
    step: z.string().nullable(),
    http_status: z.number().int().nullable(),
    jsonrpc_code: z.number().int().nullable(),
    detail: z.string().nullable(),
    www_authenticate: z.string().nullable(),
    auth_metadata_url: z.string().nullable(),
    tool_count: z.number().int().nullable(),
    canary_in_channel: z.boolean().nullable(),
  })
  .strict();
export type RecordedV2 = z.infer<typeof RecordedV2>;

export const WORKSHEET_FORMAT = 'mcp-schema-validation-worksheet/1' as const;

export const WorksheetEntry = z
  .object({
    target: z.string().min(1),
    endpoint: z.string().min(1),
    recorded: RecordedV2,
    /** The stored raw answers the row names: what it is, its SHA-256, its path in the archive, its Content-Type. */
    objects: z.array(z.object({ role: z.string(), sha256, path: z.string(), content_type: z.string().nullable() }).strict()),
    /** The requests the probe sends, as curl commands, in the probe's order. */
    curl: z.array(z.object({ step: z.string(), when: z.string(), command: z.string() }).strict()),
    /** The reviewer's own status (one of REVIEW_STATUSES); null until reviewed. */
    reviewer_status: z.string().nullable(),
    reviewer_note: z.string().nullable(),
  })
  .strict();
export type WorksheetEntry = z.infer<typeof WorksheetEntry>;

/** What a worksheet and its record both say of the draw. */
const DRAWN = {
    run_id: z.string().min(1),
    run_day: day,
    prober_version: z.string().min(1),
    seed: z.number().int().nonnegative(),
    n: z.number().int().positive(),
    rule: z.string(),
};

export const Worksheet = z
  .object({
    format: z.literal(WORKSHEET_FORMAT),
    ...DRAWN,
    vocabulary: z.array(z.string()),
    population: z.record(z.string(), z.number().int().nonnegative()),
    allocation: z.record(z.string(), z.number().int().nonnegative()),
    endpoints: z.array(WorksheetEntry),
  })
  .strict();
export type Worksheet = z.infer<typeof Worksheet>;

export const VALIDATION_RECORD_FORMAT = 'mcp-schema-validation/1' as const;

export const ValidationRecord = z
  .object({
    format: z.literal(VALIDATION_RECORD_FORMAT),
    /** When it was scored (the record's date) and the day of it. */
    scored_at: z.string().datetime({ offset: true }),
    day,
    /** The run drawn from, its day, the classifier validated (the prober version of its rows), the seed, n and the rule. */
    ...DRAWN,
    worksheet_sha256: sha256,
    threshold: z.number(),
    agreement: z.object({ count: z.number().int().nonnegative(), n: z.number().int().positive(), share: z.number(), lower: z.number(), upper: z.number() }).strict(),
    /** null when κ is undefined (both sides used one and the same status throughout). */
    kappa: z.number().nullable(),
    expected: z.number(),
    passed: z.boolean(),
    endpoints: z.array(z.object({ target: z.string(), endpoint: z.string(), recorded: statusOf, reviewer: z.enum(REVIEW_STATUSES as [ReviewStatus, ...ReviewStatus[]]), note: z.string().nullable() }).strict()),
    disagreements: z.array(z.object({ target: z.string(), endpoint: z.string(), recorded: statusOf, reviewer: z.string(), note: z.string().nullable() }).strict()),
  })
  .strict();
export type ValidationRecord = z.infer<typeof ValidationRecord>;

/** A worksheet a reviewer filled in that cannot be scored, with every reason. */
export class WorksheetError extends Error {
  override readonly name = 'WorksheetError';
  constructor(readonly problems: string[]) {
    super(`the worksheet cannot be scored:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Check the reviewer's column: every endpoint has a status and every status is in REVIEW_STATUSES.
 * Throws a WorksheetError naming each endpoint that fails.
 */
export function reviewerStatuses(ws: Worksheet): ReviewStatus[] {
  const problems: string[] = [];
  const out: ReviewStatus[] = [];
  ws.endpoints.forEach((e, i) => {
    const s = e.reviewer_status;
    const who = `endpoint ${i + 1} (${JSON.stringify(e.target)})`;
    if (s === null || s.trim() === '') problems.push(`${who}: no reviewer_status`);
    else if (!(REVIEW_STATUSES as readonly string[]).includes(s.trim())) problems.push(`${who}: reviewer_status ${JSON.stringify(s)} is not a status (${REVIEW_STATUSES.join(', ')})`);
    else out.push(s.trim() as ReviewStatus);
  });
  if (ws.endpoints.length === 0) problems.push('the worksheet lists no endpoint');
  if (problems.length > 0) throw new WorksheetError(problems);
  return out;
}

export interface Scored {
  agreement: WilsonInterval & { count: number; n: number };
  kappa: Kappa;
  passed: boolean;
  endpoints: ValidationRecord['endpoints'];
  disagreements: ValidationRecord['disagreements'];
}

/**
 * Score the reviewer's statuses against the statuses the archive recorded (`recorded`, by target: the
 * caller reads them from the archive, not from the worksheet, so an edited worksheet cannot move them).
 */
export function scoreWorksheet(ws: Worksheet, recorded: ReadonlyMap<string, V2Status>, threshold = VALIDATION_THRESHOLD): Scored {
  const reviewer = reviewerStatuses(ws);
  const missing = ws.endpoints.filter((e) => !recorded.has(e.target)).map((e) => JSON.stringify(e.target));
  if (missing.length > 0) throw new WorksheetError([`the run ${ws.run_id} has no probed row for ${missing.join(', ')}`]);
  const endpoints = ws.endpoints.map((e, i) => ({ target: e.target, endpoint: e.endpoint, recorded: recorded.get(e.target)!, reviewer: reviewer[i]!, note: e.reviewer_note && e.reviewer_note.trim() !== '' ? e.reviewer_note : null }));
  const kappa = cohensKappa(endpoints.map((e) => [e.recorded, e.reviewer] as const));
  const agreement = { count: kappa.agree, n: kappa.n, ...wilson(kappa.agree, kappa.n) };
  return { agreement, kappa, passed: agreement.count >= threshold * agreement.n - 1e-9, endpoints, disagreements: endpoints.filter((e) => e.recorded !== e.reviewer) };
}

/** What /statistics/ says about the gate for the figures of a run made by `proberVersion`. */
export type GateState =
  | { state: 'passed'; record: ValidationRecord; file: string }
  | { state: 'not_validated'; reason: 'no_record' | 'failed' | 'other_classifier'; record: ValidationRecord | null; file: string | null };

/**
 * The gate that stands for figures made by `proberVersion`: the latest record (by scored_at, then file
 * name) of that prober version. Passed when it passed; a later failed record of the same version
 * withdraws an earlier pass (the study: a failed gate means fix, re-classify, validate again).
 * Records of another prober version do not count (a changed classifier must be validated again).
 */
export function gateFor(records: readonly { file: string; record: ValidationRecord }[], proberVersion: string): GateState {
  const latest = (a: (typeof records)[number], b: (typeof records)[number]) => (a.record.scored_at < b.record.scored_at ? -1 : a.record.scored_at > b.record.scored_at ? 1 : a.file < b.file ? -1 : 1);
  const mine = records.filter((r) => r.record.prober_version === proberVersion).sort(latest);
  const last = mine.at(-1);
  if (last) return last.record.passed ? { state: 'passed', record: last.record, file: last.file } : { state: 'not_validated', reason: 'failed', record: last.record, file: last.file };
  const other = [...records].sort(latest).at(-1);
  return other ? { state: 'not_validated', reason: 'other_classifier', record: other.record, file: other.file } : { state: 'not_validated', reason: 'no_record', record: null, file: null };
}
