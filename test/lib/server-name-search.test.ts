// The server-name shards (src/lib/server-name-search.ts): bounded in size, and every name found from
// the shard of each of its words that is not too common. Names are generated (fast-check) in the
// registry's shape, `<reverse-dns>/<words>`, so owners and words repeat the way real ones do.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameMatches, nameTokens, SERVER_NAME_INDEX_DIR, shardBytes, shardFor, shardServerNames } from '../../src/lib/server-name-search.ts';

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

  it('gives each shard its entries sorted by name and the too-common words sorted, whatever the order of the servers', () => {
    const list = ['z.y/zeta-alpha-one', 'c.d/gmx', 'a.b/zeta-alpha-two', 'b.c/gmail'].map((n) => ({ name: n, slug: n.replace('/', '_') }));
    // The bound holds the two short names together but not the two long ones: "zeta" and "alpha" are too common.
    const max = shardBytes([['b.c/gmail', 'b.c_gmail'], ['c.d/gmx', 'c.d_gmx']]);
    expect(shardBytes([['a.b/zeta-alpha-two', 'a.b_zeta-alpha-two'], ['z.y/zeta-alpha-one', 'z.y_zeta-alpha-one']])).toBeGreaterThan(max);
    const out = shardServerNames(list, max);
    expect(out.tooCommon).toEqual(['alpha', 'zeta']);
    expect(new Map([...out.shards].sort())).toEqual(
      new Map([
        ['gm', [['b.c/gmail', 'b.c_gmail'], ['c.d/gmx', 'c.d_gmx']]],
        ['on', [['z.y/zeta-alpha-one', 'z.y_zeta-alpha-one']]],
        ['tw', [['a.b/zeta-alpha-two', 'a.b_zeta-alpha-two']]],
      ]),
    );
    const reversed = shardServerNames([...list].reverse(), max);
    expect(reversed.tooCommon).toEqual(['alpha', 'zeta']);
    expect([...reversed.shards].sort()).toEqual([...out.shards].sort());
  });

  it('indexes a word whose names alone are exactly at the bound, and lists it as too common one byte over (the near miss)', () => {
    const list = [{ name: 'a.b/gmail', slug: 'a.b_gmail' }];
    const at = shardBytes([['a.b/gmail', 'a.b_gmail']]);
    expect(shardServerNames(list, at)).toEqual({ shards: new Map([['gm', [['a.b/gmail', 'a.b_gmail']]]]), tooCommon: [] });
    expect(shardServerNames(list, at - 1).tooCommon).toEqual(['gmail']);
    expect(shardServerNames(list, at - 1).shards.size).toBe(0);
  });

  it('puts a word exactly as long as a split prefix in the shard <prefix>_, and the longer words in shards one character longer', () => {
    const list = ['a/git', 'b/github', 'c/gitlab'].map((n) => ({ name: n, slug: n.replace('/', '_') }));
    const max = shardBytes([['b/github', 'b_github']]);
    const { shards, tooCommon } = shardServerNames(list, max);
    expect(tooCommon).toEqual([]);
    expect([...shards.keys()].sort()).toEqual(['git_', 'gith', 'gitl']);
    expect(shards.get('git_')).toEqual([['a/git', 'a_git']]);
    expect(shards.get('gith')).toEqual([['b/github', 'b_github']]);
    const prefixes = new Set(shards.keys());
    expect(shardFor('git', prefixes)).toEqual({ more: true });
    expect(shardFor('gitlab', prefixes)).toEqual({ shard: 'gitl' });
  });
});

describe('shardFor(token, prefixes)', () => {
  it('answers from the longest published prefix, asks for more letters below a split prefix, and is null with no shard', () => {
    const prefixes = new Set(['gm', 'gma', 'gmx']);
    expect(shardFor('gmail', prefixes)).toEqual({ shard: 'gma' });
    expect(shardFor('gmo', prefixes)).toEqual({ shard: 'gm' });
    expect(shardFor('gm', new Set(['gma', 'gmx']))).toEqual({ more: true });
    expect(shardFor('g', new Set(['gma', 'gmx']))).toEqual({ more: true });
    expect(shardFor('zz', new Set(['gma', 'gmx']))).toBeNull();
    expect(shardFor('gx', new Set(['gma', 'gmx']))).toBeNull();
    expect(shardFor('gm', new Set())).toBeNull();
  });

  it('the shards are published under /api/server-names', () => {
    expect(SERVER_NAME_INDEX_DIR).toBe('/api/server-names');
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

describe('nameTokens(name)', () => {
  it('keeps runs of two characters or more, lowercased, each once, and drops single characters (the near miss)', () => {
    expect(nameTokens('io.github.X/ai-b-IO-mcp2')).toEqual(['io', 'github', 'ai', 'mcp2']);
    expect(nameTokens('ＧＭ/x')).toEqual(['gm']);
    expect(nameMatches('io.github.acme/ai-tools', 'ai')).toBe(true);
  });
});
