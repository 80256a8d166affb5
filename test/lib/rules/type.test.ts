import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/rules/finding.ts';
import { githubTools } from '../helpers/fixtures.ts';
import { alone, mutated } from '../helpers/rules.ts';

const base = githubTools('v1.10.1'); // list_issues.perPage is { type: 'number', minimum: 1, maximum: 100 }
const perPageType = (type: unknown) => mutated(base, 'list_issues', (t) => (t.inputSchema.properties.perPage.type = type));

describe('input-property-type-changed', () => {
  it('fires once, ERR, when a property changes type', () => {
    expect(alone('input-property-type-changed', base, perPageType('string'))).toEqual([
      {
        rule: 'input-property-type-changed',
        axis: 'compatibility',
        level: 'ERR',
        tool: 'list_issues',
        path: '/inputSchema/properties/perPage/type',
        before: 'number',
        after: 'string',
        fingerprint: fingerprint('input-property-type-changed', 'list_issues', '/inputSchema/properties/perPage/type'),
        message: 'The type of input property "perPage" of tool "list_issues" changed from "number" to "string": values valid before may now be rejected.',
      },
    ]);
  });
  it.each([
    ['number → integer (narrowed)', 'integer', 1],
    ['number → [string, number] (widened)', ['string', 'number'], 0],
    ['number → [number] (same set)', ['number'], 0],
    ['number → absent (any type)', undefined, 0],
  ])('%s gives %#: %s findings', (_what, type, count) => {
    expect(alone('input-property-type-changed', base, perPageType(type))).toHaveLength(count as number);
  });
  it('fires for a type declared where there was none (any type → "string")', () => {
    const before = perPageType(undefined);
    expect(alone('input-property-type-changed', before, perPageType('string'))).toEqual([
      expect.objectContaining({ path: '/inputSchema/properties/perPage/type', before: undefined, after: 'string', message: 'The type of input property "perPage" of tool "list_issues" changed from any type to "string": values valid before may now be rejected.' }),
    ]);
  });
  it('names the schema root and array items in its message', () => {
    const root = mutated(base, 'list_issues', (t) => (t.inputSchema.type = 'array'));
    expect(alone('input-property-type-changed', base, root)).toMatchObject([{ path: '/inputSchema/type', message: 'The type of input schema of tool "list_issues" changed from "object" to "array": values valid before may now be rejected.' }]);
    const items = mutated(base, 'list_issues', (t) => (t.inputSchema.properties.labels.items.type = 'number'));
    expect(alone('input-property-type-changed', base, items)).toMatchObject([
      { path: '/inputSchema/properties/labels/items/type', message: 'The type of input items of property "labels" of tool "list_issues" changed from "string" to "number": values valid before may now be rejected.' },
    ]);
  });
  it('names a property with / or ~ in its name as the server wrote it, not pointer-escaped', () => {
    const odd = (type: string) => mutated(base, 'list_issues', (t) => (t.inputSchema.properties['a/b~c'] = { type }));
    expect(alone('input-property-type-changed', odd('string'), odd('number'))).toMatchObject([
      { path: '/inputSchema/properties/a~1b~0c/type', message: 'The type of input property "a/b~c" of tool "list_issues" changed from "string" to "number": values valid before may now be rejected.' },
    ]);
  });
  it('ignores entries of a type list that are not type names (a broken server)', () => {
    expect(alone('input-property-type-changed', perPageType(['number', 5]), perPageType('number'))).toEqual([]);
  });
  it('narrowing ["string","null"] to "string" fires', () => {
    const before = perPageType(['string', 'null']);
    expect(alone('input-property-type-changed', before, perPageType('string'))).toHaveLength(1);
  });
});

describe('input-property-type-widened', () => {
  it('fires once, INFO, when a property accepts more types', () => {
    expect(alone('input-property-type-widened', base, perPageType(['number', 'null']))).toEqual([
      expect.objectContaining({
        rule: 'input-property-type-widened',
        level: 'INFO',
        path: '/inputSchema/properties/perPage/type',
        before: 'number',
        after: ['number', 'null'],
        message: 'The type of input property "perPage" of tool "list_issues" widened from "number" to ["number","null"].',
      }),
    ]);
  });
  it('does not fire for the same type spelled as an array', () => {
    expect(alone('input-property-type-widened', base, perPageType(['number']))).toEqual([]);
  });
  it('fires for integer → number (every integer is a number) and for a type dropped (→ any type)', () => {
    expect(alone('input-property-type-widened', perPageType('integer'), base)).toMatchObject([{ before: 'integer', after: 'number' }]);
    expect(alone('input-property-type-changed', perPageType('integer'), base)).toEqual([]);
    expect(alone('input-property-type-widened', base, perPageType(undefined))).toMatchObject([
      { before: 'number', after: undefined, message: 'The type of input property "perPage" of tool "list_issues" widened from "number" to any type.' },
    ]);
  });
});

describe('type changes: which sets cover which, and how nodes are named', () => {
  const one = (inputSchema: unknown) => [{ name: 't', inputSchema }] as never[];
  const both = (before: unknown, after: unknown) => [
    ...alone('input-property-type-changed', one(before), one(after)).map((f) => `changed ${f.path}: ${f.message}`),
    ...alone('input-property-type-widened', one(before), one(after)).map((f) => `widened ${f.path}: ${f.message}`),
  ];
  it('only integer is covered by number: string → number is a change, integer → number a widening', () => {
    expect(both({ type: 'string' }, { type: 'number' })).toEqual(['changed /inputSchema/type: The type of input schema of tool "t" changed from "string" to "number": values valid before may now be rejected.']);
    expect(both({ type: ['integer', 'string'] }, { type: ['string', 'number'] })).toEqual(['widened /inputSchema/type: The type of input schema of tool "t" widened from ["integer","string"] to ["string","number"].']);
    expect(both({ type: ['integer', 'boolean'] }, { type: 'number' })).toEqual(['changed /inputSchema/type: The type of input schema of tool "t" changed from ["integer","boolean"] to "number": values valid before may now be rejected.']);
  });
  it('names items of the root and items of items', () => {
    expect(both({ items: { type: 'string' } }, { items: { type: 'number' } })).toEqual([
      'changed /inputSchema/items/type: The type of input items of schema of tool "t" changed from "string" to "number": values valid before may now be rejected.',
    ]);
    expect(both({ properties: { 'x/y': { items: { items: { type: 'string' } } } } }, { properties: { 'x/y': { items: { items: { type: ['string', 'null'] } } } } })).toEqual([
      'widened /inputSchema/properties/x~1y/items/items/type: The type of input items of items of property "x/y" of tool "t" widened from "string" to ["string","null"].',
    ]);
  });
  it('a type declared where there was none narrows, whatever names the list holds', () => {
    expect(both({}, { type: ['y', 'n', 'a'] })).toEqual(['changed /inputSchema/type: The type of input schema of tool "t" changed from any type to ["y","n","a"]: values valid before may now be rejected.']);
  });
  it('no finding when neither side has a type, or the same set is reordered', () => {
    expect(both({ description: 'a' }, { description: 'b' })).toEqual([]);
    expect(both({ type: ['string', 'null'] }, { type: ['null', 'string'] })).toEqual([]);
  });
});
