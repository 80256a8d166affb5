// JSON text read the way the tool definition hash, version 1 needs it (mcp-pin
// docs/TOOL_DEFINITION_HASH.md §1): values exactly as ECMAScript's JSON.parse reads them (every number
// an IEEE 754 double, as RFC 8785 requires), and every repeated member name found, with its copies.
//
// JSON.parse alone cannot do the second part: it keeps the last copy of a repeated name and says
// nothing (a reviver sees the object after the fact; the source-text reviver argument needs Node 21+).
// So the text is read twice: JSON.parse for the values (it also rejects anything that is not strict
// JSON), then jsonc-parser's `visit` (Microsoft's streaming scanner behind VS Code) for the member
// names, which it reports one by one, decoded, repeats included, without building a tree.
//
// Depth: V8's JSON.parse takes any nesting, but `visit` recurses; nesting past MAX_CANONICAL_DEPTH is
// refused from inside the visitor, before the stack is at risk (the canonical writer refuses it too).
import { visit, type JSONPath } from 'jsonc-parser';
import { MAX_CANONICAL_DEPTH } from './canonical.ts';
import { escapePointerToken } from './pointer-diff.ts';

export class JsonTextError extends Error {
  override readonly name = 'JsonTextError';
  constructor(
    readonly reason: 'not json' | 'too deep',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A member name that occurs more than once in one object. */
export interface RepeatedMember {
  /** RFC 6901 pointer to the member (every copy has this pointer: that is the problem). */
  path: string;
  /** The value of each copy, in document order: first-wins parsers read copies[0], JSON.parse the last. */
  copies: unknown[];
}

/** Every member name repeated within one object of a JSON text, in document order of the first repeat. */
export function repeatedMemberNames(jsonText: string): RepeatedMember[] {
  return readJsonText(jsonText).repeated;
}

/** The value (as JSON.parse reads it) and the repeated member names of a JSON text. */
export function readJsonText(text: string): { value: unknown; repeated: RepeatedMember[] } {
  if (typeof text !== 'string') throw new JsonTextError('not json', 'json text is not a string');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    // V8's message quotes the text, which is hostile: keep it on `cause` only.
    throw new JsonTextError('not json', 'text is not json', { cause });
  }
  return { value, repeated: scan(text) };
}

/** One open container; for objects, where each member's value starts and ends in the text. */
interface Frame {
  members: Map<string, [start: number, end: number][]> | null;
  current: [number, number] | null;
  path: JSONPath | null;
}

function scan(text: string): RepeatedMember[] {
  const stack: Frame[] = [];
  const out: { path: string; spans: [number, number][] }[] = [];
  const open = (offset: number, members: Frame['members']) => {
    valueStarts(offset);
    if (stack.length >= MAX_CANONICAL_DEPTH) throw new JsonTextError('too deep', `json nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
    stack.push({ members, current: null, path: null });
  };
  const valueStarts = (offset: number) => {
    const parent = stack.at(-1);
    if (parent?.current) parent.current[0] = offset;
  };
  const valueEnds = (end: number) => {
    const parent = stack.at(-1);
    if (parent?.current) parent.current[1] = end;
  };
  const close = (offset: number) => {
    const frame = stack.pop()!;
    for (const [name, spans] of frame.members ?? []) {
      if (spans.length > 1) out.push({ path: pointer([...frame.path!, name]), spans });
    }
    valueEnds(offset + 1);
  };
  visit(text, {
    onObjectBegin: (offset) => open(offset, new Map()),
    onArrayBegin: (offset) => open(offset, null),
    onObjectEnd: close,
    onArrayEnd: close,
    onObjectProperty: (name, _offset, _length, _line, _char, pathSupplier) => {
      const frame = stack.at(-1)!;
      const span: [number, number] = [-1, -1];
      const spans = frame.members!.get(name);
      if (spans === undefined) frame.members!.set(name, [span]);
      else {
        spans.push(span);
        frame.path ??= pathSupplier(); // asked only on a repeat: a path per object would cost a copy each
      }
      frame.current = span;
    },
    onLiteralValue: (_value, offset, length) => {
      valueStarts(offset);
      valueEnds(offset + length);
    },
  });
  // Objects close innermost first; the reader wants document order.
  return out
    .sort((a, b) => a.spans[1]![0] - b.spans[1]![0])
    .map(({ path, spans }) => ({ path, copies: spans.map(([s, e]) => JSON.parse(text.slice(s, e)) as unknown) }));
}

function pointer(path: JSONPath): string {
  return path.map((token) => `/${escapePointerToken(String(token))}`).join('');
}
