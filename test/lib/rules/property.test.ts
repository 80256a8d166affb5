import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/rules/finding.ts';
import { githubTools, tool } from '../helpers/fixtures.ts';
import { alone, mutated, rule } from '../helpers/rules.ts';

const base = githubTools('v1.10.1');
const since = (tool(base, 'list_issues').inputSchema as { properties: Record<string, unknown> }).properties.since;

describe('input-property-removed', () => {
  it('fires once, WARN, when a declared input property disappears', () => {
    const after = mutated(base, 'list_issues', (t) => delete t.inputSchema.properties.since);
    expect(alone('input-property-removed', base, after)).toEqual([
      {
        rule: 'input-property-removed',
        axis: 'compatibility',
        level: 'WARN',
        tool: 'list_issues',
        path: '/inputSchema/properties/since',
        before: since,
        after: undefined,
        fingerprint: fingerprint('input-property-removed', 'list_issues', '/inputSchema/properties/since'),
        message: 'Input property "since" of tool "list_issues" was removed: calls that send it may be rejected or have it ignored.',
      },
    ]);
    expect(since).toEqual({ description: 'Filter by date (ISO 8601 timestamp)', type: 'string' });
  });
  it('does not fire when only the property description changes', () => {
    const after = mutated(base, 'list_issues', (t) => (t.inputSchema.properties.since.description = 'Since when'));
    expect(alone('input-property-removed', base, after)).toEqual([]);
  });
});

describe('input-optional-property-added', () => {
  it('fires once, INFO, for a new optional property', () => {
    const after = mutated(base, 'list_issues', (t) => (t.inputSchema.properties.milestone = { type: 'string' }));
    expect(alone('input-optional-property-added', base, after)).toEqual([
      expect.objectContaining({
        rule: 'input-optional-property-added',
        level: 'INFO',
        tool: 'list_issues',
        path: '/inputSchema/properties/milestone',
        before: undefined,
        after: { type: 'string' },
        message: 'Tool "list_issues" accepts a new optional input property "milestone".',
      }),
    ]);
  });
  it('does not fire when the new property is required', () => {
    const after = mutated(base, 'list_issues', (t) => {
      t.inputSchema.properties.milestone = { type: 'string' };
      t.inputSchema.required.push('milestone');
    });
    expect(alone('input-optional-property-added', base, after)).toEqual([]);
  });
  it('escapes "/" and "~" in property names as RFC 6901 requires', () => {
    const after = mutated(base, 'list_issues', (t) => (t.inputSchema.properties['a/b~c'] = { type: 'string' }));
    expect(alone('input-optional-property-added', base, after)[0]!.path).toBe('/inputSchema/properties/a~1b~0c');
  });
});

describe('property rules called directly: names in order, inherited names not declared', () => {
  const t = (inputSchema: unknown) => [{ name: 't', inputSchema }] as never[];
  it('lists removed and added properties in sorted order of name, whatever order the schema holds them in', () => {
    const many = { properties: { b: {}, a: {}, c: {} } };
    expect(rule('input-property-removed').check(t(many), t({ properties: {} })).map((f) => f.path)).toEqual(['/inputSchema/properties/a', '/inputSchema/properties/b', '/inputSchema/properties/c']);
    expect(rule('input-optional-property-added').check(t({ properties: {} }), t(many)).map((f) => f.path)).toEqual(['/inputSchema/properties/a', '/inputSchema/properties/b', '/inputSchema/properties/c']);
  });
  it('a property kept is neither removed nor added; a required new one is not optional', () => {
    const before = t({ properties: { a: { type: 'string' } } });
    const after = t({ properties: { a: { type: 'number' }, b: { type: 'string' }, c: {} }, required: ['c'] });
    expect(rule('input-property-removed').check(before, after)).toEqual([]);
    expect(rule('input-optional-property-added').check(before, after)).toMatchObject([{ path: '/inputSchema/properties/b', before: undefined, after: { type: 'string' }, message: 'Tool "t" accepts a new optional input property "b".' }]);
    expect(rule('input-property-removed').check(after, before)).toMatchObject([
      { path: '/inputSchema/properties/b', before: { type: 'string' }, after: undefined, message: 'Input property "b" of tool "t" was removed: calls that send it may be rejected or have it ignored.' },
      { path: '/inputSchema/properties/c', before: {} },
    ]);
  });
});
