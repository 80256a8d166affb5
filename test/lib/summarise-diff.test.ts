import { describe, expect, it } from 'vitest';
import { summariseDiff } from '../../src/lib/summarise-diff.ts';
import { trackTombstones } from '../../src/lib/track-tombstones.ts';
import { githubTools, tool } from './helpers/fixtures.ts';
import { mutated } from './helpers/rules.ts';

const base = githubTools('v1.10.1');

describe('summariseDiff(before, after)', () => {
  it('lists added, removed and changed tools with the surfaces that changed', () => {
    const after = mutated(base, 'list_issues', (t) => {
      t.description = 'Changed.';
      t.inputSchema.properties.perPage.maximum = 50;
      t.icons = [{ src: 'https://example.com/i.png' }];
    }).filter((t) => t.name !== 'get_me');
    after.push({ name: 'zz_new' });
    const d = summariseDiff(base, after);
    expect(d.added).toEqual(['zz_new']);
    expect(d.removed).toEqual(['get_me']);
    expect(d.returned).toEqual([]);
    expect(d.changed).toEqual([
      {
        name: 'list_issues',
        surfaces: ['inputSchema', 'description', 'other'],
        input: [{ path: '/properties/perPage/maximum', kind: 'changed', before: 100, after: 50 }],
        output: [],
      },
    ]);
  });
  it('shows a description edit with an identical schema and a schema change with a byte-identical description', () => {
    const prose = summariseDiff(base, mutated(base, 'list_issues', (t) => (t.description += '!')));
    const schema = summariseDiff(base, mutated(base, 'list_issues', (t) => t.inputSchema.required.push('state')));
    expect(prose.changed.map((c) => c.surfaces)).toEqual([['description']]);
    expect(schema.changed.map((c) => [c.surfaces, c.input])).toEqual([[['inputSchema'], [{ path: '/required', kind: 'changed', before: ['owner', 'repo'], after: ['owner', 'repo', 'state'] }]]]);
  });
  it('lists added, removed and changed names in code-unit order whatever the list order', () => {
    const before = [{ name: 'zeta' }, { name: 'Beta', description: 'b' }, { name: 'beta', description: 'b' }, { name: 'gone_z' }, { name: 'Gone_a' }];
    const after = [{ name: 'new_z' }, { name: 'beta', description: 'B' }, { name: 'Beta', description: 'B' }, { name: 'zeta' }, { name: 'New_a' }];
    const d = summariseDiff(before, after);
    expect([d.added, d.removed, d.changed.map((c) => c.name)]).toEqual([['New_a', 'new_z'], ['Gone_a', 'gone_z'], ['Beta', 'beta']]);
  });
  it('reports a surface that appears or disappears', () => {
    const before = [{ name: 't', title: 'T', inputSchema: { type: 'object' } }];
    const after = [{ name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }];
    expect(summariseDiff(before, after).changed).toEqual([
      { name: 't', surfaces: ['outputSchema', 'title'], input: [], output: [{ path: '', kind: 'added', after: { type: 'object' } }] },
    ]);
  });
  it('compares the first definition when a list repeats a tool name (tools_sha256 still covers every entry)', () => {
    const once = [{ name: 't', description: 'first' }];
    expect(summariseDiff(once, [...once, { name: 't', description: 'second' }])).toEqual({ added: [], removed: [], returned: [], changed: [] });
    expect(summariseDiff([...once, { name: 't', description: 'second' }], [{ name: 't', description: 'second' }]).changed.map((c) => c.surfaces)).toEqual([['description']]);
  });
  it('is empty for the same list in another order', () => {
    expect(summariseDiff(base, [...base].reverse())).toEqual({ added: [], removed: [], returned: [], changed: [] });
  });
  it('compares a returning tool with its tombstone instead of listing it as added', () => {
    const hidden = base.filter((t) => t.name !== 'list_issues');
    const back = mutated(base, 'list_issues', (t) => (t.description = 'Back, and different.'));
    const tombs = trackTombstones([base, hidden, back]);
    const d = summariseDiff(hidden, back, { tombstones: tombs[1] });
    expect(d.added).toEqual([]);
    expect(d.returned).toEqual([{ name: 'list_issues', surfaces: ['description'], input: [], output: [] }]);
    expect(summariseDiff(hidden, back).added).toEqual(['list_issues']);
    expect(tool(base, 'list_issues').description).not.toBe('Back, and different.');
  });
});
