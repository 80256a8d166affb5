// The one reader of runs.jsonl (methodology v1, "Runs"): every line validated by the zod contract
// (src/lib/contract/run.ts) the same way for the loader, verify, compact and the collector's store.
// One row per run: the file stays small (a row a day), so it is read whole.
import { existsSync, readFileSync } from 'node:fs';
import { Run } from '../lib/index.ts';
import { splitLines } from './day-files.ts';
import { LAYOUT, runsPath } from './layout.ts';
import { parseJson, type Parsed, type Problem } from './problems.ts';

/** One line of runs.jsonl: its 1-based number and its row (null for a blank line). */
export interface RunLine {
  n: number;
  row: Parsed<Run> | null;
}

/** Every line of runs.jsonl; none when the archive has no run yet. */
export function runLines(dir: string): RunLine[] {
  const file = runsPath(dir);
  if (!existsSync(file)) return [];
  return splitLines(readFileSync(file, 'utf8')).map((text, i) => ({ n: i + 1, row: text.trim() === '' ? null : parseJson(text, Run) }));
}

/** The valid runs, in file order, and the lines that failed validation. */
export function readRuns(dir: string): { runs: Run[]; problems: Problem[] } {
  const runs: Run[] = [];
  const problems: Problem[] = [];
  for (const { n, row } of runLines(dir)) {
    if (!row) continue;
    if (row.ok) runs.push(row.value);
    else problems.push({ file: LAYOUT.runs, line: n, message: row.message });
  }
  return { runs, problems };
}
