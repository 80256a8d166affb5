// What the loader hands the pages and the outputs: the derived archive and its views (and the raw
// state between the passes). Wherever a view carries a src/lib result (a finding, a diff, an
// interval, a half-life), it is that type, never a copy of its fields.
import type { Problem } from '../archive/problems.ts';
import type { RestateManifest, SeriesSummary } from '../archive/restatements.ts';
import type { AnyRun, ChainManifest, DiffSummary, Edition, ErrorClassShares, EverChangedRow, Finding, FirstChangeInterval, HalfLife, Interval, KMRow, Level, NotAttemptedReason, Observation, Run, SeriesSeam, ServedToolHashes, ServerHealth, ServerSummary, Tool, Volatility } from '../lib/index.ts';
import type { BuildCache } from './cache.ts';
import type { Fold } from './fold.ts';
import type { Timelines } from './timelines.ts';
import type { V2Summary } from './v2-summary.ts';
import type { StoredValidation } from '../archive/validations.ts';

export type { Timelines };

export type { Problem };

export type CompatibilityLevel = Exclude<Level, 'HIGH'>;
export type SecurityLevel = Extract<Level, 'HIGH' | 'WARN'>;
export type ServerStatus = Observation['outcome'];
/** A classification finding as src/lib reports it. */
export type FindingView = Finding;
export type HalfLifeView = HalfLife;

export interface DayInfo {
  day: string;
  /** The series of its folder when not v1 (observations-v2/: 'v2'); absent for v1 days. */
  series?: 'v2';
  /** Paths relative to the archive, gzipped part first. */
  files: string[];
  /** Valid rows, and lines that failed validation. */
  rows: number;
  problems: number;
  /** Content hash of the day's files (the summary's cache key). */
  key: string;
}

export interface VersionView {
  toolsSha256: string;
  bodySha256: string | null;
  firstSeen: string;
  lastSeen: string;
  toolCount: number | null;
}

export interface ChangeView {
  /** Stable anchor: `<day>-<first 12 hex of the new tools_sha256>`. */
  id: string;
  target: string;
  slug: string;
  day: string;
  observedAt: string;
  runId: string;
  beforeSha256: string;
  afterSha256: string;
  beforeBody: string | null;
  afterBody: string | null;
  /** The new hash was seen before on this target (a revert). */
  revert: boolean;
  compatibility: CompatibilityLevel | null;
  security: SecurityLevel | null;
  findings: FindingView[];
  diff: DiffSummary | null;
  /** Why the diff could not be computed (object missing, body unparseable), else null. */
  diffProblem: string | null;
  /**
   * The change's before and after rows are v2 ok rows whose era or negotiated protocol version differ
   * (src/lib protocolMigration): it counts as a survival event in v2; the sensitivity series
   * `v2-without-migrations` censors at it instead. Always false on a v1 headline.
   */
  protocolMigration: boolean;
  /**
   * The server's list is private-scope (MCP 2026-07-28 Caching: `cacheScope: "private"` on its
   * tools/list result in the latest full v2 run): it may differ per caller, so the change may be the
   * caller's, not the server's. Set by loadArchive from the v2 summary, looked up by target; absent
   * otherwise (and on an archive derived without the v2 summary).
   */
  privateScopeList?: true;
}

/**
 * A body rule's findings (a repeated member name) the first time a target serves them: a finding of
 * an observation, not of a change, so it stands on its own in the feeds whether or not the contract
 * hash moved that day. A later body with the same findings (by fingerprint) is not a new item.
 */
export interface BodyFindingView {
  /** Stable anchor: `<day>-<first 12 hex of the body sha256>`. */
  id: string;
  target: string;
  slug: string;
  day: string;
  observedAt: string;
  runId: string;
  bodySha256: string;
  /** The findings new on this body (fingerprints the target's previous ok body did not have). */
  findings: FindingView[];
}

/**
 * Methodology v2's instructions drift when the same answer did not change the contract: an
 * "instructions changed" entry of its own (src/lib serverInstructionsChanged), on the server page and
 * in the feeds. When the contract changed on the same answer, the finding is on that change instead.
 */
