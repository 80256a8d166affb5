// Rule family: validation keywords of input nodes that narrow or widen what a caller may send.
// Tightened: maxLength/maxItems/maxProperties/maximum/exclusiveMaximum decreased or added,
// minLength/minItems/minProperties/minimum/exclusiveMinimum increased or added, pattern added or changed
// (a new regular expression cannot be proven to accept every old value), enum or const added or const
// changed, additionalProperties: false added, uniqueItems: true added. Loosened: the reverse moves.
import { canonicalJson } from '../canonical.ts';
import type { Tool } from '../tool.ts';
import { finding, quote, type Finding, type Rule } from './finding.ts';
import { schemaPairs } from './schema-pairs.ts';

type Move = 'tightened' | 'loosened' | null;

export const inputConstraintTightened: Rule = {
  id: 'input-constraint-tightened',
  axis: 'compatibility',
  level: 'ERR',
  rationale: 'Values that satisfied the old constraint may now be rejected.',
  check: (before, after) => moves(before, after, 'tightened', inputConstraintTightened),
};

export const inputConstraintLoosened: Rule = {
  id: 'input-constraint-loosened',
  axis: 'compatibility',
  level: 'INFO',
  rationale: 'Every value accepted before is still accepted.',
  check: (before, after) => moves(before, after, 'loosened', inputConstraintLoosened),
};

const UPPER = ['maxLength', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum'] as const;
const LOWER = ['minLength', 'minItems', 'minProperties', 'minimum', 'exclusiveMinimum'] as const;
const ADDED_TIGHTENS = ['pattern', 'enum', 'const'] as const;

function moves(before: readonly Tool[], after: readonly Tool[], want: 'tightened' | 'loosened', rule: Rule): Finding[] {
  return schemaPairs(before, after, 'inputSchema').flatMap((n) =>
    KEYWORDS.flatMap((keyword) => {
      const b = n.before[keyword];
      const a = n.after[keyword];
      if (classify(keyword, b, a) !== want) return [];
      return [
        finding(rule, {
          tool: n.tool,
          path: `${n.path}/${keyword}`,
          before: b,
          after: a,
          message: `Tool ${quote(n.tool)}: input ${keyword} at ${n.path} ${want === 'tightened' ? 'tightened' : 'loosened'} (${show(b)} → ${show(a)})${want === 'tightened' ? ': values valid before may now be rejected' : ''}.`,
        }),
      ];
    }),
  );
}

const KEYWORDS = [...UPPER, ...LOWER, ...ADDED_TIGHTENS, 'additionalProperties', 'uniqueItems'] as const;

function classify(keyword: (typeof KEYWORDS)[number], b: unknown, a: unknown): Move {
  if ((UPPER as readonly string[]).includes(keyword)) return bound(b, a, 'upper');
  if ((LOWER as readonly string[]).includes(keyword)) return bound(b, a, 'lower');
  if (keyword === 'additionalProperties') return flag(b === false, a === false);
  if (keyword === 'uniqueItems') return flag(b === true, a === true);
  // pattern, enum, const: present narrows; enum value edits are enum.ts's, so only presence counts for enum.
  if (b === undefined) return a === undefined ? null : 'tightened';
  if (a === undefined) return 'loosened';
  if (keyword === 'enum') return null;
  return canonicalJson(b) === canonicalJson(a) ? null : 'tightened';
}

/** Numeric bounds only (draft-4 boolean exclusiveMaximum/Minimum are left to the pointer diff). */
function bound(b: unknown, a: unknown, side: 'upper' | 'lower'): Move {
  const bn = typeof b === 'number' ? b : undefined;
  const an = typeof a === 'number' ? a : undefined;
  if ((b !== undefined && bn === undefined) || (a !== undefined && an === undefined)) return null;
  if (bn === undefined) return an === undefined ? null : 'tightened';
  if (an === undefined) return 'loosened';
  if (an === bn) return null;
  return (side === 'upper' ? an < bn : an > bn) ? 'tightened' : 'loosened';
}

function flag(was: boolean, now: boolean): Move {
  return was === now ? null : now ? 'tightened' : 'loosened';
}

function show(v: unknown): string {
  return v === undefined ? 'absent' : quote(v);
}
