import type { Finding, Rule } from '../../../src/lib/rules/finding.ts';
import { classifyChange, RULES } from '../../../src/lib/rules/registry.ts';
import type { Tool } from '../../../src/lib/tool.ts';

/** A change rule by id (body rules have no `check`: run them with classifyBody). */
export function rule(id: string): Rule {
  const r = RULES.find((x): x is Rule => x.id === id && 'check' in x);
  if (!r) throw new Error(`no rule ${id}`);
  return r;
}

/** Run one rule alone through classifyChange; both axes, concatenated. */
export function alone(id: string, before: readonly Tool[], after: readonly Tool[], tombstones?: ReadonlyMap<string, Tool>): Finding[] {
  const c = classifyChange(before, after, { rules: [rule(id)], tombstones });
  return [...c.compatibility, ...c.security];
}

/** A deep copy of `tools` with `mutate` applied to the named tool. */
/** Fixture tools are edited freely in tests: their surfaces are typed `any` here, not `unknown`. */
export type LooseTool = { name: string; [key: string]: any };

export function mutated(tools: readonly Tool[], name: string, mutate: (tool: LooseTool) => void): Tool[] {
  const copy = structuredClone(tools) as Tool[];
  const t = copy.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  mutate(t as LooseTool);
  return copy;
}
