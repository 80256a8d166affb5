// The rule list (methodology v1, "Classification"): each rule once, in the order the rules page shows
// them. Levels live in the rule files only; the site and the downloads render from RULES.
import type { Tool } from '../tool.ts';
import { byCodeUnits, toolMap } from '../tool-map.ts';
import { annotationsRemoved, destructiveHintRaised, readOnlyHintDropped } from './annotations.ts';
import { inputConstraintLoosened, inputConstraintTightened } from './constraint.ts';
import { toolDescriptionChanged, toolDescriptionChangedSchemaIdentical } from './description.ts';
import { inputEnumValueAdded, inputEnumValueRemoved, outputEnumValueAdded } from './enum.ts';
import type { Finding, Rule } from './finding.ts';
import { inputOptionalPropertyAdded, inputPropertyRemoved } from './property.ts';
import { inputPropertyBecameRequired, inputRequiredPropertyAdded, outputRequiredPropertyRemoved } from './required.ts';
import { toolAdded, toolCapabilityAdded, toolRemoved } from './tool.ts';
import { inputPropertyTypeChanged, inputPropertyTypeWidened } from './type.ts';

export const RULES: readonly Rule[] = [
  // compatibility: for callers
  toolRemoved,
  inputRequiredPropertyAdded,
  inputPropertyBecameRequired,
  inputPropertyTypeChanged,
  inputEnumValueRemoved,
  inputConstraintTightened,
  outputRequiredPropertyRemoved,
  inputPropertyRemoved,
  outputEnumValueAdded,
  inputOptionalPropertyAdded,
  inputEnumValueAdded,
  inputPropertyTypeWidened,
  inputConstraintLoosened,
  toolDescriptionChanged,
  toolAdded,
  // security: for the people whose agents call these tools
  readOnlyHintDropped,
  destructiveHintRaised,
  toolCapabilityAdded,
  toolDescriptionChangedSchemaIdentical,
  annotationsRemoved,
];

export interface Classification {
  compatibility: Finding[];
  security: Finding[];
}

export interface ClassifyOptions {
  /** Last known definitions of tools absent from `before` (trackTombstones): a returning tool is compared with them, not reported as added. */
  tombstones?: ReadonlyMap<string, Tool>;
  /** Run only these rules (default RULES), e.g. one rule alone in its test. */
  rules?: readonly Rule[];
}

/** Both verdicts on one change, findings ordered by rule (RULES order), then tool, then path. */
export function classifyChange(before: readonly Tool[], after: readonly Tool[], opts: ClassifyOptions = {}): Classification {
  const base = withReturned(before, after, opts.tombstones);
  const out: Classification = { compatibility: [], security: [] };
  for (const rule of opts.rules ?? RULES) {
    const found = rule.check(base, after).sort((x, y) => byCodeUnits(x.tool, y.tool) || byCodeUnits(x.path, y.path));
    out[rule.axis].push(...found);
  }
  return out;
}

function withReturned(before: readonly Tool[], after: readonly Tool[], tombstones: ReadonlyMap<string, Tool> | undefined): readonly Tool[] {
  if (!tombstones || tombstones.size === 0) return before;
  const present = toolMap(before);
  const returned = [...toolMap(after).keys()].filter((name) => !present.has(name) && tombstones.has(name)).map((name) => tombstones.get(name)!);
  return [...before, ...returned];
}
