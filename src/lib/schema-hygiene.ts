// schemaHygiene: how well the observed tools describe themselves (methodology v1, "Population figures").
// Pooled over tools of the catalogues given (each target's latest ok tool list), each share with its
// Wilson interval and n.
import { isObject, toolsSha256 } from './canonical.ts';
import type { Tool } from './tool.ts';
import { byCodeUnits } from './tool-map.ts';
import { wilson, type WilsonInterval } from './wilson.ts';

export interface Catalogue {
  target: string;
  tools: readonly Tool[];
}

export interface HygieneShare extends WilsonInterval {
  count: number;
  n: number;
}

export interface SchemaHygiene {
  targets: number;
  tools: number;
  /** inputSchema is an object with type "object" and every property declares type/enum/const/anyOf/oneOf/allOf/$ref. */
  strictInputSchema: HygieneShare;
  /** annotations.readOnlyHint is a boolean (either value). */
  readOnlyHint: HygieneShare;
  /** annotations.destructiveHint is a boolean. */
  destructiveHint: HygieneShare;
  /** description is a string with a non-space character. */
  description: HygieneShare;
  /** outputSchema is an object. */
  outputSchema: HygieneShare;
  /** Non-empty catalogues served under several target names, by tools_sha256 (canonical bytes identical). */
  identicalCatalogues: { tools_sha256: string; targets: string[] }[];
}

const TYPED = ['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref'];

export function schemaHygiene(catalogues: readonly Catalogue[]): SchemaHygiene {
  const tools = catalogues.flatMap((c) => c.tools);
  const share = (test: (t: Tool) => boolean): HygieneShare => {
    const count = tools.filter(test).length;
    return { count, n: tools.length, ...wilson(count, tools.length) };
  };
  const groups = new Map<string, string[]>();
  for (const c of catalogues) {
    if (c.tools.length === 0) continue; // empty lists (often auth-gated) are identical by nature, not a finding
    const h = toolsSha256(c.tools);
    groups.set(h, [...(groups.get(h) ?? []), c.target]);
  }
  return {
    targets: catalogues.length,
    tools: tools.length,
    strictInputSchema: share((t) => toolHygiene(t).strictInputSchema),
    readOnlyHint: share((t) => toolHygiene(t).readOnlyHint),
    destructiveHint: share((t) => toolHygiene(t).destructiveHint),
    description: share((t) => toolHygiene(t).description),
    outputSchema: share((t) => toolHygiene(t).outputSchema),
    identicalCatalogues: [...groups]
      .filter(([, targets]) => new Set(targets).size > 1)
      .map(([tools_sha256, targets]) => ({ tools_sha256, targets: [...new Set(targets)].sort(byCodeUnits) }))
      .sort((a, b) => b.targets.length - a.targets.length || byCodeUnits(a.tools_sha256, b.tools_sha256)),
  };
}

/** One tool against each hygiene test (the definitions of SchemaHygiene's shares; the descriptor's quality checks use them too). */
export function toolHygiene(t: Tool): { strictInputSchema: boolean; readOnlyHint: boolean; destructiveHint: boolean; description: boolean; outputSchema: boolean } {
  return {
    strictInputSchema: isStrict(t),
    readOnlyHint: typeof annotation(t, 'readOnlyHint') === 'boolean',
    destructiveHint: typeof annotation(t, 'destructiveHint') === 'boolean',
    description: typeof t.description === 'string' && t.description.trim() !== '',
    outputSchema: isObject(t.outputSchema),
  };
}

/** Top-level properties only: nested strictness is a refinement for a later methodology version. */
function isStrict(tool: Tool): boolean {
  const s = tool.inputSchema;
  if (!isObject(s) || s.type !== 'object') return false;
  if (s.properties === undefined) return true;
  if (!isObject(s.properties)) return false;
  return Object.values(s.properties).every((p) => isObject(p) && TYPED.some((k) => k in p));
}

function annotation(tool: Tool, key: string): unknown {
  return isObject(tool.annotations) ? tool.annotations[key] : undefined;
}
