// JSON-pointer-level diff of two JSON values (RFC 6901 pointers), used by summariseDiff for
// inputSchema/outputSchema. Objects are walked key by key; arrays are compared whole, after
// canonicalisation, so a reordered array of objects (a set under methodology v1) is no change,
// and a changed `enum`/`required` list is one change at its pointer.
import { canonicalJson, isObject, MAX_CANONICAL_DEPTH } from './canonical.ts';

export interface PointerChange {
  /** RFC 6901 pointer into the compared value ('' is the whole value). */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** The changes that turn `before` into `after`, sorted by pointer; `undefined` means absent. */
export function pointerDiff(before: unknown, after: unknown, path = ''): PointerChange[] {
  const out: PointerChange[] = [];
  walk(before, after, path, 0, out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** One reference token, escaped as RFC 6901 §3 requires: `~` → `~0`, then `/` → `~1`. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One reference token read back: `~1` → `/`, then `~0` → `~` (RFC 6901 §4, in that order). */
export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function walk(a: unknown, b: unknown, path: string, depth: number, out: PointerChange[]): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) return void out.push({ path, kind: 'added', after: b });
  if (b === undefined) return void out.push({ path, kind: 'removed', before: a });
  if (isObject(a) && isObject(b) && depth < MAX_CANONICAL_DEPTH) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) walk(a[k], b[k], `${path}/${escapePointerToken(k)}`, depth + 1, out);
    return;
  }
  if (canonicalJson(a) !== canonicalJson(b)) out.push({ path, kind: 'changed', before: a, after: b });
}
