// v2Statistics: the questions the pre-registered reliability study of the registry asked, answered
// from the rows of one full run of methodology v2 (methodology v2, "Statistics"). The study's analysis
// plan is kept: every share is a proportion with its Wilson 95% interval and its denominator; beside it
// the host-weighted view (each endpoint hostname counts once, as the mean of within-host shares), the
// number of distinct hosts and the largest per-host count, because one host serves hundreds of
// registry names. No inferential tests; no per-server lists.
//
//   RQ1 reachable and answering — denominator: probed endpoints (outcome ok or error). Every status's
//       share, plus `reachable` (status other than unreachable) and `handshake` (a discover or
//       initialize result: status ok or handshake_only).
//   RQ2 era — denominator: endpoints that completed a handshake. modern, legacy, and dual-era
//       (advertised): modern servers whose supportedVersions name a legacy revision. SDK v2 dual-era
//       servers advertise only 2026-07-28, so dual-era is a lower bound and is published as such.
//   RQ3 auth — denominator: auth-gated endpoints (auth_compliant or auth_noncompliant). The share with
//       a followable challenge (Bearer + valid RFC 9728 metadata), and its two parts.
//   RQ4 schemas, annotations, descriptions — schemaHygiene over the tools of the run's ok rows (the
//       caller reads the stored bodies; this module does no I/O).
//   RQ5 in-channel errors — denominator: endpoints sent the canary (after a complete tools/list).
//   RQ6 stability — statusAgreement(): percentage agreement and Cohen's κ between the statuses of the
//       last two full runs, over endpoints probed in both.
// Rows never probed (no_endpoint, retired, not_attempted) and excluded rows are counted beside the
// shares, never inside them.
import { fsum, max } from 'd3-array';
import type { ObservationV2 } from './contract/observation-v2.ts';
import { endpointHost } from './endpoint-host.ts';
import { advertisesLegacy, type Era } from './eras.ts';
import { V2_STATUSES, type V2Status } from './v2-status.ts';
import { wilson, type WilsonInterval } from './wilson.ts';

/** What v2Statistics reads of a row. */
export type V2StatisticsRow = Pick<
  ObservationV2,
  'run_id' | 'target' | 'endpoint' | 'outcome' | 'status' | 'era' | 'protocol_version' | 'supported_versions' | 'auth_bearer' | 'auth_metadata_valid' | 'canary_sent' | 'canary_in_channel'
>;

export interface StudyShare extends WilsonInterval {
  count: number;
  n: number;
  /** Mean over hosts of each host's within-host share (NaN when n = 0). */
  hostWeighted: number;
  /** Distinct endpoint hostnames in the denominator. */
  hosts: number;
  /** Rows of the host with the most rows in the denominator. */
  largestHostCount: number;
}

/** Statuses a probed row can have (excluded rows are never probed). */
export const PROBED_STATUSES = V2_STATUSES.filter((s) => s !== 'excluded') as Exclude<V2Status, 'excluded'>[];
export type ProbedStatus = (typeof PROBED_STATUSES)[number];

export interface V2Statistics {
  run_id: string;
  /** Rows by outcome that are in no denominator. */
  notProbed: { no_endpoint: number; retired: number; excluded: number; not_attempted: number };
  /** RQ1, over probed endpoints. */
  statuses: Record<ProbedStatus, StudyShare>;
  reachable: StudyShare;
  handshake: StudyShare;
  /** RQ2, over endpoints that completed a handshake. */
  era: { modern: StudyShare; legacy: StudyShare; dualEraAdvertised: StudyShare };
  /** RQ2: negotiated protocol versions among handshakes, most frequent first (ties by version). */
  protocolVersions: { version: string; count: number }[];
  /** RQ3, over auth-gated endpoints. */
  auth: { followable: StudyShare; bearer: StudyShare; metadataValid: StudyShare };
  /** RQ5, over endpoints sent the canary. */
  canaryInChannel: StudyShare;
}

