// summariseDiff: what changed between two tool lists of one target (methodology v1, "Drift and diffs").
import { canonicalJson } from './canonical.ts';
import { pointerDiff, type PointerChange } from './pointer-diff.ts';
import { SURFACES, type Surface } from './surface-hashes.ts';
import type { Tool } from './tool.ts';
import { byCodeUnits, toolMap } from './tool-map.ts';

export type ChangedSurface = Surface | 'other';

export interface ToolChange {
  name: string;
  /** Surfaces whose canonical value differs, in SURFACES order, then `other` (any remaining key). */
  surfaces: ChangedSurface[];
  /** Pointer diff of inputSchema / outputSchema (pointers relative to that schema). */
  input: PointerChange[];
  output: PointerChange[];
}

export interface DiffSummary {
  added: string[];
  removed: string[];
  /** Tools absent from `before` but known from a tombstone, compared with their last known definition (surfaces [] = unchanged). */
  returned: ToolChange[];
  changed: ToolChange[];
}

export interface DiffOptions {
  /** Last known definitions of tools seen earlier and absent from `before` (see trackTombstones). */
  tombstones?: ReadonlyMap<string, Tool>;
}

/** Added, removed, returned and changed tools between two lists; every name list is sorted by code units. */
export function summariseDiff(before: readonly Tool[], after: readonly Tool[], opts: DiffOptions = {}): DiffSummary {
  const b = toolMap(before);
  const a = toolMap(after);
  const summary: DiffSummary = { added: [], removed: [], returned: [], changed: [] };
  for (const name of [...a.keys()].sort(byCodeUnits)) {
    const now = a.get(name)!;
    const was = b.get(name);
    if (was !== undefined) {
      const change = compareTool(name, was, now);
      if (change.surfaces.length > 0) summary.changed.push(change);
      continue;
    }
    const tomb = opts.tombstones?.get(name);
    if (tomb !== undefined) summary.returned.push(compareTool(name, tomb, now));
    else summary.added.push(name);
  }
  summary.removed = [...b.keys()].filter((name) => !a.has(name)).sort(byCodeUnits);
  return summary;
}

function compareTool(name: string, was: Tool, now: Tool): ToolChange {
  const surfaces: ChangedSurface[] = SURFACES.filter((s) => !same(was[s], now[s]));
  if (!same(rest(was), rest(now))) surfaces.push('other');
  return {
    name,
    surfaces,
    input: pointerDiff(was.inputSchema, now.inputSchema),
    output: pointerDiff(was.outputSchema, now.outputSchema),
  };
}

function same(x: unknown, y: unknown): boolean {
  if (x === undefined || y === undefined) return x === y;
  return canonicalJson(x) === canonicalJson(y);
}

/** The tool minus its named surfaces and name: icons, _meta and anything a later spec adds. */
function rest(tool: Tool): Record<string, unknown> {
  const out: Record<string, unknown> = { ...tool };
  delete out.name;
  for (const s of SURFACES) delete out[s];
  return out;
}
