// action.yml read as text (no YAML parser is a dependency): its inputs, its composite steps, and the
// check step's script — for the actionlint test (action.test.ts) and for running that script with bash
// against the loopback world (check.test.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const ACTION = readFileSync(path.join(import.meta.dirname, '..', '..', 'action.yml'), 'utf8');
export const README = readFileSync(path.join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** The inputs' names, in order, with their `required` and `default`. */
export function actionInputs(): { name: string; required: boolean; default: string | null }[] {
  const block = /^inputs:\n((?: {2}.*\n)+)/m.exec(ACTION)![1]!;
  return block.split(/\n(?= {2}[\w-]+:)/).map((b) => ({
    name: /^ {2}([\w-]+):/.exec(b)![1]!,
    required: /^ {4}required: true$/m.test(b),
    default: /^ {4}default: (.*)$/m.exec(b)?.[1]?.replace(/^'(.*)'$/, '$1') ?? null,
  }));
}

/** The composite steps, as the text of the `steps:` list (indented 4). */
export function actionSteps(): string {
  return /^ {2}steps:\n((?: {4}.*\n|\n)+)/m.exec(ACTION)![1]!;
}

/** The check step's bash script. */
export function checkScript(): string {
  return stepScript('check');
}

/** The bash script of the step with this id (check, issue). */
export function stepScript(id: string): string {
  const step = actionSteps().split(/\n(?= {4}- )/).find((s) => new RegExp(`^ {6}id: ${id}$`, 'm').test(s))!;
  const lines = step.slice(step.indexOf('      run: |\n') + '      run: |\n'.length).split('\n');
  return lines.map((l) => l.replace(/^ {8}/, '')).join('\n');
}

/** The action's steps as a reusable workflow (its inputs as workflow_call inputs): what actionlint can lint. */
export function actionAsWorkflow(): string {
  const inputs = actionInputs()
    .map((i) => `      ${i.name}:\n        type: string\n        required: ${i.required}\n${i.default === null ? '' : `        default: '${i.default}'\n`}`)
    .join('');
  const steps = actionSteps()
    .split('\n')
    .map((l) => (l === '' ? l : `  ${l}`))
    .join('\n');
  return `on:\n  workflow_call:\n    inputs:\n${inputs}jobs:\n  check:\n    runs-on: ubuntu-latest\n    steps:\n${steps}`;
}

/** The README's example workflows that use the action. */
export function readmeWorkflows(): string[] {
  return [...README.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((y) => /uses: mcp-schema\/mcp-schema@/.test(y));
}
