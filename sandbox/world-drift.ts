// Drift of tool lists: when a target's contract changes (its drift class's schedule, or
// github-mcp-server's real releases), what each ordinary change does to the list, and the fold of
// every change (ordinary and security) into the list served on each day.
import { toolsArrayText, type Era, type RepeatedMember, type ToolDef } from './mcp-host.ts';
import { rng, type Rng } from './prng.ts';
import { mutateExtra } from './world-security.ts';
import { githubDay, githubReleases, toolLibrary } from './world-sources.ts';
import { HORIZON_DAYS, type ChangeEvent, type ChangeKind, type DriftClass, type WorldSetup, type WorldTarget } from './world-model.ts';

const CHANGE_WEIGHTS: ReadonlyArray<readonly [ChangeKind, number]> = [
  ['describe', 26],
  ['add_tool', 14],
  ['remove_tool', 11],
  ['add_required', 14],
  ['narrow_enum', 10],
  ['destructive', 8],
  ['hide', 8],
  ['revert', 3],
  ['reorder', 3],
];

export function driftSchedule(drift: DriftClass, r: Rng): ChangeEvent[] {
  const days: number[] = [];
  if (drift === 'occasional') {
    const n = r.chance(0.7) ? 1 : 2;
    for (let i = 0; i < n; i++) days.push(r.int(1, 180));
  } else if (drift === 'volatile') {
    // A rate between one change in 5 days and one a month; the first change comes on day 1 or 2 for
    // most of them (a census starting mid-stream sees a burst of recent changers, then a trickle:
    // 21 of 474 in the first 36 hours, 3 more in the next 36, 3 of the 21 again).
    const rate = 1 / (5 + r.next() * 25);
    let d = r.chance(0.6) ? r.int(1, 2) : 1 + Math.ceil(-Math.log(1 - r.next()) / rate);
    for (let i = 0; i < 200 && d <= HORIZON_DAYS; i++) {
      days.push(d);
      d += Math.max(1, Math.ceil(-Math.log(1 - r.next()) / rate));
    }
  }
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  const out: ChangeEvent[] = [];
  for (const day of sorted) {
    const kind = CHANGE_WEIGHTS[r.weighted(CHANGE_WEIGHTS.map((w) => w[1]))]![0];
    if (kind === 'hide') out.push({ day, kind, until: day + r.int(1, 6) });
    else out.push({ day, kind: kind === 'revert' && out.length === 0 ? 'describe' : kind });
  }
  return out;
}

export function githubChanges(startMs: number): ChangeEvent[] {
  const rel = githubReleases();
  const baseIdx = rel.findIndex((x) => x.tag === 'v0.24.1');
  const baseMs = Date.parse(rel[baseIdx]!.date);
  const out: ChangeEvent[] = [];
  for (const x of rel.slice(baseIdx + 1)) {
    const day = githubDay(x.date, baseMs, startMs);
    out.push({ day, kind: 'release', file: x.file });
  }
  return out;
}

const REWORDINGS = [
  'Returns at most 100 items per call.',
  'Requires a connected workspace.',
  'Deprecated: prefer the newer search tool.',
  'Results are cached for 5 minutes.',
  'Use this tool before making any change.',
];
const NEW_PROPS = ['workspace_id', 'api_version', 'confirm', 'project_id', 'region', 'idempotency_key'];

interface ToolState {
  day: number;
  tools: ToolDef[];
  /** A member the raw tools/list answer serves twice (set by repeat_member; gone with its tool). */
  repeat: RepeatedMember | null;
}

/**
 * Apply a target's change events in order; each state is a new array (tools cloned when touched).
 * `changes` are applied with `r` and `extraChanges` with `rx`, so the extra events never move a draw of
 * the ordinary ones; on a day with both, the ordinary change comes first.
 */
