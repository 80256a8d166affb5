import { describe, expect, it } from 'vitest';
import { detectDrift, type Drift } from '../../src/lib/detect-drift.ts';
import { halfLifeNote, halfLifeText } from '../../src/lib/half-life-text.ts';
import { kaplanMeier } from '../../src/lib/survival/kaplan-meier.ts';
import { volatility } from '../../src/lib/volatility.ts';
import { row } from './helpers/rows.ts';

const text = (t: number[], e: (0 | 1)[]) => halfLifeText(kaplanMeier(t, e.map(Boolean)));
const times = (n: number, t: number) => Array.from({ length: n }, () => t);
const flags = (n: number, e: 0 | 1) => Array.from({ length: n }, () => e);

describe('halfLifeText(rows)', () => {
  it.each([
    // aml "Maintained": R prints median 31, and the plain band crosses 0.5 at 18 and 48 (half-life tests).
    ['a median with both bounds', [9, 13, 13, 18, 23, 28, 31, 34, 45, 48, 161], [1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0], 'median', '31 days', '95% CI 18 to 48'],
    ['a median whose upper band never reaches 0.5', [1, 2, 3, 4], [1, 1, 0, 0], 'median', '2 days', '95% CI 1 to more than 4'],
    ["R's midpoint on an exact 0.5 plateau", [1, 2, 3, 4], [1, 1, 1, 1], 'median', '2.5 days', '95% CI 1 to 4'],
    // S(1) = 1/4 with SE 1/4 · sqrt(3/4): the upper band (0.674) stays above 0.5 until S = 0 at 2.
    ['a median of one day (singular)', [1, 1, 1, 2], [1, 1, 1, 1], 'median', '1 day', '95% CI 1 to 2'],
    ['a curve above 50% whose lower band crossed', [1, 2, 3, 4, 5], [1, 0, 0, 0, 0], 'beyond', 'more than 5 days', '95% CI 1 to more than 5'],
    ['a curve above 50% with its whole band above', [...times(10, 1), ...times(90, 30)], [...flags(10, 1), ...flags(90, 0)], 'beyond', 'more than 30 days', '95% CI more than 30'],
    ['a curve above 50% up to one day (singular)', [1, 1, 1], [1, 0, 0], 'beyond', 'more than 1 day', '95% CI 1 to more than 1'],
  ] as const)('words %s', (_what, t, e, kind, value, interval) => {
    expect(text([...t], [...e])).toEqual({ kind, value, interval, text: `${value} (${interval})` });
  });
  it.each([
    ['no contracts', [], []],
    ['nothing observed past day 0', [0, 0], [0, 0]],
  ] as const)('is the empty state "—" for %s', (_what, t, e) => {
    expect(text([...t], [...e])).toEqual({ kind: 'none', value: '—', interval: null, text: '—' });
  });
});

/** One target's drift with `changes` changes on consecutive days (reverts included: they count). */
function mover(target: string, changes: number): Drift {
  return detectDrift(Array.from({ length: changes + 1 }, (_, i) => row(new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10), { ok: i % 2 ? 'B' : 'A' }, { target })));
}
const servers = (prefix: string, n: number, changes: number) => Array.from({ length: n }, (_, i) => mover(`${prefix}${i}`, changes));
const silent = detectDrift([row('2026-01-01', { error: 'auth' }, { target: 'silent' })]);

describe('halfLifeNote(volatility)', () => {
  it('names the counts behind the 60-day demo: 45 changes, 11 of 89 servers, the repeat movers and the busiest', () => {
    const drifts = [mover('a', 20), mover('b', 10), mover('c', 5), mover('d', 3), ...servers('once', 7, 1), ...servers('calm', 78, 0), silent];
    expect(halfLifeNote(volatility(drifts))).toBe(
      'It counts contracts, not servers: its 45 changes came from 11 of the 89 servers that answered. 4 servers changed more than once and made 38 of the 45 (84%); the busiest alone made 20 (44%).',
    );
  });
  it.each([
    ['no repeat mover', [...servers('once', 2, 1), ...servers('calm', 3, 0)], 'It counts contracts, not servers: its 2 changes came from 2 of the 5 servers that answered.'],
    ['one change from the only server', [mover('a', 1)], 'It counts contracts, not servers: its 1 change came from the one server that answered.'],
    ['changes from every server', [mover('a', 1), mover('b', 1)], 'It counts contracts, not servers: its 2 changes came from all 2 servers that answered.'],
    ['one repeat mover', [mover('a', 3), mover('b', 1), mover('c', 0)], 'It counts contracts, not servers: its 4 changes came from 2 of the 3 servers that answered. One server changed more than once and made 3 of the 4 (75%).'],
    ['only repeat movers', [mover('a', 3), mover('b', 2), mover('c', 0)], 'It counts contracts, not servers: its 5 changes came from 2 of the 3 servers that answered. 2 servers changed more than once and made all 5; the busiest alone made 3 (60%).'],
    ['both changes from one repeat mover', [mover('a', 2), mover('b', 0)], 'It counts contracts, not servers: its 2 changes came from 1 of the 2 servers that answered. One server changed more than once and made both.'],
    ['a share that rounds to 100% without being all', [mover('a', 199), mover('b', 1)], 'It counts contracts, not servers: its 200 changes came from all 2 servers that answered. One server changed more than once and made 199 of the 200 (over 99%).'],
    ['a share that rounds to 0% without being none', [mover('a', 2), ...servers('once', 498, 1)], 'It counts contracts, not servers: its 500 changes came from all 499 servers that answered. One server changed more than once and made 2 of the 500 (under 1%).'],
    ['no change yet', [mover('a', 0), mover('b', 0)], 'It counts contracts, not servers: none of the 2 servers that answered has changed its contract yet.'],
    ['no change yet from the only server', [mover('a', 0), silent], 'It counts contracts, not servers: the one server that answered has not changed its contract yet.'],
  ])('words %s', (_what, drifts, sentence) => {
    expect(halfLifeNote(volatility(drifts))).toBe(sentence);
  });
  it('is null when no server answered', () => {
    expect(halfLifeNote(volatility([silent]))).toBeNull();
    expect(halfLifeNote(volatility([]))).toBeNull();
  });
});
