// How a pipeline step runs a command: it prints the command line first (`$ npm run compact -- --finished`),
// runs it as its own process with the step's environment, its output passed through, and a failure
// is the step's, by name: `close: npm run verify -- --record exited with 1`. The commands are the
// project's own (npm run <script>, scripts/commit-day.sh) and, for the GitHub-only steps, gh.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { CliError, EXIT } from '../collector/cli-kit/index.ts';

/** Everything a step reads: the environment the workflows set, the archive folder, where to print. */
export interface Ctx {
  /** The environment (the workflows' variables: MCP_SCHEMA_STORE, RUNNER_TEMP, COMMIT_DAY_*, …). */
  env: NodeJS.ProcessEnv;
  /** The repository's root: every command runs there. */
  cwd: string;
  /** The archive folder (--data). */
  data: string;
  /** Arguments for the collector after `--` (a local world's --registry, --allow-private, --now). */
  collectArgs: string[];
  /** The step running now: the prefix of its failures. */
  step: string;
  /** One line of what the pipeline does (stderr by default: stdout is the commands'). */
  log: (line: string) => void;
}

/** A command line as it is printed: words with blanks or quotes are quoted. */
export function shownCommand(cmd: string, args: readonly string[]): string {
  return [cmd, ...args].map((a) => (/^[\w@%+=:,./{}$-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(' ');
}

export interface RunOptions {
  /** Extra variables for this command only. */
  env?: Record<string, string | undefined>;
  /** Also write the command's stdout to this file (as `| tee file`). */
  tee?: string;
  /** Collect stdout and return it instead of passing it through. */
  capture?: boolean;
  /** A failure is returned (its exit code), not thrown. */
  allowFailure?: boolean;
}

/** Run one command; a non-zero exit fails the step (unless allowFailure). */
export async function run(ctx: Ctx, cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<{ code: number; stdout: string }> {
  ctx.log(`$ ${shownCommand(cmd, args)}`);
  const env = { ...ctx.env, ...opts.env };
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v === undefined) delete env[k];
  const piped = opts.tee !== undefined || opts.capture === true;
  const child = spawn(cmd, args, { cwd: ctx.cwd, env, stdio: ['ignore', piped ? 'pipe' : 'inherit', 'inherit'] });
  let stdout = '';
  const file = opts.tee !== undefined ? createWriteStream(opts.tee) : null;
  child.stdout?.on('data', (chunk: Buffer) => {
    if (opts.capture) stdout += chunk.toString('utf8');
    else process.stdout.write(chunk);
    file?.write(chunk);
  });
  const code = await new Promise<number>((resolve) => {
    child.once('error', (e) => {
      ctx.log(`${ctx.step}: could not start ${cmd}: ${e.message}`);
      resolve(127);
    });
    child.once('close', (c, signal) => resolve(c ?? (signal ? 128 : 1)));
  });
  if (file) await new Promise<void>((resolve) => file.end(resolve));
  // The step fails with 1; the command's own code rides along (a store failure, 5, is kept by the step).
  if (code !== 0 && !opts.allowFailure) throw Object.assign(new CliError(`${ctx.step}: ${shownCommand(cmd, args)} exited with ${code}`, EXIT.failed), { commandCode: code });
  return { code, stdout };
}

/** `npm run <script> -- <args>`. */
export function npmRun(ctx: Ctx, script: string, args: readonly string[], opts: RunOptions = {}): Promise<{ code: number; stdout: string }> {
  return run(ctx, 'npm', ['run', ...(opts.capture || opts.tee ? ['--silent'] : []), script, ...(args.length ? ['--', ...args] : [])], opts);
}

/** A variable the workflows set, or '' when unset. */
export const envOf = (ctx: Ctx, name: string): string => ctx.env[name] ?? '';
