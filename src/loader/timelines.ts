// Views over time: per run, per week and per day, from what the loader
// already holds — the run rows (runs.jsonl), the changes, and the fold's first day and retired rows of
// each target — so nothing here reads a row again. Shares go through src/lib's wilson; the counts are
// the run rows' own (verify checks that they agree with the observation rows).
import { ERROR_CLASSES, wilson, type ErrorClass, type Run, type RunV2, type WilsonInterval } from '../lib/index.ts';
import type { Fold } from './fold.ts';

/** What a timeline reads of a change (views.ts ChangeView) and of the raw archive (views.ts RawArchive). */
type ChangeView = { day: string; compatibility: 'ERR' | 'WARN' | 'INFO' | null; security: string | null; revert: boolean };
// The headline's runs and days (derive.ts): v1's, or on the stitched headline v1's before the seam and v2's from it on;
// and the roster flow of every target, added up shard by shard (addRosterFlow).
type RawArchive = { runs: readonly (Run | RunV2)[]; days: readonly string[]; roster: RosterFlow };

/** Targets by the day they were first seen, and retired rows by day: what the roster timeline reads of the fold. */
export interface RosterFlow {
  joined: Map<string, number>;
  left: Map<string, number>;
}

export function emptyRosterFlow(): RosterFlow {
  return { joined: new Map(), left: new Map() };
}

/** Add a fold's targets (one shard's, or all) to the roster flow: each one's first day, and its retired rows' days. */
export function addRosterFlow(flow: RosterFlow, fold: Fold): void {
  const { joined, left } = flow;
  for (const s of fold.targets.values()) {
    const first = fold.dayIds[s.seg[3]!]!;
    joined.set(first, (joined.get(first) ?? 0) + 1);
    for (const r of s.retired ?? []) left.set(fold.dayIds[r.day]!, (left.get(fold.dayIds[r.day]!) ?? 0) + 1);
  }
}

/** One collector run: how much of what it should have contacted it did contact. */
export interface RunPoint {
  day: string;
  run_id: string;
  status: Run['status'];
  eligible: number;
  attempts: number;
  coverage: number;
  degraded: boolean;
  partial: boolean;
}

/** A change's compatibility level as the site files it: the highest finding, or NONE when no rule fired. */
export type ChangeLevel = 'ERR' | 'WARN' | 'INFO' | 'NONE';
export const CHANGE_LEVELS: readonly ChangeLevel[] = ['ERR', 'WARN', 'INFO', 'NONE'];

export function changeLevel(c: Pick<ChangeView, 'compatibility'>): ChangeLevel {
  return c.compatibility ?? 'NONE';
}

/** Changes of one ISO week (Monday to Sunday, UTC), by level; `securityHigh` counts those with a HIGH security finding. */
export interface WeekPoint {
  /** The Monday that starts the week (YYYY-MM-DD). */
  week: string;
  levels: Record<ChangeLevel, number>;
  securityHigh: number;
  reverts: number;
  total: number;
}

/** The classes a contacted target can end in: ok and every error class but no_endpoint (never contacted). */
export const ATTEMPT_CLASSES = ['ok', ...ERROR_CLASSES.filter((c) => c !== 'no_endpoint')] as const;
export type AttemptClass = (typeof ATTEMPT_CLASSES)[number];

/** One full run's outcome shares over the targets it contacted (errorClassShares' `attempted` denominator). */
export interface ErrorSharePoint {
  day: string;
  run_id: string;
  attempts: number;
  classes: Record<AttemptClass, WilsonInterval & { count: number }>;
}

/** One day of the roster: names listed, names seen for the first time, names that left (retired rows). */
export interface RosterPoint {
  day: string;
  /** Distinct names in that day's last run's roster (plus retired ones), null without a run row. */
  listed: number | null;
  joined: number;
  left: number;
  /** The archive's first day: every name "joins" on it. */
  first: boolean;
}

export interface Timelines {
  runs: RunPoint[];
  weeks: WeekPoint[];
  errorShares: ErrorSharePoint[];
  roster: RosterPoint[];
}

export function timelines(raw: RawArchive, changes: readonly ChangeView[]): Timelines {
  const runs: RunPoint[] = raw.runs.map((r) => ({
    day: r.day, run_id: r.run_id, status: r.status, eligible: r.eligible, attempts: r.attempts, coverage: r.coverage, degraded: r.degraded, partial: r.partial,
  }));
  const errorShares: ErrorSharePoint[] = raw.runs
    .filter((r) => r.status === 'finished' && !r.partial && r.attempts > 0)
    .map((r) => ({
      day: r.day,
      run_id: r.run_id,
      attempts: r.attempts,
      classes: Object.fromEntries(ATTEMPT_CLASSES.map((c) => {
        const count = c === 'ok' ? r.outcomes.ok : r.error_classes[c as ErrorClass];
        return [c, { count, ...wilson(count, r.attempts) }];
      })) as ErrorSharePoint['classes'],
    }));
  return { runs, weeks: weeks(raw.days, changes), errorShares, roster: roster(raw) };
}

function weeks(days: readonly string[], changes: readonly ChangeView[]): WeekPoint[] {
  if (days.length === 0) return [];
  const out = new Map<string, WeekPoint>();
  const last = Date.parse(`${days.at(-1)}T00:00:00Z`);
  for (let t = Date.parse(`${monday(days[0]!)}T00:00:00Z`); t <= last; t += 7 * DAY) {
    const week = new Date(t).toISOString().slice(0, 10);
    out.set(week, { week, levels: { ERR: 0, WARN: 0, INFO: 0, NONE: 0 }, securityHigh: 0, reverts: 0, total: 0 });
  }
  for (const c of changes) {
    const w = out.get(monday(c.day));
    if (!w) continue; // a row whose day lies outside the day files (cannot happen for rows read from them)
    w.levels[changeLevel(c)]++;
    if (c.security === 'HIGH') w.securityHigh++;
    if (c.revert) w.reverts++;
    w.total++;
  }
  return [...out.values()];
}

function roster(raw: RawArchive): RosterPoint[] {
  const { joined, left } = raw.roster;
  const listed = new Map<string, number>();
  for (const r of raw.runs) if (r.status === 'finished') listed.set(r.day, r.targets); // runs are in time order: the day's last wins
  return raw.days.map((day, i) => ({ day, listed: listed.get(day) ?? null, joined: joined.get(day) ?? 0, left: left.get(day) ?? 0, first: i === 0 }));
}

const DAY = 86_400_000;

/** The Monday of a day's ISO week. */
export function monday(day: string): string {
  const t = Date.parse(`${day}T00:00:00Z`);
  const dow = (new Date(t).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(t - dow * DAY).toISOString().slice(0, 10);
}
