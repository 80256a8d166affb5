// npm run pipeline -- <step> [--data <dir>] [--part k/n] [--no-commit] [-- <collector options>]
// The daily pipeline as commands (docs/PIPELINE.md): the workflows call one step each; `day` runs them
// all in order on an operator's machine or a local world.
import { fileURLToPath } from 'node:url';
import { CliError, command, EXIT, execute, exitCodes, main as entry, shown, usage, type Io, type Parsed } from '../collector/cli-kit/index.ts';
import type { Ctx } from './exec.ts';
import { delay, guard, recover, releaseEditions } from './github.ts';
import { publish } from './publish.ts';
import { keep, plan, probe, restore, seal, verifyCopy, verifyPlan } from './shards.ts';
import { build, bundles, close, collect, commit, isRepoData, prepare, verifyFull } from './steps.ts';

export const REPO = fileURLToPath(new URL('..', import.meta.url));

type Step = (ctx: Ctx, values: { part?: string }) => Promise<unknown>;

/** Every step, in the order `day` runs the ones it runs. */
export const STEPS: Record<string, { run: Step; what: string; github?: true; collectArgs?: true }> = {
  guard: { run: guard, what: 'refuse to collect while a day kept by a failed push awaits recovery (gh)', github: true },
  delay: { run: (ctx) => delay(ctx), what: 'sleep a random 0..MAX_DELAY seconds (default 900)', github: true },
  prepare: { run: prepare, what: 'with a bucket: npm run store -- pull --recent 8' },
  collect: { run: collect, what: 'npm run collect -- --json (the single-job run), its summary kept for the commit', collectArgs: true },
  plan: { run: plan, what: 'npm run collect -- plan --json: the roster and the shards; outputs matrix {"shard":[0..n-1]} and now (GITHUB_OUTPUT)', collectArgs: true },
  probe: { run: probe, what: 'npm run collect -- probe: one shard (give --shard k after --) into <work>/shard-<k>', collectArgs: true },
  restore: { run: restore, what: 'npm run store -- restore: a day the store stopped, kept by an earlier run, back into --data' },
  seal: { run: seal, what: 'npm run collect -- seal --json, its summary kept for the commit; the store failing: keep, exit 5', collectArgs: true },
  keep: { run: keep, what: 'npm run store -- keep: what a resumed run needs of the day, into KEPT_DAY_DIR' },
  close: { run: close, what: 'compact --finished, edition, store offload (with a bucket), verify --record' },
  commit: { run: commit, what: 'scripts/commit-day.sh (retry, else a bundle; a new edition kept beside it)' },
  recover: { run: recover, what: "push a kept day's bundle (verified), then delete its artifact (gh)", github: true },
  'release-editions': { run: releaseEditions, what: "a new edition's bundles as its own release, never replaced (gh)", github: true },
  bundles: { run: bundles, what: 'file host: publish-files --sealed-out, npm run bundles (the recent months the record lacks), publish-files --dir' },
  build: { run: build, what: 'verify, npm run build (days brought as read; file host: both or neither, months on it under their key not written again)' },
  publish: { run: publish, what: 'publish-files (file host), each closed month once as its part, the site\'s manifest of parts' },
  'verify-plan': { run: verifyPlan, what: 'npm run verify -- --plan-parts --json: the parts the archive\'s size needs; outputs matrix {"part":[1..n]}' },
  'verify-full': { run: (ctx, v) => verifyFull(ctx, v.part), what: 'npm run verify -- --full [--part k/n] (the weekly full verify)' },
  'verify-copy': { run: (ctx, v) => verifyCopy(ctx, v.part), what: 'npm run verify -- --against copy [--part k/n] (with MCP_SCHEMA_STORE_COPY; else nothing)' },
  day: { run: async () => {}, what: 'prepare, collect, close, commit (data/ only), bundles, build, publish: a whole day', collectArgs: true },
};

/** What `day` runs, in order. */
export const DAY = ['prepare', 'collect', 'close', 'commit', 'bundles', 'build', 'publish'] as const;

const width = Math.max(...Object.keys(STEPS).map((s) => s.length));

