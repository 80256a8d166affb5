import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { everChangedShare } from '../../src/lib/ever-changed-share.ts';
import { kaplanMeier } from '../../src/lib/survival/kaplan-meier.ts';

// s1 changed on day 1 and was followed 5 days; s2 changed on day 3, last seen that day; s3 joined late
// (followed 2 days, unchanged); s4 followed 5 days, unchanged. Kaplan–Meier: S(1) = 3/4 (1 of 4 at
// risk), S(3) = 3/4 · 1/2 (1 of 2 at risk: s3 left at 2).
const four = [
  { duration: 1, event: true, observed_days: 5 },
  { duration: 3, event: true, observed_days: 3 },
  { duration: 2, event: false, observed_days: 2 },
  { duration: 5, event: false, observed_days: 5 },
];

describe('everChangedShare(intervals, opts)', () => {
  it('gives 1 − S(d), the at-risk count, the complete-case share and the day-one line for every day observed', () => {
    const rows = everChangedShare(four);
    expect(rows.map((r) => [r.days, r.share, r.at_risk, r.observed, r.changed, r.observed_share, r.linear])).toEqual([
      [0, 0, 4, 4, 0, 0, 0],
      [1, 1 / 4, 4, 4, 1, 1 / 4, 1 / 4],
      [2, 1 / 4, 3, 4, 1, 1 / 4, 2 / 4],
      [3, 1 - 3 / 8, 2, 3, 2, 2 / 3, 3 / 4],
      [4, 1 - 3 / 8, 1, 2, 1, 1 / 2, 1],
      [5, 1 - 3 / 8, 1, 2, 1, 1 / 2, 1],
    ]);
  });
  it('takes its band from the Kaplan–Meier band of S, flipped', () => {
    const km = kaplanMeier(four.map((i) => i.duration), four.map((i) => i.event));
    const rows = everChangedShare(four);
    expect([rows[0]!.lower, rows[0]!.upper]).toEqual([0, 0]);
    expect([rows[4]!.lower, rows[4]!.upper]).toEqual([1 - km[2]!.upper, 1 - km[2]!.lower]);
  });
  it('does not count late joiners as unchanged (a plain changed / all servers would halve the share)', () => {
    const early = Array.from({ length: 10 }, (_, i) => (i < 3 ? { duration: 10, event: true, observed_days: 29 } : { duration: 29, event: false, observed_days: 29 }));
    const late = Array.from({ length: 10 }, () => ({ duration: 2, event: false, observed_days: 2 }));
    const last = everChangedShare([...early, ...late]).at(-1)!;
    expect([last.days, last.share, last.observed, last.changed]).toEqual([29, 1 - 7 / 10, 10, 3]);
    expect(last.changed / 20).toBe(0.15);
  });
  it('draws the constant-rate line from the share at `baseline` days, capped at 1, and none before that day is observed', () => {
    const rows = everChangedShare(four, { baseline: 3 });
    expect(rows.map((r) => r.linear)).toEqual([0, 5 / 24, 10 / 24, 15 / 24, 20 / 24, 1]);
    expect(everChangedShare(four, { baseline: 6 }).every((r) => r.linear === null)).toBe(true);
  });
  it('equals the plain share when every server is followed to the end (no censoring before the last day)', () => {
    const servers = fc.integer({ min: 1, max: 30 }).chain((D) =>
      fc.array(
        fc.oneof(
          fc.record({ duration: fc.integer({ min: 0, max: D }), event: fc.constant(true), observed_days: fc.integer({ min: D, max: D + 5 }) }),
          fc.record({ duration: fc.constant(D), event: fc.constant(false), observed_days: fc.integer({ min: D, max: D + 5 }) }),
        ),
        { minLength: 1, maxLength: 40 },
      ),
    );
    fc.assert(
      fc.property(servers, (xs) => {
        for (const r of everChangedShare(xs)) {
          expect(r.observed).toBe(xs.length);
          expect(r.share).toBeCloseTo(r.changed / xs.length, 12);
          expect(r.observed_share).toBe(r.changed / xs.length);
        }
      }),
    );
  });
  it('keeps its invariants on any input: share rises within its band, denominators only fall (property)', () => {
    const server = fc.record({ duration: fc.integer({ min: 0, max: 40 }), event: fc.boolean(), extra: fc.integer({ min: 0, max: 40 }) }).map(({ duration, event, extra }) => ({ duration, event, observed_days: duration + extra }));
    fc.assert(
      fc.property(fc.array(server, { minLength: 1, maxLength: 60 }), (xs) => {
        const rows = everChangedShare(xs);
        expect(rows.length).toBe(Math.max(...xs.map((x) => x.duration)) + 1);
        rows.forEach((r, d) => {
          expect(r.days).toBe(d);
          expect(r.lower).toBeLessThanOrEqual(r.share);
          expect(r.share).toBeLessThanOrEqual(r.upper);
          expect(r.changed).toBeLessThanOrEqual(r.observed);
          const prev = rows[d - 1];
          if (prev) {
            expect(r.share).toBeGreaterThanOrEqual(prev.share);
            expect(r.at_risk).toBeLessThanOrEqual(prev.at_risk);
            expect(r.observed).toBeLessThanOrEqual(prev.observed);
          }
        });
      }),
    );
  });
  it('is [] with no servers', () => {
    expect(everChangedShare([])).toEqual([]);
  });
  it.each([
    ['a fractional duration', [{ duration: 1.5, event: true, observed_days: 2 }], {}],
    ['a follow-up shorter than the duration', [{ duration: 3, event: true, observed_days: 2 }], {}],
    ['a baseline of 0 days', four, { baseline: 0 }],
  ])('throws a RangeError for %s', (_what, xs, opts) => {
    expect(() => everChangedShare(xs, opts)).toThrow(RangeError);
  });
  it('says why it refuses, at each bound and not just inside it', () => {
    const baseline = new RangeError('everChangedShare baseline must be a whole number of days ≥ 1');
    const durations = new RangeError('everChangedShare durations must be whole days ≥ 0');
    const followed = new RangeError('everChangedShare observed_days must be whole days ≥ duration');
    expect(() => everChangedShare(four, { baseline: 0 })).toThrow(baseline);
    expect(() => everChangedShare(four, { baseline: 1.5 })).toThrow(baseline);
    expect(() => everChangedShare(four, { baseline: 1 })).not.toThrow();
    expect(() => everChangedShare([{ duration: -1, event: false, observed_days: 0 }])).toThrow(durations);
    expect(() => everChangedShare([{ duration: 0.5, event: false, observed_days: 1 }])).toThrow(durations);
    expect(everChangedShare([{ duration: 0, event: false, observed_days: 0 }]).map((r) => [r.days, r.share, r.observed])).toEqual([[0, 0, 1]]);
    expect(() => everChangedShare([{ duration: 3, event: true, observed_days: 2 }])).toThrow(followed);
    expect(() => everChangedShare([{ duration: 2, event: true, observed_days: 2.5 }])).toThrow(followed);
    expect(everChangedShare([{ duration: 2, event: true, observed_days: 2 }]).map((r) => r.share)).toEqual([0, 0, 1]);
  });
});
