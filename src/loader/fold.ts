// Pass 2 of the loader: the days' summaries folded, in time order, into a compact state per target —
// its status strip as runs of equal outcome, its ok rows as runs of rows that agree on everything
// drift reads (OkRun: the first and last row of each, and how many), its retired rows, where its latest rows sit (day, line), and its probes of the last month
// (instant, ok, latency: at most RECENT_MAX of them, for the descriptor's health block) — never
// Observation objects, so memory grows with targets and what they change, not with rows or days.
//
// The headline series (load-archive.ts): v1 days, or once the bridge is complete the stitched timeline
// — v1 days before the seam, v2 days from it on — fold into the same state; v2 ok rows add what v2
// drift reads (era, protocol version, instructions hash) as run-length triples, which change rarely.
// v1 ok rows from the seam on are kept aside per target (foldBridgeV1: the bridge's few days), only to
// decide each target's series seam.
import type { DriftRow } from '../lib/index.ts';
import { ATTEMPT, intern, OK, RETIRED, type DaySummary } from './day-summary.ts';

/** Where a full row lives: index into RawArchive.dayFiles, and its line number across that day's files. */
export interface RowRef {
  d: number;
  line: number;
}

/**
 * A run of a target's consecutive ok rows that agree on everything drift, lifetimes, sets and findings
 * read: contract hash, raw body, tool count, v2 era and instructions, and which side of the series seam
 * they fall on. Only its first and last rows are kept (with the run's row count): detectDrift,
 * contractIntervals and stitchSeries read a contract's first and last observation and the rows where
 * something changed, never the rows in between, so a server that answers the same for five years is
 * one run, not 1,825 rows (the loaded archive grew 22 B a target-day).
 */
export interface OkRun {
  tools: number;
  body: number;
  /** tool_count of the run's rows (-1: none). */
  toolCount: number;
  /** v2 rows: index into Fold.eras; -1: v1 rows. */
  era: number;
  /** v2 rows: instructions hash id into Fold.hashes; -1: none (or v1). */
  instr: number;
  /** Rows in the run. */
  n: number;
  firstMs: number;
  lastMs: number;
  firstDay: number;
  lastDay: number;
  firstRun: number;
  lastRun: number;
  /** observed_at text of the first/last row when it is not the ISO form of its instant. */
  firstIso: string | null;
  lastIso: string | null;
  /** Rows kept whole (a bridge day's, or a fold in exact mode): never extended. */
  whole: boolean;
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
  /**
   * Status strip as runs: [code, http, count, firstDayId, lastDayId, toolsId, secondDayId] per
   * segment (SEG fields; secondDayId: the day of the segment's second row, -1 while it has one row).
   */
  seg: number[];
  /** Ok rows as runs (OkRun), in the order they were folded (time order; see Fold.disordered). */
  ok: OkRun[];
  retired: { ms: number; day: number; run: number }[] | null;
  /** Instant of the latest probe (ok or error row); -1: never probed. */
  probeMs: number;
  /**
   * The latest probes within RECENT_MS of the newest, as flat triples [ms, ok (1/0), latency_ms (NaN:
   * none)], oldest first, at most RECENT_MAX probes: what serverHealth needs for a 30-day window.
   */
  recent: number[];
}

/** Fields per status-strip segment in TargetState.seg. */
export const SEG = 7;

/** Probes kept per target: two a day over the health window's month (a collector running more often keeps its latest 62). */
export const RECENT_MAX = 62;
/** How far back the kept probes reach from the newest: 31 days, one more than the health window, so the window's first day is whole. */
export const RECENT_MS = 31 * 86_400_000;

