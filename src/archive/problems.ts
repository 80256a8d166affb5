// What a reader of the archive says about a line or a file that does not validate: one rule for
// every format (observations, runs, rosters, restatement manifests) and every reader (the site's
// loader and its /data/ page, verify, restate, the collector's store), so the same damage reads the
// same everywhere.
//   - text that is not JSON: "not json (torn or corrupt line)" — a crash mid-append tears a last line;
//   - JSON that the zod contract refuses: the first issue, as "<path>: <message>";
//   - registry text is unvetted, so a message never carries more than MAX_MESSAGE characters.

/** A line (1-based, within its file) or a whole file (line null) that failed validation. */
export interface Problem {
  /** Path relative to the archive. */
  file: string;
  line: number | null;
  message: string;
}

/** A value read and validated, or why it could not be. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** The part of a zod schema the readers use (zod 3's safeParse). */
export interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { path: (string | number)[]; message: string }[] } };
}

/** Registry text is unvetted; a single validation message never carries more than this. */
export const MAX_MESSAGE = 300;
export const NOT_JSON = 'not json (torn or corrupt line)';

/** JSON text validated against a schema. */
export function parseJson<T>(text: string, schema: Schema<T>): Parsed<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: NOT_JSON };
  }
  return validate(value, schema);
}

/** A parsed value validated against a schema. */
export function validate<T>(value: unknown, schema: Schema<T>): Parsed<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`.slice(0, MAX_MESSAGE) };
}

/** For writers and readers that may not go on past bad data (the collector's store, restate). */
export class InvalidArchiveError extends Error {
  override readonly name = 'InvalidArchiveError';
  constructor(readonly problem: Problem) {
    super(`${problem.file}${problem.line === null ? '' : `:${problem.line}`}: ${problem.message}`);
  }
}

/** The value, or an InvalidArchiveError naming where it failed. */
export function valueOrThrow<T>(parsed: Parsed<T>, file: string, line: number | null): T {
  if (parsed.ok) return parsed.value;
  throw new InvalidArchiveError({ file, line, message: parsed.message });
}
