// toolsPatch: a change as an RFC 6902 JSON Patch, for download beside its diff (methodology v1, "Drift
// and diffs"). Servers reorder their tools arrays freely (tools_sha256 ignores the order), so
// a patch over the array would be a list of index shuffles. It is computed over the name-keyed form
// instead, `{ "<tool name>": tool }`: pointers read `/<escaped name>/inputSchema/…`, which is a
// finding's `path` under `/<escaped name>`.
//
// The operations come from fast-json-patch's `compare` (objects key by key; arrays index by index:
// replace at each differing index, then add or remove at the end). It was chosen over rfc6902's
// `createPatch`, whose minimal array edit (a memoised Levenshtein, recursive) needs memory and stack in
// proportion to the product of the two lengths (and recursion as deep as their sum): a hostile enum
// of 20,000 values would exhaust the stack or the memory of a site build.
// The ESM entry by its path: the package ships index.ts beside index.js, and tsx (which runs the
// collector) prefers a .ts twin and then fails on its source-only imports.
import { compare } from 'fast-json-patch/index.mjs';
import type { Tool } from './tool.ts';
import { byCodeUnits, toolMap } from './tool-map.ts';

export type JsonPatchOperation = { op: 'add'; path: string; value: unknown } | { op: 'remove'; path: string } | { op: 'replace'; path: string; value: unknown };

/**
 * The form a change's JSON Patch applies to: tool name → tool, verbatim, names in code-unit order. A
 * list that repeats a name keeps the first occurrence (as summariseDiff). Built with
 * Object.fromEntries, so a tool named "__proto__" is an own member, as JSON.parse would make it.
 */
export function toolsByName(tools: readonly Tool[]): Record<string, Tool> {
  return Object.fromEntries([...toolMap(tools)].sort(([a], [b]) => byCodeUnits(a, b)));
}

/** The RFC 6902 operations turning toolsByName(before) into toolsByName(after); [] when they are equal. */
export function toolsPatch(before: readonly Tool[], after: readonly Tool[]): JsonPatchOperation[] {
  return compare(toolsByName(before), toolsByName(after)) as JsonPatchOperation[];
}
