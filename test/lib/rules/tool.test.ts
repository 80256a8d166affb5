import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/lib/index.ts';
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

