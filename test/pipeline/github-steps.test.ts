// The GitHub-only steps' refusals and their calls, with stand-ins for gh on PATH (GitHub is not
// reachable from a test): the random delay's bound, a recovery that needs exactly one bundle and
// deletes the artifact only after the push, and an edition release that is never replaced.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ctx } from '../../pipeline/exec.ts';
import { delay, recover, releaseEditions } from '../../pipeline/github.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A folder with stand-in commands (each logs its arguments, then runs `body`) and a runner temp. */
function sandbox(bodies: Record<string, string>) {
  const bin = mkdtempSync(path.join(tmpdir(), 'mcp-schema-gh-steps-'));
  dirs.push(bin);
  const log = path.join(bin, 'calls.log');
  for (const [name, body] of Object.entries(bodies)) writeFileSync(path.join(bin, name), `#!/bin/bash\necho "${name} $*" >> "${log}"\n${body}\n`, { mode: 0o755 });
  const env: NodeJS.ProcessEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: bin, RUNNER_TEMP: path.join(bin, 'temp'), GITHUB_REPOSITORY: 'owner/repo' };
  const lines: string[] = [];
  const ctx = (step: string, cwd = bin): Ctx => ({ env, cwd, data: 'data', collectArgs: [], step, log: (l) => lines.push(l) });
  return { bin, env, ctx, lines, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}

describe('delay', () => {
  it('sleeps a whole number of seconds within MAX_DELAY, and refuses a bound that is not one', async () => {
    const s = sandbox({});
    s.env.MAX_DELAY = '0';
    expect(await delay(s.ctx('delay'), () => 0.99)).toBe(0);
    expect(s.lines).toEqual(['delay: sleeping 0s (bound 0s)']);
    s.env.MAX_DELAY = '15m';
    await expect(delay(s.ctx('delay'))).rejects.toMatchObject({ exitCode: 2, message: 'delay: MAX_DELAY must be an integer from 0 to 3600 seconds, got "15m"' });
  });
});

describe('recover', () => {
  it('needs the failed run and exactly one bundle; pushes it with commit-day.sh, then deletes the run\'s artifact', async () => {
    const s = sandbox({ gh: 'case "$2" in repos/*/artifacts) [ "$1" = api ] && echo 111 ;; esac' });
    await expect(recover(s.ctx('recover'))).rejects.toMatchObject({ exitCode: 2, message: 'recover: RECOVER_RUN_ID must be the failed run\'s id, got ""' });
    s.env.RECOVER_RUN_ID = '42';
    s.env.DAY_DIR = path.join(s.bin, 'day');
    mkdirSync(s.env.DAY_DIR);
    await expect(recover(s.ctx('recover'))).rejects.toThrow(/^recover: expected one bundle in .*\/day, found 0$/);
    expect(s.calls()).toEqual([]);
    writeFileSync(path.join(s.env.DAY_DIR, 'day-2026-01-02.bundle'), 'b');
    mkdirSync(path.join(s.env.DAY_DIR, 'editions', 'edition-2026-01'), { recursive: true });
    // The repository the step runs in: a scripts/commit-day.sh stand-in that logs and succeeds.
    mkdirSync(path.join(s.bin, 'scripts'));
    writeFileSync(path.join(s.bin, 'scripts', 'commit-day.sh'), `#!/bin/bash\necho "commit-day.sh $*" >> "${path.join(s.bin, 'calls.log')}"\n`, { mode: 0o755 });
    await recover(s.ctx('recover'));
    expect(s.calls()).toEqual([
      `commit-day.sh --from-bundle ${path.join(s.env.DAY_DIR, 'day-2026-01-02.bundle')} --verify-cmd npm run verify`,
      'gh api repos/owner/repo/actions/runs/42/artifacts --jq .artifacts[] | select(.name == "collect-day-bundle") | .id',
      'gh api -X DELETE repos/owner/repo/actions/artifacts/111',
    ]);
    expect(existsSync(path.join(s.bin, 'temp', 'editions', 'edition-2026-01'))).toBe(true);
  });

  it('a push that fails keeps the artifact: nothing is deleted', async () => {
    const s = sandbox({ gh: '' });
    s.env.RECOVER_RUN_ID = '42';
    s.env.DAY_DIR = path.join(s.bin, 'day');
    mkdirSync(s.env.DAY_DIR);
    writeFileSync(path.join(s.env.DAY_DIR, 'x.bundle'), 'b');
    mkdirSync(path.join(s.bin, 'scripts'));
    writeFileSync(path.join(s.bin, 'scripts', 'commit-day.sh'), '#!/bin/bash\nexit 1\n', { mode: 0o755 });
    await expect(recover(s.ctx('recover'))).rejects.toMatchObject({ exitCode: 1 });
    expect(s.calls()).toEqual([]);
  });
});

describe('release-editions', () => {
  it('creates a release per new edition with its files, and refuses one that exists', async () => {
    const s = sandbox({ gh: 'case "$1 $2 $3" in "release view edition-2026-02") exit 0 ;; "release view "*) exit 1 ;; esac' });
    await releaseEditions(s.ctx('release-editions'));
    expect(s.lines).toEqual(['release-editions: no new edition']);
    const dir = path.join(s.bin, 'temp', 'editions', 'edition-2026-01');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'SHA256SUMS'), '');
    await releaseEditions(s.ctx('release-editions'));
    expect(s.calls().at(-1)).toMatch(new RegExp(`^gh release create edition-2026-01 ${dir}/SHA256SUMS --title mcp-schema edition-2026-01 --notes `));
    mkdirSync(path.join(s.bin, 'temp', 'editions', 'edition-2026-02'));
    await expect(releaseEditions(s.ctx('release-editions'))).rejects.toMatchObject({ exitCode: 1, message: 'release-editions: edition-2026-02 exists: editions are never replaced' });
  });
});
