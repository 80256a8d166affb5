import { describe, expect, it } from 'vitest';
import { detectDrift, volatility } from '../../src/lib/index.ts';
import { row } from './helpers/rows.ts';

const drift = (target: string, labels: string[]) => detectDrift(labels.map((l, i) => row(`2026-05-0${i + 1}`, { ok: l }, { target })));
// a: changes on 05-02, 05-03, 05-04; b: one change on 05-03; c: none
const drifts = () => [drift('a', ['A', 'B', 'C', 'D']), drift('b', ['A', 'A', 'B']), drift('c', ['A', 'A'])];

describe('volatility(drifts, window)', () => {
  it('counts changes per target and the volatile subset (≥ 2 changes) with its share of all changes', () => {
    expect(volatility(drifts())).toEqual({
      targets: 3,
      changes: 4,
      changesPerTarget: 4 / 3,
      changed: 2,
      volatile: ['a'],
      volatileChanges: 3,
      volatileShare: 3 / 4,
      perTarget: [{ target: 'a', changes: 3 }, { target: 'b', changes: 1 }, { target: 'c', changes: 0 }],
    });
  });
  it.each([
    [{ from: '2026-05-03' }, 3, ['a'], 2 / 3],
    [{ to: '2026-05-02' }, 1, [], 0],
    [{ from: '2026-05-03', to: '2026-05-03' }, 2, [], 0],
  ])('limits to the window %j (inclusive days)', (window, changes, volatile, share) => {
    const v = volatility(drifts(), window);
    expect([v.changes, v.volatile, v.volatileShare]).toEqual([changes, volatile, share]);
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
    expect(v.volatile).toEqual(['B', 'b', 'd']);
    expect(volatility([...given].reverse())).toEqual(v);
  });
  it('gives NaN shares when nothing changed', () => {
    expect(volatility([]).volatileShare).toBeNaN();
    expect(volatility([]).changesPerTarget).toBeNaN();
  });
});
