// The status strip colours a known kind by its class (StatusStrip.astro): global.css must say, for
// every entry of STRIP_KINDS, exactly the background the entry says — or a kind would draw in a colour
// its legend does not show.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STRIP_KINDS } from '../../src/site/strip-kinds.ts';

const css = readFileSync(new URL('../../src/styles/global.css', import.meta.url), 'utf8');
const rules = new Map([...css.matchAll(/^\.k-([a-z_]+) \{ background: ([^;]+); \}$/gm)].map((m) => [m[1]!, m[2]!]));

describe('the strip kinds in global.css', () => {
  it('one rule per STRIP_KINDS entry, with its background, and no rule for a kind it lacks', () => {
    expect(Object.keys(STRIP_KINDS).length).toBeGreaterThan(5);
    for (const [kind, k] of Object.entries(STRIP_KINDS)) expect(rules.get(kind), kind).toBe(k.background);
    expect([...rules.keys()].sort()).toEqual(Object.keys(STRIP_KINDS).sort());
  });
});
