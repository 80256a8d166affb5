// Tombstones (methodology v1, "Drift and diffs"): a tool that disappears and later returns is compared
// with its last known definition, so "hide, then come back changed" is caught instead of passing as
// a fresh, unremarkable addition.
import type { Tool } from './tool.ts';
import { toolMap } from './tool-map.ts';

/**
 * For each version i (tool lists in time order), the tools seen in versions 0..i but absent from
 * version i, each with its last known definition. To compare version i-1 with version i, pass
 * `{ tombstones: result[i-1] }` to summariseDiff or classifyChange.
 */
export function trackTombstones(versions: readonly (readonly Tool[])[]): Map<string, Tool>[] {
  const lastSeen = new Map<string, Tool>();
  return versions.map((tools) => {
    const present = toolMap(tools);
    for (const [name, tool] of present) lastSeen.set(name, tool);
    const tombs = new Map<string, Tool>();
    for (const [name, tool] of lastSeen) if (!present.has(name)) tombs.set(name, tool);
    return tombs;
  });
}
