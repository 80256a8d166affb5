// The collector's name for the shared CLI error and exit codes (collector/cli-kit/index.ts): a broken
// run (no targets attempted, lock held, unusable --data, bad options) is thrown anywhere in the
// collector as a CliError and printed once, by the command's entry point, with its code.
// A failed *target* is never a CliError: it is a row (see errors.ts).
export { CliError, EXIT, isCliError } from './cli-kit/index.ts';
