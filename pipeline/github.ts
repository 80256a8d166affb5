// The steps only a GitHub workflow runs: they ask GitHub (through gh, with GH_TOKEN and
// GITHUB_REPOSITORY as the runner sets them) about kept days, artifacts and releases.
//   guard            refuse to collect while a day kept by a failed push (or by the store failing) awaits its run
//   delay            the random start delay (MAX_DELAY seconds at most)
//   recover          replay the kept day's bundle onto main (verified, then pushed), then delete its artifact
//   release-editions a new edition's data bundles as the assets of its own release, never replaced
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, EXIT } from '../collector/cli-kit/index.ts';
import { envOf, run, type Ctx } from './exec.ts';
import { KEPT_ARTIFACT } from './shards.ts';
import { editionsDir, tempRoot } from './steps.ts';

/** The artifact a day that could not be pushed is kept in (collect.yml uploads it, recover reads it). */
export const DAY_ARTIFACT = 'collect-day-bundle';

/** GITHUB_REPOSITORY, or a usage error naming the step that needs it. */
export function repository(ctx: Ctx): string {
  const repo = envOf(ctx, 'GITHUB_REPOSITORY');
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new CliError(`${ctx.step}: a GitHub-only step: GITHUB_REPOSITORY must be <owner>/<repo>, got ${JSON.stringify(repo.slice(0, 60))}`, EXIT.usage);
  return repo;
}

/** A GitHub workflow command (`::error::…`): the runner reads them on stdout. */
export function annotate(level: 'error' | 'notice', message: string): void {
  process.stdout.write(`::${level}::${message}\n`);
}

/**
 * guard: a day that could not be pushed is kept as the artifact collect-day-bundle until a recovery run
 * pushes it and deletes the artifact. Collecting another day first would seal its manifest on main's
 * head instead of the kept day's, and the kept day could never join the chain after it: so this step
 * fails and names the run to recover (a day given up for good: delete its artifact by hand).
 */
export async function guard(ctx: Ctx): Promise<void> {
  const repo = repository(ctx);
  const keptBy = async (artifact: string) => (await run(ctx, 'gh', ['api', `repos/${repo}/actions/artifacts?name=${artifact}&per_page=100`, '--jq', '[.artifacts[] | select(.expired | not) | .workflow_run.id | tostring] | join(" ")'], { capture: true })).stdout.trim();
  const kept = await keptBy(DAY_ARTIFACT);
  if (kept) {
    annotate('error', `a day kept by collect run ${kept} awaits recovery: run this workflow with recover_run_id set to that run first`);
    throw new CliError(`guard: a day kept by collect run ${kept} awaits recovery`, EXIT.failed);
  }
  // A day the object store stopped (seal or close exited 5) is kept too: another day first would chain
  // past it, and its rows would never be sealed.
  const stopped = await keptBy(KEPT_ARTIFACT);
  if (stopped) {
    annotate('error', `a day the object store stopped, kept by collect run ${stopped}, awaits its resume: run this workflow with resume_run_id set to that run first`);
    throw new CliError(`guard: a day the object store stopped, kept by collect run ${stopped}, awaits its resume`, EXIT.failed);
  }
  ctx.log('guard: no kept day awaits recovery or resume');
}

/** delay: sleep a random whole number of seconds from 0 to MAX_DELAY (default 900). */
export async function delay(ctx: Ctx, random: () => number = Math.random): Promise<number> {
  const raw = envOf(ctx, 'MAX_DELAY') || '900';
  if (!/^\d+$/.test(raw) || Number(raw) > 3600) throw new CliError(`delay: MAX_DELAY must be an integer from 0 to 3600 seconds, got ${JSON.stringify(raw.slice(0, 40))}`, EXIT.usage);
  const bound = Number(raw);
  const s = Math.floor(random() * (bound + 1));
  ctx.log(`delay: sleeping ${s}s (bound ${bound}s)`);
  await sleep(s * 1000);
  return s;
}

/**
 * recover: the failed run's bundle (downloaded into DAY_DIR) is replayed onto main as it is now by
 * scripts/commit-day.sh --from-bundle, verified with npm run verify, and pushed with its retry; an
 * edition cut that day comes back for release-editions; then the run's artifact is deleted, so the
 * daily guard stops waiting for it.
 */
export async function recover(ctx: Ctx): Promise<void> {
  const repo = repository(ctx);
  const runId = envOf(ctx, 'RECOVER_RUN_ID');
  if (!/^\d+$/.test(runId)) throw new CliError(`recover: RECOVER_RUN_ID must be the failed run's id, got ${JSON.stringify(runId.slice(0, 40))}`, EXIT.usage);
  const dayDir = envOf(ctx, 'DAY_DIR') || path.join(tempRoot(ctx), 'collect-day');
  const bundles = existsSync(dayDir) ? readdirSync(dayDir).filter((f) => f.endsWith('.bundle')) : [];
  if (bundles.length !== 1) {
    annotate('error', `expected one bundle in the artifact, found ${bundles.length}`);
    throw new CliError(`recover: expected one bundle in ${dayDir}, found ${bundles.length}`, EXIT.failed);
  }
  await run(ctx, 'scripts/commit-day.sh', ['--from-bundle', path.join(dayDir, bundles[0]!), '--verify-cmd', 'npm run verify']);
  if (existsSync(path.join(dayDir, 'editions'))) {
    mkdirSync(path.dirname(editionsDir(ctx)), { recursive: true });
    renameSync(path.join(dayDir, 'editions'), editionsDir(ctx));
  }
  const { stdout } = await run(ctx, 'gh', ['api', `repos/${repo}/actions/runs/${runId}/artifacts`, '--jq', `.artifacts[] | select(.name == "${DAY_ARTIFACT}") | .id`], { capture: true });
  for (const id of stdout.split(/\s+/).filter((s) => /^\d+$/.test(s))) await run(ctx, 'gh', ['api', '-X', 'DELETE', `repos/${repo}/actions/artifacts/${id}`]);
}

/**
 * release-editions: after the commit (or a recovery's push), each new edition's bundles become the
 * assets of a release named for it, edition-<id>. A release that exists is never replaced: the step fails.
 */
export async function releaseEditions(ctx: Ctx): Promise<void> {
  const dir = editionsDir(ctx);
  const editions = existsSync(dir) ? readdirSync(dir).filter((d) => d.startsWith('edition-')).sort() : [];
  if (editions.length === 0) return ctx.log('release-editions: no new edition');
  repository(ctx);
  for (const tag of editions) {
    const view = await run(ctx, 'gh', ['release', 'view', tag], { capture: true, allowFailure: true });
    if (view.code === 0) throw new CliError(`release-editions: ${tag} exists: editions are never replaced`, EXIT.failed);
    const files = readdirSync(path.join(dir, tag)).sort().map((f) => path.join(dir, tag, f));
    await run(ctx, 'gh', ['release', 'create', tag, ...files, '--title', `mcp-schema ${tag}`, '--notes', "Data as of the edition's run (CC BY 4.0). Checksums: SHA256SUMS; the edition itself is in data/editions/."]);
  }
}
