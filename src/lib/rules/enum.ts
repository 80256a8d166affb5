// Rule family: values of an `enum` that is present in both versions (adding or dropping the whole
// `enum` keyword is a constraint change: see constraint.ts).
import { canonicalJson } from '../canonical.ts';
import type { Tool } from '../tool.ts';
import { finding, quote, type Finding, type Rule } from './finding.ts';
import { schemaPairs } from './schema-pairs.ts';

export const inputEnumValueRemoved: Rule = {
  id: 'input-enum-value-removed',
  axis: 'compatibility',
  level: 'ERR',
  rationale: 'Calls that send the removed value may now be rejected.',
  check: (before, after) =>
    enumDelta(before, after, 'inputSchema', 'removed', inputEnumValueRemoved, (tool, v) => `Tool ${quote(tool)} no longer accepts the input value ${quote(v)}: calls that send it may be rejected.`),
};

export const inputEnumValueAdded: Rule = {
  id: 'input-enum-value-added',
  axis: 'compatibility',
  level: 'INFO',
  rationale: 'A newly accepted input value breaks no existing call.',
  check: (before, after) =>
    enumDelta(before, after, 'inputSchema', 'added', inputEnumValueAdded, (tool, v) => `Tool ${quote(tool)} accepts a new input value ${quote(v)}.`),
};

export const outputEnumValueAdded: Rule = {
  id: 'output-enum-value-added',
  axis: 'compatibility',
  level: 'WARN',
  rationale: 'Callers that handle each output value may meet one they do not know.',
  check: (before, after) =>
    enumDelta(before, after, 'outputSchema', 'added', outputEnumValueAdded, (tool, v) => `Tool ${quote(tool)} may now return the value ${quote(v)}: callers that switch on its outputs may not handle it.`),
};

function enumDelta(
  before: readonly Tool[],
  after: readonly Tool[],
  side: 'inputSchema' | 'outputSchema',
  kind: 'added' | 'removed',
  rule: Rule,
  message: (tool: string, value: unknown) => string,
): Finding[] {
  return schemaPairs(before, after, side).flatMap((n) => {
    if (!Array.isArray(n.before.enum) || !Array.isArray(n.after.enum)) return [];
    const [from, to] = kind === 'removed' ? [n.before.enum, n.after.enum] : [n.after.enum, n.before.enum];
    const other = new Set(to.map((v) => canonicalJson(v)));
    // Pointer into the version that holds the value: /enum/<index>, so two values never share a fingerprint.
    return from.flatMap((v, i) =>
      other.has(canonicalJson(v))
        ? []
        : [
            finding(rule, {
              tool: n.tool,
              path: `${n.path}/enum/${i}`,
              before: kind === 'removed' ? v : undefined,
              after: kind === 'added' ? v : undefined,
              message: message(n.tool, v),
            }),
          ],
    );
  });
}
