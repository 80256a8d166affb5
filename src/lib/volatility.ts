// volatility: how change is spread over targets in a window (methodology v1, "Population figures").
// Volatile = changed at least REPEAT_MOVER_CHANGES (2) times in the window; its share of all changes says
// whether drift is a population habit or the work of a few repeat movers. The half-life counts
// contracts, not servers, so these are the figures that say who it rests on (in a 60-day demo
// one server made 20 of 45 changes and only 11 of 89 answering servers ever changed).
import { REPEAT_MOVER_CHANGES, type Change, type ContractVersion, type Drift } from './detect-drift.ts';
import { byCodeUnits } from './tool-map.ts';

export interface TargetChanges {
  target: string;
  changes: number;
}

export interface Volatility {
  /** Targets given (all of them, changed or not, answering or not). */
  targets: number;
  /** Targets whose ok history (first to last ok observation) overlaps the window: the servers that answered. */
  answering: number;
  /** Changes in the window across all targets. */
  changes: number;
  /** changes / targets (NaN with no targets). */
  changesPerTarget: number;
  /** Targets with ≥ 1 change in the window. */
  changed: number;
  /** The repeat movers: targets with ≥ 2 changes in the window, most changes first, then by code units. */
  volatile: TargetChanges[];
  volatileChanges: number;
  /** volatileChanges / changes (NaN with no changes). */
  volatileShare: number;
  /** Every target, most changes first, then by code units: perTarget[0] is the busiest. */
  perTarget: TargetChanges[];
}

/** What volatility reads of a target's drift: its changes' days and its versions' day spans (a Drift is one). */
export type VolatilityInput = Pick<Drift, 'target'> & { changes: readonly Pick<Change, 'day'>[]; versions: readonly Pick<ContractVersion, 'first_day' | 'last_day'>[] };

/** Window bounds are inclusive UTC days ('YYYY-MM-DD'); omit one for an open end. */
export function volatility(drifts: readonly VolatilityInput[], window: { from?: string; to?: string } = {}): Volatility {
  const inWindow = (day: string) => (window.from === undefined || day >= window.from) && (window.to === undefined || day <= window.to);
  const perTarget = drifts
    .map((d) => ({ target: d.target, changes: d.changes.filter((c) => inWindow(c.day)).length }))
    .sort((a, b) => b.changes - a.changes || byCodeUnits(a.target, b.target));
  const changes = perTarget.reduce((s, t) => s + t.changes, 0);
  const volatile = perTarget.filter((t) => t.changes >= REPEAT_MOVER_CHANGES);
  const volatileChanges = volatile.reduce((s, t) => s + t.changes, 0);
  return {
    targets: drifts.length,
    // Lean rows keep no failures, so "answered in the window" is read as: its ok history overlaps it.
    answering: drifts.filter((d) => d.versions.some((v) => (window.from === undefined || v.last_day >= window.from) && (window.to === undefined || v.first_day <= window.to))).length,
    changes,
    changesPerTarget: drifts.length === 0 ? NaN : changes / drifts.length,
    changed: perTarget.filter((t) => t.changes > 0).length,
    volatile,
    volatileChanges,
    volatileShare: changes === 0 ? NaN : volatileChanges / changes,
    perTarget,
  };
}
