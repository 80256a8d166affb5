import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalError, rfc8785Json } from '../../src/lib/canonical.ts';
import { hiddenCharacters } from '../../src/lib/hidden-characters.ts';
import { pointerTaggedJson } from '../../src/lib/pointer-tagged-json.ts';
import { unescapePointerToken } from '../../src/lib/pointer-diff.ts';
import { githubTools, liveMcpBenchCatalogues } from './helpers/fixtures.ts';

/** The value a pointer names (RFC 6901 §4), read independently of pointerTaggedJson. */
function at(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  return pointer
    .slice(1)
    .split('/')
    .map(unescapePointerToken)
    .reduce<unknown>((v, token) => (v as Record<string, unknown>)[token], value);
}

/** JSON with strings of any UTF-16 units (lone surrogates, controls, bidi, tags, U+2028 included). */
const hostile = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ unit: 'binary' }), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }), tie('value'), { maxKeys: 4 }),
})).value;

const sortKeys = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sortKeys) : typeof v === 'object' && v !== null ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])])) : v;

describe('pointerTaggedJson(value)', () => {
  it('prints one member per line with sorted keys, each with its pointer', () => {
    expect(pointerTaggedJson({ b: [1, {}], 'a/~': 'x' })).toEqual([
      { text: '{', pointer: '' },
      { text: '  "a/~": "x",', pointer: '/a~1~0' },
      { text: '  "b": [', pointer: '/b' },
      { text: '    1,', pointer: '/b/0' },
      { text: '    {}', pointer: '/b/1' },
      { text: '  ]', pointer: '/b' },
      { text: '}', pointer: '' },
    ]);
  });
  it('is JSON.stringify(value, null, 2) with sorted keys, on real tools', () => {
    for (const tool of [...githubTools('v0.24.0'), ...liveMcpBenchCatalogues().flatMap((c) => c.tools)]) {
      expect(pointerTaggedJson(tool).map((l) => l.text).join('\n')).toBe(JSON.stringify(sortKeys(tool), null, 2));
    }
  });
  it('writes hidden characters and line separators in strings as \\u escapes, so a line stays one visible line', () => {
    expect(pointerTaggedJson({ ['k\u200B']: 'a\nb\u202Ec\u2028d\u{E0041}\u007F' })[1]!.text).toBe('  "k\\u200b": "a\\nb\\u202ec\\u2028d\\udb40\\udc41\\u007f"');
    expect(pointerTaggedJson('Warning \u26A0\uFE0F 👩‍💻')[0]!.text).toBe('"Warning \u26A0\uFE0F 👩‍💻"');
  });
  it('reads back as the same value, one visible line per line, each pointer naming a value of the input (property)', () => {
    fc.assert(
      fc.property(hostile, (v) => {
        const lines = pointerTaggedJson(v);
        expect(rfc8785Json(JSON.parse(lines.map((l) => l.text).join('\n')))).toBe(rfc8785Json(v));
        for (const l of lines) {
          expect(l.text).not.toMatch(/[\n\r\u2028\u2029]/);
          expect(hiddenCharacters(l.text)).toEqual([]);
          expect(at(v, l.pointer)).not.toBeUndefined();
        }
      }),
    );
  });
  it.each([
    ['nesting past 256 levels', JSON.parse('['.repeat(300) + ']'.repeat(300))],
    ['a non-finite number', { a: Infinity }],
    ['a function', { a: () => 1 }],
  ])('throws a CanonicalError for %s', (_what, v) => {
    expect(() => pointerTaggedJson(v)).toThrow(CanonicalError);
  });
});

describe('pointerTaggedJson: its boundaries', () => {
  const nested = (k: number): unknown => JSON.parse('['.repeat(k) + ']'.repeat(k));
  it('prints exactly the nesting the canonical writer hashes, and refuses one level more as it does', () => {
    expect(() => rfc8785Json(nested(257))).not.toThrow();
    expect(pointerTaggedJson(nested(257))).toHaveLength(2 * 257 - 1);
    expect(() => rfc8785Json(nested(258))).toThrow(CanonicalError);
    expect(() => pointerTaggedJson(nested(258))).toThrow(new CanonicalError('json nested deeper than 256 levels'));
  });
  it('leaves out members whose value is undefined, as JSON.stringify does, and keeps null', () => {
    expect(pointerTaggedJson({ a: undefined, b: null, c: 1 })).toEqual([
      { text: '{', pointer: '' },
      { text: '  "b": null,', pointer: '/b' },
      { text: '  "c": 1', pointer: '/c' },
      { text: '}', pointer: '' },
    ]);
    expect(pointerTaggedJson({ a: undefined })).toEqual([{ text: '{}', pointer: '' }]);
  });
  it('an empty array or object is one line, with its comma when a member follows', () => {
    expect(pointerTaggedJson({ a: [], b: {}, c: [] }).map((l) => l.text)).toEqual(['{', '  "a": [],', '  "b": {},', '  "c": []', '}']);
    expect(pointerTaggedJson([])).toEqual([{ text: '[]', pointer: '' }]);
  });
  it('prints booleans, null and numbers as JSON does; refuses what JSON has no text for, naming it', () => {
    expect(pointerTaggedJson([true, false, null, -0.5, 1e21]).map((l) => l.text)).toEqual(['[', '  true,', '  false,', '  null,', '  -0.5,', '  1e+21', ']']);
    expect(() => pointerTaggedJson(NaN)).toThrow(new CanonicalError('non-finite number is not json'));
    expect(() => pointerTaggedJson(-Infinity)).toThrow(new CanonicalError('non-finite number is not json'));
    expect(() => pointerTaggedJson({ a: () => 1 })).toThrow(new CanonicalError('function is not json'));
    expect(() => pointerTaggedJson(10n)).toThrow(new CanonicalError('bigint is not json'));
    expect(() => pointerTaggedJson([undefined])).toThrow(new CanonicalError('undefined is not json'));
  });
  it('escapes each hidden UTF-16 unit with four hex digits', () => {
    expect(pointerTaggedJson('\u0085\u00AD\u200E')[0]!.text).toBe('"\\u0085\\u00ad\\u200e"');
    expect(pointerTaggedJson('\u2029')[0]!.text).toBe('"\\u2029"');
  });
});
