// Packed listing pages (src/lib/page-parts.ts): a real page splits into its entries and joins back byte
// for byte; anything the scanner cannot split exactly is refused (stored whole by the caller), and a
// join that does not hash to the page's name fails.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/canonical.ts';
import {
  entrySpans,
  joinPage,
  manifestBytes,
  manifestObjects,
  parseManifest,
  splitPage,
} from '../../src/lib/page-parts.ts';

const real = JSON.parse(readFileSync(new URL('../../fixtures/registry/real/official-v0-listing-2025-12-12.json', import.meta.url), 'utf8')) as { servers: unknown[] };
const enc = (s: string) => new TextEncoder().encode(s);

/** A page as the registry sends it: compact JSON of 100 real entries and a cursor. */
function realPage(from: number, spacing = ''): Uint8Array {
  const servers = real.servers.slice(from, from + 100);
  return enc(`{"servers":[${servers.map((s) => JSON.stringify(s)).join(`,${spacing}`)}],"metadata":{"nextCursor":"x:1.0.0+b","count":100}}`);
}

function joinOf(raw: Uint8Array): Buffer {
  const split = splitPage(raw);
  expect(split).not.toBeNull();
  const byName = new Map(split!.entries.map((e) => [e.sha256, e.bytes]));
  const joined = joinPage(split!.manifest, (n) => byName.get(n) ?? null);
  if (!joined.ok) throw new Error(joined.message);
  return joined.bytes;
}

describe('splitPage / joinPage', () => {
  it('splits a real page of 100 entries and joins it back byte for byte', () => {
    const raw = realPage(0);
    const split = splitPage(raw)!;
    expect(split.entries).toHaveLength(100);
    expect(split.manifest.sha256).toBe(sha256Hex(raw));
    expect(split.manifest.size).toBe(raw.length);
    expect(Buffer.compare(joinOf(raw), Buffer.from(raw))).toBe(0);
    // each entry's bytes are the exact JSON of that server as sent
    expect(new TextDecoder().decode(split.entries[3]!.bytes)).toBe(JSON.stringify(real.servers[3]));
  });

  it('keeps whitespace, pretty-printing and non-ASCII text exactly', () => {
    const pretty = enc(JSON.stringify({ servers: real.servers.slice(0, 5), metadata: { note: 'café – ✓' } }, null, 2) + '\n');
    expect(Buffer.compare(joinOf(pretty), Buffer.from(pretty))).toBe(0);
    const spaced = realPage(200, ' \n\t');
    expect(Buffer.compare(joinOf(spaced), Buffer.from(spaced))).toBe(0);
  });

  it('names an entry once per use, and shared entries dedupe between two shifted pages', () => {
    const a = splitPage(realPage(0))!;
    const b = splitPage(realPage(1))!; // the listing shifted by one: 99 of 100 entries are the same
    const shared = manifestObjects(b.manifest).filter((n) => manifestObjects(a.manifest).includes(n));
    expect(shared).toHaveLength(99);
    expect(a.manifest.sha256).not.toBe(b.manifest.sha256);
  });

  it('finds entries past brackets and quotes inside strings', () => {
    const raw = enc('{"a":"]}[{\\"","servers":[{"s":"}\\\\"},{"t":["]"]}],"z":[1,{"q":"\\""}]}');
    const spans = entrySpans(raw)!;
    expect(spans.map(([s, e]) => new TextDecoder().decode(raw.subarray(s, e)))).toEqual(['{"s":"}\\\\"}', '{"t":["]"]}']);
    expect(Buffer.compare(joinOf(raw), Buffer.from(raw))).toBe(0);
  });

  it.each([
    ['not an object', '[{"servers":[]}]'],
    ['no servers key', '{"items":[{"a":1}]}'],
    ['servers is not an array', '{"servers":{"a":1}}'],
    ['an element that is not an object', '{"servers":[{"a":1},2]}'],
    ['a duplicate servers key', '{"servers":[{"a":1}],"servers":[{"b":2}]}'],
    ['an escaped spelling of the key', '{"\\u0073ervers":[{"a":1}]}'],
    ['an empty servers array', '{"servers":[],"metadata":{}}'],
    ['trailing bytes', '{"servers":[{"a":1}]}{}'],
    ['an unterminated string', '{"servers":[{"a":"1}]}'],
    ['unbalanced brackets', '{"servers":[{"a":[1}]}'],
    ['an empty body', ''],
  ])('refuses %s', (_why, text) => {
    expect(splitPage(enc(text))).toBeNull();
  });

  it('refuses bytes that are not UTF-8 in the literal text', () => {
    const raw = Buffer.concat([enc('{"x":"'), Buffer.from([0xff, 0xfe]), enc('","servers":[{"a":1}]}')]);
    expect(splitPage(raw)).toBeNull();
  });

  it('a join fails when an object is missing, or when bytes differ from what the manifest names', () => {
    const raw = realPage(300);
    const split = splitPage(raw)!;
    const byName = new Map(split.entries.map((e) => [e.sha256, e.bytes]));
    const missing = joinPage(split.manifest, (n) => (n === split.entries[7]!.sha256 ? null : byName.get(n)!));
    expect(missing).toEqual({ ok: false, message: expect.stringContaining('is missing') });
    const swapped = joinPage(split.manifest, (n) => (n === split.entries[7]!.sha256 ? split.entries[8]!.bytes : byName.get(n)!));
    expect(swapped).toEqual({ ok: false, message: expect.stringContaining('does not join to its SHA-256') });
  });

  it('a manifest round-trips through its bytes, and damaged manifest bytes do not parse', () => {
    const split = splitPage(realPage(0))!;
    expect(parseManifest(manifestBytes(split.manifest))).toEqual(split.manifest);
    const text = new TextDecoder().decode(manifestBytes(split.manifest));
    expect(parseManifest(enc(text.replace('"format":"mcp-schema/page@1"', '"format":"other"')))).toBeNull();
    expect(parseManifest(enc(text.slice(0, 100)))).toBeNull();
  });

  it('a manifest is far smaller than its page', () => {
    const raw = realPage(0);
    expect(manifestBytes(splitPage(raw)!.manifest).length).toBeLessThan(raw.length / 5);
  });
});

