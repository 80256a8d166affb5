// The schema nodes two versions of a tool share: what every per-keyword rule walks. Each case beside its
// near miss: a node both sides hold as an object is paired, anything else is not.
import { describe, expect, it } from 'vitest';
import { propertyNames, propertyPath, requiredSet, schemaPairs, toolPairs } from '../../../src/lib/rules/schema-pairs.ts';
import type { Tool } from '../../../src/lib/tool.ts';

const t = (name: string, fields: Record<string, unknown> = {}): Tool => ({ name, ...fields }) as Tool;
const paths = (before: Tool[], after: Tool[], side: 'inputSchema' | 'outputSchema' = 'inputSchema') => schemaPairs(before, after, side).map((p) => `${p.tool} ${p.path}`);

describe('toolPairs', () => {
  it('pairs the tools both lists name, in code-unit order of name, the first of a repeated name', () => {
    const first = t('b', { title: 'first' });
    const pairs = toolPairs([t('c'), t('b'), t('a')], [first, t('b', { title: 'second' }), t('a'), t('B'), t('d')]);
    expect(pairs.map((p) => p.name)).toEqual(['a', 'b']);
    expect(pairs[1]!.after).toBe(first);
    expect(toolPairs([t('a')], [])).toEqual([]);
  });
});

describe('schemaPairs', () => {
  it('pairs the root of the side asked for, an absent schema as {}', () => {
    expect(schemaPairs([t('a')], [t('a', { inputSchema: { type: 'object' } })], 'inputSchema')).toEqual([{ tool: 'a', path: '/inputSchema', before: {}, after: { type: 'object' } }]);
    expect(schemaPairs([t('a', { outputSchema: { type: 'object' } })], [t('a')], 'outputSchema')).toEqual([{ tool: 'a', path: '/outputSchema', before: { type: 'object' }, after: {} }]);
    expect(paths([t('a', { outputSchema: {} })], [t('a', { outputSchema: {} })])).toEqual(['a /inputSchema']);
  });
  it('pairs nothing for a tool whose schema is not an object on either side; null counts as absent', () => {
    expect(paths([t('a', { inputSchema: 'x' })], [t('a', { inputSchema: {} })])).toEqual([]);
    expect(paths([t('a', { inputSchema: {} })], [t('a', { inputSchema: [] })])).toEqual([]);
    expect(paths([t('a', { inputSchema: null }), t('b')], [t('a', { inputSchema: null }), t('b')])).toEqual(['a /inputSchema', 'b /inputSchema']);
  });
  it('walks the properties both sides hold as objects, in code-unit order, escaped, and object items', () => {
    const before = t('a', { inputSchema: { properties: { b: {}, a: {}, 'x/y': {}, gone: {}, str: {}, Z: { items: { properties: { q: {} } } } } } });
    const after = t('a', { inputSchema: { properties: { str: 'string', 'x/y': {}, b: {}, a: {}, new: {}, Z: { items: { properties: { q: {} } } } } } });
    expect(paths([before], [after])).toEqual([
      'a /inputSchema',
      'a /inputSchema/properties/Z',
      'a /inputSchema/properties/Z/items',
      'a /inputSchema/properties/Z/items/properties/q',
      'a /inputSchema/properties/a',
      'a /inputSchema/properties/b',
      'a /inputSchema/properties/x~1y',
    ]);
  });
  it('enters no properties or items that are not objects on both sides', () => {
    expect(paths([t('a', { inputSchema: { properties: [{}], items: {} } })], [t('a', { inputSchema: { properties: [{}], items: [{}] } })])).toEqual(['a /inputSchema']);
    expect(paths([t('a', { inputSchema: { properties: { p: {} }, items: [{}] } })], [t('a', { inputSchema: { properties: 'p', items: {} } })])).toEqual(['a /inputSchema']);
  });
  it('pairs only properties the before side declares itself, not ones an object inherits', () => {
    const after = t('a', { inputSchema: JSON.parse('{"properties":{"__proto__":{"type":"string"},"constructor":{},"toString":{}}}') });
    expect(paths([t('a', { inputSchema: { properties: {} } })], [after])).toEqual(['a /inputSchema']);
  });
  it('walks as deep as canonical JSON goes (256 levels below the root), and no deeper', () => {
    const nest = (n: number): Record<string, unknown> => (n === 0 ? {} : { properties: { p: nest(n - 1) } });
    const viaItems = (n: number): Record<string, unknown> => (n === 0 ? {} : { items: viaItems(n - 1) });
    expect(paths([t('a', { inputSchema: nest(300) })], [t('a', { inputSchema: nest(300) })])).toHaveLength(257);
    expect(paths([t('a', { inputSchema: nest(256) })], [t('a', { inputSchema: nest(256) })])).toHaveLength(257);
    expect(paths([t('a', { inputSchema: nest(255) })], [t('a', { inputSchema: nest(255) })])).toHaveLength(256);
    expect(paths([t('a', { inputSchema: viaItems(300) })], [t('a', { inputSchema: viaItems(300) })])).toHaveLength(257);
  });
});

describe('propertyNames, requiredSet, propertyPath', () => {
  it('reads declared names from an object only, and the strings of a required array only', () => {
    expect(propertyNames({ properties: { a: {}, b: 1 } })).toEqual(['a', 'b']);
    expect(propertyNames({ properties: ['a'] })).toEqual([]);
    expect(propertyNames({})).toEqual([]);
    expect([...requiredSet({ required: ['a', 1, null, 'b', 'a'] })]).toEqual(['a', 'b']);
    expect([...requiredSet({ required: 'a' })]).toEqual([]);
    expect([...requiredSet({ required: { 0: 'a', length: 1 } })]).toEqual([]);
  });
  it('escapes ~ and / in a property name (RFC 6901)', () => {
    expect(propertyPath('/inputSchema', 'a~b/c')).toBe('/inputSchema/properties/a~0b~1c');
  });
});
