import { describe, expect, it } from 'vitest';
import { fingerprint, type Finding } from '../../../src/lib/rules/finding.ts';
import type { Tool } from '../../../src/lib/tool.ts';
import { githubTools, proxyTools } from '../helpers/fixtures.ts';
import { alone, mutated } from '../helpers/rules.ts';

const base = githubTools('v1.10.1'); // list_issues.perPage: { minimum: 1, maximum: 100 }; repo: { type: 'string' }
const fetchTools = proxyTools('mcp-server-fetch'); // fetch.max_length: { exclusiveMinimum: 0, exclusiveMaximum: 1000000 }; url: { minLength: 1 }
const fsTools = proxyTools('server-filesystem'); // read_multiple_files.paths: { minItems: 1 }
const radar = proxyTools('cloudflare-radar'); // list_autonomous_systems.location.pattern; get_as_details: additionalProperties false
const on = (prop: string, edit: (p: Record<string, unknown>) => void) => mutated(base, 'list_issues', (t) => edit(t.inputSchema.properties[prop]));
const P = '/inputSchema/properties';

/** A copy of `tools` with `edit` applied to the schema node at `node` (a pointer below the tool's inputSchema, '' for the root). */
function atNode(tools: readonly Tool[], tool: string, node: string, edit: (n: Record<string, unknown>) => void): Tool[] {
  return mutated(tools, tool, (t) => edit(node.split('/').filter(Boolean).reduce((n, key) => n[key], t.inputSchema)));
}
const valueAt = (tools: readonly Tool[], tool: string, node: string, keyword: string): unknown => {
  let found: unknown;
  atNode(tools, tool, node, (n) => (found = n[keyword]));
  return found;
};
const tightened = (tool: string, path: string, before: unknown, after: unknown, message: string): Finding => ({
  rule: 'input-constraint-tightened',
  axis: 'compatibility',
  level: 'ERR',
  tool,
  path,
  before,
  after,
  fingerprint: fingerprint('input-constraint-tightened', tool, path),
  message,
});
const loosened = (tool: string, path: string, before: unknown, after: unknown, message: string): Finding => ({
  rule: 'input-constraint-loosened',
  axis: 'compatibility',
  level: 'INFO',
  tool,
  path,
  before,
  after,
  fingerprint: fingerprint('input-constraint-loosened', tool, path),
  message,
});

// One row per numeric bound: a real node that carries it (or, where no fixture does, the same real node
// with the bound set first), the nearest value that tightens and the nearest that loosens. Upper bounds
// tighten downwards and lower bounds upwards; exclusiveMaximum/Minimum follow maximum/minimum.
const BOUNDS = [
  { keyword: 'maximum', tools: base, tool: 'list_issues', node: 'properties/perPage', tighter: 99, looser: 101 },
  { keyword: 'minimum', tools: base, tool: 'list_issues', node: 'properties/perPage', tighter: 2, looser: 0 },
  { keyword: 'exclusiveMaximum', tools: fetchTools, tool: 'fetch', node: 'properties/max_length', tighter: 999999, looser: 1000001 },
  { keyword: 'exclusiveMinimum', tools: fetchTools, tool: 'fetch', node: 'properties/max_length', tighter: 1, looser: -1 },
  { keyword: 'maxLength', tools: base, tool: 'update_issue_state', node: 'properties/rationale', tighter: 279, looser: 281 },
  { keyword: 'minLength', tools: fetchTools, tool: 'fetch', node: 'properties/url', tighter: 2, looser: 0 },
  { keyword: 'maxItems', tools: atNode(base, 'list_issues', 'properties/labels', (n) => (n.maxItems = 20)), tool: 'list_issues', node: 'properties/labels', tighter: 19, looser: 21 },
  { keyword: 'minItems', tools: fsTools, tool: 'read_multiple_files', node: 'properties/paths', tighter: 2, looser: 0 },
  { keyword: 'maxProperties', tools: atNode(base, 'list_issues', 'properties/field_filters/items', (n) => (n.maxProperties = 2)), tool: 'list_issues', node: 'properties/field_filters/items', tighter: 1, looser: 3 },
  { keyword: 'minProperties', tools: atNode(base, 'list_issues', 'properties/field_filters/items', (n) => (n.minProperties = 1)), tool: 'list_issues', node: 'properties/field_filters/items', tighter: 2, looser: 0 },
].map((row) => ({ ...row, was: valueAt(row.tools, row.tool, row.node, row.keyword), path: `/inputSchema/${row.node}/${row.keyword}` }));

