// The one reader of runs.jsonl (methodology v1, "Runs"; methodology v2, "Cadence"): every line
// validated by the zod contract of its series (src/lib/contract/run.ts: Run, or RunV2 for a line that
// says methodology_version 'v2') the same way for the loader, verify, compact and the collector's store.
// One row per run and series: a run that records both series writes two rows with the same run_id, so
// readers take the union and filter by series (isRunV1 / isRunV2, runsOf). The file stays small (a row
// or two a day), so it is read whole.
import { existsSync, readFileSync } from 'node:fs';
import { isRunV1, isRunV2, runSchemaOf, type AnyRun, type Run, type RunSeries, type RunV2 } from '../lib/index.ts';
import { splitLines } from './day-files.ts';
import { LAYOUT, runsPath } from './layout.ts';
import { NOT_JSON, validate, type Parsed, type Problem } from './problems.ts';

/** One line of runs.jsonl: its 1-based number and its row (null for a blank line). */
export interface RunLine {
  n: number;
  row: Parsed<AnyRun> | null;
}

/** A runs.jsonl line validated by its series' schema. */
export function parseRun(text: string): Parsed<AnyRun> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: NOT_JSON };
  }
  return validate<AnyRun>(value, runSchemaOf(value));
}

/** Every line of runs.jsonl; none when the archive has no run yet. */
export function runLines(dir: string): RunLine[] {
  const file = runsPath(dir);
  if (!existsSync(file)) return [];
  return splitLines(readFileSync(file, 'utf8')).map((text, i) => ({ n: i + 1, row: text.trim() === '' ? null : parseRun(text) }));
}

/** The valid runs of every series, in file order, and the lines that failed validation. */
export function readRuns(dir: string): { runs: AnyRun[]; problems: Problem[] } {
  const runs: AnyRun[] = [];
  const problems: Problem[] = [];
  for (const { n, row } of runLines(dir)) {
    if (!row) continue;
    if (row.ok) runs.push(row.value);
    else problems.push({ file: LAYOUT.runs, line: n, message: row.message });
  }
  return { runs, problems };
}

/** The run rows of one series, in the order given. */
export function runsOf(runs: readonly AnyRun[], series: 'v1'): Run[];
export function runsOf(runs: readonly AnyRun[], series: 'v2'): RunV2[];
export function runsOf(runs: readonly AnyRun[], series: RunSeries): AnyRun[];
export function runsOf(runs: readonly AnyRun[], series: RunSeries): AnyRun[] {
  return runs.filter(series === 'v1' ? isRunV1 : isRunV2);
}
