// Stages 1 and 2 of a run as one step (methodology v1, "Roster" → "Targets"): the roster of this run
// — the one an earlier attempt of the same run wrote (a resumed run reuses it), or the registry paged
// (roster.ts), its targets selected (targets.ts) and the roster written (store.ts) — and the roster
// retirement compares it with.
import { Agent } from 'undici';
import type { AnyRun, Roster } from '../src/lib/index.ts';
import { fetchRoster, type RosterLimits } from './roster.ts';
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
}

export async function todaysRoster(store: Store, o: TodaysRosterOptions): Promise<RosterFile> {
  const found = store.findRoster(o.day, o.runId);
  if (found) return found;
  const registryAgent = new Agent({ headersTimeout: o.limits.timeoutMs, bodyTimeout: o.limits.timeoutMs });
  try {
    const fetched = await fetchRoster(o.registry, { dispatcher: registryAgent, putObject: (b) => store.putObject(b) }, o.limits);
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