const withBound = (row: (typeof BOUNDS)[number], value: number) => atNode(row.tools, row.tool, row.node, (n) => (n[row.keyword] = value));
const nodeOf = (row: (typeof BOUNDS)[number]) => `/inputSchema/${row.node}`;

describe('input-constraint-tightened', () => {
  it('fires once, ERR, when maximum decreases', () => {
    expect(alone('input-constraint-tightened', base, on('perPage', (p) => (p.maximum = 50)))).toEqual([
      tightened('list_issues', `${P}/perPage/maximum`, 100, 50, 'Tool "list_issues": input maximum at /inputSchema/properties/perPage tightened (100 → 50): values valid before may now be rejected.'),
    ]);
  });
  it.each(BOUNDS)('fires once, ERR, when $keyword moves $was → $tighter', (row) => {
    expect(alone('input-constraint-tightened', row.tools, withBound(row, row.tighter))).toEqual([
      tightened(row.tool, row.path, row.was, row.tighter, `Tool "${row.tool}": input ${row.keyword} at ${nodeOf(row)} tightened (${row.was} → ${row.tighter}): values valid before may now be rejected.`),
    ]);
  });
  it.each(BOUNDS)('does not fire when $keyword moves $was → $looser (the nearest miss)', (row) => {
    expect(alone('input-constraint-tightened', row.tools, withBound(row, row.looser))).toEqual([]);
  });
  it.each(BOUNDS)('does not fire when $keyword is written again unchanged ($was)', (row) => {
    expect(alone('input-constraint-tightened', row.tools, withBound(row, row.was as number))).toEqual([]);
  });
  it.each([
    ['maxLength added', 'repo', (p: any) => (p.maxLength = 100), `${P}/repo/maxLength`, 100, 'Tool "list_issues": input maxLength at /inputSchema/properties/repo tightened (absent → 100): values valid before may now be rejected.'],
    ['minLength added', 'repo', (p: any) => (p.minLength = 1), `${P}/repo/minLength`, 1, 'Tool "list_issues": input minLength at /inputSchema/properties/repo tightened (absent → 1): values valid before may now be rejected.'],
    ['maxItems added', 'labels', (p: any) => (p.maxItems = 5), `${P}/labels/maxItems`, 5, 'Tool "list_issues": input maxItems at /inputSchema/properties/labels tightened (absent → 5): values valid before may now be rejected.'],
    ['pattern added', 'repo', (p: any) => (p.pattern = '^[a-z]+$'), `${P}/repo/pattern`, '^[a-z]+$', 'Tool "list_issues": input pattern at /inputSchema/properties/repo tightened (absent → "^[a-z]+$"): values valid before may now be rejected.'],
    ['enum added', 'repo', (p: any) => (p.enum = ['a']), `${P}/repo/enum`, ['a'], 'Tool "list_issues": input enum at /inputSchema/properties/repo tightened (absent → ["a"]): values valid before may now be rejected.'],
    ['const added', 'state', (p: any) => (p.const = 'OPEN'), `${P}/state/const`, 'OPEN', 'Tool "list_issues": input const at /inputSchema/properties/state tightened (absent → "OPEN"): values valid before may now be rejected.'],
    ['uniqueItems added', 'labels', (p: any) => (p.uniqueItems = true), `${P}/labels/uniqueItems`, true, 'Tool "list_issues": input uniqueItems at /inputSchema/properties/labels tightened (absent → true): values valid before may now be rejected.'],
  ])('fires once, ERR, for %s', (_what, prop, edit, path, after, message) => {
    expect(alone('input-constraint-tightened', base, on(prop, edit))).toEqual([tightened('list_issues', path, undefined, after, message)]);
  });
  it('fires for additionalProperties: false added at the root', () => {
    const after = mutated(base, 'list_issues', (t) => (t.inputSchema.additionalProperties = false));
    expect(alone('input-constraint-tightened', base, after)).toMatchObject([{ path: '/inputSchema/additionalProperties', before: undefined, after: false }]);
  });
  it('fires once, ERR, when a pattern changes (a new expression is not proven to accept every old value)', () => {
    const after = atNode(radar, 'list_autonomous_systems', 'properties/location', (n) => (n.pattern = '^[A-Z]{2}$'));
    expect(alone('input-constraint-tightened', radar, after)).toEqual([
      tightened('list_autonomous_systems', `${P}/location/pattern`, '^[a-zA-Z]{2}$', '^[A-Z]{2}$', 'Tool "list_autonomous_systems": input pattern at /inputSchema/properties/location tightened ("^[a-zA-Z]{2}$" → "^[A-Z]{2}$"): values valid before may now be rejected.'),
    ]);
  });
  it('does not fire when a pattern is dropped (the nearest miss)', () => {
    expect(alone('input-constraint-tightened', radar, atNode(radar, 'list_autonomous_systems', 'properties/location', (n) => delete n.pattern))).toEqual([]);
  });
  it('fires once, ERR, when const changes value', () => {
    const before = on('state', (p) => (p.const = 'OPEN'));
    const after = on('state', (p) => (p.const = 'CLOSED'));
    expect(alone('input-constraint-tightened', before, after)).toEqual([
      tightened('list_issues', `${P}/state/const`, 'OPEN', 'CLOSED', 'Tool "list_issues": input const at /inputSchema/properties/state tightened ("OPEN" → "CLOSED"): values valid before may now be rejected.'),
    ]);
  });
  it('does not fire when a const object is only re-serialised with its keys in another order (the nearest miss)', () => {
    const before = atNode(base, 'list_issues', 'properties/field_filters/items', (n) => (n.const = { field_name: 'Priority', value: 'P1' }));
    const after = atNode(base, 'list_issues', 'properties/field_filters/items', (n) => (n.const = { value: 'P1', field_name: 'Priority' }));
    expect(alone('input-constraint-tightened', before, after)).toEqual([]);
    expect(alone('input-constraint-loosened', before, after)).toEqual([]);
  });
  it('does not fire when only enum values change (input-enum-value-* report those)', () => {
    expect(alone('input-constraint-tightened', base, on('state', (p) => (p.enum = ['OPEN'])))).toEqual([]);
  });
  it('fires once, ERR, when uniqueItems goes from false to true', () => {
    const before = on('labels', (p) => (p.uniqueItems = false));
    expect(alone('input-constraint-tightened', before, on('labels', (p) => (p.uniqueItems = true)))).toEqual([
      tightened('list_issues', `${P}/labels/uniqueItems`, false, true, 'Tool "list_issues": input uniqueItems at /inputSchema/properties/labels tightened (false → true): values valid before may now be rejected.'),
    ]);
  });
  it.each([
    ['uniqueItems: false added (the default)', on('labels', (p) => (p.uniqueItems = false))],
    ['additionalProperties: true added (the default)', mutated(base, 'list_issues', (t) => (t.inputSchema.additionalProperties = true))],
  ])('does not fire for %s', (_what, after) => {
    expect(alone('input-constraint-tightened', base, after)).toEqual([]);
    expect(alone('input-constraint-loosened', base, after)).toEqual([]);
  });
});

