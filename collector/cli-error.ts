// A broken run (no targets attempted, lock held, unusable --data, bad options): thrown anywhere in
// the collector, caught once in cli.ts, which prints the message and exits with the code.
// A failed *target* is never a CliError: it is a row (see errors.ts).

export const EXIT = {
  ok: 0,
  /** the run could not do its job: zero attempts (the run row is still written, status failed) */
  failed: 1,
  /** bad options or an unusable --data directory */
  usage: 2,
  /** another collector holds the lock on --data */
  locked: 3,
  /** this run_id already finished (runs.jsonl has it); a new --now is needed */
  finished: 4,
  /** the object store failed (collector/cli.ts says so in one sentence): the day's rows so far are kept; re-run with the same --now to resume */
  store: 5,
} as const;

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isCliError(e: unknown): e is CliError {
  return e instanceof CliError;
}
