// JSON pretty-printed one member per line, each line tagged with the RFC 6901 pointer it belongs to
// (methodology v1, "Drift and diffs"): the text toolDiff compares, so that a finding, which carries a
// pointer into the tool, can be shown beside its lines. Not the JSON Lines format (one JSON value a
// line) of the bundles and day files: one value printed over many lines, each line tagged.
//
// The layout is JSON.stringify(value, null, 2) with object keys sorted by UTF-16 code units (as the
// canonical form), so the same value always prints the same lines. Arrays keep their order: every
// pointer must stay valid in the version it was printed from (findings name `…/enum/<index>` in the
// version that holds it), which sorting arrays of objects, as canonicalJson does, would break.
//
// Tool text is hostile, and one JSON line must stay one line on screen with nothing hidden in it.
// JSON.stringify already escapes the C0 controls (LF and CR included). On top of that, inside strings,
// every hiddenCharacters character (bidirectional controls, zero-width and tag characters, DEL and C1
// controls) and U+2028/U+2029 (line breaks to editors and some renderers) are written as \uXXXX
// escapes: still valid JSON for the same value, but visible.
import { CanonicalError, MAX_CANONICAL_DEPTH } from './canonical.ts';
import { escapeHidden } from './hidden-characters.ts';
import { escapePointerToken } from './pointer-diff.ts';
import { byCodeUnits } from './tool-map.ts';

export interface PointerTaggedLine {
  /** The line as printed, indentation and trailing comma included, no line break. */
  text: string;
  /** The member or item the line belongs to; a container's opening and closing lines carry the container's pointer. */
  pointer: string;
}

/** The pretty-printed lines of a JSON value (keys sorted, arrays in order), each with its pointer. */
export function pointerTaggedJson(value: unknown): PointerTaggedLine[] {
  const out: PointerTaggedLine[] = [];
  print(value, '', '', '', '', 0, out);
  return out;
}

function print(value: unknown, pointer: string, indent: string, prefix: string, comma: string, depth: number, out: PointerTaggedLine[]): void {
  if (depth > MAX_CANONICAL_DEPTH) throw new CanonicalError(`json nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  if (typeof value === 'object' && value !== null) {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [String(i), v])
      : Object.keys(value)
          .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
          .sort(byCodeUnits)
          .map((k) => [k, (value as Record<string, unknown>)[k]]);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return void out.push({ text: `${indent}${prefix}${open}${close}${comma}`, pointer });
    out.push({ text: `${indent}${prefix}${open}`, pointer });
    entries.forEach(([k, v], i) => {
      const key = Array.isArray(value) ? '' : `${quote(k)}: `;
      print(v, `${pointer}/${escapePointerToken(k)}`, `${indent}  `, key, i < entries.length - 1 ? ',' : '', depth + 1, out);
    });
    out.push({ text: `${indent}${close}${comma}`, pointer });
    return;
  }
  out.push({ text: `${indent}${prefix}${scalar(value)}${comma}`, pointer });
}

function scalar(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalError('non-finite number is not json');
      return JSON.stringify(value);
    case 'boolean':
      return String(value);
    case 'object':
      return 'null';
    default:
      throw new CanonicalError(`${typeof value} is not json`);
  }
}

/** A JSON string with hidden characters and line separators escaped as \uXXXX (UTF-16 units). */
function quote(s: string): string {
  const unit = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return escapeHidden(JSON.stringify(s), (c) => Array.from({ length: c.length }, (_, i) => unit(c.charAt(i))).join('')).replace(/[\u2028\u2029]/g, unit);
}
