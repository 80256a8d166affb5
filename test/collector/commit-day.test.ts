// No lost day: scripts/commit-day.sh against real git repositories in a temp dir, no mocks.
// A bare repository is "origin"; a shallow clone (fetch-depth 1, as actions/checkout makes it) is the
// collect job with the day's data/ files written; a second clone pushes first (the race).
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/commit-day.sh', import.meta.url));
const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const DAY_MESSAGE = 'data: observations for 2026-05-01';
const SUMMARY = '{"attempts":3,"ok":3}\n';
// The day's files: two append-only logs and one new object, as a collection writes them.
const DAY_FILES = ['data/runs.jsonl', 'data/chain.jsonl', 'data/objects/ab/abcd.json'];

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

// Git that reads no configuration of this machine's user and signs every commit the same way.
function gitEnv(root: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('COMMIT_DAY_') || key.startsWith('GIT_')) delete env[key];
  return {
    ...env,
    HOME: root,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: join(root, 'gitconfig'),
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@example.invalid',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@example.invalid',
  };
}

interface World {
  root: string;
  origin: string;
  job: string;
  env: NodeJS.ProcessEnv;
  git(cwd: string, ...args: string[]): string;
  /** A clone of origin's main; shallow like the workflow's checkout unless full. */
  clone(name: string, opts?: { full?: boolean }): string;
  commitAndPush(cwd: string, message: string, files: Record<string, string>): string;
  /** The script, run in cwd with fast retries; never throws. */
  run(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string };
  refs(): string;
  /** Invocations of origin's pre-receive hook: one per push that reached it. */
  pushesSeen(): number;
  rejectPushes(): void;
}

// Origin as the days before left it: the archive so far, then a code commit (so a shallow clone of
// main lacks the archive's commit). Made once, copied for each test.
let template: string | undefined;
function originTemplate(): string {
  if (template) return template;
  const root = mkdtempSync(join(tmpdir(), 'commit-day-origin-'));
  roots.push(root);
  const env = gitEnv(root);
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const origin = join(root, 'origin.git');
  const seed = join(root, 'seed');
  git(root, 'init', '-q', '--bare', '-b', 'main', origin);
  git(root, 'init', '-q', '-b', 'main', seed);
  const files: Record<string, string> = {
    'data/runs.jsonl': '{"run":"2026-04-29"}\n{"run":"2026-04-30"}\n',
    'data/chain.jsonl': '{"seq":1}\n{"seq":2}\n',
    'src/code.ts': 'export const x = 1;\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(seed, path)), { recursive: true });
    writeFileSync(join(seed, path), text);
  }
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'archive so far');
  writeFileSync(join(seed, 'src/more.ts'), 'export const n = 1;\n');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'code');
  git(seed, 'push', '-q', origin, 'HEAD:refs/heads/main');
  template = origin;
  return origin;
}

function world(): World {
  const root = mkdtempSync(join(tmpdir(), 'commit-day-'));
  roots.push(root);
  const env = gitEnv(root);
  const origin = join(root, 'origin.git');
  const hookLog = join(root, 'pushes.log');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const write = (cwd: string, files: Record<string, string>) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(cwd, path)), { recursive: true });
      writeFileSync(join(cwd, path), text);
    }
  };
  const w: World = {
    root,
    origin,
    job: '',
    env,
    git,
    clone(name, opts = {}) {
      const dir = join(root, name);
      git(root, 'clone', '-q', ...(opts.full ? [] : ['--depth', '1']), `file://${origin}`, dir);
      return dir;
    },
    commitAndPush(cwd, message, files) {
      write(cwd, files);
      git(cwd, 'add', '-A');
      git(cwd, 'commit', '-q', '-m', message);
      git(cwd, 'push', '-q', 'origin', 'HEAD:main');
      return git(cwd, 'rev-parse', 'HEAD');
    },
    run(cwd, ...args) {
      const r = spawnSync(SCRIPT, ['--delay', '0', '--attempts', '3', '--bundle-dir', join(root, 'kept'), ...args], { cwd, env, encoding: 'utf8' });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    refs: () => git(origin, 'for-each-ref', '--format=%(refname) %(objectname)'),
    pushesSeen: () => (existsSync(hookLog) ? readFileSync(hookLog, 'utf8').split('\n').filter(Boolean).length : 0),
    rejectPushes() {
      writeFileSync(join(origin, 'hooks', 'pre-receive'), `#!/bin/sh\necho push >> '${hookLog}'\necho 'refused by the test' >&2\nexit 1\n`);
    },
  };
  cpSync(originTemplate(), origin, { recursive: true });
  writeFileSync(join(origin, 'hooks', 'pre-receive'), `#!/bin/sh\necho push >> '${hookLog}'\nexit 0\n`);
  chmodSync(join(origin, 'hooks', 'pre-receive'), 0o755);
  // The collect job: checked out at the start of the run, then the day's files written.
  w.job = w.clone('job');
  appendFileSync(join(w.job, 'data/runs.jsonl'), '{"run":"2026-05-01"}\n');
  appendFileSync(join(w.job, 'data/chain.jsonl'), '{"seq":3}\n');
  write(w.job, { 'data/objects/ab/abcd.json': '{"tools":[]}\n', 'collect-summary.json': SUMMARY });
  return w;
}