export const HELP = `usage: npm run pipeline -- <step> [--data <dir>] [--part k/n] [--no-commit] [-- <collector options>]

The daily pipeline, one step per workflow step (docs/PIPELINE.md): each runs the project's own
commands, printing each before it runs, and fails with the step's name. Configured by the variables
the workflows set: MCP_SCHEMA_STORE (and its endpoint and keys), MCP_SCHEMA_FILES_URL and
MCP_SCHEMA_FILES_STORE, MCP_SCHEMA_SIGNING_KEY, RELEASE_URL (an edition's bundles), COMMIT_DAY_*
(scripts/commit-day.sh), RUNNER_TEMP (where steps leave things for the next: the collect summary,
editions/, files/, bundles/, parts/; default the system's temp folder), GITHUB_REPOSITORY and
GH_TOKEN (the GitHub-only steps), MAX_DELAY, RECOVER_RUN_ID and DAY_DIR, PARTS_SITE_URL and
PARTS_RELEASE_URL; the sharded day's COLLECT_WORK (the plan and shard folders), COLLECT_NOW (the
run's clock), KEPT_DAY_DIR and RESUME_RUN_ID, and GITHUB_OUTPUT (where plan and verify-plan write
their matrix); MCP_SCHEMA_STORE_COPY (verify-copy) and MCP_SCHEMA_PUBLISHED_FINGERPRINTS (build, with a file host).

steps:
${Object.entries(STEPS)
  .map(([name, s]) => `  ${name.padEnd(width)}  ${s.what}${s.github ? ' [GitHub only]' : ''}`)
  .join('\n')}

  --data <dir>     the archive (default: data/); the build reads it through MCP_SCHEMA_DATA
  --part <k/n>     verify-full, verify-copy: part k of n
  --no-commit      day: skip the commit (it is skipped anyway when --data is not the repository's data/)
  -- <options>     collect, plan, probe, seal, day: passed to the collector (a local world's --registry,
                   --allow-private, --now, plan's --max-endpoints-per-shard; probe's --shard k)
  -h, --help       this text

${exitCodes({ 0: 'the step (every step of day) succeeded', 1: 'a command of the step failed (named on stderr), or the kept-day guard refused', 2: 'bad usage, or a setting the step refuses (a file host URL without its bucket)' })}`;

export const COMMAND = command({
  name: 'pipeline',
  help: HELP,
  positionals: Infinity,
  options: {
    data: { type: 'string', default: 'data' },
    part: { type: 'string' },
    'no-commit': { type: 'boolean', default: false },
  },
});

export interface PipelineIo extends Io {
  /** The repository to run in (default: this checkout). */
  cwd?: string;
}

export async function run({ values, positionals }: Parsed<typeof COMMAND.options>, io: PipelineIo): Promise<number> {
  const [step, ...collectArgs] = positionals;
  if (step === undefined || !(step in STEPS)) throw usage(`the step must be one of ${Object.keys(STEPS).join(', ')}, got ${step === undefined ? 'none' : shown(step)} (see --help)`);
  const spec = STEPS[step]!;
  if (collectArgs.length > 0 && !spec.collectArgs) throw usage(`${step} takes no collector options, got ${shown(collectArgs[0]!)}`);
  if (values.part !== undefined && step !== 'verify-full' && step !== 'verify-copy') throw usage('--part is for verify-full and verify-copy');
  const ctx: Ctx = { env: io.env, cwd: io.cwd ?? REPO, data: values.data, collectArgs, step, log: (line) => io.stderr(`${line}\n`) };
  const steps = step === 'day' ? DAY.filter((s) => s !== 'commit' || (!values['no-commit'] && isRepoData(ctx))) : [step];
  if (step === 'day' && steps.length < DAY.length) ctx.log(`day: commit skipped (${values['no-commit'] ? '--no-commit' : `${values.data} is not the repository's data/`})`);
  for (const s of steps) {
    ctx.step = s;
    ctx.log(`== ${s}`);
    try {
      await STEPS[s]!.run(ctx, values);
    } catch (e) {
      // A step's own failure is named by it; anything else (a folder it could not write) is said with the step's name.
      if (e instanceof CliError || e instanceof TypeError || e instanceof ReferenceError) throw e;
      throw new CliError(`${s}: ${(e as Error).message}`, EXIT.failed, { cause: e });
    }
  }
  return EXIT.ok;
}

/** The pipeline on argv, its exit code returned (tests, the demo). */
export function main(argv: string[], io: PipelineIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), env: process.env }): Promise<number> {
  return execute(COMMAND, run, argv, io);
}

entry(import.meta.url, COMMAND, run);
