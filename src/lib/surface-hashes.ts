// Per-tool surface hashes and the two target-level tiers (methodology v1, "Beyond tools_sha256").
// v1 drift stays "tools_sha256 changed"; these columns say *what* moved: a description edit over an
// identical schema moves proseSha256 only, a schema change under a byte-identical description moves
// contractSha256 only. All are built on canonicalJson/sha256Hex, the one canonical implementation.
import { canonicalJson, sha256Hex } from './canonical.ts';
import type { Tool } from './tool.ts';

/** The five named surfaces of a tool; everything else (icons, _meta, …) is the `other` surface. */
export const SURFACES = ['inputSchema', 'outputSchema', 'description', 'annotations', 'title'] as const;
export type Surface = (typeof SURFACES)[number];

export type SurfaceHashes = Record<Surface, string | null>;

/**
 * sha256(canonicalJson(value)) of each surface, or null when the key is absent.
 * A present `null` (e.g. `annotations: null`, a client serialisation quirk) is hashed, not treated as
 * absent: the record keeps what the server sent.
 */
export function toolSurfaceHashes(tool: Tool): SurfaceHashes {
  const out = {} as SurfaceHashes;
  for (const s of SURFACES) out[s] = tool[s] === undefined ? null : sha256Hex(canonicalJson(tool[s]));
  return out;
}

/** Contract tier: sha256 of canonical [{ name, inputSchema, outputSchema, annotations }] (no tool-level prose). */
export function contractSha256(tools: readonly Tool[]): string {
  return sha256Hex(canonicalJson(tools.map((t) => pick(t, ['name', 'inputSchema', 'outputSchema', 'annotations']))));
}

/** Prose tier: sha256 of canonical [{ name, description, title }]; the name keeps each text tied to its tool. */
export function proseSha256(tools: readonly Tool[]): string {
  return sha256Hex(canonicalJson(tools.map((t) => pick(t, ['name', 'description', 'title']))));
}

function pick(tool: Tool, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (tool[k] !== undefined) out[k] = tool[k];
  return out;
}