const dayBytes = (w: World) => DAY_FILES.map((f) => readFileSync(join(w.job, f)));
const originBytes = (w: World) => DAY_FILES.map((f) => execFileSync('git', ['show', `main:${f}`], { cwd: w.origin, env: w.env }));
const bundles = (w: World) => (existsSync(join(w.root, 'kept')) ? readdirSync(join(w.root, 'kept')).filter((f) => f.endsWith('.bundle')) : []);

describe.skipIf(!HAS_GIT)(HAS_GIT ? 'scripts/commit-day.sh' : 'scripts/commit-day.sh — SKIPPED: no `git` on PATH', () => {
  it('lands the day on top of a code commit pushed during the run (push refused, fetch, rebase, push)', () => {
    const w = world();
    const dev = w.clone('dev', { full: true });
    const theirs = w.commitAndPush(dev, 'a developer pushes during the run', { 'src/code.ts': 'export const x = 2;\n', 'src/new.ts': 'export {};\n' });

    const r = w.run(w.job, '--message', DAY_MESSAGE, '--body-file', 'collect-summary.json');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('attempt 2 of 3');
    // On top of the other commit, which it keeps, with the day's files byte for byte.
    expect(w.git(w.origin, 'rev-parse', 'main~1')).toBe(theirs);
    expect(w.git(w.origin, 'log', '-1', '--format=%s%n%n%b', 'main')).toBe(`${DAY_MESSAGE}\n\n${SUMMARY.trim()}`);
    expect(originBytes(w)).toEqual(dayBytes(w));
    expect(w.git(w.origin, 'show', 'main:src/code.ts')).toBe('export const x = 2;');
    // Only data/ was committed: the summary stays out of the archive.
    expect(w.git(w.origin, 'ls-tree', '-r', '--name-only', 'main')).not.toContain('collect-summary.json');
    expect(bundles(w)).toEqual([]);
  });

  it('with the objects in a bucket, --exclude keeps data/objects out of the commit and commits the rest', () => {
    const w = world();
    const r = w.run(w.job, '--message', DAY_MESSAGE, '--exclude', 'data/objects/');
    expect(r.status, r.stderr).toBe(0);
    const tree = w.git(w.origin, 'ls-tree', '-r', '--name-only', 'main').split('\n');
    expect(tree).toContain('data/runs.jsonl');
    expect(tree).not.toContain('data/objects/ab/abcd.json');
    expect(execFileSync('git', ['show', 'main:data/runs.jsonl'], { cwd: w.origin, env: w.env }).equals(readFileSync(join(w.job, 'data/runs.jsonl')))).toBe(true);
    const bad = w.run(w.job, '--exclude', 'src');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('not a folder under data/');
  });

  it('pushes at once when nobody raced it', () => {
    const w = world();
    const r = w.run(w.job, '--message', DAY_MESSAGE);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('attempt 1 of 3');
    expect(w.pushesSeen()).toBe(1);
    expect(originBytes(w)).toEqual(dayBytes(w));
  });

  it('with nothing new in data/ exits 0 and pushes nothing', () => {
    const w = world();
    const clean = w.clone('clean');
    // Not the day's to push: a local code commit, a file outside data/ (a push of HEAD would show).
    w.git(clean, 'commit', '-q', '--allow-empty', '-m', 'local work');
    writeFileSync(join(clean, 'collect-summary.json'), SUMMARY);
    const before = w.refs();
    const r = w.run(clean, '--message', DAY_MESSAGE);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('nothing new to commit');
    expect(w.pushesSeen()).toBe(0);
    expect(w.refs()).toBe(before);
    expect(w.git(clean, 'log', '-1', '--format=%s')).toBe('local work');
  });

  it('tries a bounded number of pushes, then keeps the day as a bundle and fails', () => {
    const w = world();
    w.rejectPushes();
    const before = w.refs();
    const r = w.run(w.job, '--message', DAY_MESSAGE, '--attempts', '4');
    expect(r.status).toBe(1);
    expect(w.pushesSeen()).toBe(4);
    expect(w.refs()).toBe(before);
    expect(r.stderr).toContain("THE DAY'S COMMIT WAS NOT PUSHED");
    expect(r.stderr).toContain('4 pushes failed');
    expect(bundles(w)).toHaveLength(1);
  });

  it('on a conflicting data change: fails, leaves origin untouched, keeps a bundle that lands the day once main is fixed', () => {
    const w = world();
    const dev = w.clone('dev', { full: true });
    // Someone else appends to the same log while the job runs.
    const theirs = w.commitAndPush(dev, 'someone else writes the runs log', { 'data/runs.jsonl': '{"run":"2026-04-29"}\n{"run":"2026-04-30"}\n{"run":"elsewhere"}\n' });
    const before = w.refs();

    const r = w.run(w.job, '--message', DAY_MESSAGE, '--body-file', 'collect-summary.json');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("THE DAY'S COMMIT WAS NOT PUSHED");
    expect(r.stderr).toContain('conflicts');
    expect(r.stderr).toContain('--from-bundle');
    expect(w.refs()).toBe(before);
    expect(w.git(w.origin, 'rev-parse', 'main')).toBe(theirs);
    // The rebase was aborted: the job's clone is not left mid-rebase, its commit intact.
    expect(existsSync(join(w.job, '.git', 'rebase-merge')) || existsSync(join(w.job, '.git', 'rebase-apply'))).toBe(false);
    expect(w.git(w.job, 'log', '-1', '--format=%s')).toBe(DAY_MESSAGE);
    const kept = bundles(w);
    expect(kept).toHaveLength(1);
    const bundle = join(w.root, 'kept', kept[0]!);
    expect(readFileSync(join(w.root, 'kept', 'RECOVER.txt'), 'utf8')).toContain('--from-bundle');
    // Only the day's commit is in it.
    expect(w.git(w.job, 'bundle', 'list-heads', bundle)).toBe(`${w.git(w.job, 'rev-parse', 'HEAD')} HEAD`);

    // Recovering while the conflict stands fails the same way, pushing nothing.
    const early = w.clone('early');
    const e = w.run(early, '--from-bundle', bundle);
    expect(e.status).toBe(1);
    expect(e.stderr).toContain('DOES NOT APPLY');
    expect(w.refs()).toBe(before);

    // The conflict settled on main (the other write reverted), then a fresh shallow clone recovers the
    // day without probing: the day's files land byte for byte, on top of the fix.
    const fix = w.commitAndPush(dev, 'revert the other write', { 'data/runs.jsonl': '{"run":"2026-04-29"}\n{"run":"2026-04-30"}\n' });
    const fresh = w.clone('recovery');
    const ok = w.run(fresh, '--from-bundle', bundle, '--verify-cmd', 'test -s data/objects/ab/abcd.json');
    expect(ok.status, ok.stderr).toBe(0);
    expect(w.git(w.origin, 'rev-parse', 'main~1')).toBe(fix);
    expect(w.git(w.origin, 'log', '-1', '--format=%s%n%n%b', 'main')).toBe(`${DAY_MESSAGE}\n\n${SUMMARY.trim()}`);
    expect(originBytes(w)).toEqual(dayBytes(w));

    // A second recovery of the same bundle finds the day already there and pushes nothing.
    const pushes = w.pushesSeen();
    const again = w.run(w.clone('again'), '--from-bundle', bundle);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('already on origin/main');
    expect(w.pushesSeen()).toBe(pushes);
  });

  it('recovery retries a refused push too, and a failed --verify-cmd stops it before any push', () => {
    const w = world();
    w.rejectPushes();
    expect(w.run(w.job, '--message', DAY_MESSAGE, '--attempts', '1').status).toBe(1);
    const bundle = join(w.root, 'kept', bundles(w)[0]!);
    writeFileSync(join(w.origin, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 0\n');

    const refs = w.refs();
    const failed = w.run(w.clone('bad'), '--from-bundle', bundle, '--verify-cmd', 'exit 3');
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('FAILED VERIFICATION');
    expect(w.refs()).toBe(refs);

    // A code commit lands while the recovery verifies (between its fetch and its push): the push is
    // refused once, the replayed day rebased onto it, pushed again.
    const dev = w.clone('dev', { full: true });
    w.git(dev, 'commit', '-q', '--allow-empty', '-m', 'a developer pushes during the recovery');
    const theirs = w.git(dev, 'rev-parse', 'HEAD');
    const r = w.run(w.clone('rec'), '--from-bundle', bundle, '--verify-cmd', `git -C '${dev}' push -q origin HEAD:main`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('attempt 2 of 3');
    expect(w.git(w.origin, 'rev-parse', 'main~1')).toBe(theirs);
    expect(originBytes(w)).toEqual(dayBytes(w));
  });

  it('refuses bad usage', () => {
    const w = world();
    expect(w.run(w.job, '--attempts', '0').status).toBe(2);
    expect(w.run(w.job, '--delay', 'soon').status).toBe(2);
    expect(w.run(w.job, '--from-bundle', join(w.root, 'missing.bundle')).status).toBe(2);
    expect(w.pushesSeen()).toBe(0);
  });
});
