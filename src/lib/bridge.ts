// The bridge between methodology v1 and v2 (methodology v2, "The bridge"): for a while every run records
// both series, so the two can be compared on the same runs; then v2 runs alone and the headline moves.
// One rule for the collector (which series a run records under `--methodology auto`) and the site
// (which series the headline uses), both read off runs.jsonl, never off the clock:
//   - a bridge day is a day with a run that finished, full (not --limit), in BOTH series — the same
//     run_id with a v1 row and a v2 row, each `finished` and not `partial`;
//   - the bridge is complete once the archive holds BRIDGE_DAYS distinct bridge days.
// And the comparison the changelog's bridge note publishes: bridgeTable(), a cross-table of v1 outcome
// and error class against v2 status over the targets both series recorded in the same run.
import { byCodeUnits } from './canonical.ts';
import type { AnyRun, RunSeries } from './contract/run.ts';
import { ERROR_CLASSES } from './contract/observation.ts';
import { V2_STATUSES } from './v2-status.ts';

/** Distinct days with finished full runs of both series after which `auto` records v2 alone. */
export const BRIDGE_DAYS = 14;

/** The bridge days of an archive's runs (sorted): days of a run finished and full in both series. */
export function bridgeDays(runs: readonly AnyRun[]): string[] {
  const full = (r: AnyRun) => r.status === 'finished' && !r.partial;
  const v1 = new Set(runs.filter((r) => r.methodology_version === 'v1' && full(r)).map((r) => r.run_id));
  const days = new Set<string>();
  for (const r of runs) if (r.methodology_version === 'v2' && full(r) && v1.has(r.run_id)) days.add(r.day);
  return [...days].sort();
}

/** Whether the bridge is complete (`bridgeLength` days: BRIDGE_DAYS unless a local world says otherwise). */
export function bridgeComplete(runs: readonly AnyRun[], bridgeLength: number = BRIDGE_DAYS): boolean {
  return bridgeDays(runs).length >= bridgeLength;
}

/** `--methodology`: one series, both, or `auto` (both until the bridge is complete, then v2). */
export const METHODOLOGY_CHOICES = ['v1', 'v2', 'v1,v2', 'auto'] as const;
export type MethodologyChoice = (typeof METHODOLOGY_CHOICES)[number];

/** The series a run records, in the order v1, v2, given the runs before it. */
export function seriesToRecord(choice: MethodologyChoice, earlierRuns: readonly AnyRun[], bridgeLength: number = BRIDGE_DAYS): RunSeries[] {
  switch (choice) {
    case 'v1':
      return ['v1'];
    case 'v2':
      return ['v2'];
    case 'v1,v2':
      return ['v1', 'v2'];
    case 'auto':
      return bridgeComplete(earlierRuns, bridgeLength) ? ['v2'] : ['v1', 'v2'];
    default: {
      const never: never = choice;
      throw new Error(`unknown methodology choice ${String(never)}`);
    }
  }
}

/**
 * The methodology a headline figure rests on, in words, from the headline's own decision (the loader's
 * `headlineOf`: v1 until the bridge is complete, then v2 stitched onto v1 before the seam): what every
 * citation, export and footer names, so a figure is never cited under a method it was not computed by.
 */
export function headlineMethodology(h: { series: 'v1' | 'stitched'; seamDay: string | null }): string {
  if (h.series === 'v1') return 'v1';
  if (h.seamDay === null) throw new Error('a stitched headline has a seam day');
  return `v2, stitched onto v1 before ${h.seamDay}`;
}

/** What bridgeTable reads of a v1 row. */
export interface BridgeRowV1 {
  run_id: string;
  target: string;
  outcome: string;
  error_class: string | null;
  tools_sha256: string | null;
}

/** What bridgeTable reads of a v2 row. */
export interface BridgeRowV2 {
  run_id: string;
  target: string;
  outcome: string;
  status: string | null;
  tools_sha256: string | null;
}

export interface BridgeCell {
  /** v1's outcome, or its error class for an error row (`http_4xx`, `timeout`, …). */
  v1: string;
  /** v2's status, or its outcome for a row without one (`no_endpoint`, `retired`, `not_attempted`). */
  v2: string;
  count: number;
}

export interface BridgeTable {
  /** Runs that recorded both series (rows of other runs are left out and counted in `unpaired`). */
  runs: number;
  /** (run, target) pairs with a row in each series. */
  pairs: number;
  /** Rows of one series with no row of the other in the same run (a run of one series only, or a target missing). */
  unpaired: { v1: number; v2: number };
  /** Row labels present, in the order v1 reads them: ok, the error classes, then the rows never probed. */
  v1Labels: string[];
  /** Column labels present, in v2's precedence order, then the rows never probed. */
  v2Labels: string[];
  /** Non-zero cells, in label order. */
  cells: BridgeCell[];
  /** Pairs ok in both series, and those of them whose contract hashes agree. */
  bothOk: number;
  hashesAgree: number;
  /** Targets ok in both series on at least one run; those whose hashes agreed on every such run; the share (null when none). */
  targetsBothOk: number;
  targetsAgree: number;
  targetsAgreeShare: number | null;
  /** Pairs ok in v2 but not in v1, and ok in v1 but not in v2. */
  okOnlyV2: number;
  okOnlyV1: number;
  /** Targets ok in v2 on some run and ok in v1 on none: what only v2 sees (modern-only servers, first pages that hid the rest…), sorted. */
  newlyVisible: string[];
  /** Targets ok in v1 on some run and ok in v2 on none, sorted. */
  lostInV2: string[];
}

