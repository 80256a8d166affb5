import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/rules/finding.ts';
import { githubTools, tool } from '../helpers/fixtures.ts';
import { alone, mutated } from '../helpers/rules.ts';

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
