// Rule family: `required` lists of input and output schemas.
import { finding, quote, type Finding, type Rule } from './finding.ts';
import { propertyNames, propertyPath, requiredSet, schemaPairs, type Schema } from './schema-pairs.ts';

export const inputRequiredPropertyAdded: Rule = {
  id: 'input-required-property-added',
  axis: 'compatibility',
  level: 'ERR',
  rationale: 'Existing calls do not send the new property, and the server may now reject them.',
  check: (before, after) =>
    schemaPairs(before, after, 'inputSchema').flatMap((n) =>
      newlyRequired(n.before, n.after)
        .filter((name) => !propertyNames(n.before).includes(name))
        .map((name) =>
          finding(inputRequiredPropertyAdded, {
            tool: n.tool,
            path: propertyPath(n.path, name),
            before: undefined,
            after: property(n.after, name),
            message: `Tool ${quote(n.tool)} gained a required input property ${quote(name)}: calls without it may now be rejected.`,
          }),
        ),
    ),
};

export const inputPropertyBecameRequired: Rule = {
  id: 'input-property-became-required',
  axis: 'compatibility',
  level: 'ERR',
  rationale: 'Calls that omitted the formerly optional property may now be rejected.',
  check: (before, after) =>
    schemaPairs(before, after, 'inputSchema').flatMap((n) =>
      newlyRequired(n.before, n.after)
        .filter((name) => propertyNames(n.before).includes(name))
        .map((name) =>
          finding(inputPropertyBecameRequired, {
            tool: n.tool,
            path: propertyPath(n.path, name),
            before: false,
            after: true,
            message: `Input property ${quote(name)} of tool ${quote(n.tool)} became required: calls that omit it may now be rejected.`,
          }),
        ),
    ),
};

export const outputRequiredPropertyRemoved: Rule = {
  id: 'output-required-property-removed',
  axis: 'compatibility',
  level: 'ERR',
  rationale: 'Callers that read a guaranteed output field can no longer rely on it being there.',
  check: (before, after) =>
    schemaPairs(before, after, 'outputSchema').flatMap((n): Finding[] => {
      const still = requiredSet(n.after);
      return [...requiredSet(n.before)]
        .filter((name) => !still.has(name))
        .map((name) =>
          finding(outputRequiredPropertyRemoved, {
            tool: n.tool,
            path: propertyPath(n.path, name),
            before: true,
            after: propertyNames(n.after).includes(name) ? false : undefined,
            message: `Output property ${quote(name)} of tool ${quote(n.tool)} is no longer guaranteed: callers that read it may break.`,
          }),
        );
    }),
};

function newlyRequired(before: Schema, after: Schema): string[] {
  const was = requiredSet(before);
  return [...requiredSet(after)].filter((name) => !was.has(name));
}

function property(node: Schema, name: string): unknown {
  const props = node.properties as Record<string, unknown> | undefined;
  return props && Object.hasOwn(props, name) ? props[name] : undefined;
}