export interface Fold {
  targets: Map<string, TargetState>;
  /** Interned tools/body hashes, run ids, row days, content types. */
  hashes: string[];
  hashId: Map<string, number>;
  runIds: string[];
  dayIds: string[];
  /** body hash id → content type of the rows that carried it. */
  bodyType: Map<number, string | null>;
  /** "<era>|<protocol_version>" of v2 ok rows, interned. */
  eras: string[];
  /**
   * Contracts v2 read over more than one tools/list page: tools hash id → its pages (body sha256s and
   * content types). A contract hash fixes its tools, so any row with it names the same list; the
   * row's body_sha256 is the first page only.
   */
  contractPages: Map<number, { pages: string[]; types: (string | null)[] }>;
  /** Per target, its v1 ok rows from the seam on (stitched headline only): flat [ms, toolsId, bodyId, dayId, runId]. */
  bridgeV1: Map<string, number[]>;
  /** Every ok row its own run (OkRun.whole): how the fold re-reads a disordered target. */
  exact: boolean;
  /** The series seam day (stitched headline), or null: ok runs never span it. */
  seamDay: string | null;
  /**
   * Days whose ok rows are kept whole: v2 days that also have v1 rows (the bridge), where stitchSeries
   * pairs a v2 row with the v1 row of the same run, whichever row of a run that is.
   */
  wholeDays: ReadonlySet<string>;
  /**
   * Targets an ok row reached out of time order (earlier than the target's latest ok row, by instant
   * then run id): their runs may not be what sorting the rows would give, so the loader folds them
   * again in exact mode (load-archive.ts). A collector writes rows in time order; this is for archives
   * that were not.
   */
  disordered: Set<string>;
  /** Fold only these targets (exact mode's second pass, or one shard: shards.ts); null: all. */
  only: { has(name: string): boolean } | null;
}

/** The fold's string tables by value (the inverse of Fold's arrays). */
export interface FoldTables {
  hash: Map<string, number>;
  run: Map<string, number>;
  day: Map<string, number>;
  era: Map<string, number>;
}

export function emptyFold(opts: { seamDay?: string | null; wholeDays?: ReadonlySet<string>; exact?: boolean; only?: Fold['only'] } = {}): { fold: Fold; tables: FoldTables } {
  const tables: FoldTables = { hash: new Map(), run: new Map(), day: new Map(), era: new Map() };
  return {
    fold: {
      targets: new Map(), hashes: [], hashId: tables.hash, runIds: [], dayIds: [], bodyType: new Map(), eras: [], contractPages: new Map(), bridgeV1: new Map(),
      exact: opts.exact ?? false, seamDay: opts.seamDay ?? null, wholeDays: opts.wholeDays ?? new Set(), disordered: new Set(), only: opts.only ?? null,
    },
    tables,
  };
}

/**
 * The same fold for a second pass over `names` only, every ok row kept whole, sharing the string
 * tables (ids stay valid); its targets replace theirs in `fold` (adoptExact).
 */
export function exactFold(fold: Fold, names: ReadonlySet<string>): Fold {
  // Names of the disordered targets only: they already belong to the fold's shard.
  return { ...fold, targets: new Map(), exact: true, disordered: new Set(), only: names };
}

/** Put an exact pass's targets in place of the main fold's. */
export function adoptExact(fold: Fold, exact: Fold): void {
  for (const [name, s] of exact.targets) fold.targets.set(name, s);
}