export class PartialRunV2Error extends Error {
  override readonly name = 'PartialRunV2Error';
}

const HANDSHAKE: readonly (V2Status | null)[] = ['ok', 'handshake_only'];
const AUTH: readonly (V2Status | null)[] = ['auth_compliant', 'auth_noncompliant'];

/** The study's shares for ONE full v2 run's rows. Throws on mixed run_ids, a v1 row, or a partial run. */
export function v2Statistics(rows: readonly V2StatisticsRow[], opts: { run?: { run_id: string; partial: boolean } } = {}): V2Statistics {
  const run_id = rows[0]?.run_id ?? opts.run?.run_id ?? '';
  for (const r of rows) if (r.run_id !== run_id) throw new RangeError('v2Statistics takes the rows of one run');
  if (opts.run?.partial) throw new PartialRunV2Error(`run ${opts.run.run_id} is partial: its rows never feed published shares`);
  if (opts.run && opts.run.run_id !== run_id) throw new RangeError('v2Statistics: rows and run disagree on run_id');
  const probed = rows.filter((r) => r.outcome === 'ok' || r.outcome === 'error');
  const handshakes = probed.filter((r) => HANDSHAKE.includes(r.status));
  const gated = probed.filter((r) => AUTH.includes(r.status));
  const canaried = probed.filter((r) => r.canary_sent);
  const statuses = {} as Record<ProbedStatus, StudyShare>;
  for (const s of PROBED_STATUSES) statuses[s] = studyShare(probed, (r) => r.status === s);
  const versions = new Map<string, number>();
  for (const r of handshakes) if (r.protocol_version !== null) versions.set(r.protocol_version, (versions.get(r.protocol_version) ?? 0) + 1);
  const count = (o: string) => rows.filter((r) => r.outcome === o).length;
  return {
    run_id,
    notProbed: { no_endpoint: count('no_endpoint'), retired: count('retired'), excluded: count('excluded'), not_attempted: count('not_attempted') },
    statuses,
    reachable: studyShare(probed, (r) => r.status !== 'unreachable'),
    handshake: studyShare(probed, (r) => HANDSHAKE.includes(r.status)),
    era: {
      modern: studyShare(handshakes, (r) => r.era === 'modern'),
      legacy: studyShare(handshakes, (r) => r.era === 'legacy'),
      dualEraAdvertised: studyShare(handshakes, (r) => advertisesLegacy(r.era, r.supported_versions)),
    },
    protocolVersions: [...versions]
      .map(([version, n]) => ({ version, count: n }))
      .sort((a, b) => b.count - a.count || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0)),
    auth: {
      followable: studyShare(gated, (r) => r.status === 'auth_compliant'),
      bearer: studyShare(gated, (r) => r.auth_bearer === true),
      metadataValid: studyShare(gated, (r) => r.auth_metadata_valid === true),
    },
    canaryInChannel: studyShare(canaried, (r) => r.canary_in_channel === true),
  };
}

/** A share over `rows` with its Wilson interval and the host-weighted view. */
export function studyShare<R extends Pick<ObservationV2, 'endpoint'>>(rows: readonly R[], test: (r: R) => boolean): StudyShare {
  const byHost = new Map<string, { n: number; count: number }>();
  let count = 0;
  for (const r of rows) {
    const hit = test(r);
    if (hit) count++;
    const host = endpointHost(r.endpoint);
    const h = byHost.get(host) ?? { n: 0, count: 0 };
    h.n++;
    if (hit) h.count++;
    byHost.set(host, h);
  }
  return {
    count,
    n: rows.length,
    ...wilson(count, rows.length),
    hostWeighted: byHost.size === 0 ? NaN : fsum(byHost.values(), (h) => h.count / h.n) / byHost.size,
    hosts: byHost.size,
    largestHostCount: max(byHost.values(), (h) => h.n) ?? 0,
  };
}

