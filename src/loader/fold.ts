// Pass 2 of the loader: the days' digests folded, in time order, into a compact state per target —
// its status strip as runs of equal outcome, its ok rows as a few numbers each (hash ids, instant, run,
// day), its retired rows, where its latest rows sit (day, line), and its probes of the last month
// (instant, ok, latency: at most RECENT_MAX of them, for the descriptor's health block) — never
// Observation objects, so memory grows with targets, not with rows.
import type { DriftRow } from '../lib/index.ts';
import { ATTEMPT, intern, OK, RETIRED, type DayDigest } from './digest.ts';

/** Where a full row lives: index into RawArchive.dayFiles, and its line number across that day's files. */
export interface RowRef {
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
  /** Instant of the latest probe (ok or error row); -1: never probed. */
  probeMs: number;
  /**
   * The latest probes within RECENT_MS of the newest, as flat triples [ms, ok (1/0), latency_ms (NaN:
   * none)], oldest first, at most RECENT_MAX probes: what serverHealth needs for a 30-day window.
   */
  recent: number[];
}

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
}

/** The fold's string tables by value (the inverse of Fold's arrays). */
export interface FoldTables {
  hash: Map<string, number>;
  run: Map<string, number>;
  day: Map<string, number>;
}

export function emptyFold(): { fold: Fold; tables: FoldTables } {
  const tables: FoldTables = { hash: new Map(), run: new Map(), day: new Map() };
  return { fold: { targets: new Map(), hashes: [], hashId: tables.hash, runIds: [], dayIds: [], bodyType: new Map() }, tables };
}

/** Fold one day's digest (rows in time order) into the per-target state. */
export function foldDay(fold: Fold, t: FoldTables, g: DayDigest, d: number): void {
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
        okMs: [], okTools: [], okBody: [], okDay: [], okRun: [], okCount: [], okIso: null, retired: null, probeMs: -1, recent: [],
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
    if (ATTEMPT[code]) {
      s.probeMs = ms;
      const r = s.recent;
      r.push(ms, code === OK ? 1 : 0, g.latency[i]!);
      let drop = 0;
      while (r.length - drop > RECENT_MAX * 3 || r[drop]! < ms - RECENT_MS) drop += 3;
      if (drop > 0) r.splice(0, drop);
    }
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
