// Every export of src/lib/index.ts has an entry in src/lib/README.md (a `###` heading naming it in
// backticks), and every line of a ```ts example block in the README holds when executed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as lib from '../../src/lib/index.ts';

const readme = readFileSync(new URL('../../src/lib/README.md', import.meta.url), 'utf8');
const headings = readme.split('\n').filter((l) => l.startsWith('### '));
const named = new Set(headings.flatMap((h) => [...h.matchAll(/`([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!)));

const examples = [...readme.matchAll(/```ts example\n([\s\S]*?)```/g)].flatMap((m) =>
  m[1]!.split('\n').filter((l) => l.includes('// → ')).map((l) => {
    const [expr, want] = l.split('// → ') as [string, string];
    return [expr.trim().replace(/;$/, ''), want.trim()] as const;
  }),
);

// Evaluated with the library's exports in scope (sloppy-mode Function so `with` is allowed).
const evaluate = (source: string): unknown => new Function('lib', `with (lib) { return (${source}); }`)(lib);

describe('src/lib/README.md', () => {
  it.each(Object.keys(lib).sort())('has an entry for %s', (name) => {
    expect(named.has(name)).toBe(true);
  });
  it('names no export that does not exist', () => {
    for (const name of named) expect(Object.keys(lib)).toContain(name);
  });
  it('has worked examples', () => expect(examples.length).toBeGreaterThan(20));
  it.each(examples)('example %s → %s holds', (expr, want) => {
    expect(evaluate(expr)).toEqual(evaluate(want));
  });
});