describe('entrySpans: what the scanner splits, byte for byte, and what it leaves whole', () => {
  const spansOf = (text: string): string[] | null => {
    const raw = enc(text);
    const spans = entrySpans(raw);
    return spans === null ? null : spans.map(([s, e]) => new TextDecoder().decode(raw.subarray(s, e)));
  };
  it('JSON whitespace (space, tab, CR, LF) anywhere between tokens', () => {
    expect(spansOf(' \t\r\n{ "servers" : [ {"a":1} , {"b":2} ] , "m" : 1 } \n')).toEqual(['{"a":1}', '{"b":2}']);
    for (const ws of [' ', '\t', '\r', '\n']) expect(spansOf(`{${ws}"servers"${ws}:${ws}[${ws}{}${ws},${ws}{"c":3}${ws}]${ws}}${ws}`), JSON.stringify(ws)).toEqual(['{}', '{"c":3}']);
  });
  it('other members of every kind before and after servers are skipped whole', () => {
    expect(spansOf('{"a":{"b":[1,2,{"c":"d"}]},"n":-1.5e3,"t":true,"f":false,"z":null,"s":"x","servers":[{"x":1}],"after":12}')).toEqual(['{"x":1}']);
    expect(spansOf('{"n":12 ,"servers":[{}]}')).toEqual(['{}']);
    expect(spansOf('{"servers":[{}],"n":12}')).toEqual(['{}']);
    expect(spansOf('{"servers":[{}],"n":[[],{}]}')).toEqual(['{}']);
  });
  it('an empty servers array has no entries (splitPage then stores the page whole)', () => {
    expect(spansOf('{"servers":[]}')).toEqual([]);
    expect(spansOf('{"servers":[ \n ]}')).toEqual([]);
    expect(splitPage(enc('{"servers":[ ]}'))).toBeNull();
  });
  it('strings: a space and escaped quotes and backslashes are text; a raw control character is not JSON', () => {
    expect(spansOf('{"a b":" ","x\\\\":"\\\\","q\\"":1,"servers":[{"k":"a b\\"]"}]}')).toEqual(['{"k":"a b\\"]"}']);
    expect(spansOf('{"a\u001f":1,"servers":[{}]}')).toBeNull();
    expect(spansOf('{"a":"\u001f","servers":[{}]}')).toBeNull();
    expect(spansOf('{"servers":[{"a":"x\ny"}]}')).toBeNull();
    expect(spansOf('{"a":["\u0000"],"servers":[{}]}')).toBeNull();
  });
  it.each([
    ['an empty object', '{}'],
    ['bytes before the object', 'x{"servers":[{}]}'],
    ['a key that is not a string', '{servers:[{}]}'],
    ['a key not followed by a colon', '{"servers" [{}]}'],
    ['a key cut off', '{"servers'],
    ['two members without a comma', '{"servers":[{}] "x":1}'],
    ['a trailing comma', '{"servers":[{}],}'],
    ['the object not closed', '{"servers":[{}]'],
    ['the object not closed after a scalar', '{"servers":[{}],"a":1'],
    ['a member without a value', '{"a":,"servers":[{}]}'],
    ['a value cut off', '{"servers":[{}],"a":'],
    ['a nested value not closed', '{"servers":[{}],"a":[1,2'],
    ['mismatched brackets in another member', '{"a":[}],"servers":[{}]}'],
    ['mismatched brackets in an entry', '{"servers":[{"a":1]}]}'],
    ['an unterminated string inside an entry', '{"servers":[{"a":"x'],
    ['entries without a comma', '{"servers":[{} {}]}'],
    ['the servers array not closed', '{"servers":[{},'],
    ['the servers array cut off after an entry', '{"servers":[{}'],
    ['a string entry', '{"servers":["x"]}'],
    ['an array entry', '{"servers":[[{}]]}'],
    ['servers as a string', '{"servers":"[{}]"}'],
    ['a key one letter off', '{"serverz":[{}]}'],
    ['a shorter key', '{"server":[{}]}'],
    // one byte off a splittable page: each must still be refused, not read around
    ['a first byte that is not a brace', 'x"servers":[{}]}'],
    ['a key without its opening quote', '{a":1,"servers":[{}]}'],
    ['a key followed by another byte than a colon', '{"servers"=[{}]}'],
    ['servers opened by another byte than a bracket', '{"servers":x{"a":1}]}'],
    ['the servers array closed by a brace', '{"servers":[{}}}'],
    ['the object closed by a bracket', '{"servers":[{}]]'],
    ['a scalar followed by a bracket', '{"a":1],"servers":[{}]}'],
  ])('none for %s', (_why, text) => {
    expect(spansOf(text)).toBeNull();
  });
});

