// Golden files (after observablehq/plot test/plot-snapshot.js): test/output/<name> holds the expected
// bytes of an output, normalised first. A mismatch writes <name>-changed.<ext> beside the golden (git
// ignores those) to diff and, when the change is meant, to copy over it. A missing golden is written
// on a developer's first run, to review and commit; under CI it is a failure.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';

export const OUTPUT = path.join(import.meta.dirname, '..', 'output');

export async function expectGolden(name: string, actual: string): Promise<void> {
  const golden = path.join(OUTPUT, name);
  if (!existsSync(golden)) {
    if (process.env.CI) throw new Error(`golden ${golden} is missing: run the test locally, review the file and commit it`);
    await writeFile(golden, actual);
  }
  const expected = await readFile(golden, 'utf8');
  if (actual !== expected) await writeFile(changedName(golden), actual);
  expect(actual, `${name} differs from its golden; see ${path.basename(changedName(golden))} beside it`).toBe(expected);
}

function changedName(golden: string): string {
  const ext = path.extname(golden);
  return `${golden.slice(0, golden.length - ext.length)}-changed${ext}`;
}
