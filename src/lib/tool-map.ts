// Tools keyed by name, shared by the diff, the tombstones and the rules.
import type { Tool } from './tool.ts';

/**
 * name → tool. A list that repeats a name (a hostile or buggy server) keeps the first occurrence:
 * tools_sha256 still covers every entry, but a per-tool comparison needs one definition per name.
 */
export function toolMap(tools: readonly Tool[]): Map<string, Tool> {
  const map = new Map<string, Tool>();
  for (const t of tools) if (!map.has(t.name)) map.set(t.name, t);
  return map;
}

/** Code-unit order, locale-free, so every list we publish sorts the same everywhere. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
