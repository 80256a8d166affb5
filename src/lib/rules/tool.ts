// Rule family: tools appearing and disappearing.
import type { Tool } from '../tool.ts';
import { byCodeUnits, toolMap } from '../tool-map.ts';
import { finding, quote, type Finding, type Rule } from './finding.ts';

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

function names(from: readonly Tool[], to: readonly Tool[]): string[] {
  const present = toolMap(to);
  return [...toolMap(from).keys()].filter((name) => !present.has(name)).sort(byCodeUnits);
}

function added(before: readonly Tool[], after: readonly Tool[], rule: Rule, message: (name: string) => string): Finding[] {
  const now = toolMap(after);
  return names(after, before).map((name) => finding(rule, { tool: name, path: '', before: undefined, after: now.get(name), message: message(name) }));
}
