// The week a day belongs to, as the views over time group days: ISO 8601 weeks (Monday to Sunday), in
// UTC, named by their Monday. Charts draw a mark a week past a few hundred days; the weekly tables and
// CSVs use the same weeks.

const DAY_MS = 86_400_000;

/** The Monday (YYYY-MM-DD) of the UTC week, Monday to Sunday, that `day` (YYYY-MM-DD) falls in. */
export function weekMonday(day: string): string {
  const t = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(t)) throw new RangeError(`not a day (YYYY-MM-DD): ${JSON.stringify(day)}`);
  const dow = (new Date(t).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(t - dow * DAY_MS).toISOString().slice(0, 10);
}
