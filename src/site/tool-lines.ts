// What the server page's "Current tools" shows (src/components/CurrentTools.astro renders it): each
// tool's name, its description (cut) and the names of its parameters, required ones first, until
// TOOLS_PAGE_CHARS of those are used; then tools by name only, up to TOOLS_PAGE_NAMES; then a count.
// Bounded whatever a server serves (at the registry's size the server pages are most of the
// site); the schemas are in the tools file and the raw body. Pure: tools in, a plan out.
import type { Tool } from '../lib/index.ts';
import { TOOLS_PAGE_CHARS, TOOLS_PAGE_DESCRIPTION, TOOLS_PAGE_NAMES } from '../outputs/linked-objects.ts';

export interface ToolParam {
  name: string;
  required: boolean;
}

/** A tool's parameters: its inputSchema's property names, required ones first, each in served order. */
export function toolParams(t: Tool): ToolParam[] {
  const s = t.inputSchema as { properties?: unknown; required?: unknown } | undefined;
  const props = s && typeof s.properties === 'object' && s.properties !== null && !Array.isArray(s.properties) ? Object.keys(s.properties) : [];
  const req = new Set(Array.isArray(s?.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
  return [...props.filter((p) => req.has(p)), ...props.filter((p) => !req.has(p))].map((name) => ({ name, required: req.has(name) }));
}

export interface ToolLines {
  /** Shown with description and parameters. */
  full: Tool[];
  /** Shown by name. */
  named: Tool[];
  /** Neither: only counted. */
  counted: number;
}

/** Split a tool list into what the page shows in full, by name, and only counts (the first tool is always shown in full). */
export function toolLines(tools: readonly Tool[], budget = TOOLS_PAGE_CHARS, names = TOOLS_PAGE_NAMES): ToolLines {
  const full: Tool[] = [];
  let left = budget;
  for (const t of tools) {
    const description = typeof t.description === 'string' ? Math.min(t.description.length, TOOLS_PAGE_DESCRIPTION) : 0;
    const cost = t.name.length + description + toolParams(t).reduce((n, p) => n + p.name.length + 2, 0);
    if (cost > left && full.length > 0) break;
    left -= cost;
    full.push(t);
  }
  const named = tools.slice(full.length, full.length + names);
  return { full, named, counted: tools.length - full.length - named.length };
}
