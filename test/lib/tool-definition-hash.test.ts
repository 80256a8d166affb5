// The tool definition hash, version 1, against the specification's own published vectors
// (fixtures/tool-definition-hash/, see its PROVENANCE.md) and against its invariants.
import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rfc8785Json } from '../../src/lib/canonical.ts';
import {
  instructionsHash,
  toolDefinitionHash,
  ToolDefinitionHashError,
  toolDefinitionHashes,
  toolSetHash,
  toolsPage,
} from '../../src/lib/tool-definition-hash.ts';
import { mulberry32 } from '../../src/lib/validation.ts';
import { githubTools } from './helpers/fixtures.ts';

interface Vectors {
  definitions: { about: string; input: string; canonical: string; hash: string }[];
  sets: { about: string; pages: string[]; lines: string[]; setHash: string }[];
  instructions: { about: string; instructions: string | null; hash: string | null }[];
  invalid: { about: string; input?: string; pages?: string[]; reason: string }[];
}
const vectors = JSON.parse(readFileSync(new URL('../../fixtures/tool-definition-hash/tool-definition-hash-vectors.json', import.meta.url), 'utf8')) as Vectors;

describe('tool-definition-hash-vectors.json (mcp-pin, published with the specification)', () => {
  it('holds the four sections the specification describes, none empty', () => {
    expect([vectors.definitions.length, vectors.sets.length, vectors.instructions.length, vectors.invalid.length]).toEqual([8, 5, 3, 4]);
  });
  it.each(vectors.definitions.map((v) => [v.about, v] as const))('toolDefinitionHash gives the published hash: %s', (_about, v) => {
    expect(rfc8785Json(JSON.parse(v.input))).toBe(v.canonical);
    expect(toolDefinitionHash(v.input)).toBe(v.hash);
  });
  it.each(vectors.sets.map((v) => [v.about, v] as const))('toolSetHash gives the published lines and set hash: %s', (_about, v) => {
    expect(toolDefinitionHashes(v.pages).map((l) => `${l.name}:${l.hash}`)).toEqual(v.lines);
    expect(toolSetHash(v.pages)).toBe(v.setHash);
  });
  it.each(vectors.instructions.map((v) => [v.about, v] as const))('instructionsHash gives the published hash: %s', (_about, v) => {
    expect(instructionsHash(v.instructions)).toBe(v.hash);
  });
  it.each(vectors.invalid.map((v) => [v.about, v] as const))('refuses with the published reason: %s', (_about, v) => {
    const run = () => (v.input !== undefined ? toolDefinitionHash(v.input) : toolSetHash(v.pages!));
    expect(run).toThrow(ToolDefinitionHashError);
    expect(run).toThrow(expect.objectContaining({ reason: v.reason }));
  });
});

