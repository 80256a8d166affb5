// Stages 1 and 2 of a run as one step (methodology v1, "Roster" → "Targets"): the roster of this run
// — the one an earlier attempt of the same run wrote (a resumed run reuses it), or the registry paged
// (roster.ts), its targets selected (targets.ts) and the roster written (store.ts) — and the roster
// retirement compares it with, and the limits today's paging runs under: its page and time bounds
// derived from the rosters before it (`rosterBounds` in roster.ts, fed by `rosterHistory`), over one
// cursor chain or, when `limits.chains` says more, several split at the previous complete roster's keys
// (roster-chains.ts; a first day, with no previous roster, pages one chain).
import { Agent } from 'undici';
import type { AnyRun, Roster } from '../src/lib/index.ts';
import { DEFAULT_ROSTER_LIMITS, fetchRoster, rosterBounds, type RosterHistory, type RosterLimits } from './roster.ts';
import { chainBoundaries, fetchRosterChains, rosterChains } from './roster-chains.ts';
import type { Store } from './store.ts';
import { selectTargets } from './targets.ts';

export interface RosterFile {
  file: string;
  roster: Roster;
}

export interface TodaysRosterOptions {
  registry: string;
  day: string;
  runId: string;
  limits: RosterLimits;
  /** The run's clock: fetched_at. */
  at: () => string;
  /** The previous complete roster: the entries its pages' manifests name are in the store already. */
  previous?: Roster | null;
}

export async function todaysRoster(store: Store, o: TodaysRosterOptions): Promise<RosterFile> {
  const found = store.findRoster(o.day, o.runId);
  if (found) return found;
  const registryAgent = new Agent({ headersTimeout: o.limits.timeoutMs, bodyTimeout: o.limits.timeoutMs });
  try {
    if (o.previous) await store.rememberPages(o.previous.pages.flatMap((p) => (p.sha256 ? [p.sha256] : [])));
    const deps = { dispatcher: registryAgent, putObject: (b: Uint8Array) => store.putPage(b) };
    const boundaries = chainBoundaries(o.previous ?? null, typeof o.limits.chains === 'number' ? o.limits.chains : 1);
    const fetched = boundaries.length === 0 ? await fetchRoster(o.registry, deps, o.limits) : await fetchRosterChains(o.registry, deps, o.limits, boundaries);
    const { targets, entries } = selectTargets(fetched.bodies);
    const roster: Roster = {
      day: o.day,
      run_id: o.runId,
      fetched_at: o.at(),
      source: o.registry.slice(0, 4096),
      complete: fetched.complete,
      incomplete_reason: fetched.incompleteReason,
      pages: fetched.pages,
      counts: { pages: fetched.pages.length, entries, targets: targets.length, with_endpoint: targets.filter((t) => t.endpoint !== null).length },
      targets,
    };
    return { file: store.writeRoster(roster), roster };
  } finally {
    await registryAgent.close();
  }
}

/** The roster of the last finished full run whose roster was complete (retirement and coverage compare with it), or null. */
export function previousRoster(store: Store, runs: readonly AnyRun[]): RosterFile | null {
  const prevRun = [...runs].reverse().find((r) => r.status === 'finished' && !r.partial && r.roster_complete && r.roster_file !== null);
  return prevRun?.roster_file ? { file: prevRun.roster_file, roster: store.readRoster(prevRun.roster_file) } : null;
}

/**
 * What today's bounds are derived from: the previous complete roster (`prev`, from previousRoster) and
 * the newest roster written after it when that one was cut short. How long fetching a roster took is
 * not in the roster file; it is its `fetched_at` less its run's `started_at`: the run's clock starts
 * just before the roster is fetched and `fetched_at` is read when paging ends (a resumed run reuses
 * the roster its first attempt wrote, and every attempt of a run has the same clock).
 */
export function rosterHistory(store: Store, runs: readonly AnyRun[], prev: RosterFile | null): RosterHistory {
  const facts = ({ roster }: RosterFile) => {
    const run = runs.find((r) => r.run_id === roster.run_id);
    const ms = run ? Date.parse(roster.fetched_at) - Date.parse(run.started_at) : NaN;
    const chains = new Set(roster.pages.map((p) => p.chain ?? 0)).size;
    return { pages: roster.counts.pages, ms: ms > 0 ? ms : null, ...(chains > 1 ? { chains } : {}) };
  };
  // The newest run with a roster, if it came after the previous complete roster's run (runs.jsonl is in order).
  let newest: AnyRun | null = null;
  for (let i = runs.length - 1; i >= 0 && newest === null; i--) {
    if (prev && runs[i]!.roster_file === prev.file) break;
    if (runs[i]!.roster_file !== null) newest = runs[i]!;
  }
  const cut = newest && !newest.roster_complete && newest.roster_file !== null ? { file: newest.roster_file, roster: store.readRoster(newest.roster_file) } : null;
  return { complete: prev ? facts(prev) : null, cut: cut ? facts(cut) : null };
}

/**
 * Today's roster limits: the defaults, the chains (`auto`: `rosterChains`) and the bounds derived from
 * `history`, then what the caller set (tests, --registry-rate, --roster-chains); a bound set by the caller is kept.
 */
export function rosterLimitsFor(history: RosterHistory, given: Partial<RosterLimits> & { timeoutMs: number }): RosterLimits & { chains: number } {
  const set = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<RosterLimits>;
  const limits: RosterLimits = { ...DEFAULT_ROSTER_LIMITS, ...set, timeoutMs: given.timeoutMs };
  const chains = limits.chains === 'auto' ? rosterChains(history, limits) : limits.chains;
  const bounds = rosterBounds(history, limits, chains);
  return { ...limits, chains, maxPages: set.maxPages ?? bounds.maxPages, maxWallMs: set.maxWallMs ?? bounds.maxWallMs };
}