const V1_ORDER = ['ok', ...ERROR_CLASSES.filter((c) => c !== 'no_endpoint'), 'no_endpoint', 'not_attempted', 'excluded', 'retired'];
const V2_ORDER = [...V2_STATUSES, 'no_endpoint', 'not_attempted', 'retired'];

export function v1Label(r: BridgeRowV1): string {
  return r.outcome === 'error' ? (r.error_class ?? 'error') : r.outcome;
}

export function v2Label(r: BridgeRowV2): string {
  return r.status ?? r.outcome;
}

/**
 * The bridge's cross-table over rows of both series: each (run, target) recorded by both is one pair,
 * counted in the cell of its v1 label and its v2 label. Pure: pass the bridge runs' rows (any order).
 */
export function bridgeTable(v1Rows: Iterable<BridgeRowV1>, v2Rows: Iterable<BridgeRowV2>): BridgeTable {
  const key = (r: { run_id: string; target: string }) => `${r.run_id}\0${r.target}`;
  const v2 = new Map<string, BridgeRowV2>();
  for (const r of v2Rows) v2.set(key(r), r);
  const cells = new Map<string, number>();
  const runs = new Set<string>();
  const paired = new Set<string>();
  let unpairedV1 = 0;
  let bothOk = 0;
  let hashesAgree = 0;
  let okOnlyV2 = 0;
  let okOnlyV1 = 0;
  // Per target: ok in v1 ever, ok in v2 ever, ok in both ever, disagreed ever.
  const t = new Map<string, { v1: boolean; v2: boolean; both: boolean; disagree: boolean }>();
  const of = (name: string) => {
    let x = t.get(name);
    if (!x) t.set(name, (x = { v1: false, v2: false, both: false, disagree: false }));
    return x;
  };
  for (const a of v1Rows) {
    const k = key(a);
    const b = v2.get(k);
    if (!b) {
      unpairedV1++;
      continue;
    }
    paired.add(k);
    runs.add(a.run_id);
    const cell = `${v1Label(a)}\0${v2Label(b)}`;
    cells.set(cell, (cells.get(cell) ?? 0) + 1);
    const okA = a.outcome === 'ok';
    const okB = b.outcome === 'ok';
    const x = of(a.target);
    if (okA) x.v1 = true;
    if (okB) x.v2 = true;
    if (okA && okB) {
      bothOk++;
      x.both = true;
      if (a.tools_sha256 !== null && a.tools_sha256 === b.tools_sha256) hashesAgree++;
      else x.disagree = true;
    } else if (okB) okOnlyV2++;
    else if (okA) okOnlyV1++;
  }
  const pairs = paired.size;
  const v1Labels = new Set<string>();
  const v2Labels = new Set<string>();
  for (const c of cells.keys()) {
    const [l1, l2] = c.split('\0') as [string, string];
    v1Labels.add(l1);
    v2Labels.add(l2);
  }
  const order = (labels: Set<string>, canonical: readonly string[]) => [...labels].sort((x, y) => rank(canonical, x) - rank(canonical, y) || byCodeUnits(x, y));
  const rows = order(v1Labels, V1_ORDER);
  const cols = order(v2Labels, V2_ORDER);
  const targets = [...t.entries()];
  const targetsBothOk = targets.filter(([, x]) => x.both).length;
  const targetsAgree = targets.filter(([, x]) => x.both && !x.disagree).length;
  return {
    runs: runs.size,
    pairs,
    unpaired: { v1: unpairedV1, v2: v2.size - pairs },
    v1Labels: rows,
    v2Labels: cols,
    cells: rows.flatMap((l1) => cols.flatMap((l2) => (cells.has(`${l1}\0${l2}`) ? [{ v1: l1, v2: l2, count: cells.get(`${l1}\0${l2}`)! }] : []))),
    bothOk,
    hashesAgree,
    targetsBothOk,
    targetsAgree,
    targetsAgreeShare: targetsBothOk === 0 ? null : targetsAgree / targetsBothOk,
    okOnlyV2,
    okOnlyV1,
    newlyVisible: targets.filter(([, x]) => x.v2 && !x.v1).map(([n]) => n).sort(byCodeUnits),
    lostInV2: targets.filter(([, x]) => x.v1 && !x.v2).map(([n]) => n).sort(byCodeUnits),
  };
}

function rank(canonical: readonly string[], label: string): number {
  const i = canonical.indexOf(label);
  return i < 0 ? canonical.length : i;
}
