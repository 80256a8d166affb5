import fc from 'fast-check';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { rfc8785Json } from '../../src/lib/canonical.ts';
import { escapePointerToken } from '../../src/lib/pointer-diff.ts';
import type { Tool } from '../../src/lib/tool.ts';
import { toolsByName, toolsPatch } from '../../src/lib/tools-patch.ts';
import { githubReleases, githubTools } from './helpers/fixtures.ts';
import { mutated } from './helpers/rules.ts';

/** Apply with fast-json-patch, validating every operation, to a copy. */
const apply = (doc: unknown, ops: ReturnType<typeof toolsPatch>) => jsonpatch.applyPatch(structuredClone(doc), ops as Operation[], true, false).newDocument;
const same = (x: unknown, y: unknown) => expect(rfc8785Json(x)).toBe(rfc8785Json(y));

describe('toolsByName(tools)', () => {
  it('keys tools by name in code-unit order, keeps the first of a repeated name, and makes "__proto__" an own member', () => {
    const form = toolsByName([{ name: 'b' }, { name: '__proto__', description: 'x' }, { name: 'a' }, { name: 'b', description: 'second' }]);
    expect(JSON.stringify(form)).toBe('{"__proto__":{"name":"__proto__","description":"x"},"a":{"name":"a"},"b":{"name":"b"}}');
    expect(Object.getPrototypeOf(form)).toBe(Object.prototype);
  });
});

describe('toolsPatch(before, after)', () => {
  const base = githubTools('v1.10.1');
  it('names each change by the tool and its pointer in it', () => {
    const after = mutated(base, 'list_issues', (t) => (t.inputSchema.properties.perPage.maximum = 50)).filter((t) => t.name !== 'get_me');
    after.push({ name: 'a/b~c' });
    // compare's order: names walked last to first for removals and replacements, then additions.
    expect(toolsPatch(base, after)).toEqual([
      { op: 'replace', path: '/list_issues/inputSchema/properties/perPage/maximum', value: 50 },
      { op: 'remove', path: '/get_me' },
      { op: 'add', path: '/a~1b~0c', value: { name: 'a/b~c' } },
    ]);
  });
  it('is empty for the same tools in another order', () => {
    expect(toolsPatch(base, [...base].reverse())).toEqual([]);
  });
  it('turns every github-mcp-server release into the next, exactly', () => {
    const releases = [...new Set(githubReleases().map((r) => r.file.replace(/^tools-|\.json$/g, '')))];
    for (let k = 1; k < releases.length; k++) {
      const [a, b] = [githubTools(releases[k - 1]!), githubTools(releases[k]!)];
      same(apply(toolsByName(a), toolsPatch(a, b)), toolsByName(b));
    }
  });
  it('applied to toolsByName(before) gives toolsByName(after), for any two tool lists (property)', () => {
    const name = fc.oneof(fc.constantFrom('a', 'b', 'c', '', '/', '~1', 'x/y~z', 'constructor', 'toString', 'hasOwnProperty', '0', '-'), fc.string({ unit: 'binary', maxLength: 5 }));
    const value = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes('"__proto__"'));
    const tool = fc.record({ name: name.filter((n) => n !== '__proto__'), description: fc.string({ unit: 'binary' }), inputSchema: value, annotations: value }, { requiredKeys: ['name'] });
    const list = fc.array(tool, { maxLength: 6 });
    fc.assert(
      fc.property(list, list, (before, after) => {
        same(apply(toolsByName(before), toolsPatch(before, after)), toolsByName(after));
      }),
      { numRuns: 300 },
    );
  });
  it('reaches a finding\'s pointer under /<escaped tool name>', () => {
    const after = mutated(base, 'list_issues', (t) => (t.inputSchema.properties.state.enum = ['OPEN']));
    const [op] = toolsPatch(base, after);
    expect(op!.path.startsWith(`/${escapePointerToken('list_issues')}/inputSchema/properties/state/enum`)).toBe(true);
  });
  it('writes a tool named "__proto__" as a plain member (a JavaScript applier must not treat it as the prototype)', () => {
    const ops = toolsPatch([], [{ name: '__proto__', description: 'x' }] as Tool[]);
    expect(ops).toEqual([{ op: 'add', path: '/__proto__', value: { name: '__proto__', description: 'x' } }]);
    // fast-json-patch refuses such a path by default rather than touching a prototype.
    expect(() => apply({}, ops)).toThrow();
  });
});
