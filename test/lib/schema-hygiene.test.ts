// LiveMCPBench counts were computed with a separate Python script over the same file; the outputSchema
// count (104 of 527) is also stated in fixtures/tools/real/PROVENANCE.md.
import { describe, expect, it } from 'vitest';
import { toolsSha256 } from '../../src/lib/canonical.ts';
import { schemaHygiene } from '../../src/lib/schema-hygiene.ts';
import { wilson } from '../../src/lib/wilson.ts';
import { liveMcpBenchCatalogues } from './helpers/fixtures.ts';

describe('schemaHygiene(catalogues)', () => {
  const cats = liveMcpBenchCatalogues();
  const hygiene = () => schemaHygiene(cats);
  it('counts LiveMCPBench: 70 catalogues, 527 tools', () => {
    const h = hygiene();
    expect([h.targets, h.tools]).toEqual([70, 527]);
  });
  it.each([
    ['strictInputSchema', 525],
    ['readOnlyHint', 44],
    ['destructiveHint', 22],
    ['description', 508],
    ['outputSchema', 104],
  ] as const)('%s: %i of 527, with a Wilson interval', (key, count) => {
    expect(hygiene()[key]).toEqual({ count, n: 527, ...wilson(count, 527) });
  });
  it('finds no catalogue served twice in LiveMCPBench, and finds one served under two names, in any tool order', () => {
    const h = hygiene();
    expect(h.identicalCatalogues).toEqual([]);
    const first = cats[0]!;
    const copy = { target: 'io.example/copy', tools: [...first.tools].reverse() };
    expect(schemaHygiene([...cats, copy]).identicalCatalogues).toEqual([{ tools_sha256: toolsSha256(first.tools), targets: [first.target, 'io.example/copy'].sort() }]);
  });
  it('counts a description of blanks as no description', () => {
    const tools = [{ name: 'a', description: ' \n\t ' }, { name: 'b', description: '' }, { name: 'c', description: 'Lists issues.' }, { name: 'd' }];
    expect(schemaHygiene([{ target: 't', tools }]).description.count).toBe(1);
  });
  it('lists catalogues served under most names first, names in code-unit order and each once', () => {
    const one = [{ name: 'echo' }];
    const two = [{ name: 'add' }, { name: 'sub' }];
    const cats = [
      { target: 'b/one', tools: one },
      { target: 'z/two', tools: two },
      { target: 'A/two', tools: two },
      { target: 'a/one', tools: one },
      { target: 'm/two', tools: two },
      { target: 'a/one', tools: one },
      { target: 'solo', tools: [{ name: 'x' }] },
    ];
    expect(schemaHygiene(cats).identicalCatalogues).toEqual([
      { tools_sha256: toolsSha256(two), targets: ['A/two', 'm/two', 'z/two'] },
      { tools_sha256: toolsSha256(one), targets: ['a/one', 'b/one'] },
    ]);
  });
  it('orders catalogues served under equally many names by their hash', () => {
    const lists = [[{ name: 'p' }], [{ name: 'q' }], [{ name: 'r' }]];
    const cats = lists.flatMap((tools, i) => [{ target: `x${i}`, tools }, { target: `y${i}`, tools }]);
    const hashes = schemaHygiene(cats).identicalCatalogues.map((c) => c.tools_sha256);
    expect(hashes).toEqual(lists.map((tools) => toolsSha256(tools)).sort());
    expect(schemaHygiene([...cats].reverse()).identicalCatalogues.map((c) => c.tools_sha256)).toEqual(hashes);
  });
  it('ignores empty catalogues when looking for duplicates', () => {
    expect(schemaHygiene([{ target: 'a', tools: [] }, { target: 'b', tools: [] }]).identicalCatalogues).toEqual([]);
  });
  it.each([
    ['a property without type', { type: 'object', properties: { q: { description: 'x' } } }, false],
    ['a property with anyOf', { type: 'object', properties: { q: { anyOf: [{ type: 'string' }] } } }, true],
    ['a property with enum only', { type: 'object', properties: { q: { enum: ['a', 'b'] } } }, true],
    ['a property with const only', { type: 'object', properties: { q: { const: 'a' } } }, true],
    ['a property with oneOf', { type: 'object', properties: { q: { oneOf: [{ type: 'string' }, { type: 'null' }] } } }, true],
    ['a property with allOf', { type: 'object', properties: { q: { allOf: [{ type: 'string' }] } } }, true],
    ['a property that is a $ref', { type: 'object', properties: { q: { $ref: '#/$defs/q' } } }, true],
    ['properties that are not an object', { type: 'object', properties: [{ type: 'string' }] }, false],
    ['no properties', { type: 'object' }, true],
    ['no type: object', { properties: {} }, false],
    ['a boolean property schema', { type: 'object', properties: { q: true } }, false],
  ])('strict input schema with %s: %s', (_what, inputSchema, strict) => {
    expect(schemaHygiene([{ target: 't', tools: [{ name: 'x', inputSchema }] }]).strictInputSchema.count).toBe(strict ? 1 : 0);
  });
});