describe('input-constraint-loosened', () => {
  it('fires once, INFO, when maximum increases', () => {
    expect(alone('input-constraint-loosened', base, on('perPage', (p) => (p.maximum = 200)))).toEqual([
      loosened('list_issues', `${P}/perPage/maximum`, 100, 200, 'Tool "list_issues": input maximum at /inputSchema/properties/perPage loosened (100 → 200).'),
    ]);
  });
  it.each(BOUNDS)('fires once, INFO, when $keyword moves $was → $looser', (row) => {
    expect(alone('input-constraint-loosened', row.tools, withBound(row, row.looser))).toEqual([
      loosened(row.tool, row.path, row.was, row.looser, `Tool "${row.tool}": input ${row.keyword} at ${nodeOf(row)} loosened (${row.was} → ${row.looser}).`),
    ]);
  });
  it.each(BOUNDS)('does not fire when $keyword moves $was → $tighter (the nearest miss)', (row) => {
    expect(alone('input-constraint-loosened', row.tools, withBound(row, row.tighter))).toEqual([]);
  });
  it.each(BOUNDS)('fires once, INFO, when $keyword ($was) is dropped', (row) => {
    const after = atNode(row.tools, row.tool, row.node, (n) => delete n[row.keyword]);
    expect(alone('input-constraint-loosened', row.tools, after)).toEqual([
      loosened(row.tool, row.path, row.was, undefined, `Tool "${row.tool}": input ${row.keyword} at ${nodeOf(row)} loosened (${row.was} → absent).`),
    ]);
  });
  it('fires once, INFO, when a pattern is dropped', () => {
    const after = atNode(radar, 'list_autonomous_systems', 'properties/location', (n) => delete n.pattern);
    expect(alone('input-constraint-loosened', radar, after)).toEqual([
      loosened('list_autonomous_systems', `${P}/location/pattern`, '^[a-zA-Z]{2}$', undefined, 'Tool "list_autonomous_systems": input pattern at /inputSchema/properties/location loosened ("^[a-zA-Z]{2}$" → absent).'),
    ]);
  });
  it('does not fire when a pattern changes (the nearest miss: reported as tightened)', () => {
    expect(alone('input-constraint-loosened', radar, atNode(radar, 'list_autonomous_systems', 'properties/location', (n) => (n.pattern = '^[A-Z]{2}$')))).toEqual([]);
  });
  it('fires once, INFO, when const is dropped, and not when it changes', () => {
    const before = on('state', (p) => (p.const = 'OPEN'));
    expect(alone('input-constraint-loosened', before, base)).toEqual([
      loosened('list_issues', `${P}/state/const`, 'OPEN', undefined, 'Tool "list_issues": input const at /inputSchema/properties/state loosened ("OPEN" → absent).'),
    ]);
    expect(alone('input-constraint-loosened', before, on('state', (p) => (p.const = 'CLOSED')))).toEqual([]);
  });
  it('fires once, INFO, when enum is dropped, and not when only its values change', () => {
    expect(alone('input-constraint-loosened', base, on('state', (p) => delete p.enum))).toEqual([
      loosened('list_issues', `${P}/state/enum`, ['OPEN', 'CLOSED'], undefined, 'Tool "list_issues": input enum at /inputSchema/properties/state loosened (["OPEN","CLOSED"] → absent).'),
    ]);
    expect(alone('input-constraint-loosened', base, on('state', (p) => (p.enum = ['OPEN', 'CLOSED', 'ALL'])))).toEqual([]);
  });
  it('fires once, INFO, when uniqueItems: true becomes false', () => {
    const before = on('labels', (p) => (p.uniqueItems = true));
    expect(alone('input-constraint-loosened', before, on('labels', (p) => (p.uniqueItems = false)))).toEqual([
      loosened('list_issues', `${P}/labels/uniqueItems`, true, false, 'Tool "list_issues": input uniqueItems at /inputSchema/properties/labels loosened (true → false).'),
    ]);
  });
  it('fires once, INFO, when additionalProperties: false is dropped (cloudflare-radar get_as_details)', () => {
    const after = atNode(radar, 'get_as_details', '', (n) => delete n.additionalProperties);
    expect(alone('input-constraint-loosened', radar, after)).toEqual([
      loosened('get_as_details', '/inputSchema/additionalProperties', false, undefined, 'Tool "get_as_details": input additionalProperties at /inputSchema loosened (false → absent).'),
    ]);
    expect(alone('input-constraint-tightened', radar, after)).toEqual([]);
  });
  // Draft-4 spelled exclusiveMaximum as a boolean beside maximum; the rule compares numbers only and
  // leaves such edits to the pointer diff (constraint.ts, `bound`).
  it.each([
    ['added', undefined, true],
    ['turned off', true, false],
    ['replaced by a number', true, 100],
    ['replaced by a boolean', 100, true],
  ])('leaves a draft-4 boolean exclusiveMaximum %s to the pointer diff', (_what, was, now) => {
    const set = (v: unknown) => on('perPage', (p) => (p.exclusiveMaximum = v));
    expect(alone('input-constraint-tightened', set(was), set(now))).toEqual([]);
    expect(alone('input-constraint-loosened', set(was), set(now))).toEqual([]);
  });
  it('quotes registry text in its message up to 80 characters, then cuts it', () => {
    const long = `^${'a'.repeat(99)}$`;
    expect(alone('input-constraint-tightened', base, on('repo', (p) => (p.pattern = long)))[0]!.message).toBe(
      `Tool "list_issues": input pattern at /inputSchema/properties/repo tightened (absent → "${long.slice(0, 80)}…"): values valid before may now be rejected.`,
    );
    const eighty = `^${'a'.repeat(78)}$`;
    expect(alone('input-constraint-tightened', base, on('repo', (p) => (p.pattern = eighty)))[0]!.message).toContain(`(absent → "${eighty}")`);
  });
  it('does not fire when only the description next to the bounds changes', () => {
    expect(alone('input-constraint-loosened', base, on('perPage', (p) => (p.description = 'Per page')))).toEqual([]);
  });
});
