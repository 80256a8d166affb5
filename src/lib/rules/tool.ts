// Rule family: tools appearing and disappearing.
import { canonicalJson } from '../canonical.ts';
import type { Tool } from '../tool.ts';
import { byCodeUnits, toolMap } from '../tool-map.ts';
import { finding, quote, type Finding, type Rule } from './finding.ts';
import { isSchema, propertyNames, requiredSet } from './schema-pairs.ts';

export const toolRemoved: Rule = {
  id: 'tool-removed',
  axis: 'compatibility',
  level: 'ERR',
  rationale: 'Agents and prompts that call the tool by name now get an error.',
  check: (before, after) =>
    names(before, after).map((name) =>
      finding(toolRemoved, { tool: name, path: '', before: toolMap(before).get(name), after: undefined, message: `Tool ${quote(name)} was removed: calls to it now fail.` }),
    ),
};

export const toolAdded: Rule = {
  id: 'tool-added',
  axis: 'compatibility',
  level: 'INFO',
  rationale: 'A new tool breaks no existing call.',
  check: (before, after) => added(before, after, toolAdded, (name) => `Tool ${quote(name)} was added.`),
};

export const toolCapabilityAdded: Rule = {
  id: 'tool-capability-added',
  axis: 'security',
  level: 'WARN',
  rationale: 'A new tool is a new capability agents may select, and a near-duplicate name or description can redirect selection.',
  check: (before, after) =>
    added(before, after, toolCapabilityAdded, (name) => `Tool ${quote(name)} appeared: a new capability agents may now choose; check its name and description.`),
};

export const toolRenamed: Rule = {
  id: 'tool-renamed',
  axis: 'security',
  level: 'WARN',
  rationale: 'A tool removed and another added with the same arguments in one change is most likely the same tool renamed: pins, allow-lists and approvals keyed by name no longer cover it.',
  check: (before, after) => {
    const removed = names(before, after).map((n) => toolMap(before).get(n)!);
    const added = names(after, before).map((n) => toolMap(after).get(n)!);
    const match = (r: Tool) => added.filter((a) => nearEqual(r.inputSchema, a.inputSchema));
    // Only an unambiguous pairing is a rename: one candidate each way (two argument-less tools
    // swapped for one is not evidence of which became which).
    return removed.flatMap((r) => {
      const [a, ...others] = match(r);
      if (a === undefined || others.length > 0 || removed.filter((x) => nearEqual(x.inputSchema, a.inputSchema)).length > 1) return [];
      const how = same(r.inputSchema, a.inputSchema) ? 'the same input schema' : 'the same arguments';
      return [
        finding(toolRenamed, {
          tool: a.name,
          path: '',
          before: r,
          after: a,
          message: `Tool ${quote(r.name)} looks renamed to ${quote(a.name)} (${how}): pins and approvals by name no longer cover it.`,
        }),
      ];
    });
  },
};

/**
 * Near-equal input schemas: canonically equal (an absent schema counts as {}), or with the same
 * non-empty argument signature: the same top-level property names, each with the same `type`
 * keyword (or none on both sides) and the same required-ness. Descriptions, constraints, enums and
 * nested schemas may differ.
 */
function nearEqual(x: unknown, y: unknown): boolean {
  if (same(x, y)) return true;
  const sx = signature(x);
  return sx !== '' && sx === signature(y);
}

function signature(schema: unknown): string {
  if (!isSchema(schema)) return '';
  const required = requiredSet(schema);
  const props = isSchema(schema.properties) ? schema.properties : {};
  return propertyNames(schema)
    .sort(byCodeUnits)
    .map((name) => {
      const prop = props[name];
      return canonicalJson([name, isSchema(prop) ? prop.type ?? null : null, required.has(name)]);
    })
    .join(',');
}

function same(x: unknown, y: unknown): boolean {
  return canonicalJson(x ?? {}) === canonicalJson(y ?? {});
}

function names(from: readonly Tool[], to: readonly Tool[]): string[] {
  const present = toolMap(to);
  return [...toolMap(from).keys()].filter((name) => !present.has(name)).sort(byCodeUnits);
}

function added(before: readonly Tool[], after: readonly Tool[], rule: Rule, message: (name: string) => string): Finding[] {
  const now = toolMap(after);
  return names(after, before).map((name) => finding(rule, { tool: name, path: '', before: undefined, after: now.get(name), message: message(name) }));
}
