// The server-name shards (src/lib/server-name-search.ts): bounded in size, and every name found from
// the shard of each of its words that is not too common. Names are generated (fast-check) in the
// registry's shape, `<reverse-dns>/<words>`, so owners and words repeat the way real ones do.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameMatches, nameTokens, shardBytes, shardFor, shardServerNames } from '../../src/lib/server-name-search.ts';

const word = fc.constantFrom('gmail', 'github', 'google', 'drive', 'slack', 'sql', 'postgres', 'pdf', 'time', 'weather', 'maps', 'notion', 'jira', 'git', 'gitlab', 'graph', 'mcp', 'server', 'api', 'tools', 'search', 'x', 'ai');
const owner = fc.stringMatching(/^[a-z][a-z0-9-]{1,10}$/);
const name = fc.tuple(fc.constantFrom('io.github', 'com', 'ai.smithery', 'dev'), owner, fc.array(word, { minLength: 1, maxLength: 4 })).map(([ns, o, ws]) => `${ns}.${o}/${ws.join('-')}`);
const servers = fc.uniqueArray(name, { minLength: 1, maxLength: 400 }).map((ns) => ns.map((n) => ({ name: n, slug: n.replace('/', '_') })));

describe('shardServerNames(servers, maxBytes)', () => {
  it('keeps every shard within the bound, and finds every name from the shard of each indexed word', () => {
    fc.assert(
      fc.property(servers, fc.integer({ min: 200, max: 4000 }), (list, max) => {
        const { shards, tooCommon } = shardServerNames(list, max);
        const prefixes = new Set(shards.keys());
        for (const entries of shards.values()) expect(shardBytes(entries)).toBeLessThanOrEqual(max);
        for (const { name: n, slug } of list) {
          for (const t of nameTokens(n)) {
            if (tooCommon.includes(t)) continue;
            const at = shardFor(t, prefixes);
            expect(at, t).not.toBeNull();
            if ('more' in at!) {
              // Only a word that is itself a split prefix needs more letters; its names are in `<word>_`.
              expect(shards.get(`${t}_`)?.some(([x]) => x === n), t).toBe(true);
              continue;
            }
            expect(shards.get(at!.shard)!.some(([x, s]) => x === n && s === slug), `${n} under ${t}`).toBe(true);
          }
        }
        // A word is too common only when its names alone are over the bound.
        for (const t of tooCommon) expect(shardBytes(list.filter((s) => nameTokens(s.name).includes(t)).map((s) => [s.name, s.slug] as [string, string]))).toBeGreaterThan(max);
      }),
      { numRuns: 60 },
    );
  });

  it('splits a shard one byte over the bound, and not one exactly at it (the near miss)', () => {
    const list = ['a.b/gmail', 'a.b/gmx', 'c.d/gmail-tools'].map((n) => ({ name: n, slug: n.replace('/', '_') }));
    const whole = shardServerNames(list, 10_000).shards.get('gm')!;
    expect(shardServerNames(list, shardBytes(whole)).shards.get('gm')).toEqual(whole);
    const split = shardServerNames(list, shardBytes(whole) - 1).shards;
    expect(split.has('gm')).toBe(false);
    expect([...split.keys()].filter((k) => k.startsWith('gm')).sort()).toEqual(['gma', 'gmx']);
  });
});

describe('nameMatches(name, query)', () => {
  it('needs every query word to start a word of the name, in any order and case', () => {
    expect(nameMatches('io.github.acme/Gmail-MCP', 'mcp GMA')).toBe(true);
    expect(nameMatches('io.github.acme/gmail-mcp', 'mail')).toBe(false);
    expect(nameMatches('io.github.acme/gmail-mcp', 'gmail slack')).toBe(false);
    expect(nameMatches('io.github.acme/gmail-mcp', 'g')).toBe(false);
  });
});
