// A raw registry listing page stored without repeating what did not change (DESIGN "Where
// the record lives"). The listing is ordered by name, then version: a new server or version shifts
// every later page, so nearly every page is new every day while nearly every entry on it is not. A
// page is therefore kept as its entries' exact bytes, each an object named by its SHA-256, plus a page
// manifest: the literal bytes between the entries and the entries' names, in order. Joining the parts
// gives the page back byte for byte, and the manifest names the page's own SHA-256, so a reader checks
// the join against it. The raw response stays the record; the manifest is only how it is packed.
//
// Pure: the caller reads and writes the objects. A page whose bytes this scanner cannot split
// (not a JSON object, no `servers` array, a duplicate `servers` key, bytes that are not UTF-8) is not
// split: it is stored whole, as before, and nothing is lost.
import { z } from 'zod';
import { SHA256_HEX, sha256Hex } from './canonical.ts';

export const PAGE_MANIFEST_FORMAT = 'mcp-schema/page@1';

const sha256 = z.string().regex(SHA256_HEX);

/** A page manifest (pages/<aa>/<sha256>.json): literal text and object references, joined in order. */
export const PageManifest = z
  .object({
    format: z.literal(PAGE_MANIFEST_FORMAT),
    /** SHA-256 of the page's raw bytes: the name rosters and rows use for it. */
    sha256,
    /** The page's length in bytes. */
    size: z.number().int().nonnegative(),
    /** Literal UTF-8 text, or the bytes of an object, in order. */
    parts: z.array(z.union([z.string(), z.object({ object: sha256 }).strict()])),
  })
  .strict();
export type PageManifest = z.infer<typeof PageManifest>;

export interface SplitPage {
  manifest: PageManifest;
  /** The entries' exact bytes, in page order, each with its name (duplicates included once per place). */
  entries: { sha256: string; bytes: Uint8Array }[];
}

/**
 * Split a page into its `servers` entries and a manifest, or null when the page is not one this
 * scanner splits exactly (the caller stores it whole). The result is checked by joining it again.
 */
export function splitPage(raw: Uint8Array): SplitPage | null {
  const spans = entrySpans(raw);
  if (spans === null || spans.length === 0) return null;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parts: PageManifest['parts'] = [];
  const entries: SplitPage['entries'] = [];
  let at = 0;
  try {
    for (const [start, end] of spans) {
      if (start > at) parts.push(decoder.decode(raw.subarray(at, start)));
      const bytes = raw.subarray(start, end);
      const name = sha256Hex(bytes);
      entries.push({ sha256: name, bytes });
      parts.push({ object: name });
      at = end;
    }
    if (at < raw.length) parts.push(decoder.decode(raw.subarray(at)));
  } catch {
    return null; // not UTF-8: a literal could not be written as JSON text byte for byte
  }
  const manifest: PageManifest = { format: PAGE_MANIFEST_FORMAT, sha256: sha256Hex(raw), size: raw.length, parts };
  const byName = new Map(entries.map((e) => [e.sha256, e.bytes]));
  const again = joinPage(manifest, (name) => byName.get(name) ?? null);
  return again.ok ? { manifest, entries } : null;
}

/** A manifest as the store keeps it: compact JSON and a newline. */
export function manifestBytes(manifest: PageManifest): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(manifest) + '\n');
}

/** The object names a manifest joins (each once, in first-use order). */
export function manifestObjects(manifest: PageManifest): string[] {
  const names = new Set<string>();
  for (const part of manifest.parts) if (typeof part !== 'string') names.add(part.object);
  return [...names];
}

export type Joined = { ok: true; bytes: Buffer } | { ok: false; message: string };

/**
 * The page's bytes from its manifest and its objects (`get` returns an object's verified bytes or
 * null). Fails, naming why, when an object is missing or the join does not hash to the manifest's name.
 */
export function joinPage(manifest: PageManifest, get: (sha256: string) => Uint8Array | null): Joined {
  const chunks: Uint8Array[] = [];
  const encoder = new TextEncoder();
  for (const part of manifest.parts) {
    if (typeof part === 'string') chunks.push(encoder.encode(part));
    else {
      const bytes = get(part.object);
      if (bytes === null) return { ok: false, message: `object ${part.object.slice(0, 12)}… of page ${manifest.sha256.slice(0, 12)}… is missing` };
      chunks.push(bytes);
    }
  }
  const bytes = Buffer.concat(chunks);
  if (bytes.length !== manifest.size || sha256Hex(bytes) !== manifest.sha256) {
    return { ok: false, message: `page ${manifest.sha256.slice(0, 12)}… does not join to its SHA-256` };
  }
  return { ok: true, bytes };
}

