import { describe, expect, it } from 'vitest';
import { escapePointerToken, pointerDiff } from '../../src/lib/index.ts';

describe('pointerDiff(before, after)', () => {
  it('reports added, removed and changed leaves with RFC 6901 pointers, sorted', () => {
    const before = { type: 'object', properties: { a: { type: 'string' }, 'x/y': { type: 'number' } }, required: ['a'] };
    const after = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, required: ['a', 'b'] };
    expect(pointerDiff(before, after)).toEqual([
      { path: '/properties/a/type', kind: 'changed', before: 'string', after: 'integer' },
      { path: '/properties/b', kind: 'added', after: { type: 'string' } },
      { path: '/properties/x~1y', kind: 'removed', before: { type: 'number' } },
      { path: '/required', kind: 'changed', before: ['a'], after: ['a', 'b'] },
    ]);
  });
  it('sees no change in a reordered array of objects (a set under methodology v1)', () => {
    expect(pointerDiff({ anyOf: [{ type: 'string' }, { type: 'null' }] }, { anyOf: [{ type: 'null' }, { type: 'string' }] })).toEqual([]);
  });
  it.each([
    ['absent → present', undefined, { type: 'object' }, [{ path: '', kind: 'added', after: { type: 'object' } }]],
    ['present → absent', { type: 'object' }, undefined, [{ path: '', kind: 'removed', before: { type: 'object' } }]],
    ['object → null', { type: 'object' }, null, [{ path: '', kind: 'changed', before: { type: 'object' }, after: null }]],
    ['both absent', undefined, undefined, []],
  ])('handles %s at the root', (_what, before, after, expected) => {
    expect(pointerDiff(before, after)).toEqual(expected);
  });
});

describe('escapePointerToken(token)', () => {
  it.each([
    ['a/b', 'a~1b'],
    ['m~n', 'm~0n'],
    ['~/', '~0~1'],
    ['~1', '~01'],
  ])('escapes %j as %j', (token, escaped) => expect(escapePointerToken(token)).toBe(escaped));
});
