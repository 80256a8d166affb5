// The day split over jobs (collect.yml: plan → probe ×n → seal) and the weekly verify split the same
// way (verify-full.yml: verify-plan → parts), as pipeline steps. A step that decides a matrix writes it
// to $GITHUB_OUTPUT (`matrix={"shard":[0,1]}`), so the workflow only passes it on. A day the object
// store stopped (the collector's exit 5) is kept (`npm run store -- keep`) for a later run to restore.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CliError, EXIT } from '../collector/cli-kit/index.ts';
import { envOf, npmRun, type Ctx } from './exec.ts';
import { summaryFile, tempRoot } from './paths.ts';

/** The folder plan writes plan.json into and the shards their folders (artifact `plan`, `shard-<k>`). */
export const workDir = (ctx: Ctx) => path.resolve(ctx.cwd, envOf(ctx, 'COLLECT_WORK') || path.join(tempRoot(ctx), 'collect-work'));
/** Where a day the store stopped is kept (artifact `collect-kept-day`), and restored from. */
export const keptDir = (ctx: Ctx) => path.resolve(ctx.cwd, envOf(ctx, 'KEPT_DAY_DIR') || path.join(tempRoot(ctx), 'kept-day'));
/** The artifact a day the store stopped is kept in (collect.yml uploads it; the guard waits for it). */
export const KEPT_ARTIFACT = 'collect-kept-day';

const dataArgs = (ctx: Ctx) => ['--data', ctx.data];

/** `name=value` lines for the workflow (GITHUB_OUTPUT); elsewhere only logged. */
export function output(ctx: Ctx, values: Record<string, string>): void {
  const file = envOf(ctx, 'GITHUB_OUTPUT');
  for (const [k, v] of Object.entries(values)) {
    if (/[\r\n]/.test(v)) throw new CliError(`${ctx.step}: an output value may not hold a line break (${k})`, EXIT.failed);
    if (file) appendFileSync(file, `${k}=${v}\n`);
    ctx.log(`${ctx.step}: ${k}=${v}`);
  }
}

/**
 * The run's clock: COLLECT_NOW (the plan job's output, passed to seal), else --now among the collector
 * options, else now to the second. Every job of one day must agree on it: it names the run.
 */
export function clockOf(ctx: Ctx, now: Date = new Date()): string {
  const given = envOf(ctx, 'COLLECT_NOW') || ctx.collectArgs[ctx.collectArgs.indexOf('--now') + 1] || '';
  const t = ctx.collectArgs.includes('--now') || given ? Date.parse(given) : now.getTime();
  if (Number.isNaN(t) || (given && !/^\d{4}-\d{2}-\d{2}T/.test(given))) throw new CliError(`${ctx.step}: the run's clock must be an ISO time, got ${JSON.stringify(given.slice(0, 40))}`, EXIT.usage);
  return new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * plan: the roster stage and the shards (`npm run collect -- plan --json`); the shard matrix and the
 * clock go to the workflow (outputs `matrix`, `now`), which runs one probe job per shard.
 */
export async function plan(ctx: Ctx): Promise<{ shards: number[]; now: string }> {
  const now = clockOf(ctx);
  const rest = ctx.collectArgs.includes('--now') ? ctx.collectArgs : ['--now', now, ...ctx.collectArgs];
  const { stdout } = await npmRun(ctx, 'collect', ['plan', '--json', '--work', workDir(ctx), ...dataArgs(ctx), ...rest], { capture: true });
  process.stdout.write(stdout);
  let shards: unknown;
  try {
    shards = (JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { shards?: unknown }).shards;
  } catch {
    shards = undefined;
  }
  if (!Array.isArray(shards) || shards.length === 0 || !shards.every((k, i) => k === i)) throw new CliError(`plan: the collector printed no shard list 0..n-1: ${JSON.stringify(stdout.slice(0, 120))}`, EXIT.failed);
  output(ctx, { matrix: JSON.stringify({ shard: shards }), now });
  return { shards: shards as number[], now };
}

/** probe: shard k (`-- --shard k`) into <work>/shard-<k>, with the plan's options. */
export async function probe(ctx: Ctx): Promise<void> {
  if (!ctx.collectArgs.includes('--shard')) throw new CliError('probe: give the shard after --: npm run pipeline -- probe -- --shard <k>', EXIT.usage);
  await npmRun(ctx, 'collect', ['probe', '--work', workDir(ctx), ...ctx.collectArgs]);
}

/** A command of a step that failed, with the command's own exit code (exec.ts's failure carries it). */
const codeOf = (e: unknown): number | undefined => (e instanceof CliError ? (e as CliError & { commandCode?: number }).commandCode : undefined);

/**
 * seal: the shards' rows merged, the lost targets' shard_lost rows, the run rows and the chain
 * (`npm run collect -- seal --json`, teed into the commit's summary). The store failing (exit 5): the
 * day is kept first (keep), and the step fails with 5.
 */
export async function seal(ctx: Ctx): Promise<void> {
  mkdirSync(path.dirname(summaryFile(ctx)), { recursive: true });
  try {
    await keptOnStoreFailure(ctx, () => npmRun(ctx, 'collect', ['seal', '--json', '--work', workDir(ctx), ...dataArgs(ctx), ...ctx.collectArgs], { tee: summaryFile(ctx) }));
  } catch (e) {
    // A resume of a day the store stopped in close: the run was sealed then, and close is what is left.
    if (codeOf(e) === EXIT.finished && envOf(ctx, 'RESUME_RUN_ID')) return ctx.log('seal: the resumed run was sealed before the store stopped: on to close');
    throw e;
  }
}

/** Run `work`; when a command of it exits 5 (the object store failed), keep the day, then fail with 5. */
export async function keptOnStoreFailure<T>(ctx: Ctx, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (codeOf(e) !== EXIT.store) throw e;
    await keep(ctx);
    throw new CliError(`${ctx.step}: the object store failed: the day is kept in ${keptDir(ctx)} (artifact ${KEPT_ARTIFACT}); resume with resume_run_id`, EXIT.store, { cause: e });
  }
}

