// The server page's "Current tools" plan (src/site/tool-lines.ts, rendered by CurrentTools.astro):
// bounded whatever a server serves (server pages are most of the site at the registry's
// size). Full lines (description cut, parameter names) until TOOLS_PAGE_CHARS are used, then names up
// to TOOLS_PAGE_NAMES, then a count; the first tool always in full.
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/lib/index.ts';
import { TOOLS_PAGE_CHARS, TOOLS_PAGE_DESCRIPTION, TOOLS_PAGE_NAMES } from '../../src/outputs/linked-objects.ts';
import { toolLines, toolParams } from '../../src/site/tool-lines.ts';

const tool = (i: number, description = `Tool number ${i}.`, inputSchema: unknown = { type: 'object', properties: { query: {}, limit: {} }, required: ['query'] }): Tool => ({ name: `tool_${i}`, description, inputSchema }) as Tool;

describe('toolParams', () => {
  it('lists property names, required first, each group in served order', () => {
    expect(toolParams(tool(1, '', { type: 'object', properties: { a: {}, b: {}, c: {} }, required: ['c', 'a'] }))).toEqual([
      { name: 'a', required: true },
      { name: 'c', required: true },
      { name: 'b', required: false },
    ]);
  });
  it('reads nothing from a schema that is not an object of properties (hostile or odd shapes)', () => {
    for (const s of [undefined, null, 'x', { properties: [] }, { properties: null }, { properties: 'p' }]) expect(toolParams({ ...tool(1), inputSchema: s } as Tool)).toEqual([]);
    expect(toolParams(tool(1, '', { properties: { a: {} }, required: 'a' }))).toEqual([{ name: 'a', required: false }]);
    expect(toolParams(tool(1, '', { properties: { a: {} }, required: [1, 'a'] }))).toEqual([{ name: 'a', required: true }]);
  });
});

describe('toolLines', () => {
  it('shows a small server in full', () => {
    const plan = toolLines([tool(1), tool(2)]);
    expect(plan.full.map((t) => t.name)).toEqual(['tool_1', 'tool_2']);
    expect(plan.named).toEqual([]);
    expect(plan.counted).toBe(0);
  });

  it('stops full lines at the budget, a description counting at most TOOLS_PAGE_DESCRIPTION characters', () => {
    // Each costs its name (6-8), its description (capped) and "query, limit" (5+2 + 5+2).
    const cost = (t: Tool) => t.name.length + Math.min(t.description!.length, TOOLS_PAGE_DESCRIPTION) + 14;
    const many = Array.from({ length: 1000 }, (_, i) => tool(i, 'd'.repeat(TOOLS_PAGE_DESCRIPTION * 4)));
    const plan = toolLines(many);
    const used = plan.full.reduce((n, t) => n + cost(t), 0);
    expect(used).toBeLessThanOrEqual(TOOLS_PAGE_CHARS);
    expect(used + cost(many[plan.full.length]!)).toBeGreaterThan(TOOLS_PAGE_CHARS);
    expect(plan.named).toHaveLength(TOOLS_PAGE_NAMES);
    expect(plan.named[0]).toBe(many[plan.full.length]);
    expect(plan.counted).toBe(1000 - plan.full.length - TOOLS_PAGE_NAMES);
  });

  it('names every tool past the budget when they fit the name cap (the near miss: nothing counted)', () => {
    // Each line costs 6 + 100 + 14 = 120: four fit in 500.
    const plan = toolLines(Array.from({ length: 14 }, (_, i) => tool(i, 'd'.repeat(100))), 500, 10);
    expect(plan.full.length).toBe(4);
    expect(plan.named).toHaveLength(10);
    expect(plan.counted).toBe(0);
    const over = toolLines(Array.from({ length: 15 }, (_, i) => tool(i, 'd'.repeat(100))), 500, 10);
    expect(over.named).toHaveLength(10);
    expect(over.counted).toBe(1);
  });

  it('always shows the first tool in full, even over the whole budget', () => {
    const plan = toolLines([{ ...tool(1), name: 'n'.repeat(TOOLS_PAGE_CHARS * 2) } as Tool, tool(2)]);
    expect(plan.full).toHaveLength(1);
    expect(plan.named).toHaveLength(1);
  });
});
