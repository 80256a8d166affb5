import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from '../../src/lib/canonical-vectors.json' with { type: 'json' };
import {
  CanonicalError,
  canonicalJson,
  MAX_CANONICAL_DEPTH,
  sha256Hex,
  toolsSha256,
} from '../../src/lib/canonical.ts';

type Vector = { name: string; input: string; canonical?: string; sha256?: string; error?: string };
const all = vectors.vectors as Vector[];
const ok = all.filter((v) => v.error === undefined);
const refused = all.filter((v) => v.error !== undefined);

describe('canonical-vectors.json', () => {
  it('holds at least 20 vectors with unique names', () => {
    expect(all.length).toBeGreaterThanOrEqual(20);
    expect(new Set(all.map((v) => v.name)).size).toBe(all.length);
  });
  it.each(ok.map((v) => [v.name, v] as const))('canonicalJson(JSON.parse(input)) gives the canonical bytes and hash: %s', (_name, v) => {
    const canonical = canonicalJson(JSON.parse(v.input));
    expect(canonical).toBe(v.canonical);
    expect(sha256Hex(canonical)).toBe(v.sha256);
  });
  it.each(refused.map((v) => [v.name, v] as const))('canonicalJson refuses %s with the error the vector names', (_name, v) => {
    expect(() => canonicalJson(JSON.parse(v.input))).toThrow(CanonicalError);
    expect(() => canonicalJson(JSON.parse(v.input))).toThrow(expect.objectContaining({ name: v.error }));
  });
  it('null-present and null-absent hash differently', () => {
    const byName = new Map(all.map((v) => [v.name, v]));
    expect(byName.get('null-present')!.sha256).not.toBe(byName.get('null-absent')!.sha256);
  });
});

describe('canonicalJson(value)', () => {
  it('sorts keys and object-array items but keeps other arrays in order', () => {
    expect(canonicalJson({ b: [3, 1], a: [{ z: 1 }, { a: 2 }] })).toBe('{"a":[{"a":2},{"z":1}],"b":[3,1]}');
  });
  it('keeps the order of an array that mixes objects with anything else, null included', () => {
    expect(canonicalJson([{ b: 1 }, null, { a: 1 }])).toBe('[{"b":1},null,{"a":1}]');
    expect(canonicalJson([{ b: 1 }, [], { a: 1 }])).toBe('[{"b":1},[],{"a":1}]');
  });
  it('drops keys whose value is undefined, as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
  // JSON.stringify would write [undefined] as [null] and NaN as null: a hash over such a value would
  // stand for JSON nobody sent, so canonicalJson refuses and says what it met.
  it.each([
    ['NaN', NaN, 'non-finite number is not json'],
    ['-Infinity inside an object', { a: -Infinity }, 'non-finite number is not json'],
    ['undefined inside an array', [1, undefined], 'undefined is not json'],
    ['a bigint', 1n, 'bigint is not json'],
    ['a function', () => 1, 'function is not json'],
  ])('refuses %s with a CanonicalError that names it', (_what, value, message) => {
    expect(() => canonicalJson(value)).toThrow(new CanonicalError(message));
    expect(() => canonicalJson(value)).toThrow(CanonicalError);
  });
  it('refuses nesting past MAX_CANONICAL_DEPTH without overflowing the stack, even 100k deep', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(/nested deeper than 256/);
    let deepObject: unknown = {};
    for (let i = 0; i < 100_000; i++) deepObject = { a: deepObject };
    expect(() => canonicalJson(deepObject)).toThrow(new CanonicalError('json nested deeper than 256 levels'));
    expect(MAX_CANONICAL_DEPTH).toBe(256);
  });

  // Property tests: the invariants methodology v1 relies on.
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 4 }),
  })).value;

  it('invariant: reordering object keys never changes the output', () => {
    fc.assert(fc.property(json, (v) => canonicalJson(v) === canonicalJson(shuffleKeys(v))));
  });
  it('invariant: reordering the items of an all-object array never changes the output', () => {
    const objects = fc.array(fc.dictionary(fc.string({ maxLength: 3 }), json, { maxKeys: 3 }), { minLength: 1, maxLength: 5 });
    fc.assert(fc.property(objects, (items) => canonicalJson(items) === canonicalJson([...items].reverse())));
  });
  it('invariant: canonicalise is idempotent (canonical(parse(canonical(x))) = canonical(x))', () => {
    fc.assert(fc.property(json, (v) => {
      const once = canonicalJson(v);
      return canonicalJson(JSON.parse(once)) === once;
    }));
  });
});

describe('toolsSha256(tools)', () => {
  it('ignores tool order', () => {
    expect(toolsSha256([{ name: 'a' }, { name: 'b' }])).toBe(toolsSha256([{ name: 'b' }, { name: 'a' }]));
  });
  it('is sha256 of the canonical bytes (the tools-list vector)', () => {
    const v = all.find((x) => x.name === 'tools-list')!;
    expect(toolsSha256(JSON.parse(v.input))).toBe(v.sha256);
  });
});

/** Rebuild every object with its keys in reverse insertion order. */
function shuffleKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shuffleKeys);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).reverse()) {
      // __proto__ as an own key must stay an own key
      Object.defineProperty(out, k, { value: shuffleKeys((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}
