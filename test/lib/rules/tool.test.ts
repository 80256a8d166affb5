import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/rules/finding.ts';
import { githubTools, tool } from '../helpers/fixtures.ts';
import { alone, rule } from '../helpers/rules.ts';

const base = githubTools('v1.10.1');
const without = (name: string) => structuredClone(base).filter((t) => t.name !== name);
const withCopy = (name: string, as: string) => [...structuredClone(base), { ...structuredClone(tool(base, name)), name: as }];

describe('tool-removed', () => {
  it('fires once, ERR, when a tool disappears', () => {
    expect(alone('tool-removed', base, without('delete_repository'))).toEqual([
      {
        rule: 'tool-removed',
        axis: 'compatibility',
        level: 'ERR',
        tool: 'delete_repository',
        path: '',
        before: tool(base, 'delete_repository'),
        after: undefined,
        fingerprint: fingerprint('tool-removed', 'delete_repository', ''),
        message: 'Tool "delete_repository" was removed: calls to it now fail.',
      },
    ]);
  });
  it('does not fire when the tool only moves within the list', () => {
    const moved = [...without('delete_repository'), structuredClone(tool(base, 'delete_repository'))];
    expect(alone('tool-removed', base, moved)).toEqual([]);
  });
});

describe.each([
  ['tool-added', 'compatibility', 'INFO', 'Tool "list_issues_v2" was added.'],
  ['tool-capability-added', 'security', 'WARN', 'Tool "list_issues_v2" appeared: a new capability agents may now choose; check its name and description.'],
])('%s', (id, axis, level, message) => {
  it(`fires once, ${level}, for a new tool`, () => {
    const after = withCopy('list_issues', 'list_issues_v2');
    const [f, ...rest] = alone(id, base, after);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ rule: id, axis, level, tool: 'list_issues_v2', path: '', before: undefined, message });
    expect(f!.after).toEqual({ ...tool(base, 'list_issues'), name: 'list_issues_v2' });
  });
  it('does not fire for a tool returning unchanged from a tombstone', () => {
    const hidden = without('list_issues');
    expect(alone(id, hidden, base, new Map([['list_issues', tool(base, 'list_issues')]]))).toEqual([]);
  });
});

describe('fingerprint(rule, tool, path)', () => {
  it('is the first 12 hex of sha256("rule:tool:path")', () => {
    // sha256("tool-removed:delete_repository:") computed with Python hashlib, independently.
    expect(fingerprint('tool-removed', 'delete_repository', '')).toBe('691fa9f065cb');
  });
});


describe('tool-renamed', () => {
  const renamed = (edit: (t: any) => void = () => undefined) =>
    structuredClone(base).map((t) => {
      if (t.name !== 'list_issues') return t;
      const copy: any = { ...t, name: 'issues_list' };
      edit(copy);
      return copy;
    });
  it('fires once, WARN (security), when a tool is removed and one with the same input schema added', () => {
    const after = renamed();
    expect(alone('tool-renamed', base, after)).toEqual([
      {
        rule: 'tool-renamed',
        axis: 'security',
        level: 'WARN',
        tool: 'issues_list',
        path: '',
        before: tool(base, 'list_issues'),
        after: tool(after, 'issues_list'),
        fingerprint: fingerprint('tool-renamed', 'issues_list', ''),
        message: 'Tool "list_issues" looks renamed to "issues_list" (the same input schema): pins and approvals by name no longer cover it.',
      },
    ]);
  });
  it.each([
    ['a property description reworded', (t: any) => (t.inputSchema.properties.after.description = 'Cursor.')],
    ['a constraint added', (t: any) => (t.inputSchema.properties.after.maxLength = 64)],
    ['an enum value added', (t: any) => t.inputSchema.properties.direction.enum.push('NONE')],
  ])('still fires with %s: the argument signature is the same (near-equal)', (_what, edit) => {
    expect(alone('tool-renamed', base, renamed(edit))).toMatchObject([{ tool: 'issues_list', message: expect.stringContaining('(the same arguments)') }]);
  });
  it.each([
    ['a property type changed', (t: any) => (t.inputSchema.properties.after.type = 'number')],
    ['an optional property added', (t: any) => (t.inputSchema.properties.extra = { type: 'string' })],
    ['a property became required', (t: any) => t.inputSchema.required.push('after')],
  ])('does not fire with %s: the signature differs', (_what, edit) => {
    expect(alone('tool-renamed', base, renamed(edit))).toEqual([]);
  });
  it('does not fire when the pairing is ambiguous (one argument-less tool removed, two added)', () => {
    const me = tool(base, 'get_me');
    const after = [...without('get_me'), { ...structuredClone(me), name: 'whoami' }, { ...structuredClone(me), name: 'who_am_i' }];
    expect(alone('tool-renamed', base, after)).toEqual([]);
    expect(alone('tool-renamed', base, after.filter((t) => t.name !== 'who_am_i'))).toHaveLength(1);
  });
});

