// The one reader of observation rows (observations/<day>.jsonl[.gz]; methodology v1, "Rows"; and the v2
// series' observations-v2/<day>.jsonl[.gz], methodology v2): every line validated by its series' zod
// contract (src/lib/contract/observation.ts, observation-v2.ts) and turned into a row or a problem the
// same way for the loader, the bundles, verify, restate and the collector's store.
import { Observation, ObservationV2 } from '../lib/index.ts';
import { readDayLines, scanDayLines, splitLines, type DayFiles } from './day-files.ts';
import { NOT_JSON, parseJson, valueOrThrow, type Parsed, type Schema } from './problems.ts';

/** One line of a day: where it is, its text, and its row (null for a blank line). */
export interface ObservationLine<T = Observation> {
  /** The file it is in (relative to the archive) and its 1-based line number there. */
  file: string;
  n: number;
  /** Its 1-based line number across the day's files (gz part first): how rowsAtLines finds it again. */
  line: number;
  text: string;
  row: Parsed<T> | null;
}

/** A line of a v2 day file (observations-v2/). */
export type ObservationV2Line = ObservationLine<ObservationV2>;

export function parseObservation(text: string): Parsed<Observation> {
  return parseJson(text, Observation);
}

export function parseObservationV2(text: string): Parsed<ObservationV2> {
  return parseJson(text, ObservationV2);
}

/**
 * Every line of a day with its row. `trusted`: the caller knows every line of these exact files
 * validated (the loader's digest of the same content key found no problem), so lines are only
 * JSON-parsed — the bundle writer re-reads such days at full speed.
 */
export function observationLines(dir: string, day: DayFiles, opts: { trusted?: boolean } = {}): AsyncGenerator<ObservationLine> {
  return linesOf(dir, day, Observation, opts);
}

/** observationLines for a day of the v2 series (listDays(dir, SERIES_FOLDER.v2)), validated by ObservationV2. */
export function observationV2Lines(dir: string, day: DayFiles, opts: { trusted?: boolean } = {}): AsyncGenerator<ObservationV2Line> {
  return linesOf(dir, day, ObservationV2, opts);
}

async function* linesOf<T>(dir: string, day: DayFiles, schema: Schema<T>, opts: { trusted?: boolean }): AsyncGenerator<ObservationLine<T>> {
  let line = 0;
  for await (const { line: text, file, n } of readDayLines(dir, day)) {
    line++;
    yield { file, n, line, text, row: text.trim() === '' ? null : opts.trusted ? trustedRow<T>(text) : parseJson(text, schema) };
  }
}

/**
 * The rows of one plain day file held whole (the open day, which the collector resumes and compaction
 * closes), split as readDayLines splits it; a row that does not validate throws: writers may not go on
 * past bad data.
 */
export function dayFileRows(file: string, text: string): Observation[] {
  return rowsOfText(file, text, Observation);
}

/** dayFileRows for a plain day file of the v2 series. */
export function dayFileRowsV2(file: string, text: string): ObservationV2[] {
  return rowsOfText(file, text, ObservationV2);
}

function rowsOfText<T>(file: string, text: string, schema: Schema<T>): T[] {
  const rows: T[] = [];
  splitLines(text).forEach((line, i) => {
    if (line.trim() !== '') rows.push(valueOrThrow(parseJson(line, schema), file, i + 1));
  });
  return rows;
}

/**
 * Full, validated rows of one day at the given line numbers (as ObservationLine.line numbers them),
 * and every valid row of run `alsoRun` when given. Lines nobody asked for are not decoded; a line
 * that no longer validates is left out (its day changed since the caller numbered it).
 */
export async function rowsAtLines(dir: string, day: DayFiles, lines: ReadonlySet<number>, alsoRun?: string): Promise<{ byLine: Map<number, Observation>; ofRun: Observation[] }> {
  const byLine = new Map<number, Observation>();
  const ofRun: Observation[] = [];
  let line = 0;
  for await (const text of scanDayLines(dir, day, (n) => alsoRun !== undefined || lines.has(n))) {
    line++;
    if (text === null) continue;
    const want = lines.has(line);
    if (!want && (alsoRun === undefined || !text.includes(alsoRun))) continue;
    const row = parseObservation(text);
    if (!row.ok) continue;
    if (want) byLine.set(line, row.value);
    if (alsoRun !== undefined && row.value.run_id === alsoRun) ofRun.push(row.value);
  }
  return { byLine, ofRun };
}

function trustedRow<T>(text: string): Parsed<T> {
  try {
    return { ok: true, value: JSON.parse(text) as T };
  } catch {
    return { ok: false, message: NOT_JSON };
  }
}