/** Parse manifest bytes (null when they are not a valid manifest). */
export function parseManifest(bytes: Uint8Array): PageManifest | null {
  try {
    const parsed = PageManifest.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

// ---- the scanner: byte spans of the elements of the top-level `servers` array -----------------------

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** [start, end) of each element of the top-level object's `servers` array, or null when not splittable. */
export function entrySpans(b: Uint8Array): [number, number][] | null {
  let i = skipWs(b, 0);
  if (b[i] !== 0x7b) return null; // {
  i = skipWs(b, i + 1);
  let spans: [number, number][] | null = null;
  if (b[i] === 0x7d) return null; // {} has no servers
  for (;;) {
    if (b[i] !== QUOTE) return null;
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return null;
    const key = b.subarray(i, keyEnd);
    i = skipWs(b, keyEnd);
    if (b[i] !== 0x3a) return null; // :
    i = skipWs(b, i + 1);
    if (isServersKey(key)) {
      if (spans !== null || b[i] !== 0x5b) return null; // a duplicate key, or servers is not an array
      const found = arraySpans(b, i);
      if (found === null) return null;
      spans = found.spans;
      i = found.end;
    } else {
      i = skipValue(b, i);
      if (i < 0) return null;
    }
    i = skipWs(b, i);
    if (b[i] === 0x2c) {
      i = skipWs(b, i + 1);
      continue;
    }
    if (b[i] !== 0x7d) return null;
    if (skipWs(b, i + 1) !== b.length) return null; // trailing bytes: not one JSON document
    return spans;
  }
}

/** `"servers"` exactly (an escaped spelling of the same key is not split: it is stored whole). */
function isServersKey(key: Uint8Array): boolean {
  const want = '"servers"';
  if (key.length !== want.length) return false;
  for (let k = 0; k < want.length; k++) if (key[k] !== want.charCodeAt(k)) return false;
  return true;
}

function arraySpans(b: Uint8Array, open: number): { spans: [number, number][]; end: number } | null {
  const spans: [number, number][] = [];
  let i = skipWs(b, open + 1);
  if (b[i] === 0x5d) return { spans, end: i + 1 };
  for (;;) {
    const end = skipValue(b, i);
    if (end < 0) return null;
    if (b[i] !== 0x7b) return null; // only objects are entries; anything else: store the page whole
    spans.push([i, end]);
    i = skipWs(b, end);
    if (b[i] === 0x2c) {
      i = skipWs(b, i + 1);
      continue;
    }
    if (b[i] !== 0x5d) return null;
    return { spans, end: i + 1 };
  }
}

function skipWs(b: Uint8Array, i: number): number {
  while (i < b.length && WS.has(b[i]!)) i++;
  return i;
}

/** End (exclusive) of the string starting at b[i] === '"', or -1. */
function skipString(b: Uint8Array, i: number): number {
  for (let k = i + 1; k < b.length; k++) {
    const c = b[k]!;
    if (c === BACKSLASH) k++;
    else if (c === QUOTE) return k + 1;
    else if (c < 0x20) return -1;
  }
  return -1;
}

/**
 * End (exclusive) of the JSON value starting at b[i], or -1. Structure only: strings are skipped
 * whole, brackets are balanced; scalars are taken up to the next delimiter and checked by JSON.parse
 * of the joined page's caller (splitPage is only ever given a page that parsed).
 */
function skipValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === undefined) return -1;
  if (c === QUOTE) return skipString(b, i);
  if (c === 0x7b || c === 0x5b) {
    const stack: number[] = [c === 0x7b ? 0x7d : 0x5d];
    for (let k = i + 1; k < b.length; k++) {
      const d = b[k]!;
      if (d === QUOTE) {
        k = skipString(b, k) - 1;
        if (k < 0) return -1;
      } else if (d === 0x7b) stack.push(0x7d);
      else if (d === 0x5b) stack.push(0x5d);
      else if (d === 0x7d || d === 0x5d) {
        if (stack.pop() !== d) return -1;
        if (stack.length === 0) return k + 1;
      }
    }
    return -1;
  }
  let k = i;
  while (k < b.length && !WS.has(b[k]!) && b[k] !== 0x2c && b[k] !== 0x7d && b[k] !== 0x5d) k++;
  return k === i ? -1 : k;
}
