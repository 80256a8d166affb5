import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTextError, readJsonText, repeatedMemberNames } from '../../src/lib/json-text.ts';
import { githubTools } from './helpers/fixtures.ts';

describe('repeatedMemberNames(jsonText)', () => {
  it('finds none in a real tools/list answer', () => {
    expect(repeatedMemberNames(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: githubTools('v1.10.1') } }))).toEqual([]);
  });
  it('gives the pointer of each repeated member and every copy in document order, at any depth', () => {
    const text = '{"result":{"tools":[{"name":"a","inputSchema":{"type":"object","type":"string","p":{"x":1,"x":[1,{"y":2}],"x":3}}}]},"result":5}';
    expect(repeatedMemberNames(text)).toEqual([
      { path: '/result/tools/0/inputSchema/type', copies: ['object', 'string'] },
      { path: '/result/tools/0/inputSchema/p/x', copies: [1, [1, { y: 2 }], 3] },
      { path: '/result', copies: [{ tools: [{ name: 'a', inputSchema: { type: 'string', p: { x: 3 } } }] }, 5] },
    ]);
  });
  it('compares names after unescaping and escapes pointer tokens (RFC 6901)', () => {
    expect(repeatedMemberNames('{"a/b~":1,"a\\/b\\u007e":2}')).toEqual([{ path: '/a~1b~0', copies: [1, 2] }]);
  });
  it('reads each copy as JSON.parse reads numbers (doubles)', () => {
    expect(repeatedMemberNames('{"m":1.0,"m":12345678901234567890}')).toEqual([{ path: '/m', copies: [1, 12345678901234567000] }]);
  });
  it('throws a JsonTextError for text that is not json, without quoting it', () => {
    expect(() => repeatedMemberNames('{"a":1,,}')).toThrow(JsonTextError);
    expect(() => repeatedMemberNames('{"a":1,,}')).toThrow(expect.objectContaining({ reason: 'not json', message: 'text is not json' }));
  });
  it('invariant: finds exactly the names a generated object repeats', () => {
    const members = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer()), { maxLength: 8 });
    fc.assert(
      fc.property(members, (pairs) => {
        const text = `{"o":{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}}`;
        const counts = new Map<string, number[]>();
        for (const [k, v] of pairs) counts.set(k, [...(counts.get(k) ?? []), v]);
        const want = [...counts].filter(([, vs]) => vs.length > 1).map(([k, vs]) => ({ path: `/o/${k}`, copies: vs }));
        const got = repeatedMemberNames(text);
        return JSON.stringify([...got].sort((x, y) => x.path.localeCompare(y.path))) === JSON.stringify(want.sort((x, y) => x.path.localeCompare(y.path)));
      }),
      { numRuns: 300, seed: 5 },
    );
  });
});

describe('readJsonText: its boundaries', () => {
  const nested = (k: number) => '['.repeat(k) + ']'.repeat(k);
  it('reads 256 levels of nesting and refuses 257 as too deep, the same message as the canonical writer', () => {
    expect(readJsonText(nested(256)).repeated).toEqual([]);
    let err: unknown;
    try {
      readJsonText(nested(257));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JsonTextError);
    expect(err).toMatchObject({ name: 'JsonTextError', reason: 'too deep', message: 'json nested deeper than 256 levels' });
    // objects count as levels as arrays do
    expect(() => readJsonText('{"a":'.repeat(257) + '1' + '}'.repeat(257))).toThrow(expect.objectContaining({ reason: 'too deep' }));
    expect(readJsonText('{"a":'.repeat(256) + '1' + '}'.repeat(256)).repeated).toEqual([]);
  });
  it('gives the value as JSON.parse reads it, with the repeats', () => {
    expect(readJsonText('{"a":[1,2],"a":true}')).toEqual({ value: { a: true }, repeated: [{ path: '/a', copies: [[1, 2], true] }] });
  });
  it('refuses what is not a string, and keeps the parser\'s own error only as the cause', () => {
    expect(() => readJsonText(5 as unknown as string)).toThrow(expect.objectContaining({ name: 'JsonTextError', reason: 'not json', message: 'json text is not a string' }));
    let err: unknown;
    try {
      readJsonText('{"secret": nope}');
    } catch (e) {
      err = e;
    }
    expect((err as JsonTextError).cause).toBeInstanceOf(SyntaxError);
    expect((err as JsonTextError).message).not.toContain('secret');
  });
  it('lists repeats in document order of their first repeat, not in the order their objects close', () => {
    // the outer repeat comes first in the text, but the inner object closes first
    expect(repeatedMemberNames('{"a":1,"a":2,"o":{"b":1,"b":2}}').map((r) => r.path)).toEqual(['/a', '/o/b']);
    // a's first copy is earlier than b's, but its repeat is later: order by the repeat
    expect(repeatedMemberNames('{"a":1,"o":{"b":1,"b":2},"a":2}').map((r) => r.path)).toEqual(['/o/b', '/a']);
    // three, interleaved: x repeats first (inside p), then the top-level y, then z (inside q)
    expect(repeatedMemberNames('{"y":0,"p":{"x":1,"x":2},"y":3,"q":{"z":4,"z":5}}').map((r) => r.path)).toEqual(['/p/x', '/y', '/q/z']);
  });
  it('a repeated member whose copies are containers and literals of every kind', () => {
    expect(repeatedMemberNames('{"k":{"a":[]},"k":"s","k":null,"k":false,"k":-1.5e3,"k":[{}]}')).toEqual([{ path: '/k', copies: [{ a: [] }, 's', null, false, -1500, [{}]] }]);
    expect(repeatedMemberNames('[{"k":1,"k":2},{"k":3}]')).toEqual([{ path: '/0/k', copies: [1, 2] }]);
  });
});