describe('tool-renamed: what counts as the same arguments', () => {
  const t = (name: string, inputSchema?: unknown) => (inputSchema === undefined ? { name } : { name, inputSchema }) as never;
  const renamedTo = (before: unknown[], after: unknown[]) => alone('tool-renamed', before as never[], after as never[]).map((f) => f.message);
  const msg = (from: string, to: string, how: string) => `Tool "${from}" looks renamed to "${to}" (${how}): pins and approvals by name no longer cover it.`;
  it('an absent input schema is the same as {}', () => {
    expect(renamedTo([t('a')], [t('b', {})])).toEqual([msg('a', 'b', 'the same input schema')]);
    expect(renamedTo([t('a', {})], [t('b')])).toEqual([msg('a', 'b', 'the same input schema')]);
  });
  it('schemas without arguments that differ are not the same arguments', () => {
    expect(renamedTo([t('a', { type: 'object', description: 'x' })], [t('b', { type: 'object', additionalProperties: false })])).toEqual([]);
    expect(renamedTo([t('a')], [t('b', { type: 'object' })])).toEqual([]);
    expect(renamedTo([t('a', null)], [t('b', { type: 'object' })])).toEqual([]);
    // Broken schemas of different values are no evidence either.
    expect(renamedTo([t('a', 'x')], [t('b', 5)])).toEqual([]);
  });
  it('compares argument signatures whatever the order of properties, and a typeless or non-object property as no type', () => {
    const before = { type: 'object', properties: { q: { type: 'string', description: 'x' }, n: null, v: true } };
    const after = { type: 'object', properties: { v: {}, n: { description: 'y' }, q: { type: 'string' } } };
    expect(renamedTo([t('a', before)], [t('b', after)])).toEqual([msg('a', 'b', 'the same arguments')]);
  });
  it('is ambiguous, so silent, when two removed tools match the one added', () => {
    const s = { type: 'object', properties: { q: { type: 'string' } } };
    expect(renamedTo([t('a', s), t('b', s)], [t('c', s)])).toEqual([]);
    expect(renamedTo([t('a', s), t('b', { type: 'object' })], [t('c', s)])).toEqual([msg('a', 'c', 'the same input schema')]);
  });
  it('reports each rename, removed tools taken in code-unit order of name', () => {
    const s1 = { properties: { q: { type: 'string' } } };
    const s2 = { properties: { n: { type: 'number' } } };
    const found = rule('tool-renamed').check([t('z', s1), t('B', s2)] as never[], [t('y', s1), t('x', s2)] as never[]);
    expect(found.map((f) => f.message)).toEqual([msg('B', 'x', 'the same input schema'), msg('z', 'y', 'the same input schema')]);
  });
});

describe('removed and added tools, taken in code-unit order of name', () => {
  it('lists removed and added tools by name in code units, each once', () => {
    const t = (name: string) => ({ name }) as never;
    expect(rule('tool-removed').check([t('b'), t('a'), t('B'), t('a')], [t('c')]).map((f) => f.tool)).toEqual(['B', 'a', 'b']);
    expect(rule('tool-added').check([t('c')], [t('b'), t('a'), t('B'), t('a')]).map((f) => f.tool)).toEqual(['B', 'a', 'b']);
  });
});
