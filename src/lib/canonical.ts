// Canonical JSON and the v1 contract hash (methodology v1, "Canonicalisation").
//
// canonical(x):
//   - objects: keys sorted by UTF-16 code units (JS default sort, as RFC 8785), no whitespace;
//   - arrays whose items are ALL plain objects: items sorted by their own canonical serialisation
//     (tool lists and property lists are sets in practice; servers reorder them freely);
//   - every other array keeps its order (e.g. `required`, `enum`, tuple schemas);
//   - numbers and strings as ECMAScript JSON.stringify writes them (1.0 -> 1, 1e21 -> 1e+21, -0 -> 0,
//     lone surrogates escaped), which is what RFC 8785 prescribes for numbers.
// tools_sha256 = lowercase hex SHA-256 of the UTF-8 bytes of canonical(result.tools).
//
// rfc8785Json(x) is the same writer without the array sort: exactly the JSON Canonicalization Scheme
// (RFC 8785), which the interoperable tool definition hash (tool-definition-hash.ts) is built on. One
// writer serves both so their number, string and key-order rules cannot drift apart.
//
// Known limit, documented on the methodology page: values are compared after JSON.parse, so integers
// beyond 2^53 that differ only past double precision hash the same.
import { createHash } from 'node:crypto';

/** Nesting deeper than this is refused rather than risking the stack (real schemas nest < 30). */
export const MAX_CANONICAL_DEPTH = 256;

export class CanonicalError extends Error {
  override readonly name = 'CanonicalError';
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Canonical serialisation of a JSON value (see the header for the rules). */
export function canonicalJson(value: unknown): string {
  return write(value, 0, true);
}

/** RFC 8785 (JCS) serialisation of a JSON value: canonicalJson's rules, every array in its order. */
export function rfc8785Json(value: unknown): string {
  return write(value, 0, false);
}

/** Lowercase hex SHA-256 of a string (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** What sha256Hex writes: 64 lowercase hex digits (object names, row hashes). */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The v1 contract hash over a tools array: sha256(canonical(tools)). */
export function toolsSha256(tools: readonly unknown[]): string {
  return sha256Hex(canonicalJson(tools));
}

/** A JSON object: not null, not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function write(v: unknown, depth: number, sortObjectArrays: boolean): string {
  if (depth > MAX_CANONICAL_DEPTH) throw new CanonicalError(`json nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(v)) throw new CanonicalError('non-finite number is not json');
      return JSON.stringify(v);
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        const items = v.map((item) => write(item, depth + 1, sortObjectArrays));
        if (sortObjectArrays && v.length > 0 && v.every(isObject)) items.sort(byCodeUnits);
        return `[${items.join(',')}]`;
      }
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(byCodeUnits);
      return `{${keys.map((k) => `${JSON.stringify(k)}:${write(obj[k], depth + 1, sortObjectArrays)}`).join(',')}}`;
    }
    default:
      throw new CanonicalError(`${typeof v} is not json`);
  }
}

/**
 * Code-unit order, independent of locale (what Array.prototype.sort does by default): canonical keys
 * sort this way, and so does every list we publish, so it reads the same everywhere.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
