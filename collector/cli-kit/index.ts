// The one convention every command line of the project follows (docs/CLI.md lists them):
//   - options are parsed by node:util parseArgs, strict: an unknown option, a missing value or a stray
//     positional is a usage error (exit 2), never ignored;
//   - option values are checked by the validators below, each wording its refusal the same way:
//     `--limit must be an integer ≥ 1, got "x"`;
//   - a command throws CliError(message, exitCode) for everything it refuses or cannot do, and
//     main() prints `<command>: <message>` on stderr and exits with that code; -h/--help prints the
//     command's help (which names its exit codes) on stdout and exits 0; anything else thrown is a bug
//     of ours: one line on stderr (the stack too with MCP_SCHEMA_DEBUG=1) and exit 70.
// No I/O here but a command's own streams, and the environment read once, for MCP_SCHEMA_DEBUG.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** The exit codes every command shares; a command's --help says which of them it uses and when. */
export const EXIT = {
  ok: 0,
  /** the command ran and found a problem, or could not do its job (each command says which) */
  failed: 1,
  /** bad options, or an input it cannot use (a missing folder, an unset variable it needs) */
  usage: 2,
  /** the collector: another collector holds the lock on --data */
  locked: 3,
  /** the collector: this run_id already finished (runs.jsonl has it); a new --now is needed */
  finished: 4,
  /** the collector: the object store failed; the day's rows so far are kept, re-run with the same --now to resume */
  store: 5,
  /** a bug of ours: an error no command expected (sysexits' EX_SOFTWARE) */
  internal: 70,
} as const;

/** A refusal or a failure the command expected, with the exit code it means. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isCliError(e: unknown): e is CliError {
  return e instanceof CliError;
}

/** A usage error (exit 2). */
export function usage(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/** How a value was given, for a refusal: quoted, and cut at 60 characters (the value may be hostile). */
export function shown(v: string): string {
  return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
}

/** The one wording of a refused option value. */
export function refused(name: string, what: string, v: string): CliError {
  return usage(`--${name} must be ${what}, got ${shown(v)}`);
}

/**
 * The work a command is there to do, whose failures it expects (a store that does not answer, an
 * archive it cannot read): an Error thrown by it becomes a CliError with `code` (default 1, "could not
 * do its job") and the same message. A TypeError or ReferenceError stays what it is, a bug of ours.
 */
export async function expected<T>(work: Promise<T> | (() => T | Promise<T>), code: number = EXIT.failed): Promise<T> {
  try {
    return await (typeof work === 'function' ? work() : work);
  } catch (e) {
    if (isCliError(e) || !(e instanceof Error) || e instanceof TypeError || e instanceof ReferenceError) throw e;
    throw new CliError(e.message, code, { cause: e });
  }
}

// ------------------------------------------------------------------------------------------ validators
// Each takes the option's name (without --) and its raw value; undefined passes through as undefined,
// so `integer('limit', values.limit, { min: 1 }) ?? default` reads as the default.

/** An integer in [min, max] (decimal digits only: no sign, no exponent, no blanks). */
export function integer(name: string, v: string | undefined, range: { min: number; max?: number }): number | undefined {
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  const { min, max } = range;
  const what = max === undefined ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) throw refused(name, what, v);
  return n;
}

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `5h`, `90m`, `600s`, `1500ms` → milliseconds; `none` → null (no limit); undefined when absent. */
export function duration(name: string, v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(v);
  const ms = m ? Number(m[1]) * UNITS[m[2] as keyof typeof UNITS] : NaN;
  if (!Number.isFinite(ms) || ms <= 0) throw refused(name, 'a duration such as 5h, 90m or 600s (or none)', v);
  return Math.round(ms);
}

/** A UTC day, YYYY-MM-DD, that exists on the calendar. */
export function day(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
  const ok = !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === v;
  if (!ok) throw refused(name, 'a day, YYYY-MM-DD', v);
  return v;
}

/** A month, YYYY-MM. */
export function month(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(v)) throw refused(name, 'a month, YYYY-MM', v);
  return v;
}

/** An ISO time (anything Date parses; the commands that take one print it back in ISO form). */
export function isoTime(name: string, v: string | undefined): Date | undefined {
  if (v === undefined) return undefined;
  const d = new Date(v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime())) throw refused(name, 'an ISO time such as 2026-05-01T03:15:00Z', v);
  return d;
}

/** An absolute http(s) URL. */
export function url(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  let u: URL | null = null;
  try {
    u = new URL(v);
  } catch {
    /* refused below */
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw refused(name, 'an http(s) URL', v);
  return v;
}

/** One of a fixed list. */
export function oneOf<T extends string>(name: string, v: string | undefined, choices: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!(choices as readonly string[]).includes(v)) throw refused(name, `one of ${choices.join(', ')}`, v);
  return v as T;
}

/** A path that exists: a folder (`dir`) or a file (`file`). The refusal names what is missing. */
export function existing(name: string, v: string | undefined, kind: 'dir' | 'file'): string | undefined {
  if (v === undefined) return undefined;
  const ok = existsSync(v) && (kind === 'dir' ? statSync(v).isDirectory() : statSync(v).isFile());
  if (!ok) throw usage(`--${name} must be ${kind === 'dir' ? 'an existing folder' : 'an existing file'}, got ${shown(v)}`);
  return v;
}

/** A required option: its value, or a usage error that says what it is for. */
export function required<T>(name: string, v: T | undefined, what: string): T {
  if (v === undefined || v === '') throw usage(`--${name} is required: ${what}`);
  return v;
}

