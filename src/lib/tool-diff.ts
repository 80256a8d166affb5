// toolDiff: one tool's change as a unified, folded line diff of its pretty-printed JSON (methodology
// v1, "Drift and diffs"), for people to read. Plain data: rendering it (colour, +/−,
// folding, findings in the margin) is the site's job.
//
// The whole tool is printed by pointerTaggedJson (keys sorted, so the same tool always prints the same lines;
// arrays in their order, so pointers stay valid), and the lines are aligned by jsdiff (Myers' O(ND)
// diff, as GNU diff and git) through its structuredPatch, which also groups them into hunks with
// `context` unchanged lines around each change. The lines are aligned without their trailing commas:
// adding a last property would otherwise show the line before it as changed for its new comma.
// Only the shape of the patch is used; every line's text and pointer come from the printed lines.
//
// Myers' cost grows with the square of the number of edits: a tool whose lines differ past
// TOOL_DIFF_MAX_EDITS (about 60 ms here at that bound; 5,000 took 1.4 s) is shown whole, every line
// removed then every line added, with `replaced: true`. No one reads a thousand-line diff line by line.
import { structuredPatch } from 'diff';
import { pointerTaggedJson, type PointerTaggedLine } from './pointer-tagged-json.ts';
import { unescapePointerToken } from './pointer-diff.ts';
import type { Tool } from './tool.ts';

export const TOOL_DIFF_MAX_EDITS = 1000;

export interface DiffLine {
  /** '+' added, '-' removed, ' ' unchanged (context), 'fold' a run of unchanged lines left out. */
  kind: '+' | '-' | ' ' | 'fold';
  /** The line as printed (indentation included); for a fold, "12 unchanged lines". Tool text is not cut here. */
  text: string;
  /** Pointer into the tool: in the before version for '-', in the after version otherwise (a fold: its first line). */
  pointer: string;
  /** Context lines only: the pointer in the before version, when it differs (an array item moved by an insertion). */
  beforePointer?: string;
  /** Folds only: the number of unchanged lines left out. */
  count?: number;
}

export interface DiffHunk {
  /** '@@ -12,7 +12,8 @@': line ranges in the before and after printing, as unified diff writes them. */
  header: string;
  /** The pointer of the hunk's first changed line. */
  path: string;
  /** A fold first when unchanged lines precede the hunk; the last hunk ends with a fold when lines follow it. */
  lines: DiffLine[];
}

export interface ToolDiff {
  name: string;
  hunks: DiffHunk[];
  /** Lines added and removed. */
  added: number;
  removed: number;
  /** Too many edits to align (TOOL_DIFF_MAX_EDITS): the whole before is removed and the whole after added. */
  replaced: boolean;
}

/** The diff of one tool's two versions; pass undefined for a tool added or removed. [] hunks when equal. */
export function toolDiff(before: Tool | undefined, after: Tool | undefined, opts: { context?: number } = {}): ToolDiff {
  const tool = after ?? before;
  if (tool === undefined) throw new RangeError('toolDiff needs a before or an after tool');
  const context = opts.context ?? 3;
  const a = before === undefined ? [] : pointerTaggedJson(before);
  const b = after === undefined ? [] : pointerTaggedJson(after);
  const patch = structuredPatch('before', 'after', compared(a), compared(b), undefined, undefined, { context, maxEditLength: TOOL_DIFF_MAX_EDITS });
  const hunks = patch === undefined ? [replacement(a, b)] : patch.hunks.map((h) => ({ oldStart: h.oldStart - 1, newStart: h.newStart - 1, kinds: h.lines.map((l) => l[0] as '+' | '-' | ' ') }));
  const out: ToolDiff = { name: tool.name, hunks: [], added: 0, removed: 0, replaced: patch === undefined };
  let i = 0; // next before line not yet shown
  let j = 0; // next after line not yet shown
  for (const h of hunks) {
    const lines: DiffLine[] = [];
    if (h.oldStart > i) lines.push(fold(h.oldStart - i, b[j]!));
    i = h.oldStart;
    j = h.newStart;
    const [oldStart, newStart] = [i, j];
    let path: string | null = null;
    for (const kind of h.kinds) {
      if (kind === '-') {
        const { text, pointer } = a[i++]!;
        lines.push({ kind, text, pointer });
        path ??= pointer;
        out.removed++;
      } else if (kind === '+') {
        const { text, pointer } = b[j++]!;
        lines.push({ kind, text, pointer });
        path ??= pointer;
        out.added++;
      } else {
        const line: DiffLine = { kind, text: b[j]!.text, pointer: b[j]!.pointer };
        if (a[i]!.pointer !== line.pointer) line.beforePointer = a[i]!.pointer;
        lines.push(line);
        i++;
        j++;
      }
    }
    out.hunks.push({ header: header(oldStart, i - oldStart, newStart, j - newStart), path: path!, lines });
  }
  const last = out.hunks[out.hunks.length - 1];
  if (last !== undefined && i < a.length) last.lines.push(fold(a.length - i, b[j]!));
  return out;
}

