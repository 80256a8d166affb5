// Real tool lists from fixtures/tools/real (see its PROVENANCE.md). Each call returns a fresh deep copy,
// so a test can mutate what it gets.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Tool } from '../../../src/lib/tool.ts';

const root = fileURLToPath(new URL('../../../fixtures/tools/real/', import.meta.url));
const read = (path: string): unknown => JSON.parse(readFileSync(root + path, 'utf8'));

/** github-mcp-server tools at a release file stem, e.g. 'v0.24.0' (see manifest.json for tag → file). */
export function githubTools(version: string): Tool[] {
  return (read(`github-mcp-server/tools-${version}.json`) as { tools: Tool[] }).tools;
}

/** Release tags in order with the file each maps to. */
export function githubReleases(): { tag: string; file: string; toolCount: number }[] {
  return (read('github-mcp-server/manifest.json') as { releases: { tag: string; file: string; toolCount: number }[] }).releases;
}

export function proxyTools(name: string): Tool[] {
  return (read(`mcp-proxy-snapshots/${name}.json`) as { tools: Tool[] }).tools;
}

/** LiveMCPBench: one catalogue per server key. */
export function liveMcpBenchCatalogues(): { target: string; tools: Tool[] }[] {
  const servers = read('livemcpbench/tools.json') as { tools: Record<string, { tools: Tool[] }> }[];
  return servers.flatMap((s) => Object.entries(s.tools).map(([key, v]) => ({ target: key, tools: v.tools })));
}

export function tool(list: Tool[], name: string): Tool {
  const t = list.find((x) => x.name === name);
  if (!t) throw new Error(`fixture has no tool ${name}`);
  return t;
}
