import { describe, expect, it } from 'vitest';
import { detectDrift } from '../../src/lib/detect-drift.ts';
import { volatility } from '../../src/lib/volatility.ts';
import { row } from './helpers/rows.ts';

const drift = (target: string, labels: string[]) => detectDrift(labels.map((l, i) => row(`2026-05-0${i + 1}`, { ok: l }, { target })));
// a: changes on 05-02, 05-03, 05-04; b: one change on 05-03; c: none; d: never answered
// A function, not a shared constant: a mutant that sorts or edits its input in place cannot leak into the next test.
const drifts = () => [drift('a', ['A', 'B', 'C', 'D']), drift('b', ['A', 'A', 'B']), drift('c', ['A', 'A']), detectDrift([row('2026-05-01', { error: 'auth' }, { target: 'd' })])];

describe('volatility(drifts, window)', () => {
  it('counts changes per target and the volatile subset (≥ 2 changes) with its share of all changes', () => {
    expect(volatility(drifts())).toEqual({
      targets: 4,
      answering: 3,
      changes: 4,
      changesPerTarget: 4 / 4,
      changed: 2,
      volatile: [{ target: 'a', changes: 3 }],
      volatileChanges: 3,
      volatileShare: 3 / 4,
      perTarget: [{ target: 'a', changes: 3 }, { target: 'b', changes: 1 }, { target: 'c', changes: 0 }, { target: 'd', changes: 0 }],
    });
  });
  it.each([
    [{ from: '2026-05-03' }, 3, [{ target: 'a', changes: 2 }], 2 / 3, 2],
    [{ to: '2026-05-02' }, 1, [], 0, 3],
    [{ from: '2026-05-03', to: '2026-05-03' }, 2, [], 0, 2],
    [{ from: '2026-06-01' }, 0, [], NaN, 0],
  ])('limits to the window %j (inclusive days), answering included', (window, changes, volatile, share, answering) => {
    const v = volatility(drifts(), window);
    expect([v.changes, v.volatile, v.volatileShare, v.answering]).toEqual([changes, volatile, share, answering]);
  });
  it('lists the repeat movers most changes first, ties by code units', () => {
    const v = volatility([drift('z', ['A', 'B', 'A']), drift('m', ['A', 'B', 'C', 'D']), drift('b', ['A', 'B', 'A'])]);
    expect(v.volatile).toEqual([{ target: 'm', changes: 3 }, { target: 'b', changes: 2 }, { target: 'z', changes: 2 }]);
  });
  it('lists targets by changes, most first, ties and the volatile list in code-unit order, whatever the input order', () => {
    // 'B' sorts before 'b' in code units (a locale sort would put them the other way round).
    const given = [drift('c', ['A', 'A']), drift('b', ['A', 'B', 'C']), drift('a', ['A', 'B']), drift('B', ['A', 'B', 'C']), drift('d', ['A', 'B', 'C', 'D'])];
    const v = volatility(given);
    expect(v.perTarget).toEqual([
      { target: 'd', changes: 3 },
      { target: 'B', changes: 2 },
      { target: 'b', changes: 2 },
      { target: 'a', changes: 1 },
      { target: 'c', changes: 0 },
    ]);
    expect(v.volatile).toEqual([{ target: 'd', changes: 3 }, { target: 'B', changes: 2 }, { target: 'b', changes: 2 }]);
    expect(volatility([...given].reverse())).toEqual(v);
  });
  it('counts a target as answering only when its ok history overlaps the window, edges included', () => {
    const late = [drift('late', ['A', 'B'])];
    // 'late' answered on 05-01 and 05-02 only
    expect(volatility(late, { to: '2026-05-01' }).answering).toBe(1);
    expect(volatility(late, { from: '2026-05-02' }).answering).toBe(1);
    expect(volatility(late, { from: '2026-05-03' }).answering).toBe(0);
    const later = [detectDrift([row('2026-05-10', { ok: 'A' }, { target: 'x' }), row('2026-05-12', { ok: 'A' }, { target: 'x' })])];
    expect(volatility(later, { to: '2026-05-09' }).answering).toBe(0);
    expect(volatility(later, { to: '2026-05-10' }).answering).toBe(1);
    expect(volatility(later, { from: '2026-05-12', to: '2026-05-20' }).answering).toBe(1);
  });
  it('gives NaN shares when nothing changed', () => {
    expect(volatility([]).volatileShare).toBeNaN();
    expect(volatility([]).changesPerTarget).toBeNaN();
  });
});
