// Rule family: tool annotations (MCP spec 2025-06-18, "ToolAnnotations"). Defaults per the spec:
// readOnlyHint false; destructiveHint true, meaningful only when readOnlyHint is false. Clients may
// gate confirmation prompts on these hints, so a hint moving towards "may modify / destroy" matters
// to the people whose agents call the tool even though no call breaks.
import type { Tool } from '../tool.ts';
import { finding, quote, type Rule } from './finding.ts';
import { isSchema, toolPairs } from './schema-pairs.ts';

export const readOnlyHintDropped: Rule = {
  id: 'read-only-hint-dropped',
  axis: 'security',
  level: 'HIGH',
  rationale: 'A tool that declared itself read-only no longer does: clients that skip confirmation for read-only tools would let it modify things unasked.',
  check: (before, after) =>
    toolPairs(before, after)
      .filter((p) => hint(p.before, 'readOnlyHint') === true && hint(p.after, 'readOnlyHint') !== true)
      .map((p) =>
        finding(readOnlyHintDropped, {
          tool: p.name,
          path: '/annotations/readOnlyHint',
          before: true,
          after: hint(p.after, 'readOnlyHint'),
          message: `Tool ${quote(p.name)} no longer declares itself read-only: it may now modify its environment.`,
        }),
      ),
};

export const destructiveHintRaised: Rule = {
  id: 'destructive-hint-raised',
  axis: 'security',
  level: 'HIGH',
  rationale: 'A tool that declared itself non-destructive may now destroy data (explicitly, or by dropping the hint, whose default is true).',
  check: (before, after) =>
    toolPairs(before, after)
      .filter(
        (p) =>
          hint(p.before, 'destructiveHint') === false &&
          hint(p.after, 'readOnlyHint') !== true &&
          hint(p.after, 'destructiveHint') !== false,
      )
      .map((p) =>
        finding(destructiveHintRaised, {
          tool: p.name,
          path: '/annotations/destructiveHint',
          before: false,
          after: hint(p.after, 'destructiveHint'),
          message: `Tool ${quote(p.name)} no longer declares itself non-destructive: it may now delete or overwrite data.`,
        }),
      ),
};

export const annotationsRemoved: Rule = {
  id: 'annotations-removed',
  axis: 'security',
  level: 'WARN',
  rationale: 'Clients lose the hints (read-only, destructive, open-world) they may use to decide when to ask a person first.',
  check: (before, after) =>
    toolPairs(before, after)
      .filter((p) => hasAnnotations(p.before) && !hasAnnotations(p.after))
      .map((p) =>
        finding(annotationsRemoved, {
          tool: p.name,
          path: '/annotations',
          before: p.before.annotations,
          after: p.after.annotations,
          message: `Tool ${quote(p.name)} dropped all its annotations: clients lose its safety hints.`,
        }),
      ),
};

function hint(tool: Tool, key: string): unknown {
  return isSchema(tool.annotations) ? tool.annotations[key] : undefined;
}

/** A non-empty annotations object (`null`, `{}` or absent all count as none). */
function hasAnnotations(tool: Tool): boolean {
  return isSchema(tool.annotations) && Object.keys(tool.annotations).length > 0;
}
