// The rule list (methodology v1, "Classification"): each rule once, in the order the rules page shows
// them. Levels live in the rule files only; the site and the downloads render from RULES.
// Most rules compare two tool lists (Rule.check, run by classifyChange); one reads a served body
// (BodyRule.checkBody: a repeated member name does not survive parsing) and is listed here all the same.
import type { Tool } from '../tool.ts';
import { byCodeUnits, toolMap } from '../tool-map.ts';
import { annotationsRemoved, destructiveHintRaised, readOnlyHintDropped } from './annotations.ts';
import { inputConstraintLoosened, inputConstraintTightened } from './constraint.ts';
import { toolDescriptionSecretMentioned, toolHiddenCharactersAdded, toolProseLinkAdded } from './content.ts';
import { toolContractChangedDescriptionIdentical, toolDescriptionChanged, toolDescriptionChangedSchemaIdentical } from './description.ts';
import { inputEnumValueAdded, inputEnumValueRemoved, outputEnumValueAdded } from './enum.ts';
import type { BodyRule, Finding, Rule } from './finding.ts';
import { inputOptionalPropertyAdded, inputPropertyRemoved } from './property.ts';
import { inputPropertyBecameRequired, inputRequiredPropertyAdded, outputRequiredPropertyRemoved } from './required.ts';
import { toolsRepeatedMemberName } from './repeated-member-name.ts';
import { toolAdded, toolCapabilityAdded, toolRemoved, toolRenamed } from './tool.ts';
import { inputPropertyTypeChanged, inputPropertyTypeWidened } from './type.ts';

export const RULES: readonly (Rule | BodyRule)[] = [
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
  toolsRepeatedMemberName,
  toolHiddenCharactersAdded,
  toolCapabilityAdded,
  toolRenamed,
  toolDescriptionChangedSchemaIdentical,
  toolContractChangedDescriptionIdentical,
  toolProseLinkAdded,
  toolDescriptionSecretMentioned,
  annotationsRemoved,
];

/** The rules classifyChange runs: every rule of RULES that compares two tool lists. */
const CHANGE_RULES: readonly Rule[] = RULES.filter((r): r is Rule => 'check' in r);

export interface Classification {
  compatibility: Finding[];
  security: Finding[];
}

export interface ClassifyOptions {
  /** Last known definitions of tools absent from `before` (trackTombstones): a returning tool is compared with them, not reported as added. */
  tombstones?: ReadonlyMap<string, Tool>;
  /** Run only these rules (default: every change rule of RULES), e.g. one rule alone in its test. */
  rules?: readonly Rule[];
}

/** Both verdicts on one change, findings ordered by rule (RULES order), then tool, then path. */
export function classifyChange(before: readonly Tool[], after: readonly Tool[], opts: ClassifyOptions = {}): Classification {
  const base = withReturned(before, after, opts.tombstones);
  const out: Classification = { compatibility: [], security: [] };
  for (const rule of opts.rules ?? CHANGE_RULES) {
    const found = rule.check(base, after).sort((x, y) => byCodeUnits(x.tool, y.tool) || byCodeUnits(x.path, y.path));
    out[rule.axis].push(...found);
  }
  return out;
}

/** The findings of the body rules on one served tools/list answer (its JSON text, answerTextFromBody). */
export function classifyBody(answerText: string): Classification {
  const out: Classification = { compatibility: [], security: [] };
  for (const rule of RULES) {
    if ('checkBody' in rule) out[rule.axis].push(...rule.checkBody(answerText).sort((x, y) => byCodeUnits(x.tool, y.tool) || byCodeUnits(x.path, y.path)));
  }
  return out;
}

function withReturned(before: readonly Tool[], after: readonly Tool[], tombstones: ReadonlyMap<string, Tool> | undefined): readonly Tool[] {
  if (!tombstones || tombstones.size === 0) return before;
  const present = toolMap(before);
  const returned = [...toolMap(after).keys()].filter((name) => !present.has(name) && tombstones.has(name)).map((name) => tombstones.get(name)!);
  return [...before, ...returned];
}
