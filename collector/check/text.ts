// Registry and server text, shown as data: what a terminal, a CI log or an MCP client gets
// from the check and the MCP server. Every such string is cut (src/lib clip), quoted, and every
// character a reader cannot see or a terminal would act on is written as a visible escape: the
// hidden class of src/lib hidden-characters.ts (C0/C1 controls, ESC, bidi controls, zero-width and tag
// characters) and, for one-line output, TAB, LF, CR and the line and paragraph separators too. Nothing from a server is ever printed raw.
import { clip, escapeHidden, showHidden } from '../../src/lib/index.ts';

const LINE_BREAKS = /[\t\n\r\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\u2028': '\\u{2028}', '\u2029': '\\u{2029}' };

/** One line of data: cut at `max`, hidden characters and line breaks escaped, in double quotes (inner quotes and backslashes escaped). */
export function quoted(text: string, max = 200): string {
  const escaped = clip(text, max).replace(/[\\"]/g, (c) => `\\${c}`);
  return `"${escapeHidden(escaped, visible).replace(LINE_BREAKS, (c) => NAMED[c]!)}"`;
}

/** A sentence of ours that embeds quoted data (a finding's message, built by src/lib quote()): hidden characters and line breaks escaped. */
export function oneLine(text: string, max = 400): string {
  return escapeHidden(clip(text, max), visible).replace(LINE_BREAKS, (c) => NAMED[c]!);
}

function visible(c: string): string {
  return `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`;
}

/**
 * Every string in a JSON value with its hidden characters written as escapes (showHidden), keys too:
 * what the MCP server and `--json` hand on. JSON quotes every string; this keeps a bidi override or
 * an invisible tag-character instruction from reaching a model or a reviewer unseen.
 */
export function visibleData<T>(value: T): T {
  if (typeof value === 'string') return showHidden(value) as T;
  if (Array.isArray(value)) return value.map(visibleData) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, showHidden(k), { value: visibleData(v), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}
