// Tools keyed by name, shared by the diff, the tombstones and the rules.
import type { Tool } from './tool.ts';

export { byCodeUnits } from './canonical.ts';

/**
 * name → tool. A list that repeats a name (a hostile or buggy server) keeps the first occurrence:
 * tools_sha256 still covers every entry, but a per-tool comparison needs one definition per name.
 */
export function toolMap(tools: readonly Tool[]): Map<string, Tool> {
  const map = new Map<string, Tool>();
  for (const t of tools) if (!map.has(t.name)) map.set(t.name, t);
  return map;
}