// -------------------------------------------------------------------------------------------- commands

/** A command: its name (the prefix of its error lines), its help, and parseArgs' options. */
export interface Command<O extends ParseArgsOptionsConfig = ParseArgsOptionsConfig> {
  name: string;
  /** Printed on -h/--help; ends with the command's exit codes (`exit codes:`). */
  help: string;
  options: O;
  /** Positionals allowed: how many at most (default 0; Infinity for a list). */
  positionals?: number;
}

/** Declare a command (typed options; `help` is added when the command does not declare it). */
export function command<O extends ParseArgsOptionsConfig>(c: Command<O>): Command<O & { help: { type: 'boolean'; short: 'h' } }> {
  return { ...c, options: { ...c.options, help: { type: 'boolean', short: 'h' } } };
}

/** What a command's run receives: its options' values and its positionals. */
export type Parsed<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

/** Parse argv for a command: strict, with its positionals bounded; a refusal is a usage error. */
export function parse<O extends ParseArgsOptionsConfig>(c: Command<O>, argv: readonly string[]): Parsed<O> {
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args: [...argv], options: c.options, allowPositionals: true, strict: true }) as Parsed<O>;
  } catch (e) {
    // parseArgs' own sentence, without its advice about `--` (which would take an option as a positional).
    throw new CliError(`${(e as Error).message.replace(/\. To specify a positional argument.*$/s, '')} (see --help)`, EXIT.usage, { cause: e });
  }
  const max = c.positionals ?? 0;
  if (!(parsed.values as { help?: boolean }).help && parsed.positionals.length > max) {
    throw usage(max === 0 ? `takes no arguments, got ${shown(parsed.positionals[0]!)} (see --help)` : `takes at most ${max} argument${max === 1 ? '' : 's'}, got ${parsed.positionals.length} (see --help)`);
  }
  return parsed;
}

/** The streams and environment a command writes to and reads (tests give their own). */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

export const processIo = (): Io => ({ stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), env: process.env });

/** A command's body: returns its exit code (void: 0), or throws a CliError. */
export type Run<O extends ParseArgsOptionsConfig> = (args: Parsed<O>, io: Io) => Promise<number | void> | number | void;

/**
 * Run a command on argv and return its exit code, printing as main() does: help on -h/--help; a
 * CliError as `<name>: <message>`; anything else as a bug of ours (exit 70).
 */
export async function execute<O extends ParseArgsOptionsConfig>(c: Command<O>, run: Run<O>, argv: readonly string[], io: Io = processIo()): Promise<number> {
  try {
    const args = parse(c, argv);
    if ((args.values as { help?: boolean }).help) {
      io.stdout(c.help.endsWith('\n') ? c.help : `${c.help}\n`);
      return EXIT.ok;
    }
    return (await run(args, io)) ?? EXIT.ok;
  } catch (e) {
    if (isCliError(e)) {
      io.stderr(`${c.name}: ${e.message}\n`);
      return e.exitCode;
    }
    const err = e instanceof Error ? e : new Error(String(e));
    io.stderr(`${c.name}: unexpected failure (a bug of ours; MCP_SCHEMA_DEBUG=1 prints its stack): ${err.message.split('\n')[0]}\n`);
    if (io.env.MCP_SCHEMA_DEBUG === '1' && err.stack) io.stderr(`${err.stack}\n`);
    return EXIT.internal;
  }
}

/**
 * For a script written top to bottom (the benchmarks): parse the process's arguments as `execute`
 * would, printing the help (exit 0) or a usage error (exit 2) and exiting; the values otherwise.
 * Checks made afterwards go through `checked`, which exits the same way.
 */
export function script<O extends ParseArgsOptionsConfig>(c: Command<O>, argv: readonly string[] = process.argv.slice(2)): Parsed<O> {
  const args = checked(c, () => parse(c, argv));
  if ((args.values as { help?: boolean }).help) {
    process.stdout.write(c.help.endsWith('\n') ? c.help : `${c.help}\n`);
    process.exit(EXIT.ok);
  }
  return args;
}

/** Run `f` (validators); a CliError prints `<command>: <message>` and exits with its code. */
export function checked<T>(c: Pick<Command, 'name'>, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!isCliError(e)) throw e;
    process.stderr.write(`${c.name}: ${e.message}\n`);
    process.exit(e.exitCode);
  }
}

/** Whether the module at `moduleUrl` is the process's entry point (`tsx path/to/it.ts`). */
export function isEntry(moduleUrl: string): boolean {
  return Boolean(process.argv[1]) && path.resolve(process.argv[1]!) === fileURLToPath(moduleUrl);
}

/**
 * The entry point of every command: when the module at `moduleUrl` is the one being run, execute the
 * command on the process's arguments and set its exit code. Imported (tests, docs/CLI.md), it does
 * nothing.
 */
export function main<O extends ParseArgsOptionsConfig>(moduleUrl: string, c: Command<O>, run: Run<O>): void {
  if (!isEntry(moduleUrl)) return;
  void execute(c, run, process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

/** The line every help ends its exit codes with. */
export const EXIT_INTERNAL_LINE = `${EXIT.internal} a bug of ours: one line on stderr (MCP_SCHEMA_DEBUG=1 adds the stack)`;

/** A help's exit-code table, `exit codes: 0 …` one per line, ending with the shared 70. */
export function exitCodes(lines: Record<number, string>): string {
  const entries = [...Object.entries(lines).map(([code, what]) => `${code} ${what}`), EXIT_INTERNAL_LINE];
  return `exit codes: ${entries.join('\n            ')}`;
}
