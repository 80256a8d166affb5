// Rule family: the JSON Schema `type` of input nodes. A type set accepts a value if it names the
// value's type; `integer` values are also accepted by `number`; an absent `type` accepts every type.
import { canonicalJson } from '../canonical.ts';
import { unescapePointerToken } from '../pointer-diff.ts';
import { finding, quote, type Rule } from './finding.ts';
import { schemaPairs, type NodePair } from './schema-pairs.ts';

export const inputPropertyTypeChanged: Rule = {
  id: 'input-property-type-changed',
  axis: 'compatibility',
  level: 'ERR',
  rationale: 'Values of a type the schema used to accept (e.g. a string where a number is now required) may now be rejected.',
  check: (before, after) =>
    typeChanges(before, after, 'narrowed').map((n) =>
      finding(inputPropertyTypeChanged, {
        tool: n.tool,
        path: `${n.path}/type`,
        before: n.before.type,
        after: n.after.type,
        message: `The type of input ${label(n.path)} of tool ${quote(n.tool)} changed from ${describe(n.before.type)} to ${describe(n.after.type)}: values valid before may now be rejected.`,
      }),
    ),
};

export const inputPropertyTypeWidened: Rule = {
  id: 'input-property-type-widened',
  axis: 'compatibility',
  level: 'INFO',
  rationale: 'Every value accepted before is still accepted (a loosened constraint).',
  check: (before, after) =>
    typeChanges(before, after, 'widened').map((n) =>
      finding(inputPropertyTypeWidened, {
        tool: n.tool,
        path: `${n.path}/type`,
        before: n.before.type,
        after: n.after.type,
        message: `The type of input ${label(n.path)} of tool ${quote(n.tool)} widened from ${describe(n.before.type)} to ${describe(n.after.type)}.`,
      }),
    ),
};

type Types = Set<string> | 'any';

function typeChanges(before: Parameters<Rule['check']>[0], after: Parameters<Rule['check']>[1], want: 'narrowed' | 'widened'): NodePair[] {
  return schemaPairs(before, after, 'inputSchema').filter((n) => {
    if (n.before.type === undefined && n.after.type === undefined) return false;
    if (n.before.type !== undefined && n.after.type !== undefined && canonicalJson(n.before.type) === canonicalJson(n.after.type)) return false;
    const was = types(n.before.type);
    const now = types(n.after.type);
    const widened = covers(now, was);
    if (widened && covers(was, now)) return false; // same set spelled differently ("string" vs ["string"])
    return want === 'widened' ? widened : !widened;
  });
}

function types(t: unknown): Types {
  if (t === undefined) return 'any';
  const list = Array.isArray(t) ? t : [t];
  return new Set(list.filter((x): x is string => typeof x === 'string'));
}

/** Every value of a type in `inner` is accepted by `outer`. */
function covers(outer: Types, inner: Types): boolean {
  if (outer === 'any') return true;
  if (inner === 'any') return false;
  return [...inner].every((t) => outer.has(t) || (t === 'integer' && outer.has('number')));
}

function describe(t: unknown): string {
  return t === undefined ? 'any type' : quote(t);
}

/** "property x" for a property node, "schema root" for the root, "items of x" for items. */
function label(path: string): string {
  const parts = path.split('/');
  const last = parts[parts.length - 1]!;
  if (parts.length <= 2) return 'schema';
  if (last === 'items') return `items of ${label(parts.slice(0, -1).join('/'))}`;
  return `property ${quote(unescapePointerToken(last))}`;
}