export interface InstructionsChangeView {
  /** Stable anchor: `<day>-instructions-<first 12 hex of the new instructions hash, or none>`. */
  id: string;
  target: string;
  slug: string;
  day: string;
  observedAt: string;
  runId: string;
  /** instructions_sha256 before and after (null: none sent). */
  before: string | null;
  after: string | null;
  findings: FindingView[];
}

/** The hashes and body findings of a target's latest successful answer. */
export interface CurrentBodyView {
  bodySha256: string;
  observedAt: string;
  /** Tool definition hash, version 1 set hash; null when the body has none (`setHashProblem` says why). */
  setHash: string | null;
  setHashProblem: string | null;
  /** Body-rule findings of this body (they hold while it is served). */
  findings: FindingView[];
}

/** One set hash the archive has seen: who served it, first and last seen (ok rows). */
export interface SetView {
  setHash: string;
  /** A raw body that served it (its definitions are the set's lines). */
  bodySha256: string;
  servers: { target: string; slug: string; firstSeen: string; lastSeen: string; observations: number }[];
}

/**
 * A run of consecutive observations with the same outcome (and, for ok, the same contract). `kind` is
 * `changed` for a change's first observation, `error` for any error class, else the row's outcome —
 * so an outcome the collector learns later (such as `not_attempted`, a target the schedule skipped) reaches the strip unchanged.
 */
export interface StripSegment {
  kind: 'ok' | 'changed' | 'error' | Exclude<Observation['outcome'], 'ok' | 'error'>;
  /** For kind error: the error class, and the HTTP status its rows carried (0: none); for not_attempted: the reason. */
  errorClass: string | null;
  http: number;
  count: number;
  firstDay: string;
  lastDay: string;
}

export interface ServerView {
  name: string;
  slug: string;
  /** The latest row, whole. */
  latest: Observation;
  /** The latest row that points at a registry page (the API's registry entry), whole. */
  registryRow: Observation | null;
  status: ServerStatus;
  errorClass: Observation['error_class'];
  /** Why the latest row is not_attempted (host_unresponsive, run_deadline), else null. */
  notAttemptedReason: NotAttemptedReason | null;
  endpoint: string | null;
  toolCount: number | null;
  firstObserved: string;
  lastObserved: string;
  lastOk: string | null;
  head: VersionView | null;
  versions: VersionView[];
  /** Newest first. */
  changes: ChangeView[];
  /** Instructions changes without a contract change, newest first (methodology v2). */
  instructionChanges: InstructionsChangeView[];
  lastChange: string | null;
  repeatMover: boolean;
  /** Observation rows of this target. */
  observations: number;
  /** Status by run, oldest first, as runs of equal outcome. */
  strip: StripSegment[];
  /** The latest probe (ok or error row), or null when it was never probed. */
  lastProbe: string | null;
  /** Failed probes since the last ok one (rows that probed nothing are skipped). */
  consecutiveFailures: number;
  /** serverHealth over the 30 days ending on the archive's as-of day; null for an empty archive. */
  health: ServerHealth | null;
  /** The latest successful answer's hashes and body findings; null before the first. */
  current: CurrentBodyView | null;
}

/**
 * A server's compact row, kept for every server however the archive was derived: what the server list,
 * the counts and the dashboard read (ServerView holds the rest, per shard on demand: Archive.serversIn).
 */
export interface ServerRow {
  name: string;
  slug: string;
  /** The shard that derives its ServerView (Archive.serversIn). */
  shard: number;
  status: ServerStatus;
  errorClass: Observation['error_class'];
  notAttemptedReason: NotAttemptedReason | null;
  endpoint: string | null;
  toolCount: number | null;
  firstObserved: string;
  lastObserved: string;
  lastOk: string | null;
  lastChange: string | null;
  /** ServerView.changes.length. */
  changeCount: number;
  repeatMover: boolean;
}

export interface Tiles {
  population: number | null;
  withEndpoint: number | null;
  okLatestFull: number | null;
  eligibleLatestFull: number | null;
  changed7: number;
  changed30: number;
  coverage: number | null;
  degraded: boolean;
}

/**
 * Which series the headline figures use (methodology v2, "Bridge and headline"), read off runs.jsonl:
 * `v1` until the bridge is complete, then `stitched` (v1 rows before `seamDay`, v2 rows from it on).
 */
