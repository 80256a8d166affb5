// volatility: how change is spread over targets in a window (methodology v1, "Population figures").
// Volatile = changed at least REPEAT_MOVER_CHANGES (2) times in the window; its share of all changes says
// whether drift is a population habit or the work of a few repeat movers.
import { REPEAT_MOVER_CHANGES, type Drift } from './detect-drift.ts';
import { byCodeUnits } from './tool-map.ts';

export interface Volatility {
  /** Targets given (all of them, changed or not). */
  targets: number;
  /** Changes in the window across all targets. */
  changes: number;
  /** changes / targets (NaN with no targets). */
  changesPerTarget: number;
  /** Targets with ≥ 1 change in the window. */
  changed: number;
  /** Targets with ≥ 2 changes in the window, sorted by code units. */
  volatile: string[];
  volatileChanges: number;
  /** volatileChanges / changes (NaN with no changes). */
  volatileShare: number;
  perTarget: { target: string; changes: number }[];
}

/** Window bounds are inclusive UTC days ('YYYY-MM-DD'); omit one for an open end. */
export function volatility(drifts: readonly Drift[], window: { from?: string; to?: string } = {}): Volatility {
  const perTarget = drifts
    .map((d) => ({
      target: d.target,
      changes: d.changes.filter((c) => (window.from === undefined || c.day >= window.from) && (window.to === undefined || c.day <= window.to)).length,
    }))
    .sort((a, b) => b.changes - a.changes || byCodeUnits(a.target, b.target));
  const changes = perTarget.reduce((s, t) => s + t.changes, 0);
  const volatile = perTarget.filter((t) => t.changes >= REPEAT_MOVER_CHANGES);
  const volatileChanges = volatile.reduce((s, t) => s + t.changes, 0);
  return {
    targets: drifts.length,
    changes,
    changesPerTarget: drifts.length === 0 ? NaN : changes / drifts.length,
    changed: perTarget.filter((t) => t.changes > 0).length,
    volatile: volatile.map((t) => t.target).sort(byCodeUnits),
    volatileChanges,
    volatileShare: changes === 0 ? NaN : volatileChanges / changes,
    perTarget,
  };
}
