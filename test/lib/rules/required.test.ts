import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/rules/finding.ts';
import { githubTools, proxyTools } from '../helpers/fixtures.ts';
import { alone, mutated } from '../helpers/rules.ts';

const base = githubTools('v1.10.1');

describe('input-required-property-added', () => {
  it('fires once, ERR, for a new property that is required', () => {
    const after = mutated(base, 'list_issues', (t) => {
      t.inputSchema.properties.milestone = { type: 'string' };
      t.inputSchema.required.push('milestone');
    });
    expect(alone('input-required-property-added', base, after)).toEqual([
      {
        rule: 'input-required-property-added',
        axis: 'compatibility',
        level: 'ERR',
        tool: 'list_issues',
        path: '/inputSchema/properties/milestone',
        before: undefined,
        after: { type: 'string' },
        fingerprint: fingerprint('input-required-property-added', 'list_issues', '/inputSchema/properties/milestone'),
        message: 'Tool "list_issues" gained a required input property "milestone": calls without it may now be rejected.',
      },
    ]);
  });
  it('fires with no schema to show for a required name that properties does not declare (even "constructor")', () => {
    const after = mutated(base, 'list_issues', (t) => t.inputSchema.required.push('constructor'));
    expect(alone('input-required-property-added', base, after)).toMatchObject([{ path: '/inputSchema/properties/constructor', before: undefined, after: undefined }]);
    const bare = (required: string[]) => [{ name: 't', inputSchema: { type: 'object', required } }];
    expect(alone('input-required-property-added', bare([]), bare(['q']))).toMatchObject([{ path: '/inputSchema/properties/q', after: undefined }]);
  });
  it('does not fire for the same property added as optional', () => {
    const after = mutated(base, 'list_issues', (t) => {
      t.inputSchema.properties.milestone = { type: 'string' };
    });
    expect(alone('input-required-property-added', base, after)).toEqual([]);
  });
});

describe('input-property-became-required', () => {
  it('fires once, ERR, when an existing optional property joins required', () => {
    const after = mutated(base, 'list_issues', (t) => t.inputSchema.required.push('state'));
    expect(alone('input-property-became-required', base, after)).toEqual([
      expect.objectContaining({
        rule: 'input-property-became-required',
        level: 'ERR',
        tool: 'list_issues',
        path: '/inputSchema/properties/state',
        before: false,
        after: true,
        message: 'Input property "state" of tool "list_issues" became required: calls that omit it may now be rejected.',
      }),
    ]);
  });
  it('does not fire when required is only reordered', () => {
    const after = mutated(base, 'list_issues', (t) => t.inputSchema.required.reverse());
    expect(alone('input-property-became-required', base, after)).toEqual([]);
  });
  it('fires for a property inside array items (field_filters[].value)', () => {
    const before = mutated(base, 'list_issues', (t) => (t.inputSchema.properties.field_filters.items.required = ['field_name']));
    const after = mutated(base, 'list_issues', () => undefined);
    expect(alone('input-property-became-required', before, after).map((f) => f.path)).toEqual(['/inputSchema/properties/field_filters/items/properties/value']);
  });
});

describe('output-required-property-removed', () => {
  const fs = proxyTools('server-filesystem');
  it('fires once, ERR, when an output property is no longer required', () => {
    const after = mutated(fs, 'read_file', (t) => (t.outputSchema.required = []));
    expect(alone('output-required-property-removed', fs, after)).toEqual([
      expect.objectContaining({
        rule: 'output-required-property-removed',
        level: 'ERR',
        tool: 'read_file',
        path: '/outputSchema/properties/content',
        before: true,
        after: false,
        message: 'Output property "content" of tool "read_file" is no longer guaranteed: callers that read it may break.',
      }),
    ]);
  });
  it('reports after: undefined when the property is gone altogether', () => {
    const after = mutated(fs, 'read_file', (t) => {
      t.outputSchema.required = [];
      delete t.outputSchema.properties.content;
    });
    expect(alone('output-required-property-removed', fs, after)).toMatchObject([{ after: undefined }]);
  });
  it('does not fire when a required output property is added', () => {
    const after = mutated(fs, 'read_file', (t) => {
      t.outputSchema.properties.size = { type: 'number' };
      t.outputSchema.required.push('size');
    });
    expect(alone('output-required-property-removed', fs, after)).toEqual([]);
  });
});

describe('required rules on one-tool lists: the value shown for a name', () => {
  const t = (side: 'inputSchema' | 'outputSchema', schema: unknown) => [{ name: 't', [side]: schema }] as never[];
  it('a newly required name the schema does not declare has no value, even one every object inherits', () => {
    const found = alone('input-required-property-added', t('inputSchema', {}), t('inputSchema', { properties: { q: { type: 'string' } }, required: ['constructor', 'q', 'toString'] }));
    expect(found.map((f) => [f.path, f.after])).toEqual([
      ['/inputSchema/properties/constructor', undefined],
      ['/inputSchema/properties/q', { type: 'string' }],
      ['/inputSchema/properties/toString', undefined],
    ]);
    expect(alone('input-required-property-added', t('inputSchema', {}), t('inputSchema', { required: ['q'] }))).toMatchObject([{ path: '/inputSchema/properties/q', after: undefined }]);
  });
  it('an output name no longer required shows false when still declared, absent when gone', () => {
    const before = t('outputSchema', { properties: { a: {}, b: {} }, required: ['a', 'b'] });
    const after = t('outputSchema', { properties: { a: {} } });
    expect(alone('output-required-property-removed', before, after).map((f) => [f.path, f.before, f.after])).toEqual([
      ['/outputSchema/properties/a', true, false],
      ['/outputSchema/properties/b', true, undefined],
    ]);
  });
});

describe('a newly required name: added or became required, never both', () => {
  const t = (inputSchema: unknown) => [{ name: 't', inputSchema }] as never[];
  it('a new required property is added, not a property that became required; a declared one became required, not added', () => {
    const before = t({ properties: { a: {} } });
    const after = t({ properties: { a: {}, b: {} }, required: ['a', 'b'] });
    expect(alone('input-property-became-required', before, after).map((f) => f.path)).toEqual(['/inputSchema/properties/a']);
    expect(alone('input-required-property-added', before, after).map((f) => f.path)).toEqual(['/inputSchema/properties/b']);
  });
});
