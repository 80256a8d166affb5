// The daily pipeline's steps (docs/PIPELINE.md draws them): each a function that runs the project's
// own commands in order, printing each first, and fails with the step's name. They read the same
// variables the workflows set (MCP_SCHEMA_STORE, MCP_SCHEMA_FILES_*, RUNNER_TEMP, COMMIT_DAY_*, …), so a
// workflow step is one `npm run pipeline -- <step>`, and an operator's machine or the demo runs the
// same steps with `day`. The GitHub-only steps (a kept day, a recovery, releases) are github.ts.
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CliError, EXIT } from '../collector/cli-kit/index.ts';
import { envOf, npmRun, run, type Ctx } from './exec.ts';
import { summaryFile, tempRoot } from './paths.ts';
import { keep, keptDir, KEPT_ARTIFACT } from './shards.ts';

/** Where the steps keep what passes from one to the next (the runner's temp folder on GitHub). */
export { summaryFile, tempRoot };
/** Where a new edition's release bundles are written (uploaded by release-editions). */
export const editionsDir = (ctx: Ctx) => envOf(ctx, 'EDITIONS_DIR') || path.join(tempRoot(ctx), 'editions');
/** The file host's folder the build writes and publish uploads. */
export const filesDir = (ctx: Ctx) => envOf(ctx, 'MCP_SCHEMA_FILES_DIR') || path.join(tempRoot(ctx), 'files');
/** The month bundles the bundles step writes and uploads: a folder of its own, emptied before each run. */
export const bundlesDir = (ctx: Ctx) => path.join(tempRoot(ctx), 'bundles');
/** The monthly parts (written, or their descriptors downloaded) before the site's manifest of them. */
export const partsDir = (ctx: Ctx) => envOf(ctx, 'PARTS_DIR') || path.join(tempRoot(ctx), 'parts');
/** The fingerprints the file host last published (publish-files --fingerprints-out), for an incremental build. */
export const fingerprintsFile = (ctx: Ctx) => path.resolve(ctx.cwd, envOf(ctx, 'MCP_SCHEMA_PUBLISHED_FINGERPRINTS') || '.cache/published-fingerprints.json');
/** Where the build finds the sealed-months record publish-files kept (src/outputs/sealed-months.ts). */
export const sealedFile = (ctx: Ctx) => path.resolve(ctx.cwd, envOf(ctx, 'MCP_SCHEMA_PUBLISHED_BUNDLES') || '.cache/published-bundles.json');
/** The site's folder (the build's MCP_SCHEMA_OUT). */
export const siteDir = (ctx: Ctx) => path.resolve(ctx.cwd, envOf(ctx, 'MCP_SCHEMA_OUT') || 'dist');
/** The bucket the archive's objects live in, when one is set. */
const bucket = (ctx: Ctx) => envOf(ctx, 'MCP_SCHEMA_STORE') !== '';
const dataArgs = (ctx: Ctx) => ['--data', ctx.data];

/** prepare: with a bucket, bring the last eight days (rosters, a resumed day's rows) into the folder. */
export async function prepare(ctx: Ctx): Promise<void> {
  if (!bucket(ctx)) return ctx.log('prepare: no object store (MCP_SCHEMA_STORE unset): every day is in the folder already');
  // Eight days, whatever the archive's age: the roster's bounds read the last complete roster.
  await npmRun(ctx, 'store', ['pull', '--recent', '8', ...dataArgs(ctx)]);
}

/** collect: the single-job run, its JSON summary kept for the commit (stdout too, as `| tee`). */
export async function collect(ctx: Ctx): Promise<void> {
  mkdirSync(path.dirname(summaryFile(ctx)), { recursive: true });
  await npmRun(ctx, 'collect', ['--json', ...dataArgs(ctx), ...ctx.collectArgs], { tee: summaryFile(ctx) });
}

/** close: gzip the finished day, cut the month's edition, move closed files to the bucket, verify and record. */
export async function close(ctx: Ctx): Promise<void> {
  // --finished: today's day too once its runs are done, so git never carries a plain day file.
  await npmRun(ctx, 'compact', ['--finished', ...dataArgs(ctx)]);
  // Once a month, from the month's first full run; its release bundles go beside, for release-editions.
  const releaseUrl = envOf(ctx, 'RELEASE_URL');
  await npmRun(ctx, 'edition', [...dataArgs(ctx), ...(releaseUrl ? ['--release-dir', editionsDir(ctx), '--release-url', releaseUrl] : [])]);
  // Each gzipped day file and roster becomes an object named in stored.jsonl, before verify checks it there.
  // The bucket failing here leaves a finished day whose closed files are not all stored: it is kept
  // (npm run store -- keep) for a later run to restore, like a seal the store stopped.
  if (bucket(ctx)) await npmRun(ctx, 'store', ['offload', ...dataArgs(ctx)]).catch(async (e: unknown) => {
    await keep(ctx);
    throw new CliError(`close: the object store failed during offload: the day is kept in ${keptDir(ctx)} (artifact ${KEPT_ARTIFACT}); resume with resume_run_id`, EXIT.store, { cause: e });
  });
  else ctx.log('close: no object store: the closed files stay in the folder (and in git)');
  // Incremental; --record advances the verified head only after zero problems.
  await npmRun(ctx, 'verify', ['--record', ...dataArgs(ctx)]);
}

