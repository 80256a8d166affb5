// Pass 3 of the loader, per target: its changes (src/lib detectDrift) read through their bodies —
// summariseDiff, classifyChange and trackTombstones on the tool lists of its versions — and cached by
// the hashes of those bodies and of src/lib, so a daily rebuild derives only targets that changed.
import { createHash } from 'node:crypto';
import { readObject } from '../archive/objects.ts';
import { MAX_MESSAGE } from '../archive/problems.ts';
import { answerFromBody, classifyChange, parseToolsList, summariseDiff, TOOLS_LIST_REQUEST_ID, trackTombstones, type DiffSummary, type Drift, type Tool } from '../lib/index.ts';
import type { BuildCache } from './cache.ts';
import type { ChangeView, CompatibilityLevel, FindingView, SecurityLevel } from './views.ts';

/** v2 contracts read over several tools/list pages, by tools_sha256 (fold.ts contractPages). */
export type ContractPages = ReadonlyMap<string, { pages: string[]; types: (string | null)[] }>;

/** Bump when the site's change derivation (not src/lib, which is fingerprinted) changes. */
export const DERIVE_VERSION = 'changes-1';

/** The derived part of a change: what reading its bodies through src/lib yields. */
type ChangeDerived = Pick<ChangeView, 'compatibility' | 'security' | 'findings' | 'diff' | 'diffProblem'>;

/**
 * A target's changes, with their diffs and findings from the build cache when the bodies of its
 * versions (and src/lib) are unchanged: the key hashes everything the derivation reads. Results that
 * hit a missing or unreadable body are not cached (the object may come back).
 */
export async function cachedChanges(
  cache: BuildCache,
  lib: string,
  drift: Drift,
  slug: string,
  contentTypes: ReadonlyMap<string, string | null>,
  dir: string,
  stats: { changeHits: number; changeMisses: number },
  pages: ContractPages = new Map(),
): Promise<ChangeView[]> {
  if (drift.changes.length === 0) return [];
  const h = createHash('sha256').update(DERIVE_VERSION).update('\0').update(lib);
  for (const v of drift.versions) {
    h.update('\0').update(v.body_sha256).update(':').update(contentTypes.get(v.body_sha256) ?? '');
    // A v2 contract read over several pages: its list is every page's (ToolsCache.contract).
    for (const [k, p] of (pages.get(v.tools_sha256)?.pages ?? []).entries()) h.update('+').update(p).update(':').update(pages.get(v.tools_sha256)!.types[k] ?? '');
  }
  for (const c of drift.changes) h.update('\0').update(c.before.body_sha256).update('>').update(c.after.body_sha256).update('@').update(c.after.observed_at);
  const key = h.digest('hex');
  const hit = cache.readChanges<ChangeDerived[]>(key);
  let derived: ChangeDerived[];
  if (hit && hit.length === drift.changes.length) {
    stats.changeHits++;
    derived = hit;
  } else {
    stats.changeMisses++;
    derived = await deriveChanges(drift, new ToolsCache(dir, contentTypes, pages));
    if (derived.every((d) => d.diffProblem === null)) cache.writeChanges(key, derived);
  }
  return drift.changes.map((change, i) => ({
    id: `${change.day}-${change.after.tools_sha256.slice(0, 12)}`,
    target: drift.target,
    slug,
    day: change.day,
    observedAt: change.observed_at,
    runId: change.run_id,
    beforeSha256: change.before.tools_sha256,
    afterSha256: change.after.tools_sha256,
    beforeBody: change.before.body_sha256,
    afterBody: change.after.body_sha256,
    revert: change.revert,
    // Set by derive.ts from the target's v2 rows (src/lib protocolMigration).
    protocolMigration: false,
    ...derived[i]!,
  }));
}

