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