/** The repository's own data/ (the only archive commit-day.sh commits). */
export const isRepoData = (ctx: Ctx) => path.resolve(ctx.cwd, ctx.data) === path.resolve(ctx.cwd, 'data');

/**
 * commit: scripts/commit-day.sh commits data/ and pushes with its retry; when it cannot push, it keeps
 * the day as a bundle in COMMIT_DAY_BUNDLE_DIR and this step copies a new edition's release bundles
 * beside it, so the recovery run publishes them too. Its failure is the step's, with its exit code.
 */
export async function commit(ctx: Ctx): Promise<void> {
  if (!isRepoData(ctx)) throw new CliError(`commit: scripts/commit-day.sh commits the repository's data/, not ${ctx.data}`, EXIT.usage);
  const day = new Date().toISOString().slice(0, 10);
  const r = await run(ctx, 'scripts/commit-day.sh', ['--message', `data: observations for ${day}`, '--body-file', summaryFile(ctx)], { allowFailure: true });
  if (r.code === 0) return;
  const bundles = envOf(ctx, 'COMMIT_DAY_BUNDLE_DIR');
  if (bundles && existsSync(editionsDir(ctx))) {
    mkdirSync(bundles, { recursive: true });
    cpSync(editionsDir(ctx), path.join(bundles, 'editions'), { recursive: true });
    ctx.log(`commit: the new edition's bundles are kept beside the day, in ${path.join(bundles, 'editions')}`);
  }
  throw new CliError(`commit: scripts/commit-day.sh exited with ${r.code}`, r.code);
}

/** The file host's URL ('' without one), refused (exit 2) when its bucket is not set with it or the reverse. */
function fileHostUrl(ctx: Ctx, step: string): string {
  const url = envOf(ctx, 'MCP_SCHEMA_FILES_URL');
  // Both or neither: a URL without its bucket would publish links to files nobody uploads.
  if (Boolean(url) !== Boolean(envOf(ctx, 'MCP_SCHEMA_FILES_STORE'))) throw new CliError(`${step}: MCP_SCHEMA_FILES_URL and MCP_SCHEMA_FILES_STORE go together (the file host's public URL and its bucket): set both or neither`, EXIT.usage);
  return url;
}
/** The archive for a command that reads it through MCP_SCHEMA_DATA (unset: the repository's data/). */
const dataEnv = (ctx: Ctx) => (isRepoData(ctx) ? {} : { MCP_SCHEMA_DATA: path.resolve(ctx.cwd, ctx.data) });

/**
 * bundles: with a file host, the month bundles of the site's recent months that the sealed-months
 * record does not hold under their current key (the open month too) are written and uploaded here,
 * so the build that follows takes them from the record: in a job of their own (deploy.yml), a
 * month's bundles (≈ 5 GB at the registry's year 5) leave the build job's disk to the site.
 */
export async function bundles(ctx: Ctx): Promise<void> {
  if (!fileHostUrl(ctx, 'bundles')) return ctx.log('bundles: no file host (MCP_SCHEMA_FILES_URL unset): the site build writes the bundles');
  await npmRun(ctx, 'publish-files', ['--sealed-out', sealedFile(ctx)]);
  // Emptied first: a file an earlier run left would be uploaded as today's.
  const dir = bundlesDir(ctx);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await npmRun(ctx, 'bundles', [], { env: { ...dataEnv(ctx), MCP_SCHEMA_FILES_DIR: dir, MCP_SCHEMA_PUBLISHED_BUNDLES: sealedFile(ctx), MCP_SCHEMA_RELEASE: 'parts' } });
  await npmRun(ctx, 'publish-files', ['--dir', dir]);
}

/**
 * build: verify the archive and build the site; with a file host (MCP_SCHEMA_FILES_URL and
 * MCP_SCHEMA_FILES_STORE, both or neither) into its folder too. With a bucket, no month is pulled
 * whole: the loader and the bundles bring each day they read (its summary missing from the build
 * cache, or its month not on the file host under its key), so the disk holds the days the day's work
 * reads, not the site's three months.
 */
export async function build(ctx: Ctx): Promise<void> {
  const url = fileHostUrl(ctx, 'build');
  await npmRun(ctx, 'verify', dataArgs(ctx));
  // With a file host, server pages are rendered only for the servers that changed since the last
  // publish, and months already there under their key (the bundles step's) are not written again:
  // the fingerprints and the sealed-months record it kept are read first (no file: everything).
  if (url) await npmRun(ctx, 'publish-files', ['--fingerprints-out', fingerprintsFile(ctx), '--sealed-out', sealedFile(ctx)]);
  await npmRun(ctx, 'build', [], {
    env: {
      ...dataEnv(ctx),
      MCP_SCHEMA_FILES_DIR: url ? filesDir(ctx) : undefined,
      MCP_SCHEMA_SERVER_PAGES: url ? 'changed' : undefined,
      MCP_SCHEMA_PUBLISHED_FINGERPRINTS: url ? fingerprintsFile(ctx) : undefined,
      MCP_SCHEMA_PUBLISHED_BUNDLES: url ? sealedFile(ctx) : undefined,
    },
  });
}

/** verify-full: one part of the weekly full verify (--part k/n). */
export async function verifyFull(ctx: Ctx, part: string | undefined): Promise<void> {
  await npmRun(ctx, 'verify', ['--full', ...(part ? ['--part', part] : []), ...dataArgs(ctx)]);
}