/** keep: what a resumed run needs of the day (`npm run store -- keep <dir> --now <clock>`). */
export async function keep(ctx: Ctx): Promise<void> {
  const plan = path.join(workDir(ctx), 'plan.json');
  const clock = envOf(ctx, 'COLLECT_NOW') || (existsSync(plan) ? (JSON.parse(readFileSync(plan, 'utf8')) as { clock?: string }).clock : undefined);
  await npmRun(ctx, 'store', ['keep', keptDir(ctx), ...(clock ? ['--now', clock] : []), ...dataArgs(ctx)]);
}

/** restore: a kept day back into --data (downloaded from the run named by resume_run_id), before seal. */
export async function restore(ctx: Ctx): Promise<void> {
  const dir = keptDir(ctx);
  if (!existsSync(dir) || readdirSync(dir).length === 0) throw new CliError(`restore: no kept day in ${dir} (the artifact ${KEPT_ARTIFACT} of the run to resume)`, EXIT.usage);
  await npmRun(ctx, 'store', ['restore', dir, ...dataArgs(ctx)]);
}

/** verify-plan: how many parts the weekly full verify needs (`npm run verify -- --plan-parts --json`); output `matrix`. */
export async function verifyPlan(ctx: Ctx): Promise<number[]> {
  const { stdout } = await npmRun(ctx, 'verify', ['--plan-parts', '--json', ...dataArgs(ctx)], { capture: true });
  process.stdout.write(stdout);
  let parts: unknown;
  try {
    parts = (JSON.parse(stdout) as { matrix?: { part?: unknown } }).matrix?.part;
  } catch {
    parts = undefined;
  }
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every((k, i) => k === i + 1)) throw new CliError(`verify-plan: verify printed no part list 1..n: ${JSON.stringify(stdout.slice(0, 120))}`, EXIT.failed);
  // copy: whether verify-full.yml's verify-copy job runs at all (a job's `if` cannot read a secret).
  output(ctx, { matrix: JSON.stringify({ part: parts }), parts: String(parts.length), copy: String(envOf(ctx, 'MCP_SCHEMA_STORE_COPY') !== '') });
  return parts as number[];
}

/** verify-copy: part k/n of the second copy against the record; no copy configured: nothing, said. */
export async function verifyCopy(ctx: Ctx, part: string | undefined): Promise<void> {
  if (!envOf(ctx, 'MCP_SCHEMA_STORE_COPY')) return ctx.log('verify-copy: no second copy (MCP_SCHEMA_STORE_COPY unset): nothing to check');
  await npmRun(ctx, 'verify', ['--against', 'copy', ...(part ? ['--part', part] : []), ...dataArgs(ctx)]);
}
