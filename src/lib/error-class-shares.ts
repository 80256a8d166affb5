// errorClassShares: how one full run's targets fared, by class (methodology v1, "Population figures").
//
// Two denominators, both published with their n:
//   attempted — rows we contacted (outcome ok or error): "of the servers we could reach for, how many
//               answered, and how did the rest fail". no_endpoint is 0 here by construction.
//   listed    — rows for registry targets in today's roster (ok, error or no_endpoint): "of everything
//               listed, what share is reachable at all"; no_endpoint is a class of its own here.
// retired rows (gone from the roster) and excluded rows (opted out, never contacted) are in neither.
// Nor are not_attempted rows (eligible, but the run did not contact them: their host stopped answering,
// or the deadline came): not an error class — we do not know how they would have fared, and counting
// them as failures would blame servers for our schedule. They lower the run's coverage instead, and
// their number is published beside the shares (`notAttempted`), so a reader sees what is missing.
// Host-weighted view (attempted only, since only contacted rows have a host): each endpoint hostname
// counts once, as the mean of within-host shares, so one host serving hundreds of names cannot dominate.
// Partial runs never feed these figures: pass the Run and a partial one is refused.
import { fsum, max } from 'd3-array';
import { ERROR_CLASSES, type Observation } from './contract/observation.ts';
import type { Run } from './contract/run.ts';
import { endpointHost as hostOf } from './endpoint-host.ts';
import { wilson, type WilsonInterval } from './wilson.ts';

export const SHARE_CLASSES = ['ok', ...ERROR_CLASSES] as const;
export type ShareClass = (typeof SHARE_CLASSES)[number];

export interface ClassShare extends WilsonInterval {
  count: number;
}

export interface ShareView {
  n: number;
  classes: Record<ShareClass, ClassShare>;
}

export interface ErrorClassShares {
  run_id: string;
  attempted: ShareView & {
    /** Mean over hosts of each host's within-host share (sums to 1 over classes when n > 0). */
    hostWeighted: Record<ShareClass, number>;
    hosts: number;
    /** Rows of the host with the most rows in this denominator. */
    largestHostCount: number;
  };
  listed: ShareView;
  retired: number;
  excluded: number;
  /** Eligible targets the run did not contact (in neither denominator; see the header). */
  notAttempted: number;
}

export class PartialRunError extends Error {
  override readonly name = 'PartialRunError';
}

/** Shares of ok and each error class in ONE full run's rows. Throws on mixed run_ids or a partial run. */
export function errorClassShares(rows: readonly Observation[], opts: { run?: Run } = {}): ErrorClassShares {
  const run_id = rows[0]?.run_id ?? opts.run?.run_id ?? '';
  for (const r of rows) if (r.run_id !== run_id) throw new RangeError('errorClassShares takes the rows of one run');
  if (opts.run?.partial) throw new PartialRunError(`run ${opts.run.run_id} is partial: its rows never feed published shares`);
  if (opts.run && opts.run.run_id !== run_id) throw new RangeError('errorClassShares: rows and run disagree on run_id');
  const attempted = rows.filter((r) => r.outcome === 'ok' || r.outcome === 'error');
  const listed = rows.filter((r) => r.outcome === 'ok' || r.outcome === 'error' || r.outcome === 'no_endpoint');
  const byHost = new Map<string, Observation[]>();
  for (const r of attempted) {
    const host = hostOf(r.endpoint);
    const list = byHost.get(host);
    if (list) list.push(r);
    else byHost.set(host, [r]);
  }
  const hostWeighted = {} as Record<ShareClass, number>;
  for (const c of SHARE_CLASSES) {
    hostWeighted[c] = byHost.size === 0 ? NaN : fsum(byHost.values(), (hostRows) => hostRows.filter((r) => classOf(r) === c).length / hostRows.length) / byHost.size;
  }
  return {
    run_id,
    attempted: {
      ...view(attempted),
      hostWeighted,
      hosts: byHost.size,
      largestHostCount: max(byHost.values(), (h) => h.length) ?? 0,
    },
    listed: view(listed),
    retired: rows.filter((r) => r.outcome === 'retired').length,
    excluded: rows.filter((r) => r.outcome === 'excluded').length,
    notAttempted: rows.filter((r) => r.outcome === 'not_attempted').length,
  };
}

function view(rows: readonly Observation[]): ShareView {
  const classes = {} as Record<ShareClass, ClassShare>;
  for (const c of SHARE_CLASSES) {
    const count = rows.filter((r) => classOf(r) === c).length;
    classes[c] = { count, ...wilson(count, rows.length) };
  }
  return { n: rows.length, classes };
}

function classOf(row: Observation): ShareClass | null {
  return row.outcome === 'ok' ? 'ok' : row.error_class;
}
