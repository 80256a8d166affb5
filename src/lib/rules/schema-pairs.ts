// The schema nodes two versions of a tool have in common, reached through `properties/<name>` and
// object-valued `items`, starting at the root inputSchema/outputSchema. Combinators (anyOf, oneOf,
// allOf) and $ref are not entered: their branches have no stable identity across versions, so a change
// there shows in the pointer diff and in the hash but fires no per-keyword rule.
import { isObject, MAX_CANONICAL_DEPTH } from '../canonical.ts';
import { escapePointerToken } from '../pointer-diff.ts';
import type { Tool } from '../tool.ts';
import { toolMap, byCodeUnits } from '../tool-map.ts';

export type Schema = Record<string, unknown>;

export interface NodePair {
  tool: string;
  /** Pointer into the tool, e.g. /inputSchema/properties/owner. */
  path: string;
  before: Schema;
  after: Schema;
}

export interface ToolPair {
  name: string;
  before: Tool;
  after: Tool;
}

/** Tools present (by name) in both lists, in code-unit order of name. */
export function toolPairs(before: readonly Tool[], after: readonly Tool[]): ToolPair[] {
  const b = toolMap(before);
  const out: ToolPair[] = [];
  for (const [name, tool] of toolMap(after)) {
    const was = b.get(name);
    if (was !== undefined) out.push({ name, before: was, after: tool });
  }
  return out.sort((x, y) => byCodeUnits(x.name, y.name));
}

/** Every common schema node of one side (`inputSchema` or `outputSchema`) of every common tool. An absent schema counts as {}. */
export function schemaPairs(before: readonly Tool[], after: readonly Tool[], side: 'inputSchema' | 'outputSchema'): NodePair[] {
  const out: NodePair[] = [];
  for (const t of toolPairs(before, after)) {
    const b = t.before[side] ?? {};
    const a = t.after[side] ?? {};
    if (isSchema(b) && isSchema(a)) walk(t.name, `/${side}`, b, a, 0, out);
  }
  return out;
}

export function isSchema(v: unknown): v is Schema {
  return isObject(v);
}

/** Property names declared in `properties` (own keys of an object value only). */
export function propertyNames(node: Schema): string[] {
  return isSchema(node.properties) ? Object.keys(node.properties) : [];
}

/** The `required` list as a set of strings (anything else is ignored). */
export function requiredSet(node: Schema): Set<string> {
  return new Set(Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : []);
}

export function propertyPath(path: string, name: string): string {
  return `${path}/properties/${escapePointerToken(name)}`;
}

function walk(tool: string, path: string, b: Schema, a: Schema, depth: number, out: NodePair[]): void {
  out.push({ tool, path, before: b, after: a });
  if (depth >= MAX_CANONICAL_DEPTH) return;
  const bp = isSchema(b.properties) ? b.properties : {};
  const ap = isSchema(a.properties) ? a.properties : {};
  for (const name of Object.keys(ap).sort(byCodeUnits)) {
    const x = bp[name];
    const y = ap[name];
    if (Object.hasOwn(bp, name) && isSchema(x) && isSchema(y)) walk(tool, propertyPath(path, name), x, y, depth + 1, out);
  }
  if (isSchema(b.items) && isSchema(a.items)) walk(tool, `${path}/items`, b.items, a.items, depth + 1, out);
}
