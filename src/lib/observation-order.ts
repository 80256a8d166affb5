// Time order of one target's observation rows, shared by detectDrift and contractIntervals.
import type { Observation } from './contract/observation.ts';

/**
 * A sorted copy: by observed_at as an instant (RFC 3339 with a variable number of fraction digits and
 * any offset: parsed, never compared as strings), then by run_id. Throws when rows mix targets.
 */
export function inTimeOrder<R extends Pick<Observation, 'target' | 'observed_at' | 'run_id'>>(rows: readonly R[], caller: string): R[] {
  const target = rows[0]?.target;
  for (const row of rows) {
    if (row.target !== target) throw new RangeError(`${caller} takes one target's rows, got more than one target`);
  }
  const keyed = rows.map((row) => ({ row, t: Date.parse(row.observed_at) }));
  for (const k of keyed) if (Number.isNaN(k.t)) throw new RangeError(`${caller}: unparseable observed_at`);
  keyed.sort((a, b) => a.t - b.t || (a.row.run_id < b.row.run_id ? -1 : a.row.run_id > b.row.run_id ? 1 : 0));
  return keyed.map((k) => k.row);
}

/** Whole days from `from` to `to` (UTC calendar days, 'YYYY-MM-DD'). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
