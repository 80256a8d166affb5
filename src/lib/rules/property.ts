// Rule family: input properties declared or dropped.
import { finding, quote, type Rule } from './finding.ts';
import { propertyNames, propertyPath, requiredSet, schemaPairs } from './schema-pairs.ts';

export const inputPropertyRemoved: Rule = {
  id: 'input-property-removed',
  axis: 'compatibility',
  level: 'WARN',
  rationale: 'Calls that still send the property may be rejected or have it silently ignored.',
  check: (before, after) =>
    schemaPairs(before, after, 'inputSchema').flatMap((n) => {
      const now = new Set(propertyNames(n.after));
      return propertyNames(n.before)
        .filter((name) => !now.has(name))
        .sort()
        .map((name) =>
          finding(inputPropertyRemoved, {
            tool: n.tool,
            path: propertyPath(n.path, name),
            before: (n.before.properties as Record<string, unknown>)[name],
            after: undefined,
            message: `Input property ${quote(name)} of tool ${quote(n.tool)} was removed: calls that send it may be rejected or have it ignored.`,
          }),
        );
    }),
};

export const inputOptionalPropertyAdded: Rule = {
  id: 'input-optional-property-added',
  axis: 'compatibility',
  level: 'INFO',
  rationale: 'An optional property breaks no existing call.',
  check: (before, after) =>
    schemaPairs(before, after, 'inputSchema').flatMap((n) => {
      const was = new Set(propertyNames(n.before));
      const required = requiredSet(n.after);
      return propertyNames(n.after)
        .filter((name) => !was.has(name) && !required.has(name))
        .sort()
        .map((name) =>
          finding(inputOptionalPropertyAdded, {
            tool: n.tool,
            path: propertyPath(n.path, name),
            before: undefined,
            after: (n.after.properties as Record<string, unknown>)[name],
            message: `Tool ${quote(n.tool)} accepts a new optional input property ${quote(name)}.`,
          }),
        );
    }),
};