function foldChanges(t: WorldTarget, r: Rng, rx: Rng): ToolState[] {
  const { lists, pool } = toolLibrary();
  let baseTools: ToolDef[];
  if (t.drift === 'github') baseTools = githubReleases().find((x) => x.tag === 'v0.24.1')!.tools;
  else baseTools = lists.find((l) => l.source === t.toolSource)!.tools;
  const states: ToolState[] = [{ day: 0, tools: baseTools, repeat: null }];
  const history: ToolDef[][] = [baseTools];
  // hide events schedule an unhide; merge them into the event stream in day order.
  const events: Array<ChangeEvent & { extra: boolean }> = [...t.changes.map((e) => ({ ...e, extra: false })), ...t.extraChanges.map((e) => ({ ...e, extra: true }))];
  events.sort((a, b) => a.day - b.day || Number(a.extra) - Number(b.extra)); // stable: each list keeps its order
  const pending: Array<{ day: number; tool: ToolDef }> = [];
  let cur = baseTools;
  let repeat: RepeatedMember | null = null;
  // The list as the day began: a security change picks a tool that was there (not one added that day).
  let dayStart = { day: -1, names: new Set<string>() };
  for (let i = 0; i < 4000; i++) {
    const nextEvent = events[0];
    pending.sort((a, b) => a.day - b.day);
    const nextUnhide = pending[0];
    let next: ToolDef[] | null = null;
    let nextRepeat: RepeatedMember | null = repeat;
    let day: number;
    if (nextUnhide && (!nextEvent || nextUnhide.day <= nextEvent.day)) {
      pending.shift();
      day = nextUnhide.day;
      if (!cur.some((x) => x.name === nextUnhide.tool.name)) next = [...cur, nextUnhide.tool];
    } else if (nextEvent) {
      events.shift();
      day = nextEvent.day;
      if (nextEvent.extra) {
        if (dayStart.day !== day) {
          const before = [...states].reverse().find((x) => x.day < day) ?? states[0]!;
          dayStart = { day, names: new Set(before.tools.map((x) => x.name)) };
        }
        const out = mutateExtra(cur, nextEvent.kind, rx, day, dayStart.names);
        next = out.tools;
        if (out.repeat) nextRepeat = out.repeat;
      } else if (nextEvent.kind === 'release') {
        next = githubReleases().find((x) => x.file === nextEvent.file)!.tools;
      } else if (nextEvent.kind === 'revert') {
        next = history.length >= 2 ? history[history.length - 2]! : null;
      } else if (nextEvent.kind === 'hide') {
        if (cur.length > 1) {
          const victim = r.pick(cur);
          next = cur.filter((x) => x !== victim);
          pending.push({ day: nextEvent.until ?? day + 1, tool: victim });
        }
      } else {
        next = mutate(cur, nextEvent.kind, r, pool);
      }
    } else break;
    if (next && next !== cur) {
      cur = next;
      history.push(cur);
      if (nextRepeat && !cur.some((x) => x.name === nextRepeat!.tool)) nextRepeat = null;
      repeat = nextRepeat;
      const last = states[states.length - 1]!;
      if (last.day === day) {
        last.tools = cur;
        last.repeat = repeat;
      } else states.push({ day, tools: cur, repeat });
    }
  }
  return states;
}

function mutate(cur: ToolDef[], kind: ChangeKind, r: Rng, pool: ToolDef[]): ToolDef[] {
  const replaceAt = (i: number, tool: ToolDef) => cur.map((x, j) => (j === i ? tool : x));
  const i = r.int(0, cur.length - 1);
  const tool = cur[i]!;
  switch (kind) {
    case 'describe': {
      const c = structuredClone(tool);
      const extra = r.pick(REWORDINGS);
      c.description = typeof c.description === 'string' && c.description.length > 0 ? `${c.description.trimEnd()} ${extra}` : extra;
      return replaceAt(i, c);
    }
    case 'add_tool': {
      for (let k = 0; k < 20; k++) {
        const cand = r.pick(pool);
        if (!cur.some((x) => x.name === cand.name)) return [...cur, cand];
      }
      const cand = structuredClone(r.pick(pool));
      cand.name = `${cand.name}_v2`;
      return cur.some((x) => x.name === cand.name) ? mutate(cur, 'describe', r, pool) : [...cur, cand];
    }
    case 'remove_tool':
      return cur.length > 1 ? cur.filter((_, j) => j !== i) : mutate(cur, 'describe', r, pool);
    case 'add_required': {
      const c = structuredClone(tool);
      const schema = (c.inputSchema && typeof c.inputSchema === 'object' ? c.inputSchema : { type: 'object' }) as Record<string, unknown>;
      const props = (schema.properties && typeof schema.properties === 'object' ? schema.properties : {}) as Record<string, unknown>;
      let prop = r.pick(NEW_PROPS);
      for (let k = 2; prop in props && k < 50; k++) prop = `${r.pick(NEW_PROPS)}_${k}`;
      props[prop] = { type: 'string', description: `Required since this version: ${prop.replace(/_/g, ' ')}.` };
      schema.properties = props;
      schema.required = [...(Array.isArray(schema.required) ? (schema.required as string[]) : []), prop];
      c.inputSchema = schema;
      return replaceAt(i, c);
    }
    case 'narrow_enum': {
      for (let k = 0; k < cur.length; k++) {
        const j = (i + k) % cur.length;
        const c = structuredClone(cur[j]!);
        if (narrowFirstEnum(c.inputSchema, 0)) return replaceAt(j, c);
      }
      // No enum anywhere: narrow an open string property to two values.
      for (let k = 0; k < cur.length; k++) {
        const j = (i + k) % cur.length;
        const c = structuredClone(cur[j]!);
        const props = (c.inputSchema as { properties?: Record<string, { type?: unknown; enum?: unknown }> } | undefined)?.properties;
        const p = props && Object.values(props).find((v) => v && typeof v === 'object' && v.type === 'string' && !('enum' in v));
        if (p) {
          p.enum = ['default', 'basic'];
          return replaceAt(j, c);
        }
      }
      return mutate(cur, 'add_required', r, pool);
    }
    case 'destructive': {
      for (let k = 0; k < cur.length; k++) {
        const j = (i + k) % cur.length;
        const a = cur[j]!.annotations as { destructiveHint?: boolean } | null | undefined;
        if (a?.destructiveHint === true) continue;
        const c = structuredClone(cur[j]!);
        c.annotations = { ...((c.annotations as object | null) ?? {}), readOnlyHint: false, destructiveHint: true };
        return replaceAt(j, c);
      }
      return mutate(cur, 'describe', r, pool);
    }
    case 'reorder':
      return cur.length > 1 ? [...cur.slice(1), cur[0]!] : mutate(cur, 'describe', r, pool);
    default:
      return mutate(cur, 'describe', r, pool);
  }
}