describe('toolDefinitionHash(jsonText)', () => {
  it('is 64 lowercase hex characters, unprefixed', () => {
    expect(toolDefinitionHash('{"name":"x"}')).toMatch(/^[0-9a-f]{64}$/);
  });
  it('names where a repeated member name is, in its error', () => {
    expect(() => toolDefinitionHash('{"name":"x","inputSchema":{"properties":{"a":{"type":"string","type":"number"}}}}')).toThrow(
      'repeated member name at "/inputSchema/properties/a/type": no canonical form',
    );
  });
  it('counts "a" and "\\u0061" as one name repeated (names compare after unescaping)', () => {
    expect(() => toolDefinitionHash('{"name":"x","a":1,"\\u0061":2}')).toThrow(expect.objectContaining({ reason: 'repeated member name' }));
  });
  it('allows one name in two different objects (not a repeat)', () => {
    expect(() => toolDefinitionHash('{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}')).not.toThrow();
  });
  it('hashes a definition without a name (the spec requires a name for the set hash only; two of its vectors have none)', () => {
    expect(toolDefinitionHash('{"description":"no name"}')).toMatch(/^[0-9a-f]{64}$/);
  });
  it.each([
    ['[1]', 'not an object', 'definition is not a json object'],
    ['"x"', 'not an object', 'definition is not a json object'],
    ['{"name":"x",}', 'not json', 'text is not json'],
    ['{"name":"<script>"', 'not json', 'text is not json'],
    ['['.repeat(300) + ']'.repeat(300), 'too deep', 'json nested deeper than 256 levels'],
  ])('refuses %j: %s', (text, reason, message) => {
    expect(() => toolDefinitionHash(text)).toThrow(expect.objectContaining({ name: 'ToolDefinitionHashError', reason, message }));
  });
  it('refuses 100k-deep nesting without overflowing the stack', () => {
    expect(() => toolDefinitionHash(`{"name":"x","a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).toThrow(expect.objectContaining({ reason: 'too deep' }));
  });
  it('differs from the v1 tools_sha256 recipe where RFC 8785 keeps array order', () => {
    const a = '{"name":"x","icons":[{"src":"b"},{"src":"a"}]}';
    const b = '{"name":"x","icons":[{"src":"a"},{"src":"b"}]}';
    expect(toolDefinitionHash(a)).not.toBe(toolDefinitionHash(b));
  });

  // Property tests. A definition is a name plus arbitrary JSON members; strings include astral
  // characters and lone surrogates, numbers any finite double (including -0).
  const invariants = { numRuns: 300, seed: 17 };
  it('invariant: member order, whitespace, number spelling and string escapes never change a hash', () => {
    fc.assert(
      fc.property(definition, fc.integer(), (def, seed) => toolDefinitionHash(respell(def, prng(seed))) === toolDefinitionHash(JSON.stringify(def))),
      invariants,
    );
  });
  it('invariant: any edit of any member (value, name, or removal) at any depth changes the hash', () => {
    fc.assert(
      fc.property(definition, fc.nat(), fc.constantFrom('value', 'rename', 'remove'), (def, pick, how) => {
        const members = memberPaths(def);
        const edited = edit(def, members[pick % members.length]!, how);
        return toolDefinitionHash(JSON.stringify(edited)) !== toolDefinitionHash(JSON.stringify(def));
      }),
      invariants,
    );
  });
  it('invariant: a definition read from its canonical form hashes the same (canonicalisation is idempotent)', () => {
    fc.assert(fc.property(definition, (def) => toolDefinitionHash(rfc8785Json(JSON.parse(JSON.stringify(def)))) === toolDefinitionHash(JSON.stringify(def))), invariants);
  });
});

describe('rfc8785Json(value)', () => {
  it('keeps arrays in order, objects sorted by UTF-16 code units', () => {
    expect(rfc8785Json({ b: [{ z: 1 }, { a: 2 }], a: 1, '\u{1F600}': 0, '\uFB33': 0 })).toBe('{"a":1,"b":[{"z":1},{"a":2}],"\u{1F600}":0,"\uFB33":0}');
  });
  it('writes a lone surrogate as a lowercase \\u escape (the spec; the canonicalize package refuses one)', () => {
    expect(rfc8785Json('x\uDEADy')).toBe('"x\\udeady"');
    expect(() => canonicalize('x\uDEADy')).toThrow();
  });
  it('invariant: agrees with the canonicalize package (RFC 8785 co-author) on every value with well-formed strings', () => {
    fc.assert(fc.property(wellFormed, (v) => rfc8785Json(v) === canonicalize(v)), { numRuns: 500, seed: 8785 });
  });
});

describe('toolSetHash(pages)', () => {
  const gh = githubTools('v1.10.1');
  it('invariant: page order, definition order and page boundaries never change the set hash', () => {
    const whole = toolSetHash([JSON.stringify(gh)]);
    fc.assert(
      fc.property(fc.shuffledSubarray(gh.map((_, i) => i), { minLength: gh.length }), fc.array(fc.nat(gh.length), { maxLength: 4 }), (order, cuts) => {
        const shuffled = order.map((i) => gh[i]);
        const bounds = [0, ...[...cuts].sort((a, b) => a - b), gh.length];
        const pages = bounds.slice(1).map((end, k) => JSON.stringify(shuffled.slice(bounds[k], end)));
        return toolSetHash(pages) === whole;
      }),
      { numRuns: 50, seed: 3 },
    );
  });
  it('changes when a definition is removed or one member of one tool changes', () => {
    const whole = toolSetHash([JSON.stringify(gh)]);
    expect(toolSetHash([JSON.stringify(gh.slice(1))])).not.toBe(whole);
    const edited = structuredClone(gh);
    edited[5]!.description += '.';
    expect(toolSetHash([JSON.stringify(edited)])).not.toBe(whole);
  });
  it('is sha256 of the lines toolDefinitionHashes gives, joined with \\n', () => {
    const lines = toolDefinitionHashes([JSON.stringify(gh)]);
    expect(lines).toHaveLength(gh.length);
    expect(lines.map((l) => l.name)).toEqual(gh.map((t) => t.name).sort());
    expect(lines.find((l) => l.name === 'get_me')!.hash).toBe(toolDefinitionHash(JSON.stringify(gh.find((t) => t.name === 'get_me'))));
  });
  it.each([
    [['{"name":"x"}'], 'not an array', 'page 0 is not a json array'],
    [['[]', '[{"name":"a"},{"title":"t"}]'], 'no string name', 'definition 1 of page 1 has no string name'],
    [['[null]'], 'no string name', 'definition 0 of page 0 has no string name'],
    [['[{"name":"a","name":"b"}]'], 'repeated member name', 'repeated member name at "/0/name" in page 0: no canonical form'],
    [['[{"name":"a"}'], 'not json', 'text is not json in page 0'],
  ])('refuses %j: %s', (pages, reason, message) => {
    expect(() => toolSetHash(pages)).toThrow(expect.objectContaining({ reason, message }));
  });
});

describe('toolsPage(answerText)', () => {
  const answer = '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b","inputSchema":{"type":"object","maximum":1E3}},\n {"name":"a"}]}}';
  it('gives result.tools as a page whose hashes are those of the served text', () => {
    const served = '[{"name":"b","inputSchema":{"type":"object","maximum":1E3}},\n {"name":"a"}]';
    expect(toolSetHash([toolsPage(answer)])).toBe(toolSetHash([served]));
  });
  it('ignores a repeated member outside the listing (the JSON-RPC envelope) but refuses one at /result', () => {
    expect(() => toolsPage('{"jsonrpc":"2.0","jsonrpc":"2.0","id":2,"result":{"tools":[]}}')).not.toThrow();
    expect(() => toolsPage('{"id":2,"result":{"tools":[]},"result":{"tools":[{"name":"x"}]}}')).toThrow('repeated member name at "/result": no canonical form');
    expect(() => toolsPage('{"id":2,"result":{"tools":[{"name":"x","title":"a","title":"b"}]}}')).toThrow(expect.objectContaining({ reason: 'repeated member name' }));
  });
  it('refuses an answer without a result.tools array', () => {
    expect(() => toolsPage('{"jsonrpc":"2.0","id":2,"error":{"code":-32601}}')).toThrow(expect.objectContaining({ reason: 'not an array', message: 'answer has no result.tools array' }));
  });
  it('refuses a repeated tools member (two listings in one answer)', () => {
    expect(() => toolsPage('{"id":2,"result":{"tools":[],"tools":[{"name":"x"}]}}')).toThrow(
      expect.objectContaining({ reason: 'repeated member name', message: 'repeated member name at "/result/tools": no canonical form' }),
    );
    // a repeated member beside the listing in result is outside the listing and /result's own members
    expect(() => toolsPage('{"id":2,"result":{"tools":[],"_meta":{"a":1,"a":2}}}')).not.toThrow();
  });
  it('says an answer that is not json is not json, naming no page, with the reader\'s error as its cause', () => {
    let caught: unknown;
    try {
      toolsPage('{"id":2,');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ToolDefinitionHashError);
    expect(caught).toMatchObject({ reason: 'not json', message: 'text is not json' });
    expect((caught as Error).cause).toMatchObject({ name: 'JsonTextError', reason: 'not json' });
  });
});

describe('instructionsHash(s)', () => {
  it('hashes the string exactly as received: no trimming, no Unicode normalisation', () => {
    expect(instructionsHash('caf\u00e9')).not.toBe(instructionsHash('cafe\u0301'));
    expect(instructionsHash('x ')).not.toBe(instructionsHash('x'));
  });
  it('hashes the empty string (it is an instructions string) and gives null for none', () => {
    expect(instructionsHash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(instructionsHash(null)).toBeNull();
  });
  it('encodes a lone surrogate as U+FFFD, as the WHATWG encoder does', () => {
    expect(instructionsHash('x\uD800')).toBe(instructionsHash('x\uFFFD'));
  });
});

// --- generators and helpers ----------------------------------------------------------------------

const codeUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 6 }).map((u) => String.fromCharCode(...u));
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), codeUnits);
const key = fc.oneof(fc.string({ maxLength: 5 }), text);
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(0, -0, 1e21, 1e-7, 2 ** 53 + 2));
const json = (str: fc.Arbitrary<string>) =>
  fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), number, str, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(str, tie('value'), { maxKeys: 4 }),
  })).value;
const definition = fc
  .tuple(text, fc.dictionary(key, json(text), { maxKeys: 5 }))
  .map(([name, rest]) => ({ ...rest, name }) as Record<string, unknown>);
const wellFormed = json(fc.string({ unit: 'binary', maxLength: 8 }));

/** A deterministic generator of choices for one property run (src/lib's mulberry32). */
const prng = (seed: number) => mulberry32(seed >>> 0);

/** JSON text of `v` with members shuffled, whitespace everywhere, numbers and strings spelled differently. */
function respell(v: unknown, r: () => number): string {
  const ws = () => [' ', '', '\n', '\t', '\r\n  ', ''][Math.floor(r() * 6)]!;
  if (typeof v === 'number') {
    const spellings = [JSON.stringify(v), v.toExponential(), v.toExponential().toUpperCase()];
    if (Number.isInteger(v) && !/e/i.test(String(v))) spellings.push(`${Object.is(v, -0) ? '-0' : v}.000`);
    return spellings[Math.floor(r() * spellings.length)]!;
  }
  if (typeof v === 'string') {
    let out = '"';
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      const must = c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff);
      if (must || r() < 0.3) {
        const hex = c.toString(16).padStart(4, '0');
        out += `\\u${r() < 0.5 ? hex : hex.toUpperCase()}`;
      } else out += c === 0x2f && r() < 0.5 ? '\\/' : v[i];
    }
    return `${out}"`;
  }
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => respell(x, r)).join(`${ws()},${ws()}`)}${ws()}]`;
  if (typeof v === 'object' && v !== null) {
    const entries = Object.entries(v).sort(() => r() - 0.5);
    return `{${ws()}${entries.map(([k, x]) => `${respell(k, r)}${ws()}:${ws()}${respell(x, r)}`).join(`${ws()},${ws()}`)}${ws()}}`;
  }
  return JSON.stringify(v);
}

/** The path (keys and indices) of every object member, at any depth. */
function memberPaths(v: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => memberPaths(x, [...path, i]));
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => [[...path, k], ...memberPaths(x, [...path, k])]);
}

function edit(def: Record<string, unknown>, path: (string | number)[], how: 'value' | 'rename' | 'remove'): unknown {
  const copy = structuredClone(def);
  let parent: any = copy;
  for (const token of path.slice(0, -1)) parent = parent[token];
  const k = path.at(-1) as string;
  const value = parent[k];
  if (how === 'remove') delete parent[k];
  else if (how === 'value') parent[k] = { edited: value };
  else {
    let renamed = `${k}~`;
    while (Object.hasOwn(parent, renamed)) renamed += '~';
    delete parent[k];
    parent[renamed] = value;
  }
  return copy;
}