describe('splitPage, manifests and joins: the details a reader checks', () => {
  it('the same entry twice on a page is an entry per place and one object', () => {
    const raw = enc('{"servers":[{"a":1},{"b":2},{"a":1}]}');
    const split = splitPage(raw)!;
    expect(split.entries.map((e) => e.sha256)).toEqual([sha256Hex(enc('{"a":1}')), sha256Hex(enc('{"b":2}')), sha256Hex(enc('{"a":1}'))]);
    expect(manifestObjects(split.manifest)).toEqual([sha256Hex(enc('{"a":1}')), sha256Hex(enc('{"b":2}'))]);
    expect(split.manifest.parts).toEqual(['{"servers":[', { object: sha256Hex(enc('{"a":1}')) }, ',', { object: sha256Hex(enc('{"b":2}')) }, ',', { object: sha256Hex(enc('{"a":1}')) }, ']}']);
    expect(Buffer.compare(joinOf(raw), Buffer.from(raw))).toBe(0);
  });
  it('a manifest is stored as compact JSON and one newline', () => {
    const m = splitPage(enc('{"servers":[{}]}'))!.manifest;
    expect(new TextDecoder().decode(manifestBytes(m))).toBe(`{"format":"mcp-schema/page@1","sha256":"${sha256Hex(enc('{"servers":[{}]}'))}","size":16,"parts":["{\\"servers\\":[",{"object":"${sha256Hex(enc('{}'))}"},"]}"]}\n`);
  });
  it('a join names the missing object and the page by their first 12 hex digits', () => {
    const raw = enc('{"servers":[{"a":1}]}');
    const m = splitPage(raw)!.manifest;
    const obj = sha256Hex(enc('{"a":1}'));
    expect(joinPage(m, () => null)).toEqual({ ok: false, message: `object ${obj.slice(0, 12)}… of page ${sha256Hex(raw).slice(0, 12)}… is missing` });
  });
  it('a join fails on bytes of the same length that differ, and on the right bytes with the wrong size', () => {
    const raw = enc('{"servers":[{"a":1}]}');
    const m = splitPage(raw)!.manifest;
    const same = joinPage(m, () => enc('{"a":2}'));
    expect(same).toEqual({ ok: false, message: `page ${sha256Hex(raw).slice(0, 12)}… does not join to its SHA-256` });
    expect(joinPage({ ...m, size: m.size + 1 }, () => enc('{"a":1}'))).toEqual({ ok: false, message: `page ${sha256Hex(raw).slice(0, 12)}… does not join to its SHA-256` });
    const ok = joinPage(m, () => enc('{"a":1}'));
    expect(ok.ok && Buffer.compare(ok.bytes, Buffer.from(raw))).toBe(0);
  });
  it('parseManifest takes only a manifest of the exact shape', () => {
    const m = splitPage(enc('{"servers":[{}]}'))!.manifest;
    const text = (v: unknown) => enc(JSON.stringify(v));
    expect(parseManifest(text(m))).toEqual(m);
    expect(parseManifest(text({ ...m, parts: [] }))).toEqual({ ...m, parts: [] });
    expect(parseManifest(text({ ...m, size: 0 }))).toEqual({ ...m, size: 0 });
    for (const bad of [
      { ...m, extra: 1 },
      { ...m, size: -1 },
      { ...m, size: 1.5 },
      { ...m, sha256: m.sha256.toUpperCase() },
      { ...m, sha256: m.sha256.slice(1) },
      { ...m, parts: [1] },
      { ...m, parts: [{ object: 'x' }] },
      { ...m, parts: [{ object: m.sha256, extra: 1 }] },
      { ...m, format: 'mcp-schema/page@2' },
      { sha256: m.sha256, size: m.size, parts: m.parts },
    ]) expect(parseManifest(text(bad)), JSON.stringify(bad).slice(0, 80)).toBeNull();
    expect(parseManifest(enc('not json'))).toBeNull();
  });
});