async function deriveChanges(drift: Drift, tools: ToolsCache): Promise<ChangeDerived[]> {
  // Tombstones need every version's tool list in order: a tool that hides and returns changed is
  // compared with its last known definition (src/lib trackTombstones).
  const lists = await Promise.all(drift.versions.map((v) => tools.contract(v.tools_sha256, v.body_sha256)));
  const usable = lists.every((l): l is Tool[] => Array.isArray(l));
  const tombstones = usable ? trackTombstones(lists) : null;
  const out: ChangeDerived[] = [];
  for (const change of drift.changes) {
    const before = await tools.contract(change.before.tools_sha256, change.before.body_sha256);
    const after = await tools.contract(change.after.tools_sha256, change.after.body_sha256);
    // The version whose list precedes this change's `after` is the version index of the change.
    const previousVersion = drift.versions.findIndex((v) => v.first_seen === change.after.observed_at) - 1;
    const tombs = tombstones && previousVersion >= 0 ? tombstones[previousVersion] : undefined;
    let diff: DiffSummary | null = null;
    let findings: FindingView[] = [];
    let diffProblem: string | null = null;
    if (Array.isArray(before) && Array.isArray(after)) {
      diff = summariseDiff(before, after, { tombstones: tombs });
      const verdict = classifyChange(before, after, { tombstones: tombs });
      findings = [...verdict.compatibility, ...verdict.security];
    } else {
      diffProblem = [before, after].find((x): x is string => typeof x === 'string') ?? 'raw body unavailable';
    }
    out.push({
      compatibility: highest(findings, 'compatibility', ['ERR', 'WARN', 'INFO']) as CompatibilityLevel | null,
      security: highest(findings, 'security', ['HIGH', 'WARN']) as SecurityLevel | null,
      findings,
      diff,
      diffProblem,
    });
  }
  return out;
}

function highest(findings: readonly FindingView[], axis: string, order: readonly string[]): string | null {
  for (const level of order) if (findings.some((f) => f.axis === axis && f.level === level)) return level;
  return null;
}

/**
 * Tool lists by raw body hash, parsed once per target. A tools/list body is JSON or a
 * text/event-stream answer (the SDK answers over SSE as `event: message`, sometimes after a priming
 * event with empty data); either way the JSON-RPC response goes to src/lib parseToolsList.
 * A value that is a string says why no list could be read.
 */
export class ToolsCache {
  private readonly lists = new Map<string, Promise<Tool[] | string>>();
  constructor(
    private readonly dir: string,
    private readonly contentTypes: ReadonlyMap<string, string | null>,
    private readonly pages: ContractPages = new Map(),
  ) {}

  /**
   * The tool list of a contract: its body's, or for a v2 contract read over several tools/list pages
   * (methodology v2: every page, where v1 read the first) the tools of all its pages in order.
   */
  async contract(toolsSha256: string, bodySha256: string): Promise<Tool[] | string> {
    const p = this.pages.get(toolsSha256);
    if (!p) return this.get(bodySha256);
    const all: Tool[] = [];
    for (const [i, sha] of p.pages.entries()) {
      const list = await this.page(sha, p.types[i] ?? null);
      if (typeof list === 'string') return list;
      all.push(...list);
    }
    return all;
  }

  private page(sha: string, contentType: string | null): Promise<Tool[] | string> {
    const key = `${sha}\0${contentType ?? ''}`;
    let list = this.lists.get(key);
    if (!list) {
      list = this.load(sha, contentType);
      this.lists.set(key, list);
    }
    return list;
  }

  get(bodySha256: string): Promise<Tool[] | string> {
    let list = this.lists.get(bodySha256);
    if (!list) {
      list = this.load(bodySha256);
      this.lists.set(bodySha256, list);
    }
    return list;
  }

  private async load(bodySha256: string, contentType: string | null = this.contentTypes.get(bodySha256) ?? null): Promise<Tool[] | string> {
    const bytes = await readObject(this.dir, bodySha256);
    if (!bytes) return `raw body ${bodySha256.slice(0, 12)} missing or corrupt`;
    try {
      return parseToolsList(answerFromBody(bytes, contentType, TOOLS_LIST_REQUEST_ID));
    } catch (error) {
      return error instanceof Error ? error.message.slice(0, MAX_MESSAGE) : 'unreadable tools/list body';
    }
  }
}

