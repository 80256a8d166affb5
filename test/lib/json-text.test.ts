import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTextError, repeatedMemberNames } from '../../src/lib/json-text.ts';
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
