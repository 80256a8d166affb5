// What the world is drawn from, read once per process: the real registry listing (one Base per name,
// with its stratum by header declaration), the real tool lists and github-mcp-server's real releases
// (fixtures/), and the small helpers every step shares (byte order, remotes, day timestamps).
import type { ToolDef } from './mcp-host.ts';
import { OFFICIAL_META, type RegistryEntry } from './registry-server.ts';
import { loadGithubManifest, loadRealListing, loadRealToolLists, type RealToolList } from './fixtures.ts';
import { rng, type Rng } from './prng.ts';
import { GITHUB_COMPRESSION, type WorldTarget } from './world-model.ts';

export const DAY_MS = 86_400_000;

/** One real registry name: its rows, its latest row, and how its first streamable-http remote declares headers. */
export interface Base {
  name: string;
  rows: RegistryEntry[];
  latest: RegistryEntry;
  stratum: 'no_endpoint' | 'required' | 'optional' | 'none';
  hostKey: string | null;
}

let cachedBases: Base[] | null = null;
export function realBases(): Base[] {
  if (cachedBases) return cachedBases;
  const byName = new Map<string, RegistryEntry[]>();
  for (const e of loadRealListing('2025-12-12')) {
    const list = byName.get(e.server.name) ?? [];
    list.push(e);
    byName.set(e.server.name, list);
  }
  const out: Base[] = [];
  for (const [name, rows] of byName) {
    const latest = rows.find((r) => r._meta?.[OFFICIAL_META]?.isLatest === true) ?? rows[rows.length - 1]!;
    const sh = firstStreamable(latest);
    let stratum: Base['stratum'] = 'no_endpoint';
    let hostKey: string | null = null;
    if (sh) {
      const headers = (sh.headers as Array<{ isRequired?: boolean }> | undefined) ?? [];
      stratum = headers.some((h) => h.isRequired) ? 'required' : headers.length > 0 ? 'optional' : 'none';
      try {
        hostKey = new URL(String(sh.url)).host;
      } catch {
        stratum = 'no_endpoint';
      }
    }
    out.push({ name, rows, latest, stratum, hostKey });
  }
  out.sort((a, b) => cmpBytes(a.name, b.name));
  cachedBases = out;
  return out;
}

export type Remote = { type?: string; url?: string; headers?: unknown; [k: string]: unknown };
export function remotesOf(e: RegistryEntry): Remote[] {
  const r = e.server.remotes;
  return Array.isArray(r) ? (r as Remote[]) : [];
}
export function firstStreamable(e: RegistryEntry): Remote | undefined {
  return remotesOf(e).find((r) => r.type === 'streamable-http');
}

export function firstStreamableIndex(t: WorldTarget): number {
  const latest = t.baseRows.find((e) => e._meta?.[OFFICIAL_META]?.isLatest === true) ?? t.baseRows[t.baseRows.length - 1]!;
  return remotesOf(latest).findIndex((r) => r.type === 'streamable-http');
}

export function cmpBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

let cachedTools: { lists: RealToolList[]; pool: ToolDef[] } | null = null;
export function toolLibrary() {
  if (cachedTools) return cachedTools;
  const lists = loadRealToolLists();
  const pool = lists.flatMap((l) => l.tools);
  cachedTools = { lists, pool };
  return cachedTools;
}

let cachedGithub: { tag: string; date: string; file: string; tools: ToolDef[] }[] | null = null;
export function githubReleases() {
  if (!cachedGithub) cachedGithub = loadGithubManifest();
  return cachedGithub;
}

/** The world day of a github-mcp-server release dated `date`, counted from the release the listing has. */
export function githubDay(date: string, baseMs: number, startMs: number): number {
  // Release dates relative to the last release in the listing, replayed GITHUB_COMPRESSION× faster
  // from the world's day 1.
  void startMs;
  return 1 + Math.floor((Date.parse(date) - baseMs) / DAY_MS / GITHUB_COMPRESSION);
}

/** An RFC 3339 instant early on `day` (before 06:00Z, when the demo collects), 0–6 fraction digits. */
export function timestampOn(startMs: number, day: number, r: Rng): string {
  const ms = startMs + day * DAY_MS + r.int(0, 6 * 3600 - 1) * 1000;
  const base = new Date(ms).toISOString().slice(0, 19);
  const digits = r.int(0, 6);
  let frac = '';
  for (let i = 0; i < digits; i++) frac += String(r.int(0, 9));
  frac = frac.replace(/0+$/, '');
  return `${base}${frac ? `.${frac}` : ''}Z`;
}

/** timestampOn with a random stream of its own, drawn from `key`. */
export function timestampFrom(startMs: number, day: number, key: string): string {
  return timestampOn(startMs, day, rng(key));
}