/**
 * Where to show something about `pointer` (a finding's `path`) in a diff, so it sits beside its lines:
 * the first changed line of `side` at or under the pointer ('-' lines for the before version, '+' for
 * the after), else, for a schema property, its changed entry in the sibling `required` list, else the
 * first unchanged line shown at or under it; failing all these (`exact: false`), the first changed
 * line under its nearest ancestor that has one. null when nothing at or above it changed.
 */
export function lineForPointer(diff: ToolDiff, pointer: string, side: 'before' | 'after' = 'after'): { hunk: number; line: number; exact: boolean } | null {
  const changed = side === 'before' ? '-' : '+';
  const exact =
    first(diff, (l) => l.kind === changed && under(l.pointer, pointer)) ??
    requiredEntry(diff, pointer, changed) ??
    first(diff, (l) => l.kind === ' ' && under(side === 'before' ? (l.beforePointer ?? l.pointer) : l.pointer, pointer));
  if (exact !== null) return { ...exact, exact: true };
  for (let p = parentPointer(pointer); p !== null; p = parentPointer(p)) {
    const near = first(diff, (l) => (l.kind === '+' || l.kind === '-') && under(l.pointer, p!));
    if (near !== null) return { ...near, exact: false };
  }
  return null;
}

/**
 * A property that became (or stopped being) required changed in `<schema>/required`, not under
 * `<schema>/properties/<name>` (input-property-became-required names the property): its entry there.
 */
function requiredEntry(diff: ToolDiff, pointer: string, kind: '+' | '-'): { hunk: number; line: number } | null {
  const m = /^(.*)\/properties\/([^/]*)$/s.exec(pointer);
  if (m === null) return null;
  const [, schema, token] = m as unknown as [string, string, string];
  const name = unescapePointerToken(token);
  return first(diff, (l) => l.kind === kind && l.pointer.startsWith(`${schema}/required/`) && jsonValue(l.text) === name);
}

/** The value a scalar line prints (an array item: no key), or undefined. */
function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text.trim().replace(/,$/, '')) as unknown;
  } catch {
    return undefined; // a container's opening or closing line: not a value
  }
}

function first(diff: ToolDiff, match: (line: DiffLine) => boolean): { hunk: number; line: number } | null {
  for (const [h, hunk] of diff.hunks.entries()) {
    const l = hunk.lines.findIndex(match);
    if (l >= 0) return { hunk: h, line: l };
  }
  return null;
}

function under(p: string, pointer: string): boolean {
  return p === pointer || p.startsWith(`${pointer}/`);
}

function parentPointer(p: string): string | null {
  return p === '' ? null : p.slice(0, p.lastIndexOf('/'));
}

/**
 * The text jsdiff aligns: each line without its trailing comma (a separator, never part of a value:
 * values end in a quote, digit, letter or bracket). What is shown is taken from the printed lines.
 */
function compared(lines: readonly PointerTaggedLine[]): string {
  return lines.map((l) => `${l.text.endsWith(',') ? l.text.slice(0, -1) : l.text}\n`).join('');
}

function replacement(a: readonly PointerTaggedLine[], b: readonly PointerTaggedLine[]) {
  return { oldStart: 0, newStart: 0, kinds: [...a.map(() => '-' as const), ...b.map(() => '+' as const)] };
}

function fold(count: number, first: PointerTaggedLine): DiffLine {
  return { kind: 'fold', text: `${count} unchanged ${count === 1 ? 'line' : 'lines'}`, pointer: first.pointer, count };
}

/** Unified diff's header: a range of length 0 is written with the line before it (GNU diff, jsdiff's formatPatch). */
function header(oldStart: number, oldLines: number, newStart: number, newLines: number): string {
  const range = (start: number, n: number) => `${n === 0 ? start : start + 1},${n}`;
  return `@@ -${range(oldStart, oldLines)} +${range(newStart, newLines)} @@`;
}
