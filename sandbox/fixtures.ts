// Real data for the local world: registry listings and tool lists copied into fixtures/ (see PROVENANCE.md there).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RegistryEntry } from './registry-server.ts';
import type { ToolDef } from './mcp-host.ts';

export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

export const REAL_LISTINGS = {
  '2025-10-20': 'official-v0-listing-2025-10-20.json',
  '2025-12-12': 'official-v0-listing-2025-12-12.json',
} as const;

/** Every name+version row of a real listing, in API order. */
export function loadRealListing(date: keyof typeof REAL_LISTINGS = '2025-12-12'): RegistryEntry[] {
  const file = join(FIXTURES_DIR, 'registry/real', REAL_LISTINGS[date]);
  return (JSON.parse(readFileSync(file, 'utf8')) as { servers: RegistryEntry[] }).servers;
}

export interface RealToolList {
  /** Where it came from, e.g. `livemcpbench/<server>`, `github-mcp-server/v1.2.0`. */
  source: string;
  tools: ToolDef[];
}

/** All real tool lists under fixtures/tools/real, in a stable order. */
export function loadRealToolLists(): RealToolList[] {
  const base = join(FIXTURES_DIR, 'tools/real');
  const out: RealToolList[] = [];
  const bench = JSON.parse(readFileSync(join(base, 'livemcpbench/tools.json'), 'utf8')) as Array<{
    name: string;
    tools: Record<string, { tools: ToolDef[] }>;
  }>;
  for (const server of bench) {
    for (const [key, v] of Object.entries(server.tools ?? {})) {
      if (Array.isArray(v?.tools) && v.tools.length > 0) out.push({ source: `livemcpbench/${key}`, tools: v.tools });
    }
  }
  for (const f of readdirSync(join(base, 'mcp-proxy-snapshots')).sort()) {
    const j = JSON.parse(readFileSync(join(base, 'mcp-proxy-snapshots', f), 'utf8')) as { tools: ToolDef[] };
    out.push({ source: `mcp-proxy-snapshots/${f.replace(/\.json$/, '')}`, tools: j.tools });
  }
  return out;
}

/** github-mcp-server's real releases in release order: real drift of one real remote server. */
export function loadGithubReleases(): RealToolList[] {
  const dir = join(FIXTURES_DIR, 'tools/real/github-mcp-server');

  const files = readdirSync(dir).filter((f) => /^tools-v[\d.]+\.json$/.test(f));
  const ver = (f: string) => f.slice('tools-v'.length, -'.json'.length).split('.').map(Number);
  files.sort((a, b) => {
    const x = ver(a);
    const y = ver(b);
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
    return 0;
  });

  return files.map((f) => ({
    source: `github-mcp-server/${f.slice('tools-'.length, -'.json'.length)}`,
    tools: (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { tools: ToolDef[] }).tools,
  }));
}

export interface GithubRelease {
  /** Release tag, e.g. `v1.10.0`. */
  tag: string;
  /** Release date (RFC 3339 with offset), from the repository. */
  date: string;
  /** Tool-list file of that release (several tags may share one when nothing changed). */
  file: string;
  tools: ToolDef[];
}

/** Every release tag of github-mcp-server in manifest (release) order, with its real tool list. */
export function loadGithubManifest(): GithubRelease[] {
  const dir = join(FIXTURES_DIR, 'tools/real/github-mcp-server');
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { releases: Array<{ tag: string; date: string; file: string }> };
  const byFile = new Map<string, ToolDef[]>();
  return manifest.releases.map((r) => {
    let tools = byFile.get(r.file);
    if (!tools) {
      tools = (JSON.parse(readFileSync(join(dir, r.file), 'utf8')) as { tools: ToolDef[] }).tools;
      byFile.set(r.file, tools);
    }
    return { tag: r.tag, date: r.date, file: r.file, tools };
  });
}