export interface HeadlineView {
  series: 'v1' | 'stitched';
  /** The bridge's length in days (BRIDGE_DAYS unless a local world says otherwise). */
  bridgeLength: number;
  /** Bridge days the archive holds so far (days with a finished full run of both series). */
  bridgeDays: number;
  /** The bridge's first day: v2 rows from it on (null until the bridge is complete). */
  seamDay: string | null;
  /** The day the bridge completed: the headline has been v2 since the run of that day (null before). */
  since: string | null;
}

/** The sensitivity series `v2-without-migrations`: the headline's intervals, censored at protocol migrations. */
export interface MigrationSensitivity {
  series: 'v2-without-migrations';
  /** Changes flagged protocol_migration (events in the headline, censored here). */
  migrations: number;
  intervals: Interval[];
  km: KMRow[];
  halfLife: HalfLifeView | null;
}

export interface ChainView {
  manifests: number;
  head: ChainManifest | null;
}

export interface RestatementView {
  series: RestateManifest['series'];
  /** Title and summary from src/lib SERIES (the manifest's own copy is not shown). */
  title: string;
  summary: string;
  firstDay: string | null;
  lastDay: string | null;
  days: number;
  sourceRows: number;
  okRows: number;
  unreadableRows: number;
  differingRows: number;
  original: SeriesSummary;
  restated: SeriesSummary;
}

export interface Archive {
  dir: string;
  empty: boolean;
  /** Latest run's finished_at: "data as of". */
  asOf: string | null;
  asOfDay: string | null;
  /** The v1 series' runs (the runs bundle, coverage by run, editions). */
  runs: Run[];
  /** Which series the headline uses, and since when. */
  headline: HeadlineView;
  /** The headline series' latest run (v2's once the headline is stitched). */
  latestRun: AnyRun | null;
  /** The headline series' latest finished, non-partial run: the only source of published error-class shares. */
  latestFullRun: AnyRun | null;
  /** Targets whose v1 and v2 contract hashes disagree across the seam (censored there, never a change), by target. */
  seams: SeriesSeam[];
  /** The stitched headline's sensitivity series without protocol migrations as events; null on a v1 headline. */
  migrationSensitivity: MigrationSensitivity | null;
  /**
   * Every server's view, by name (code units), and by slug: held only when the archive was derived in
   * one shard (ReadOptions.shards, the default); with more, reading either throws — use `rows`,
   * `serversIn(k)` and `server(slug)`, which hold one shard's views at a time.
   */
  servers: ServerView[];
  bySlug: Map<string, ServerView>;
  /** How many shards the targets were derived in (src/loader/shards.ts): 1 unless ReadOptions.shards says more. */
  shards: number;
  /** Every server's compact row, by name (code units), whatever the number of shards. */
  rows: ServerRow[];
  /** Every server's summary (src/lib serverSummary): the inputs of every headline figure, in derivation order. */
  summaries: ServerSummary[];
  /** The full views of shard k's servers, by name (code units): derived again on demand when not held (the last two kept). */
  serversIn(shard: number): Promise<ServerView[]>;
  /** One server's full view by slug (its shard's, through serversIn); null when no server has that slug. */
  server(slug: string): Promise<ServerView | null>;
  /** Every change of every target, newest first. */
  changes: ChangeView[];
  /** Body-rule findings the first time each target served them, newest first. */
  bodyFindings: BodyFindingView[];
  /** Instructions changes that came without a contract change (v2 rows of the stitched headline), newest first. */
  instructionChanges: InstructionsChangeView[];
  /** Every set hash the archive has seen, by hash (code units). */
  sets: SetView[];
  intervals: Interval[];
  km: KMRow[];
  halfLife: HalfLifeView | null;
  /** Server level: each target's time until it first changed its contract (src/lib firstChangeIntervals). */
  serverIntervals: FirstChangeInterval[];
  serverKm: KMRow[];
  serverHalfLife: HalfLifeView | null;
  /** Share of servers ever changed by days observed, with the constant-rate line (src/lib everChangedShare). */
  everChanged: EverChangedRow[];
  /** Who the contract half-life rests on: changes per target over the whole archive (src/lib volatility). */
  volatility: Volatility;
  /** Coverage by run, changes by week and level, error-class shares by full run, roster flow by day. */
  timelines: Timelines;
  errorShares: ErrorClassShares | null;
  tiles: Tiles;
  days: string[];
  dayFiles: DayInfo[];
  months: string[];
  rowCount: number;
  rosterFiles: string[];
  problems: Problem[];
  proberVersions: string[];
  methodologyVersions: string[];
  /** Restated series (`npm run restate`), validated manifests: v1 and each restatement side by side. */
  restatements: RestatementView[];
  /** Monthly editions (editions/<id>/edition.json), by month then revision: the last is the one to cite. */
  editions: Edition[];
  /** The hash chain: its length and its last manifest (null before the first chained run). */
  chain: ChainView;
  /**
   * The methodology v2 series (v2-summary.ts): the study's figures for the latest full v2 run, era
   * adoption, the bridge note, each target's row in the latest full v2 run. Set by loadArchive; absent when the
   * archive was derived without it (deriveArchive alone).
   */
  v2?: V2Summary;
  /**
   * The validation gate's records (validations/, src/archive/validations.ts; docs/VALIDATION.md), by
   * file name, and the files that are not sound records. Set by loadArchive, as v2 is.
   */
  validations?: { records: StoredValidation[]; problems: Problem[] };
  /**
   * Values derived once and kept in the build cache across builds (cache.ts, sealed under their key), for
   * views built after the load (families.ts: template keys). Set by loadArchive; absent without a cache.
   */
  memo?: { read<T>(key: string): T | null; write(key: string, value: unknown): void; libPrint: string };
  cacheStats: { hits: number; misses: number; changeHits: number; changeMisses: number; bodyHits: number; bodyMisses: number; summaryWorkers?: number };
  /** The Content-Type of the rows that carried a raw tools/list body; null when unknown. */
  contentType(bodySha256: string): string | null;
  /**
   * A raw tools/list body's tool list, read and parsed on demand (not cached: heads of 25k servers would
   * not fit). With the contract's `toolsSha256`, a v2 contract read over several pages lists every page's tools.
   */
  tools(bodySha256: string, toolsSha256?: string): Promise<Tool[] | string>;
  /** A raw body's tool definition hashes (src/lib servedToolHashes), read on demand; a string says why there are none. */
  toolHashes(bodySha256: string): Promise<ServedToolHashes | string>;
  /** The registry entry a row points at, verbatim from its roster page object; null when unavailable. */
  registryEntry(row: Observation): Promise<unknown>;
}

