// LiveMCPBench counts were computed with a separate Python script over the same file; the outputSchema
// count (104 of 527) is also stated in fixtures/tools/real/PROVENANCE.md.
import { describe, expect, it } from 'vitest';
import { schemaHygiene, toolsSha256, wilson } from '../../src/lib/index.ts';
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
  it('ignores empty catalogues when looking for duplicates', () => {
    expect(schemaHygiene([{ target: 'a', tools: [] }, { target: 'b', tools: [] }]).identicalCatalogues).toEqual([]);
  });
  it.each([
    ['a property without type', { type: 'object', properties: { q: { description: 'x' } } }, false],
    ['a property with anyOf', { type: 'object', properties: { q: { anyOf: [{ type: 'string' }] } } }, true],
    ['no properties', { type: 'object' }, true],
    ['no type: object', { properties: {} }, false],
    ['a boolean property schema', { type: 'object', properties: { q: true } }, false],
  ])('strict input schema with %s: %s', (_what, inputSchema, strict) => {
    expect(schemaHygiene([{ target: 't', tools: [{ name: 'x', inputSchema }] }]).strictInputSchema.count).toBe(strict ? 1 : 0);
  });
});
