// How each kind of status-strip cell looks and reads (StatusStrip.astro). Data, not markup: an outcome
// the collector learns later (such as `not_attempted`, a target the schedule skipped) is one more entry here, and until it has one
// it is still drawn, in a neutral grey under its own name.
import type { StripSegment } from '../loader/views.ts';
import { daysBetween, statusText } from './format.ts';

export interface StripKind {
  label: string;
  /** A CSS background. */
  background: string;
}

/** A day in a server's span with no row for it: no run that day, or a run that did not observe it. */
export const MISSING = 'missing';
const HATCH = 'repeating-linear-gradient(135deg, #d0d7de 0 3px, #ffffff 3px 6px)';

export const STRIP_KINDS: Record<string, StripKind> = {
  ok: { label: 'ok', background: '#2da44e' },
  changed: { label: 'ok, contract changed', background: '#0b5cad' },
  error: { label: 'error', background: '#cf222e' },
  no_endpoint: { label: 'no endpoint', background: '#8c959f' },
  excluded: { label: 'excluded (opted out)', background: '#6e7781' },
  retired: { label: 'retired (left the registry)', background: '#24292f' },
  // Listed with an endpoint but not contacted (host unresponsive, run deadline): hatched like a missing
  // day, in amber, because the run saw the server and chose not to ask it.
  not_attempted: { label: 'not attempted (host unresponsive or run deadline)', background: 'repeating-linear-gradient(135deg, #bf8700 0 3px, #ffffff 3px 6px)' },
  [MISSING]: { label: 'not observed', background: HATCH },
};

export function stripKind(kind: string): StripKind {
  return STRIP_KINDS[kind] ?? { label: kind.replace(/_/g, ' '), background: '#afb8c1' };
}

/** A cell's text alternative: its days, what happened, and how many observations. */
export function stripCellLabel(s: Pick<StripSegment, 'firstDay' | 'lastDay' | 'count' | 'errorClass' | 'http'> & { kind: string }): string {
  const days = s.firstDay === s.lastDay ? s.firstDay : `${s.firstDay} to ${s.lastDay}`;
  if (s.kind === MISSING) return `${days}: not observed`;
  // An error names its class; a not_attempted cell its reason (both travel in errorClass).
  const what = s.kind === 'error' ? statusText('error', s.errorClass, s.http) : s.kind === 'not_attempted' ? statusText('not_attempted', s.errorClass) : stripKind(s.kind).label;
  return `${days}: ${what}${s.count > 1 ? ` (${s.count} observations)` : ''}`;
}

/** A strip cell: a segment, or a run of days in the server's span that no row covers (kind `missing`). */
export type StripCell = Pick<StripSegment, 'firstDay' | 'lastDay' | 'count' | 'errorClass' | 'http'> & { kind: string };

export interface StripLayout {
  cells: StripCell[];
  start: string | null;
  end: string | null;
  /** Days from start to end, both included (1 when empty). */
  span: number;
  /** Month starts inside the span at `at` percent, labelled when they do not crowd the ends or each other. */
  ticks: { day: string; at: number; label: string | null }[];
  /** Degraded run days inside the span. */
  degraded: string[];
}

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** Month starts the strip's axis marks at most, and the steps (in months) it may take to stay under that. */
export const MAX_TICKS = 12;
const TICK_STEPS = [1, 2, 3, 6, 12, 24, 60] as const;
/** Degraded runs the strip marks at most (the newest). */
export const MAX_DEGRADED_MARKS = 12;

/** The strip on its date axis (StatusStrip.astro): segments oldest first, gaps filled with missing cells. */
export function stripLayout(segments: StripCell[], degradedDays: string[]): StripLayout {
  const cells: StripCell[] = [];
  for (const s of segments) {
    const prev = cells.at(-1);
    if (prev && daysBetween(prev.lastDay, s.firstDay) > 1) cells.push({ kind: MISSING, firstDay: addDays(prev.lastDay, 1), lastDay: addDays(s.firstDay, -1), count: 0, errorClass: null, http: 0 });
    // Two runs on one day share it: the later cell starts where the earlier ended.
    cells.push({ ...s });
  }
  const start = cells[0]?.firstDay ?? null;
  const end = cells.at(-1)?.lastDay ?? null;
  const span = start && end ? daysBetween(start, end) + 1 : 1;
  const pos = (day: string) => (start ? (100 * daysBetween(start, day)) / span : 0);
  // Both bounded whatever the span (five years of monthly ticks were 2.7 KB of every server
  // page): at most MAX_TICKS month starts (every month, then every 2, 3, 6 or 12 months, on months
  // that divide the year), and the newest MAX_DEGRADED_MARKS degraded runs.
  const degraded = start && end ? degradedDays.filter((d) => d >= start && d <= end).slice(-MAX_DEGRADED_MARKS) : [];
  const ticks: StripLayout['ticks'] = [];
  if (start && end) {
    let lastLabel = 0;
    const months = (Number(end.slice(0, 4)) - Number(start.slice(0, 4))) * 12 + Number(end.slice(5, 7)) - Number(start.slice(5, 7));
    const step = TICK_STEPS.find((k) => months / k <= MAX_TICKS) ?? TICK_STEPS.at(-1)!;
    for (let d = `${start.slice(0, 7)}-01`; d <= end; d = addDays(`${d.slice(0, 7)}-28`, 4).slice(0, 7) + '-01') {
      if (d <= start || (Number(d.slice(5, 7)) - 1) % step !== 0) continue;
      const at = pos(d);
      const label = at > 20 && at < 80 && at - lastLabel > 20 ? d.slice(0, 7) : null;
      if (label) lastLabel = at;
      ticks.push({ day: d, at, label });
    }
  }
  return { cells, start, end, span, ticks, degraded };
}
