// studyFrame: the pre-registered study's population (its §2), rebuilt from the rows of one methodology
// v2 run. The study's unit is one remote endpoint of a server whose registry
// metadata says `status: "active"` and `isLatest: true`, de-duplicated by normalised URL, with its
// exclusions counted and reported. The collector writes a row for every registry name (its latest
// entry: isLatest by construction, targets.ts), whatever its status; this module sorts those rows
// into the frame and the buckets outside it, each row into exactly one bucket, tested in this order:
//
//   retired          in the previous complete roster, gone from today's (not a registry entry now);
//   not_active       registry status other than `active` (deprecated, deleted, none recorded…),
//                    broken down by status in `registryStatus`;
//   no_streamable_http, templated_url, invalid_url, no_latest_entry
//                    no endpoint to probe, for the reason the roster step recorded (src/lib
//                    probedRemote; an unknown reason counts as invalid_url);
//   opted_out        in optout.txt (outcome excluded, never contacted);
//   private_address  its host resolved to a private, loopback, link-local or reserved address and the
//                    collector refused it before any byte (an error row at step `address`, no redirect
//                    followed: one refused after a redirect stays in the frame, the registered host was
//                    public);
//   duplicate_url    its normalised URL is another row's (the study merged 634): the frame keeps one row
//                    per URL, a probed one before one not attempted, then the first by registry name.
//
// What is left is the frame: one row per endpoint, probed (ok or error) or not attempted by the run.
// Deviation, recorded in the methodology changelog: the study also excluded non-HTTPS URLs; the archive
// probes `http://` endpoints (methodology v1 always has, and the two series are compared target by
// target), so they stay in the frame and are counted in `nonHttps`.
import type { ObservationV2 } from './contract/observation-v2.ts';

/** What studyFrame reads of a row. */
export type FrameRow = Pick<ObservationV2, 'target' | 'endpoint' | 'outcome' | 'registry_status' | 'step' | 'detail' | 'redirects'>;

/** The buckets outside the frame, in the order a row is tested against them. */
export const FRAME_EXCLUSIONS = ['retired', 'not_active', 'no_streamable_http', 'templated_url', 'invalid_url', 'no_latest_entry', 'opted_out', 'private_address', 'duplicate_url'] as const;
export type FrameExclusion = (typeof FRAME_EXCLUSIONS)[number];

export interface StudyFrame {
  /** Rows of the run: every registry name it listed, and the retired ones. */
  listed: number;
  /** Rows by registry status (retired rows included), most frequent first; `null` when none was recorded. */
  registryStatus: { status: string | null; count: number }[];
  /** Rows in each bucket outside the frame. */
  excluded: Record<FrameExclusion, number>;
  /** Frame endpoints: one per normalised URL. listed = endpoints + the excluded buckets. */
  endpoints: number;
  /** Of them, probed (outcome ok or error), and not attempted by the run. */
  probed: number;
  notAttempted: number;
  /** Frame endpoints whose URL is `http://` (kept: the deviation above). */
  nonHttps: number;
}

const NO_ENDPOINT: readonly FrameExclusion[] = ['no_streamable_http', 'templated_url', 'invalid_url', 'no_latest_entry'];

/**
 * The study's normalised URL: scheme and host lower-cased (the WHATWG parser does both, and drops a
 * default port), no query, no fragment, no trailing slash; credentials dropped. null for a string that
 * is not an absolute URL.
 */
export function normaliseEndpointUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

/** Sort one run's rows into the study's frame and the buckets outside it (see the header). */
export function studyFrame<R extends FrameRow>(rows: readonly R[]): { frame: StudyFrame; rows: R[] } {
  const excluded = Object.fromEntries(FRAME_EXCLUSIONS.map((k) => [k, 0])) as Record<FrameExclusion, number>;
  const statuses = new Map<string | null, number>();
  const candidates: { row: R; key: string }[] = [];
  for (const r of rows) {
    statuses.set(r.registry_status, (statuses.get(r.registry_status) ?? 0) + 1);
    const bucket = outside(r);
    if (bucket !== null) {
      excluded[bucket]++;
      continue;
    }
    candidates.push({ row: r, key: normaliseEndpointUrl(r.endpoint ?? '') ?? r.endpoint ?? '' });
  }
  // One row per URL: a probed row first, then by registry name (code-unit order, as the roster's).
  const probed = (r: FrameRow) => r.outcome === 'ok' || r.outcome === 'error';
  candidates.sort((a, b) => Number(probed(b.row)) - Number(probed(a.row)) || (a.row.target < b.row.target ? -1 : a.row.target > b.row.target ? 1 : 0));
  const seen = new Set<string>();
  const kept: R[] = [];
  for (const c of candidates) {
    if (seen.has(c.key)) {
      excluded.duplicate_url++;
      continue;
    }
    seen.add(c.key);
    kept.push(c.row);
  }
  // The frame in the run's row order (the figures do not depend on it; a reader of the rows might).
  const keep = new Set<R>(kept);
  const frameRows = rows.filter((r) => keep.has(r));
  return {
    frame: {
      listed: rows.length,
      registryStatus: [...statuses]
        .map(([status, count]) => ({ status, count }))
        .sort((a, b) => b.count - a.count || byStatus(a.status, b.status)),
      excluded,
      endpoints: frameRows.length,
      probed: frameRows.filter(probed).length,
      notAttempted: frameRows.filter((r) => r.outcome === 'not_attempted').length,
      nonHttps: frameRows.filter((r) => /^http:/i.test(r.endpoint ?? '')).length,
    },
    rows: frameRows,
  };
}

/** Statuses in code-unit order, none recorded (null) last. */
function byStatus(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** The bucket outside the frame a row falls in, or null when it is a frame candidate. */
function outside(r: FrameRow): FrameExclusion | null {
  if (r.outcome === 'retired') return 'retired';
  if (r.registry_status !== 'active') return 'not_active';
  if (r.outcome === 'no_endpoint') return NO_ENDPOINT.includes(r.detail as FrameExclusion) ? (r.detail as FrameExclusion) : 'invalid_url';
  if (r.outcome === 'excluded') return 'opted_out';
  if (r.outcome === 'error' && r.step === 'address' && r.redirects === 0) return 'private_address';
  if (r.endpoint === null) return 'invalid_url';
  return null;
}
