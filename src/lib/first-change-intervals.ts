// firstChangeIntervals: the server-level lifetime, time until a server first changes its contract
// (methodology v1, "Statistics, exactly" → lifetimes). The contract-level half-life counts
// contracts, so a few servers that change often dominate it; this curve counts each server once.
//
// It is the first of the server's contract lifetimes (contractIntervals), nothing else: from the first
// ok observation to the first ok observation of a different hash (event) or to the last ok observation
// (censored, retired or not). Same unit, same conventions, so kaplanMeier and halfLife apply unchanged.
// A first change is never a revert: a revert needs a hash seen before the one it leaves.
import { contractIntervals, type Interval } from './contract-intervals.ts';
import type { DriftRow } from './detect-drift.ts';
import { daysBetween } from './observation-order.ts';

export interface FirstChangeInterval extends Interval {
  /** Whole days from the first ok observation to the last one: how long the server was followed. */
  observed_days: number;
}

/** One target's first contract lifetime with its follow-up, or [] when it never answered ok. */
export function firstChangeIntervals(rows: readonly DriftRow[]): FirstChangeInterval[] {
  return firstChangeOf(contractIntervals(rows));
}

/** The same from one target's contract intervals in order (a stitched timeline's: stitchedIntervals). */
export function firstChangeOf(all: readonly Interval[]): FirstChangeInterval[] {
  const first = all[0];
  if (first === undefined) return [];
  return [{ ...first, observed_days: daysBetween(first.start_day, all[all.length - 1]!.end_day) }];
}