/** What passes 1 and 2 yield (load-archive.ts), before any derivation. */
export interface RawArchive {
  dir: string;
  /** Days with a day file, oldest first (`YYYY-MM-DD`). */
  days: string[];
  dayFiles: DayInfo[];
  /** The days the headline folds, in order (a RowRef's `d` indexes it): v1's, or v1's before the seam and v2's from it on. */
  foldDays: DayInfo[];
  headline: HeadlineView;
  /** The headline series' runs, by start (v1's, or v2's once stitched). */
  headlineRuns: AnyRun[];
  runs: Run[];
  fold: Fold;
  rowCount: number;
  rosterFiles: string[];
  /** Lines or files that failed validation: skipped, counted, and shown on /data/. */
  problems: Problem[];
  restatements: RestatementView[];
  editions: Edition[];
  chain: ChainView;
  cache: BuildCache;
  /** summaryWorkers: worker threads this load started to summarise days (each takes at most a chunk of days). */
  cacheStats: { hits: number; misses: number; summaryWorkers?: number };
  timings: Timings;
  /**
   * The targets in shards (shards.ts): `fold` above is shard 0's, `fold(k)` folds shard k again from the
   * days. Absent: one shard, `fold` holds every target.
   */
  shards?: { count: number; fold(shard: number): Promise<Fold> };
}

/** Stage timings of a build (bench/build.ts); the site's implementation writes them where MCP_SCHEMA_TIMINGS says. */
export interface Timings {
  mark(stage: string, ms: number, extra?: Record<string, unknown>): void;
  /** Time since the previous mark (or process start), as a stage of its own. */
  markSince(stage: string): void;
}

export const NO_TIMINGS: Timings = { mark() {}, markSince() {} };
