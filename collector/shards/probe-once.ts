// One probe per endpoint per run (methodology v2, "One probe per endpoint"). Registry names whose
// endpoints share one normalised URL (src/lib normaliseEndpointUrl, the study frame's own) get their rows
// of a sharing series (one with `sharedRow`: v2) from ONE probe: the first of them in registry-name
// code-unit order still owing a row is probed, under its own name, and every other name's row is that
// probe's row with its own identity (rows-v2.ts sharedRowV2). A series without `sharedRow` (v1, frozen)
// probes every name, so a bridge day's v1 rows are unchanged.
//
// Which job makes the probe does not matter: the first job of the group to need it probes the group's
// first name (the scheduler's per-run order within a host is not name order), and the others wait for
// it. A resumed run shares the probe an earlier attempt made (the first own-probe row of the group), so
// every name still gets exactly one row. Names sharing a normalised URL share its host (the WHATWG
// parser's host, lower-cased, default port dropped, what the plan splits shards by), so a group is
// always within one shard.
import type { RosterTarget } from '../../src/lib/index.ts';
import { normaliseEndpointUrl } from '../../src/lib/index.ts';
import type { RowContext } from '../rows.ts';
import type { HostSignal } from '../schedule.ts';
import type { Probed, SeriesRow } from '../series/series.ts';
import type { Tracked } from '../series/tracked.ts';

/**
 * The key names share a probe by: the normalised endpoint URL (the study's, src/lib
 * normaliseEndpointUrl) and the query, which the study's normalising drops but which is sent to the
 * server and may pick one of a gateway's servers (`?server=a`, `?server=b`): two names whose URLs differ
 * in their query are probed apart. The fragment is never sent and stays out. The endpoint itself when
 * it does not parse (it then shares with nothing spelt otherwise).
 */
export function endpointKey(endpoint: string): string {
  const normalised = normaliseEndpointUrl(endpoint);
  return normalised === null ? endpoint : normalised + new URL(endpoint.trim()).search;
}

/** Targets grouped by endpointKey, each group in registry-name code-unit order. */
export function endpointGroups(targets: readonly RosterTarget[]): Map<string, RosterTarget[]> {
  const groups = new Map<string, RosterTarget[]>();
  for (const t of targets) {
    const key = endpointKey(t.endpoint!);
    const g = groups.get(key);
    if (g) g.push(t);
    else groups.set(key, [t]);
  }
  for (const g of groups.values()) g.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return groups;
}

/** A row that made its own probe (ok or error, not sharing another's). */
export function ownProbe(row: SeriesRow): boolean {
  return (row.outcome === 'ok' || row.outcome === 'error') && !('probe_shared_with' in row && row.probe_shared_with != null);
}

interface Source {
  row: SeriesRow;
  /** What the host did on that probe; null when an earlier attempt of the run made it. */
  signal: HostSignal | null;
}

export interface ProbeOnce {
  /**
   * Writes `t`'s row in series `x`: its own probe, or the group's one probe's row under its own
   * identity. Returns what the host did on the probe it made or shares (null: nothing known).
   */
  row(x: Tracked, t: RosterTarget): Promise<HostSignal | null>;
  /**
   * A target the schedule did not run: its row in a sharing series is the group's probe's if one was
   * made or is under way (no request of its own needed), and true is returned; false when it has none
   * (the caller writes not_attempted).
   */
  skipped(x: Tracked, t: RosterTarget): Promise<boolean>;
  /** Rows written from another name's probe (this process). */
  readonly shared: number;
  /** Probes made (this process), over every series. */
  readonly probes: number;
}

/**
 * `probe` makes one probe of t in series x (its bodies stored, its row built, not written); `write`
 * appends a row (tracked.ts rowWriter); `ctx` is the row clock.
 */
export function probeOnce(
  targets: readonly RosterTarget[],
  probe: (x: Tracked, t: RosterTarget) => Promise<Probed<SeriesRow>>,
  write: (x: Tracked, row: SeriesRow) => void,
  ctx: () => RowContext,
): ProbeOnce {
  const groups = endpointGroups(targets);
  const groupOf = new Map<string, RosterTarget[]>();
  for (const g of groups.values()) for (const t of g) groupOf.set(t.name, g);
  const sources = new Map<Tracked, Map<RosterTarget[], Promise<Source>>>();
  let shared = 0;
  let probes = 0;

  const probeAndWrite = async (x: Tracked, t: RosterTarget): Promise<Source> => {
    probes++;
    const { row, signal } = await probe(x, t);
    if (!x.done.has(t.name)) write(x, row);
    return { row, signal };
  };

  // The group's one probe in x: an own-probe row of the run already there (the first by name), else
  // the first name still owing a row, probed now. Started once per group and series.
  const sourceOf = (x: Tracked, g: RosterTarget[]): Promise<Source> => {
    let perSeries = sources.get(x);
    if (!perSeries) sources.set(x, (perSeries = new Map()));
    let s = perSeries.get(g);
    if (!s) {
      const names = new Set(g.map((t) => t.name));
      const earlier = new Map(x.rows.filter((r) => names.has(r.target) && ownProbe(r)).map((r) => [r.target, r]));
      const made = g.find((t) => earlier.has(t.name));
      const prober = g.find((t) => !x.done.has(t.name));
      s = made ? Promise.resolve({ row: earlier.get(made.name)!, signal: null }) : probeAndWrite(x, prober!);
      perSeries.set(g, s);
    }
    return s;
  };

  const shareInto = (x: Tracked, t: RosterTarget, from: SeriesRow) => {
    if (x.done.has(t.name)) return;
    write(x, x.series.sharedRow!(ctx(), t, from));
    shared++;
  };

  return {
    async row(x, t) {
      if (x.done.has(t.name)) return null; // written meanwhile, as its group's probe
      const g = groupOf.get(t.name);
      if (!x.series.sharedRow || !g || g.length === 1) return (await probeAndWrite(x, t)).signal;
      const source = await sourceOf(x, g);
      if (source.row.target !== t.name) shareInto(x, t, source.row);
      return source.signal;
    },
    async skipped(x, t) {
      const g = groupOf.get(t.name);
      if (!x.series.sharedRow || !g || g.length === 1) return false;
      const s = sources.get(x)?.get(g);
      if (!s) return false;
      const source = await s;
      if (source.row.target !== t.name) shareInto(x, t, source.row);
      return true;
    },
    get shared() {
      return shared;
    },
    get probes() {
      return probes;
    },
  };
}
