// src/lib/observation-order.ts: the time order every drift and lifetime figure reads one target's rows in.
import { describe, expect, it } from 'vitest';
import { daysBetween, inTimeOrder } from '../../src/lib/observation-order.ts';

type R = { target: string; observed_at: string; run_id: string; label: string };
const r = (label: string, observed_at: string, run_id = 'r1', target = 't'): R => ({ target, observed_at, run_id, label });
const labels = (rows: readonly R[]) => rows.map((x) => x.label);

describe('inTimeOrder(rows, caller)', () => {
  it('orders by the instant, not the string: an offset and fraction digits are parsed', () => {
    const rows = [
      r('c', '2026-01-02T00:30:00+01:00'), // 2026-01-01T23:30Z
      r('d', '2026-01-01T23:30:00.001Z'), // one millisecond later
      r('a', '2026-01-01T06:00:00Z'),
      r('b', '2026-01-01T06:00:00.5Z'),
    ];
    expect(labels(inTimeOrder(rows, 'x'))).toEqual(['a', 'b', 'c', 'd']);
    expect(labels(inTimeOrder([...rows].reverse(), 'x'))).toEqual(['a', 'b', 'c', 'd']);
  });
  it('breaks a tie of instants by run_id, in code-unit order both ways', () => {
    const at = '2026-01-01T06:00:00Z';
    const rows = [r('Z', at, 'r-Z'), r('b', at, 'r-b'), r('a', at, 'r-a'), r('B', at, 'r-B')];
    // 'B' (0x42) and 'Z' (0x5A) sort before 'a' (0x61): not a locale order.
    expect(labels(inTimeOrder(rows, 'x'))).toEqual(['B', 'Z', 'a', 'b']);
    expect(labels(inTimeOrder([...rows].reverse(), 'x'))).toEqual(['B', 'Z', 'a', 'b']);
    // The instant still comes first: a later row with a smaller run_id stays later.
    expect(labels(inTimeOrder([r('late', '2026-01-01T06:00:01Z', 'a'), r('early', at, 'z')], 'x'))).toEqual(['early', 'late']);
  });
  it('keeps the input order of rows tied on both instant and run_id', () => {
    const at = '2026-01-01T06:00:00Z';
    const tied = ['p', 'q', 's', 'u', 'v'].map((l) => r(l, at, 'same'));
    expect(labels(inTimeOrder(tied, 'x'))).toEqual(['p', 'q', 's', 'u', 'v']);
    expect(labels(inTimeOrder([...tied].reverse(), 'x'))).toEqual(['v', 'u', 's', 'q', 'p']);
    // Equal instants written differently are still a tie.
    const spelled = [r('first', '2026-01-01T07:00:00+01:00', 'same'), r('second', '2026-01-01T06:00:00.000Z', 'same')];
    expect(labels(inTimeOrder(spelled, 'x'))).toEqual(['first', 'second']);
  });
  it('returns a copy and leaves the input as it was', () => {
    const rows = [r('b', '2026-01-02T00:00:00Z'), r('a', '2026-01-01T00:00:00Z')];
    const out = inTimeOrder(rows, 'x');
    expect(labels(rows)).toEqual(['b', 'a']);
    expect(out).not.toBe(rows);
    expect(inTimeOrder([], 'x')).toEqual([]);
  });
  it('refuses rows of two targets and an unparseable instant, naming its caller', () => {
    expect(() => inTimeOrder([r('a', '2026-01-01T00:00:00Z'), r('b', '2026-01-01T00:00:00Z', 'r1', 'other')], 'myCaller')).toThrow(
      new RangeError("myCaller takes one target's rows, got more than one target"),
    );
    // The near miss: one target, any number of rows.
    expect(() => inTimeOrder([r('a', '2026-01-01T00:00:00Z'), r('b', '2026-01-01T00:00:00Z')], 'myCaller')).not.toThrow();
    expect(() => inTimeOrder([r('a', '2026-01-01T00:00:00Z'), r('b', 'yesterday')], 'myCaller')).toThrow(new RangeError('myCaller: unparseable observed_at'));
  });
});

describe('daysBetween(from, to)', () => {
  it('counts whole UTC calendar days, signed', () => {
    expect(daysBetween('2026-01-01', '2026-01-01')).toBe(0);
    expect(daysBetween('2026-01-01', '2026-01-02')).toBe(1);
    expect(daysBetween('2026-01-31', '2026-03-01')).toBe(29);
    expect(daysBetween('2028-02-28', '2028-03-01')).toBe(2); // a leap day
    expect(daysBetween('2026-01-02', '2026-01-01')).toBe(-1);
  });
});
