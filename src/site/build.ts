// `npm run build`: the one way the site is built, so every build ends the same way. Two steps, each a
// process of its own, the second only when the first succeeded:
//   astro   the Astro build (the loaded archive, the pages, the outputs), told to leave the search
//           index to the next step (MCP_SCHEMA_SEARCH=after);
//   search  src/site/search-step.ts: the Pagefind index over the server pages and the site's size check.
// Apart, the build's peak memory is the larger of the two, not their sum. The demo (sandbox/demo.ts)
// builds through runBuild; bench/build.ts spawns the same buildSteps one by one to measure each.
// Where the site goes and what it is built from come from the environment (src/site/settings.ts:
// MCP_SCHEMA_OUT, MCP_SCHEMA_DATA, …), never from arguments: the two steps must agree on the folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEnvironment } from './settings.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export type BuildStepName = 'astro' | 'search';

export interface BuildStep {
  name: BuildStepName;
  /** Always this Node (process.execPath): a package's CLI run as a script, no npx or shell between. */
  command: string;
  args: string[];
  /** Set over the caller's environment for this step. */
  env: Record<string, string>;
}

/** The CLI script a package's package.json names as its bin (one bin, or the one called `name`). */
function binOf(pkg: string, name: string = pkg): string {
  const dir = path.join(REPO, 'node_modules', pkg);
  const bin = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> }).bin;
  const rel = typeof bin === 'string' ? bin : bin[name];
  if (!rel) throw new Error(`${pkg}'s package.json names no ${name} command`);
  return path.join(dir, rel);
}

/** The build's steps in order. `astroNodeArgs`: Node flags for the Astro step only (bench: --trace-gc, which NODE_OPTIONS refuses). */
export function buildSteps(opts: { astroNodeArgs?: readonly string[] } = {}): BuildStep[] {
  return [
    { name: 'astro', command: process.execPath, args: [...(opts.astroNodeArgs ?? []), binOf('astro'), 'build'], env: { MCP_SCHEMA_SEARCH: 'after' } },
    { name: 'search', command: process.execPath, args: [binOf('tsx'), path.join(REPO, 'src', 'site', 'search-step.ts')], env: {} },
  ];
}

export interface BuildHooks {
  /** inherit (npm run build) or pipe, with each chunk of either stream handed to `onOutput`. */
  stdio: 'inherit' | 'pipe';
  onOutput?(chunk: Buffer): void;
  /** The step's process, while it runs (null once it has exited): a caller that stops early kills it. */
  onChild?(child: ChildProcess | null): void;
}

/** Runs the steps (default: buildSteps()) in order from the repository root; the first that fails ends the build. */
export async function runBuild(env: NodeJS.ProcessEnv, hooks: BuildHooks, steps: readonly BuildStep[] = buildSteps()): Promise<{ ok: boolean; code: number | null; step: BuildStepName }> {
  let last: BuildStepName = 'astro';
  for (const step of steps) {
    last = step.name;
    const child = spawn(step.command, step.args, { cwd: REPO, env: { ...env, ...step.env }, stdio: hooks.stdio === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    hooks.onChild?.(child);
    if (hooks.stdio === 'pipe') {
      child.stdout!.on('data', (b: Buffer) => hooks.onOutput?.(b));
      child.stderr!.on('data', (b: Buffer) => hooks.onOutput?.(b));
    }
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c) => resolve(c));
    });
    hooks.onChild?.(null);
    if (code !== 0) return { ok: false, code, step: step.name };
  }
  return { ok: true, code: 0, step: last };
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length > 0) {
    process.stderr.write(`npm run build takes no arguments (got ${JSON.stringify(argv.join(' ')).slice(0, 200)}): the site's folder is MCP_SCHEMA_OUT, its archive MCP_SCHEMA_DATA (src/site/settings.ts)\n`);
    return 2;
  }
  let running: ChildProcess | null = null;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (running ? running.kill(signal) : process.exit(1)));
  const r = await runBuild(buildEnvironment(), { stdio: 'inherit', onChild: (c) => (running = c) });
  if (!r.ok) process.stderr.write(`build: the ${r.step} step failed (exit ${r.code ?? 'by signal'})${r.step === 'astro' ? '; the search step did not run' : ''}\n`);
  return r.ok ? 0 : (r.code ?? 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