export interface StatusAgreement {
  /** Endpoints probed in both runs (matched by target). */
  n: number;
  /** Share whose status is the same in both runs, with its Wilson interval. */
  agreement: WilsonInterval & { count: number };
  /** Cohen's κ = (pₒ − pₑ) / (1 − pₑ); NaN when pₑ = 1 (every endpoint in one status in both runs: κ undefined). */
  kappa: number;
  /** pₑ, the agreement expected by chance from the two runs' status margins. */
  expected: number;
}

/**
 * RQ6: agreement and Cohen's κ between the statuses of two full v2 runs (earlier, later), over the
 * targets probed (outcome ok or error) in both. A target listed twice in one run is an error.
 */
export function statusAgreement(earlier: readonly V2StatisticsRow[], later: readonly V2StatisticsRow[]): StatusAgreement {
  const statusByTarget = (rows: readonly V2StatisticsRow[]) => {
    const m = new Map<string, V2Status>();
    for (const r of rows) {
      if (r.outcome !== 'ok' && r.outcome !== 'error') continue;
      if (m.has(r.target)) throw new RangeError(`statusAgreement: target ${JSON.stringify(r.target)} appears twice in one run`);
      if (r.status === null) throw new RangeError('statusAgreement: a probed row without a status');
      m.set(r.target, r.status);
    }
    return m;
  };
  const a = statusByTarget(earlier);
  const b = statusByTarget(later);
  const pairs: [V2Status, V2Status][] = [];
  for (const [target, s] of a) {
    const t = b.get(target);
    if (t !== undefined) pairs.push([s, t]);
  }
  const n = pairs.length;
  const same = pairs.filter(([x, y]) => x === y).length;
  const margin = (i: 0 | 1) => {
    const m = new Map<V2Status, number>();
    for (const p of pairs) m.set(p[i], (m.get(p[i]) ?? 0) + 1);
    return m;
  };
  const ma = margin(0);
  const mb = margin(1);
  const expected = n === 0 ? NaN : fsum(ma, ([s, k]) => (k / n) * ((mb.get(s) ?? 0) / n));
  const observed = n === 0 ? NaN : same / n;
  return {
    n,
    agreement: { count: same, ...wilson(same, n) },
    kappa: n === 0 || expected === 1 ? NaN : (observed - expected) / (1 - expected),
    expected,
  };
}

export interface EraAdoptionPoint {
  run_id: string;
  day: string;
  /** Endpoints whose era the probe could tell (modern, legacy or legacy_sse): the denominator. */
  n: number;
  counts: Record<Exclude<Era, 'none'>, number> & { dualEraAdvertised: number };
  /** Share of modern endpoints among them, with its interval. */
  modern: WilsonInterval;
}

/**
 * Era adoption over time: for each full v2 run (give one per day, rows with `day`), how many probed
 * endpoints spoke which era. Runs are returned in day order.
 */
export function eraAdoption(runs: readonly { run_id: string; day: string; rows: readonly V2StatisticsRow[] }[]): EraAdoptionPoint[] {
  return [...runs]
    .sort((x, y) => (x.day < y.day ? -1 : x.day > y.day ? 1 : 0))
    .map(({ run_id, day, rows }) => {
      const counts = { modern: 0, legacy: 0, legacy_sse: 0, dualEraAdvertised: 0 };
      for (const r of rows) {
        if (r.run_id !== run_id) throw new RangeError('eraAdoption: a row of another run');
        if (r.outcome !== 'ok' && r.outcome !== 'error') continue;
        if (r.era === 'none') continue;
        counts[r.era]++;
        if (advertisesLegacy(r.era, r.supported_versions)) counts.dualEraAdvertised++;
      }
      const n = counts.modern + counts.legacy + counts.legacy_sse;
      return { run_id, day, n, counts, modern: wilson(counts.modern, n) };
    });
}
