import { describe, expect, it } from 'vitest';
import { CanonicalError, MAX_CANONICAL_DEPTH } from '../../src/lib/canonical.ts';
import { escapePointerToken, pointerDiff } from '../../src/lib/pointer-diff.ts';

/** { k: { k: … leaf … } } nested `depth` objects deep. */
const nested = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { k: v };
  return v;
};

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
  it('sorts the changes by pointer whatever the key order of the objects', () => {
    expect(pointerDiff({ z: 1, m: { b: 1, a: 1 }, a: 1 }, { z: 2, m: { b: 2, a: 2 }, a: 2 }).map((c) => c.path)).toEqual(['/a', '/m/a', '/m/b', '/z']);
  });
  // Schemas are registry text: a hostile one may nest without end. The walk stops at the canonical depth
  // bound and compares what lies below as a whole, so a deep difference is one change at that depth.
  it('walks objects no deeper than MAX_CANONICAL_DEPTH and reports a deeper difference there, whole', () => {
    const at = '/k'.repeat(MAX_CANONICAL_DEPTH);
    expect(pointerDiff(nested(300, 1), nested(300, 2))).toEqual([{ path: at, kind: 'changed', before: nested(44, 1), after: nested(44, 2) }]);
  });
  it('refuses objects nested past the canonical bound with a CanonicalError, even 100k deep, without overflowing the stack', () => {
    expect(() => pointerDiff(nested(100_000, 1), nested(100_000, 2))).toThrow(CanonicalError);
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
