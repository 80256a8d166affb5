// Test files under test/lib import the src/lib module they test, not the barrel (src/lib/index.ts or
// src/lib/contract/index.ts). Through the barrel every test file loads every module, so a mutation run
// (`npm run test:mutation`, `vitest.related`) counts every test file as related to every module, and
// each mutant in module-level code (a zod contract, a rule table) ran all of test/lib: the reason the
// complete run of 2026-12-02 could not finish. readme.test.ts is the one exception: it is about the
// barrel, and it is left out of the mutation run (stryker.config.mjs TEST_EXCLUDE).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const dir = join(root, 'test/lib');
const files = (readdirSync(dir, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(dir, f));
const BARREL = /(?:from|import\()\s*'[^']*src\/lib\/(?:contract\/)?index\.ts'/;

describe('test/lib imports', () => {
  it('finds the test files and the helpers', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.some((f) => f.endsWith('helpers/rows.ts'))).toBe(true);
  });
  it('the pattern matches a static and a dynamic import of either barrel, and not a module', () => {
    expect(BARREL.test(`import { a } from '../../src/lib/index.ts';`)).toBe(true);
    expect(BARREL.test(`await import('../../src/lib/index.ts')`)).toBe(true);
    expect(BARREL.test(`import type { B } from '../../../src/lib/contract/index.ts';`)).toBe(true);
    expect(BARREL.test(`import { a } from '../../src/lib/wilson.ts';`)).toBe(false);
  });
  it.each(files.filter((f) => !f.endsWith('readme.test.ts') && !f.endsWith('imports.test.ts')).map((f) => relative(root, f)))('%s does not import a barrel', (f) => {
    expect(BARREL.test(readFileSync(join(root, f), 'utf8'))).toBe(false);
  });
  it('readme.test.ts does (it is about the barrel)', () => {
    expect(BARREL.test(readFileSync(join(dir, 'readme.test.ts'), 'utf8'))).toBe(true);
  });
});
