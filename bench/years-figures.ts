// The figures bench:years measures and projects: what a day of each design costs (DayFigures), the
// verify and build runs beside them, everything measured (Measured), and the projection's rows.
import type { DailyChange, RealRate } from './years-registry.ts';

export type Design = 'today' | 'new';
export type Kind = 'page' | 'entry' | 'manifest' | 'body' | 'closed';

/** What git carries, by folder: the part each figure is split into. */
export const PARTS = ['pages', 'bodies', 'rosters', 'observations', 'runs+chain', 'other', 'trees+commits'] as const;
export type Part = (typeof PARTS)[number];
export type ByPart = Record<Part, number>;
export const zeroParts = (): ByPart => Object.fromEntries(PARTS.map((p) => [p, 0])) as ByPart;

export interface DayFigures {
  day: string;
  listing_rows: number;
  pages: number;
  targets: number;
  endpoints: number;
  change: { newNames: number; newVersions: number } | null;
  listing_bytes: number;
  rows: number;
  new_bodies: number;
  /** Seconds of this process's work for the day, per step (both designs; each design's own steps apart). */
  seconds: Record<string, number>;
  design: Record<Design, {
    /** Bytes of the tracked working tree after the day, by part. */
    worktree: ByPart;
    /** Keys the object store gained (new design; today's: what its objects/ folder gained). */
    store_added: Record<Kind, { keys: number; bytes: number }>;
    /** Bytes in the object store after the day (new design: objects/ + pages/). */
    store_bytes: number;
    /** `git bundle` of the day's commit (a thin pack: ≈ what a push sends). */
    push_bytes: number;
    /** size-pack after gc, and on-disk bytes per part over every object of the repository. */
    pack_bytes: number;
    pack_by_part: ByPart;
    git_seconds: { add_commit: number; bundle: number; gc: number };
    compaction: string;
    verify_incremental: VerifyRun | null;
  }>;
}

export interface VerifyRun {
  mode: 'full' | 'incremental';
  /** Wall time of the whole command (npx, tsx and the verify), and the CLI's own `time:` line. */
  wall_s: number;
  own_s: number | null;
  max_rss_mb: number;
  ok: boolean;
  summary: string;
}

export interface BuildPoint {
  targets: number;
  days: number;
  rows: number;
  wall_s: number;
  cpu_s: number;
  peak_rss_mb: number;
  site_mb: number;
  site_files: number;
  largest: Record<string, { mb: number; files: number }>;
  release_mb: number;
  release_files: number;
  release_largest_mb: number;
  release_largest: string;
  /** Every release file by name (MB): the whole-archive bundles grow with rows, servers.json with targets. */
  release_by_file: Record<string, number>;
  day_gz_mb: number;
}


export interface Measured {
  rate: RealRate;
  change: DailyChange;
  days: DayFigures[];
  verifyFull: Record<'today' | 'new', VerifyRun[]>;
  verifyHasIncremental: boolean;
  builds: BuildPoint[];
  node_modules_bytes: number;
  shape: { rows: number; names: number; endpoints: number };
  gc: string;
}

export interface Row {
  metric: string;
  limit: string;
  design: Design | 'both';
  /** Projected value per year (growth), the same at year 5 with the registry flat, and margins. */
  values: number[];
  flat5: number;
  /** The first day (1-based) the projection passes the limit, with the registry growing and flat (null: not within 5 years). */
  reaches: { growth: number | null; flat: number | null };
  unit: 'bytes' | 'seconds' | 'count';
  limitValue: number | null;
  note: string;
}

export interface Projections {
  assumptions: string[];
  per_day: Record<Design, Record<string, number>>;
  first_day: Record<Design, Record<string, number>>;
  rows: Row[];
  site_model: { source: string; per_server_mb: number | null; per_target_day_mb: number | null; data_per_target_day_mb_first_90_days: number | null; per_server_s: number | null; per_target_day_s: number | null; per_server_rss_mb: number | null; per_target_day_rss_mb: number | null; whole_bundle_over_day_files: number | null; servers_json_bytes_per_target: number | null };
  registry_at: Record<string, { rows: number; targets: number; endpoints: number; pages: number }>;
}

