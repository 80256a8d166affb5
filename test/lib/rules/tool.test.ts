import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/rules/finding.ts';
import { githubTools, tool } from '../helpers/fixtures.ts';
import { alone } from '../helpers/rules.ts';

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