function narrowFirstEnum(node: unknown, depth: number): boolean {
  if (depth > 20 || !node || typeof node !== 'object') return false;
  const o = node as Record<string, unknown>;
  if (Array.isArray(o.enum) && o.enum.length >= 2) {
    o.enum = o.enum.slice(0, -1);
    return true;
  }
  for (const v of Object.values(o)) {
    if (Array.isArray(v)) {
      for (const x of v) if (narrowFirstEnum(x, depth + 1)) return true;
    } else if (narrowFirstEnum(v, depth + 1)) return true;
  }
  return false;
}

// --- what a target serves on a day -----------------------------------------------------------------

/** A target's tool list, era, instructions and repeated member on any day (World's *At methods). */
export interface Timelines {
  toolsAt(index: number, day: number): ToolDef[] | null;
  eraAt(index: number, day: number): Era | null;
  instructionsAt(index: number, day: number): string | null;
  repeatAt(index: number, day: number): RepeatedMember | null;
  toolsTextAt(index: number, day: number): string | null;
}

/** Tool lists over days, memoised per target: the fold of its change events. */
export function toolTimelines({ key }: WorldSetup, targets: readonly WorldTarget[]): Timelines {
  const toolStates = new Map<number, ToolState[]>();
  function timeline(t: WorldTarget): ToolState[] {
    let tl = toolStates.get(t.index);
    if (tl) return tl;
    tl = foldChanges(t, rng(key('mutate', t.name)), rng(key('mutate-extra', t.name)));
    toolStates.set(t.index, tl);
    return tl;
  }
  function stateAt(index: number, day: number): ToolState | null {
    const t = targets[index];
    if (!t || t.toolSource === null) return null;
    const tl = timeline(t);
    let cur = tl[0]!;
    for (const s of tl) {
      if (s.day > day) break;
      cur = s;
    }
    return cur;
  }
  function toolsAt(index: number, day: number): ToolDef[] | null {
    return stateAt(index, day)?.tools ?? null;
  }
  function eraAt(index: number, day: number): Era | null {
    const t = targets[index];
    if (!t || t.eras.length === 0) return null;
    let era = t.eras[0]!.era;
    for (const e of t.eras) if (e.day <= day) era = e.era;
    return era;
  }
  function instructionsAt(index: number, day: number): string | null {
    let text: string | null = null;
    for (const e of targets[index]?.instructions ?? []) if (e.day <= day) text = e.text;
    return text;
  }
  function repeatAt(index: number, day: number): RepeatedMember | null {
    // Only SDK v1 endpoints serve it: the raw answer is written in their place (mcp-host.ts).
    return eraAt(index, day) === 'legacy' ? (stateAt(index, day)?.repeat ?? null) : null;
  }
  function toolsTextAt(index: number, day: number): string | null {
    const tools = toolsAt(index, day);
    return tools === null ? null : toolsArrayText(tools, repeatAt(index, day));
  }
  return { toolsAt, eraAt, instructionsAt, repeatAt, toolsTextAt };
}
