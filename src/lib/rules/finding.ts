// What a classification rule is and what it reports (methodology v1, "Classification").
// After oasdiff's checker: a rule is an id, an axis, a default level, a one-line rationale and a pure
// check. Levels are spelled only in the rule definitions; the registry and the rules page read them.
import { sha256Hex } from '../canonical.ts';
import { clip } from '../clip.ts';
import { showHidden } from '../hidden-characters.ts';
import type { Tool } from '../tool.ts';

export type Axis = 'compatibility' | 'security';
/** ERR/WARN/INFO on the compatibility axis (for callers); HIGH/WARN on the security axis (for people). */
export type Level = 'ERR' | 'WARN' | 'INFO' | 'HIGH';

export interface Finding {
  rule: string;
  axis: Axis;
  level: Level;
  tool: string;
  /** RFC 6901 pointer into the tool object ('' = the whole tool), e.g. /inputSchema/properties/q/maxLength. */
  path: string;
  /** The value at `path` before/after; undefined (omitted in JSON) means absent. */
  before: unknown;
  after: unknown;
  /** First 12 hex of sha256(`${rule}:${tool}:${path}`): stable across runs, for links and waivers. */
  fingerprint: string;
  /** One sentence for a reader. */
  message: string;
}

/** A rule on a change: compares two tool lists (classifyChange runs these). */
export interface Rule {
  id: string;
  axis: Axis;
  level: Level;
  rationale: string;
  check: (before: readonly Tool[], after: readonly Tool[]) => Finding[];
}

/**
 * A rule on one served body rather than on a change: what it finds (a repeated member name) is gone
 * once the body is parsed into tools, so it reads the JSON text of the tools/list answer itself
 * (answerTextFromBody). Listed in RULES with the others so the rules page and downloads show it.
 */
export interface BodyRule {
  id: string;
  axis: Axis;
  level: Level;
  rationale: string;
  checkBody: (answerText: string) => Finding[];
}

type RuleMeta = Pick<Rule, 'id' | 'axis' | 'level'>;

export function fingerprint(rule: string, tool: string, path: string): string {
  return sha256Hex(`${rule}:${tool}:${path}`).slice(0, 12);
}

export function finding(
  rule: RuleMeta,
  f: { tool: string; path: string; before: unknown; after: unknown; message: string },
): Finding {
  return {
    rule: rule.id,
    axis: rule.axis,
    level: rule.level,
    tool: f.tool,
    path: f.path,
    before: f.before,
    after: f.after,
    fingerprint: fingerprint(rule.id, f.tool, f.path),
    message: f.message,
  };
}

/**
 * Registry text quoted for a message: JSON-quoted, cut at 80 characters, and with hidden characters
 * written as visible escapes (it is unvetted: a bidi override in a tool name would reorder the sentence).
 */
export function quote(value: unknown): string {
  const s = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  const cut = showHidden(clip(s, 80));
  return typeof value === 'string' ? `"${cut}"` : cut;
}
