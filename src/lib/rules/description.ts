// Rule family: tool-level descriptions. The description is what a model reads to choose and use a tool,
// so a rewrite over an unchanged schema is worth a look on the security axis even when no call breaks;
// and the reverse, a schema or annotations change under an untouched description, is the change a
// reviewer who reads descriptions misses.
import { canonicalJson } from '../canonical.ts';
import type { Tool } from '../tool.ts';
import { finding, quote, type Rule } from './finding.ts';
import { toolPairs } from './schema-pairs.ts';

export const toolDescriptionChanged: Rule = {
  id: 'tool-description-changed',
  axis: 'compatibility',
  level: 'INFO',
  rationale: 'Only the prose changed; every call valid before is still valid.',
  check: (before, after) =>
    toolPairs(before, after)
      .filter((p) => !same(p.before.description, p.after.description) && same(withoutDescription(p.before), withoutDescription(p.after)))
      .map((p) =>
        finding(toolDescriptionChanged, {
          tool: p.name,
          path: '/description',
          before: p.before.description,
          after: p.after.description,
          message: `Only the description of tool ${quote(p.name)} changed.`,
        }),
      ),
};

export const toolDescriptionChangedSchemaIdentical: Rule = {
  id: 'tool-description-changed-schema-identical',
  axis: 'security',
  level: 'WARN',
  rationale: 'A description rewritten over an identical schema changes what the model is told without changing what the tool takes: the shape of a prompt injection or a quiet change of purpose.',
  check: (before, after) =>
    toolPairs(before, after)
      .filter(
        (p) =>
          !same(p.before.description, p.after.description) &&
          same(p.before.inputSchema, p.after.inputSchema) &&
          same(p.before.outputSchema, p.after.outputSchema),
      )
      .map((p) =>
        finding(toolDescriptionChangedSchemaIdentical, {
          tool: p.name,
          path: '/description',
          before: p.before.description,
          after: p.after.description,
          message: `The description of tool ${quote(p.name)} was rewritten while its schemas stayed identical: read what the model is now told.`,
        }),
      ),
};

export const toolContractChangedDescriptionIdentical: Rule = {
  id: 'tool-contract-changed-description-identical',
  axis: 'security',
  level: 'WARN',
  rationale: 'A schema or annotations changed under a byte-identical description: what the tool takes, returns or claims about itself moved while the text a reviewer reads says nothing new.',
  check: (before, after) =>
    toolPairs(before, after)
      .filter((p) => same(p.before.description, p.after.description))
      .flatMap((p) =>
        CONTRACT.filter((s) => !same(p.before[s], p.after[s])).map((s) =>
          finding(toolContractChangedDescriptionIdentical, {
            tool: p.name,
            path: `/${s}`,
            before: p.before[s],
            after: p.after[s],
            message: `The ${s} of tool ${quote(p.name)} changed while its description stayed byte-identical: the change is invisible to anyone reading the description.`,
          }),
        ),
      ),
};

/** The surfaces of the contract tier (contractSha256) other than the name. */
const CONTRACT = ['inputSchema', 'outputSchema', 'annotations'] as const;

function same(x: unknown, y: unknown): boolean {
  if (x === undefined || y === undefined) return x === y;
  return canonicalJson(x) === canonicalJson(y);
}

function withoutDescription(tool: Tool): Record<string, unknown> {
  const { description: _omit, ...rest } = tool;
  return rest;
}