/** Fold one day's summary (rows in time order) into the per-target state. */
export function foldDay(fold: Fold, t: FoldTables, g: DaySummary, d: number): void {
  const hashId = lazyIds(g.hashes, (h) => intern(t.hash, fold.hashes, h));
  const runId = g.runs.map((r) => intern(t.run, fold.runIds, r));
  const fileDay = intern(t.day, fold.dayIds, g.day);
  const isoOverride = new Map(g.isoOverride);
  const dayOverride = new Map(g.dayOverride.map(([i, day]) => [i, intern(t.day, fold.dayIds, day)]));
  const eraId = g.eras.map((e) => intern(t.era, fold.eras, e));
  for (const [i, pages, types] of g.pages) {
    const tools = g.tools[i]! >= 0 ? hashId(g.tools[i]!) : -1;
    if (tools >= 0 && !fold.contractPages.has(tools)) fold.contractPages.set(tools, { pages, types });
  }
  const wholeFile = fold.exact || fold.wholeDays.has(g.day);
  const seam = fold.seamDay;
  const seamSide = (d: number) => seam !== null && fold.dayIds[d]! >= seam;
  for (let i = 0; i < g.n; i++) {
    const name = g.names[i]!;
    if (fold.only !== null && !fold.only.has(name)) continue;
    const ms = g.ms[i]!;
    const iso = isoOverride.get(i) ?? null;
    const ref: RowRef = { d, line: g.line[i]! };
    let s = fold.targets.get(name);
    if (!s) {
      s = { name, rows: 0, firstMs: ms, firstIso: iso, latest: ref, latestMs: ms, latestIso: iso, endpointRef: null, pageRef: null, seg: [], ok: [], retired: null, probeMs: -1, recent: [] };
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
    const tools = g.tools[i]! >= 0 ? hashId(g.tools[i]!) : -1;
    if (ATTEMPT[code]) {
      s.probeMs = ms;
      const r = s.recent;
      r.push(ms, code === OK ? 1 : 0, g.latency[i]!);
      let drop = 0;
      while (r.length - drop > RECENT_MAX * 3 || r[drop]! < ms - RECENT_MS) drop += 3;
      if (drop > 0) r.splice(0, drop);
    }
    const seg = s.seg;
    const k = seg.length - SEG;
    if (k >= 0 && seg[k] === code && seg[k + 1] === http && seg[k + 5] === tools) {
      if (seg[k + 2]!++ === 1) seg[k + 6] = day;
      seg[k + 4] = day;
    } else seg.push(code, http, 1, day, day, tools, -1);
    if (code === OK && tools >= 0 && g.body[i]! >= 0) {
      const body = hashId(g.body[i]!);
      const era = g.era[i]! >= 0 ? eraId[g.era[i]!]! : -1;
      const instr = era >= 0 && g.instr[i]! >= 0 ? hashId(g.instr[i]!) : -1;
      const run = runId[g.run[i]!]!;
      const count = g.toolCount[i]!;
      const last = s.ok.at(-1);
      // Out of time order (instant, then run id, as inTimeOrder sorts): this target is folded again, exactly.
      if (last && !fold.exact && (ms < last.lastMs || (ms === last.lastMs && run !== last.lastRun && fold.runIds[run]! < fold.runIds[last.lastRun]!))) fold.disordered.add(name);
      const whole = wholeFile || (day !== fileDay && fold.wholeDays.has(fold.dayIds[day]!));
      if (last && !whole && !last.whole && last.tools === tools && last.body === body && last.toolCount === count && last.era === era && last.instr === instr && seamSide(last.lastDay) === seamSide(day)) {
        last.n++;
        last.lastMs = ms;
        last.lastDay = day;
        last.lastRun = run;
        last.lastIso = iso;
      } else {
        s.ok.push({ tools, body, toolCount: count, era, instr, n: 1, firstMs: ms, lastMs: ms, firstDay: day, lastDay: day, firstRun: run, lastRun: run, firstIso: iso, lastIso: iso, whole });
      }
      if (!fold.bodyType.has(body)) fold.bodyType.set(body, g.ctypes[g.ctype[i]!] ?? null);
    } else if (code === RETIRED) {
      (s.retired ??= []).push({ ms, day, run: runId[g.run[i]!]! });
    }
  }
}

/**
 * A day table's ids in the fold's table, interned on first use: a shard's fold (shards.ts) reads a
 * day's rows of every target but keeps only its own targets' hashes, not the whole day's.
 */
function lazyIds(values: readonly string[], intern: (value: string) => number): (i: number) => number {
  const ids = new Int32Array(values.length).fill(-1);
  return (i) => {
    let id = ids[i]!;
    if (id < 0) ids[i] = id = intern(values[i]!);
    return id;
  };
}

/** Fold a v1 day from the seam on (stitched headline): only its ok rows, kept aside per target to decide the seam. */
export function foldBridgeV1(fold: Fold, t: FoldTables, g: DaySummary): void {
  const hashId = lazyIds(g.hashes, (h) => intern(t.hash, fold.hashes, h));
  const runId = g.runs.map((r) => intern(t.run, fold.runIds, r));
  const fileDay = intern(t.day, fold.dayIds, g.day);
  const dayOverride = new Map(g.dayOverride.map(([i, day]) => [i, intern(t.day, fold.dayIds, day)]));
  for (let i = 0; i < g.n; i++) {
    if (g.code[i] !== OK || g.tools[i]! < 0 || g.body[i]! < 0) continue;
    const name = g.names[i]!;
    if (fold.only !== null && !fold.only.has(name)) continue;
    let list = fold.bridgeV1.get(name);
    if (!list) fold.bridgeV1.set(name, (list = []));
    list.push(g.ms[i]!, hashId(g.tools[i]!), hashId(g.body[i]!), dayOverride.get(i) ?? fileDay, runId[g.run[i]!]!);
  }
}

/** A target's v1 ok rows from the seam on (foldBridgeV1), as drift rows. */
export function bridgeV1Rows(fold: Fold, name: string): DriftRow[] {
  const list = fold.bridgeV1.get(name) ?? [];
  const out: DriftRow[] = [];
  for (let k = 0; k < list.length; k += 5) {
    out.push({ target: name, outcome: 'ok', observed_at: new Date(list[k]!).toISOString(), day: fold.dayIds[list[k + 3]!]!, run_id: fold.runIds[list[k + 4]!]!, tools_sha256: fold.hashes[list[k + 1]!]!, body_sha256: fold.hashes[list[k + 2]!]! });
  }
  return out;
}

/** What a v2 run negotiated and answered: era, protocol version, instructions hash; null for a v1 run. */
export function eraOf(fold: Fold, r: OkRun): { era: string; protocolVersion: string | null; instructions: string | null } | null {
  if (r.era < 0) return null;
  const label = fold.eras[r.era]!;
  const bar = label.indexOf('|');
  const pv = label.slice(bar + 1);
  return { era: label.slice(0, bar), protocolVersion: pv === '' ? null : pv.slice(1), instructions: r.instr >= 0 ? fold.hashes[r.instr]! : null };
}

/** observed_at of a run's first or last row. */
export function runIso(r: OkRun, end: 'first' | 'last'): string {
  return end === 'first' ? (r.firstIso ?? new Date(r.firstMs).toISOString()) : (r.lastIso ?? new Date(r.lastMs).toISOString());
}

/**
 * A target's lean rows for src/lib: each ok run's first row and, when it has more, its last (what
 * drift, lifetimes and the stitch read; see OkRun), then its retired rows; drift fields only.
 */
export function leanRows(fold: Fold, s: TargetState): DriftRow[] {
  const out: DriftRow[] = [];
  const row = (r: OkRun, end: 'first' | 'last'): DriftRow => ({
    target: s.name,
    outcome: 'ok',
    observed_at: runIso(r, end),
    day: fold.dayIds[end === 'first' ? r.firstDay : r.lastDay]!,
    run_id: fold.runIds[end === 'first' ? r.firstRun : r.lastRun]!,
    tools_sha256: fold.hashes[r.tools]!,
    body_sha256: fold.hashes[r.body]!,
  });
  for (const r of s.ok) {
    out.push(row(r, 'first'));
    if (r.n > 1) out.push(row(r, 'last'));
  }
  for (const r of s.retired ?? []) {
    out.push({ target: s.name, outcome: 'retired', observed_at: new Date(r.ms).toISOString(), day: fold.dayIds[r.day]!, run_id: fold.runIds[r.run]!, tools_sha256: null, body_sha256: null });
  }
  return out;
}
