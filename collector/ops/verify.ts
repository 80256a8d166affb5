// `npm run verify`: checks an archive and exits non-zero on any problem.
// What it promises readers: every row validates against its series' contract (observations/ Observation,
// observations-v2/ ObservationV2), every object a row or roster points at exists and its bytes hash to
// its name (v2: the handshake and every tools/list page too), one row per target per run and series,
// run rows agree with their series' rows and rosters (not_attempted rows and their reasons included;
// v2 statuses, eras and requests), the two rows of a run recording both series agree on its facts, no
// torn line or orphan temp file is left behind, and the hash chain (chain.jsonl) still matches every
// run it covers, its signatures verify, and its first broken link is named by its run (verify-chain.ts),
// and every validation gate record (validations/) is sound and hashes to its name.
//
// Two modes, one implementation of each check (issue 23 item 3: the daily job's cost must not grow
// with the archive's age). Each check below takes a scope; a full verify gives it the whole archive,
// an incremental one the runs after the last verified head:
//
//   - full (`--full`, or no usable state): every object and page manifest, roster, day file, run row
//     and chain manifest.
//   - incremental (the CLI's default once verify-state.json holds a head that chain.jsonl still has,
//     byte for byte through that line): the chain from the head on (each later manifest's link,
//     signature and its run's digest, computed for those runs only); the new runs' run rows, their
//     rows in every series' day files (the days of the new runs, and any day file dated after the
//     head's day), their roster files, and every object those rows and rosters reference (hashed
//     through the ObjectStore); the cheap archive-wide invariants (every line of runs.jsonl parses,
//     run ids are unique and their two series' rows agree, runs.jsonl and the chain list the same runs
//     in order, no temp file in the archive root, rosters/ or the series folders, editions match their
//     sums); and a rotating scrub: the objects and page manifests of shards first..last (by the first
//     hex byte of the name, 256 shards) re-hashed, and those local shard folders read for temp files,
//     a different slice each UTC day, so that every stored object is re-checked once per cycle of N
//     days (default 28; chosen by --today's UTC day number mod N). What only a full verify catches: an
//     edit to an old row, roster or run line that still validates (the chain pins them; the weekly
//     full verify re-reads them), and a bad object no new row references until its shard's day.
//
// verifyArchive itself runs full unless asked for `mode: 'auto'` (migrate and the tests want the
// whole archive); the CLI asks for auto unless --full. The state (verify-state.json,
// LAYOUT.verifyState) is written only when asked (`--record`) and only after a verify with zero
// problems, so a failed verify never advances it. A state that does not match chain.jsonl (rewritten
// history) makes the verify a full one, and the report says why.
// Every file is read through src/archive/ (the same readers and the same messages as the site's
// loader), objects through an ObjectStore (the archive folder, or a bucket: objects are listed with
// its list(), never by reading data/objects/, which may be an empty cache); day files line by line,
// so memory stays flat as the archive grows.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { writeAtomic } from '../../src/archive/atomic.ts';
import { readChain, runsByRun } from '../../src/archive/chain.ts';
import { listDays, tornLastLine } from '../../src/archive/day-files.ts';
import { chainPath, DAY_FILE, isObjectName, LAYOUT, runsPath, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { checkObjectIn, EntryCache } from '../../src/archive/objects.ts';
import { FsObjectStore, type ObjectStore } from '../../src/archive/object-store.ts';
import { observationLines, observationV2Lines, type ObservationLine } from '../../src/archive/observations.ts';
import { readRoster, rosterEntries } from '../../src/archive/rosters.ts';
import { runLines } from '../../src/archive/runs.ts';
import { readValidations } from '../../src/archive/validations.ts';
import { isLocal, listDaysWithStored, materialize, readStoredIndex, rosterFilesWithStored, rowFoldersWithStored, storedDay } from '../../src/archive/stored-files.ts';
import { chainHash, isRunV2, NOT_ATTEMPTED_REASONS, RUN_SERIES, type NotAttemptedReason, type Observation, type ObservationV2, type Outcome, OUTCOMES } from '../../src/lib/index.ts';
import { oneLine } from '../errors.ts';
import { verifyChain, type ChainReport, type Finding, type TrustedKey } from './verify-chain.ts';
import { verifyEditions } from './verify-editions.ts';

export type { Finding };

/** Shards of the object store: objects/<aa>/ and pages/<aa>/, by the first hex byte of the name. */
export const SHARDS = 256;
/** Days in a scrub cycle unless the state or --scrub-days says otherwise: every object at least monthly. */
export const DEFAULT_SCRUB_CYCLE_DAYS = 28;
export const VERIFY_STATE_FORMAT = 'mcp-schema/verify-state@1';

const SHA256 = z.string().regex(/^[0-9a-f]{64}$/);
/** verify-state.json: the last chain head a verify with zero problems covered. */
export const VerifyState = z
  .object({
    format: z.literal(VERIFY_STATE_FORMAT),
    /** The head manifest's seq and hash (chainHash). */
    chain_seq: z.number().int().nonnegative(),
    chain_head: SHA256,
    /** chain.jsonl's lines through the head (its 1-based line number), and the SHA-256 of those lines' bytes. */
    chain_lines: z.number().int().positive(),
    chain_sha256: SHA256,
    verified_at: z.string().datetime({ offset: true }),
    scrub_cycle_days: z.number().int().min(1).max(366),
  })
  .strict();
export type VerifyState = z.infer<typeof VerifyState>;

export interface VerifyReport {
  dir: string;
  /** What ran: the whole archive, or the runs after the verified head. */
  mode: 'full' | 'incremental';
  /** Why a full verify ran although an incremental one was asked for (no state, or rewritten history); null otherwise. */
  fallback: string | null;
  /** Incremental: the verified head it started from. */
  since: { seq: number; hash: string; verified_at: string } | null;
  /** The run ids whose run rows were checked against their rows and roster, and the days whose day files were read. */
  scope: { runs: string[]; days: string[] };
  /** Day files read. */
  dayFiles: number;
  /** Rows read (each validated). */
  rows: number;
  /** Run rows checked against their rows and roster. */
  runs: number;
  /** Roster files read (each validated). */
  rosters: number;
  /** Objects and packed pages hashed (present ones; missing ones are problems). */
  objects: number;
  /** Distinct objects the checked rows and rosters reference. */
  referenced: number;
  /** The rotating scrub: shards first..last of 256 listed and re-hashed (full: 0..255), on day cycleDay (1-based) of a cycleDays cycle. */
  scrub: { first: number; last: number; cycleDay: number; cycleDays: number; keys: number };
  /** Entries of packed pages read from the store to check their joins, and reads saved by holding them (a day's pages repeat the day before's entries). */
  pageEntries: { read: number; reused: number };
  /** The part of a full verify this was (VerifyOptions.part), or null. */
  part: { k: number; n: number } | null;
  /** Closed files kept in the object store (stored.jsonl) that this verify covered, and how many it brought from the store to read. */
  stored: { named: number; brought: number };
  problems: Finding[];
  warnings: Finding[];
  /** The hash chain: its length, the manifests checked, and its head (null when the archive has none yet). */
  chain: (Pick<ChainReport, 'manifests' | 'checked' | 'head'>) | null;
  /** Edition folders checked (editions/<id>/). */
  editions: number;
  /** Whether verify-state.json was written; why not when --record was asked and it was not. */
  recorded: boolean;
  notRecorded: string | null;
  /** Wall time of the verify, ms. */
  ms: number;
}

export interface VerifyOptions {
  /** Public keys the chain's signatures are checked against (the repo's keys/ by default in the CLI). */
  keys?: readonly TrustedKey[];
  /** Where objects/ and pages/ are (default: the archive folder, FsObjectStore(dir)). */
  objects?: ObjectStore;
  /** 'full' (the default here): the whole archive. 'auto' (the CLI's default): incremental from verify-state.json when it matches the chain, else full. */
  mode?: 'full' | 'auto';
  /** The UTC day (YYYY-MM-DD) the scrub's slice is chosen by (default: today). */
  today?: string;
  /** Days in a scrub cycle (default: the state's, else 28). */
  scrubCycleDays?: number;
  /** Write verify-state.json when the verify finds zero problems (`--record`). */
  record?: boolean;
  /** Objects hashed at once (a bucket answers one request at a time per connection; default 16). */
  concurrency?: number;
  /** The clock verified_at is read from (tests). */
  now?: () => Date;
  /**
   * Part k of n (1-based) of a full verify, so a weekly full verify runs as n jobs side by side, each
   * with 1/n of the days on its disk: the days of every n-th month (month number mod n), the rosters
   * of those days, 1/n of the 256 object shards, and the chain's links and signatures whole (its
   * digests only for the part's runs). Every part together covers what one full verify covers.
   * Never recorded (each part sees part of the archive).
   */
  part?: { k: number; n: number };
}

/** Whether a day is in part k of n: its month counted from year 0, mod n. */
export function dayInPart(day: string, part: { k: number; n: number }): boolean {
  const months = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;
  return months % part.n === part.k - 1;
}

/** The object shards of part k of n: consecutive slices of the 256. */
export function partShards(part: { k: number; n: number }): { first: number; last: number } {
  return { first: Math.floor(((part.k - 1) * SHARDS) / part.n), last: Math.floor((part.k * SHARDS) / part.n) - 1 };
}

const MAX_LISTED = 200;

/** What one run's rows of one series hold (v2: statuses, eras and requests too). */
interface RunTally {
  outcomes: Record<Outcome, number>;
  reasons: Record<NotAttemptedReason, number>;
  statuses: Map<string, number>;
  eras: Map<string, number>;
  requests: number;
  first: string;
}

/** What a check reads: null is everything; otherwise the days (of day files, of run rows) and roster files. */
interface Scope {
  days: Set<string> | null;
  rosters: Set<string> | null;
  shards: { first: number; last: number };
  /** Lines of chain.jsonl pinned by the verified head (0: none). */
  chainLines: number;
}

/** The shared state of one verify: the report, where objects are, and what has been hashed already. */
interface Ctx {
  dir: string;
  report: VerifyReport;
  store: ObjectStore;
  concurrency: number;
  /** Object names checked (or being checked): whoever adds a name reports what is wrong with it. */
  checked: Set<string>;
  /** Entries of packed pages already read and hashed in this verify: a day's pages repeat the day before's entries. */
  entries: EntryCache;
  /** Object names referenced by the rows and rosters read, with the first place that refers to each. */
  referenced: Map<string, string>;
  /** What the run checks need of each roster read: only whether it was complete (a roster is ≈ 14 MB in memory at 42,000 targets, so none is kept). */
  rosters: Map<string, { complete: boolean }>;
  perRun: Map<string, RunTally>;
  problem(kind: string, where: string, message: string): void;
  warn(kind: string, where: string, message: string): void;
}

export async function verifyArchive(dir: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const started = performance.now();
  const report: VerifyReport = {
    dir,
    mode: 'full',
    fallback: null,
    since: null,
    scope: { runs: [], days: [] },
    dayFiles: 0,
    rows: 0,
    runs: 0,
    rosters: 0,
    objects: 0,
    referenced: 0,
    scrub: { first: 0, last: SHARDS - 1, cycleDay: 1, cycleDays: DEFAULT_SCRUB_CYCLE_DAYS, keys: 0 },
    stored: { named: 0, brought: 0 },
    pageEntries: { read: 0, reused: 0 },
    part: null,
    problems: [],
    warnings: [],
    chain: null,
    editions: 0,
    recorded: false,
    notRecorded: null,
    ms: 0,
  };
  const ctx: Ctx = {
    dir,
    report,
    store: options.objects ?? new FsObjectStore(dir),
    concurrency: Math.max(1, options.concurrency ?? 16),
    checked: new Set(),
    entries: new EntryCache(),
    referenced: new Map(),
    rosters: new Map(),
    perRun: new Map(),
    problem: (kind, where, message) => report.problems.push({ kind, where, message }),
    warn: (kind, where, message) => report.warnings.push({ kind, where, message }),
  };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    ctx.problem('archive', dir, 'not a directory');
    report.ms = performance.now() - started;
    return report;
  }

  const state = readVerifyState(dir);
  const cycleDays = options.scrubCycleDays ?? (state.state?.scrub_cycle_days ?? DEFAULT_SCRUB_CYCLE_DAYS);
  const slice = scrubSlice(options.today ?? new Date().toISOString().slice(0, 10), cycleDays);
  report.scrub = { ...slice, cycleDay: slice.cycleDay + 1, cycleDays, keys: 0 };
  if (options.part && (!Number.isInteger(options.part.n) || options.part.n < 1 || options.part.n > 64 || !Number.isInteger(options.part.k) || options.part.k < 1 || options.part.k > options.part.n)) {
    throw new Error(`a part is k/n with 1 <= k <= n <= 64, not ${options.part.k}/${options.part.n}`);
  }
  const scope = options.part ? partScope(dir, options.part, report) : planScope(dir, options.mode ?? 'full', state, report, slice);

  // 0. Files kept in the object store (stored.jsonl): those of the scope are brought into the folder
  // for the checks below and removed again after them; each one's object is a referenced object.
  const brought = await bringStored(ctx, scope);
  try {
    await checkObjectFolders(ctx, scope); // 1. objects and packed pages of the scope's shards
    checkRosters(ctx, scope); // 2. rosters
    await checkRows(ctx, scope); // 3. rows, per series
    checkRuns(ctx, scope); // 4. run rows against rows and rosters
    await checkReferences(ctx); // 5. every referenced object exists and is sound
    checkLeftovers(ctx); // 6. leftovers of a crash
    checkValidations(ctx); // 6b. the validation gate's records hash to their names (a handful of files: every mode)

    // 7. The hash chain (from the verified head on, incremental).
    const chain = await verifyChain(dir, options.keys ?? [], { verifiedLines: scope.chainLines, ...(scope.days && options.part ? { digestDays: scope.days } : {}) });
    report.problems.push(...chain.problems);
    report.warnings.push(...chain.warnings);
    report.chain = chain.manifests > 0 ? { manifests: chain.manifests, checked: chain.checked, head: chain.head } : null;
  } finally {
    for (const rel of brought) rmSync(join(dir, rel), { force: true });
    // A folder made only to hold brought files goes with them.
    for (const folder of new Set(brought.map((rel) => rel.slice(0, rel.indexOf('/'))))) {
      const at = join(dir, folder);
      if (existsSync(at) && readdirSync(at).length === 0) rmSync(at, { recursive: true, force: true });
    }
  }
  report.stored.brought = brought.length;
  report.pageEntries = { read: ctx.entries.misses, reused: ctx.entries.hits };

  // 8. Editions: unchanged since they were cut (small files, one folder a month: checked every time).
  const editions = await verifyEditions(dir, options.keys ?? []);
  report.problems.push(...editions.problems);
  report.warnings.push(...editions.warnings);
  report.editions = editions.editions;

  if (options.record && options.part) report.notRecorded = `part ${options.part.k}/${options.part.n} of a full verify: only a whole verify is recorded`;
  else if (options.record) recordState(dir, report, cycleDays, options.now?.() ?? new Date());
  report.ms = performance.now() - started;
  return report;
}

/**
 * Which UTC day of the scrub cycle `today` is (0-based), and the shards it re-hashes: consecutive
 * slices of the 256, so the cycleDays days of a cycle cover every shard exactly once.
 */
export function scrubSlice(today: string, cycleDays: number): { cycleDay: number; first: number; last: number } {
  const ms = Date.parse(`${today}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(today) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== today) throw new Error(`not a day (YYYY-MM-DD): ${JSON.stringify(today.slice(0, 40))}`);
  if (!Number.isInteger(cycleDays) || cycleDays < 1 || cycleDays > 366) throw new Error(`a scrub cycle is 1 to 366 days, not ${cycleDays}`);
  const day = Math.floor(ms / 86_400_000);
  const cycleDay = ((day % cycleDays) + cycleDays) % cycleDays;
  return { cycleDay, first: Math.floor((cycleDay * SHARDS) / cycleDays), last: Math.floor(((cycleDay + 1) * SHARDS) / cycleDays) - 1 };
}

/** verify-state.json, validated; `reason` says why there is none to use. */
export function readVerifyState(dir: string): { state: VerifyState; reason: null } | { state: null; reason: string } {
  const file = join(dir, LAYOUT.verifyState);
  if (!existsSync(file)) return { state: null, reason: `no verified head recorded yet (${LAYOUT.verifyState}; --record writes it after a verify with no problems)` };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { state: null, reason: `${LAYOUT.verifyState} is not JSON` };
  }
  const parsed = VerifyState.safeParse(value);
  if (!parsed.success) return { state: null, reason: `${LAYOUT.verifyState} is not a verify state (${oneLine(parsed.error.issues[0]?.message ?? 'invalid', 120)})` };
  return { state: parsed.data, reason: null };
}

/**
 * Whether chain.jsonl still holds the verified head: the manifest on the state's line has its seq and
 * hash, and the lines through it are the bytes that were verified (so no earlier manifest, signature
 * or line changed either). Returns why not, or null when it does.
 */
function stateMismatch(dir: string, state: VerifyState): string | null {
  const file = chainPath(dir);
  if (!existsSync(file)) return `${LAYOUT.chain} is gone`;
  const bytes = readFileSync(file);
  const prefix = linesPrefix(bytes, state.chain_lines);
  if (prefix === null) return `${LAYOUT.chain} has fewer than the ${state.chain_lines} lines verified on ${state.verified_at.slice(0, 10)} (history was cut)`;
  const head = readChain(dir).manifests.find((m) => m.n === state.chain_lines)?.manifest;
  const was = `the verified head was manifest ${state.chain_seq} (${state.chain_head.slice(0, 12)}…)`;
  if (!head) return `line ${state.chain_lines} of ${LAYOUT.chain} is not a manifest any more; ${was} (history was rewritten)`;
  if (head.seq !== state.chain_seq || chainHash(head) !== state.chain_head) return `line ${state.chain_lines} of ${LAYOUT.chain} is manifest ${head.seq} (${chainHash(head).slice(0, 12)}…); ${was} (history was rewritten)`;
  if (sha256(prefix) !== state.chain_sha256) return `${LAYOUT.chain}'s lines before the verified head (manifest ${state.chain_seq}) changed since ${state.verified_at.slice(0, 10)} (history was rewritten)`;
  return null;
}

/** What this verify reads: everything, or (incremental) the runs after the verified head. Sets report.mode, fallback, since, scope. */
/** The scope of part k of n of a full verify (VerifyOptions.part). */
function partScope(dir: string, part: { k: number; n: number }, report: VerifyReport): Scope {
  const index = readStoredIndex(dir);
  const days = new Set<string>();
  for (const folder of rowFoldersWithStored(dir, index)) for (const d of listDaysWithStored(dir, folder, index)) if (dayInPart(d.day, part)) days.add(d.day);
  const runs = runsByRun(dir);
  for (const r of runs.values()) if (r.ref && dayInPart(r.ref.day, part)) days.add(r.ref.day);
  const rosters = new Set<string>();
  for (const r of runs.values()) if (r.ref && days.has(r.ref.day) && r.ref.roster_file !== null) rosters.add(r.ref.roster_file);
  for (const name of rosterFilesWithStored(dir, index)) if (dayInPart(name.slice(0, 10), part)) rosters.add(name);
  const shards = partShards(part);
  report.scrub.first = shards.first;
  report.scrub.last = shards.last;
  report.part = part;
  return { days, rosters, shards, chainLines: 0 };
}

function planScope(dir: string, mode: 'full' | 'auto', state: ReturnType<typeof readVerifyState>, report: VerifyReport, slice: { first: number; last: number }): Scope {
  const full: Scope = { days: null, rosters: null, shards: { first: 0, last: SHARDS - 1 }, chainLines: 0 };
  report.scrub.first = 0;
  report.scrub.last = SHARDS - 1;
  if (mode === 'full') return full;
  const why = state.state ? stateMismatch(dir, state.state) : state.reason;
  if (why !== null || !state.state) {
    report.fallback = why ?? 'no verify state';
    return full;
  }
  const s = state.state;
  // The runs after the head: runs.jsonl's order past the runs the chain covered through it (the
  // genesis's unchained runs and one per run manifest up to the head; verifyChain checks the order).
  const runs = runsByRun(dir);
  const order = [...runs.keys()];
  const pinned = readChain(dir).manifests.filter((m) => m.n <= s.chain_lines).map((m) => m.manifest);
  const genesis = pinned[0];
  const covered = (genesis?.kind === 'genesis' ? (genesis.unchained_runs ?? 0) : 0) + pinned.filter((m) => m.run_id !== null).length;
  const newRuns = order.slice(covered);
  const verifiedDays = order.slice(0, covered).map((id) => runs.get(id)?.ref?.day).filter((d): d is string => d !== undefined);
  const lastVerifiedDay = verifiedDays.length > 0 ? verifiedDays.reduce((a, b) => (a > b ? a : b)) : null;
  const days = new Set(newRuns.map((id) => runs.get(id)?.ref?.day).filter((d): d is string => d !== undefined));
  // Rows written after the head's day by a run with no run row yet (interrupted) are new too.
  for (const series of RUN_SERIES) for (const d of listDays(dir, SERIES_FOLDER[series])) if (lastVerifiedDay === null || d.day > lastVerifiedDay) days.add(d.day);
  const rosters = new Set<string>();
  for (const r of runs.values()) if (r.ref && days.has(r.ref.day) && r.ref.roster_file !== null) rosters.add(r.ref.roster_file);
  report.mode = 'incremental';
  report.since = { seq: s.chain_seq, hash: s.chain_head, verified_at: s.verified_at };
  report.scrub.first = slice.first;
  report.scrub.last = slice.last;
  return { days, rosters, shards: slice, chainLines: s.chain_lines };
}

/**
 * 1. Objects and packed listing pages of the scope's shards: each stored file is named by the SHA-256
 * of its bytes (a page manifest by the page it joins to, and joins to it exactly), listed through the
 * store; the local folders that exist are also read for strays and temp files a crash left.
 */
async function checkObjectFolders(ctx: Ctx, scope: Scope): Promise<void> {
  const { first, last } = scope.shards;
  const shards = Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => (first + i).toString(16).padStart(2, '0'));
  for (const folder of [LAYOUT.objects, LAYOUT.pages] as const) {
    checkLocalShards(ctx, folder, new Set(shards));
    // The whole store is one listing; a slice is one listing per shard (a bucket lists by prefix).
    const prefixes = shards.length === SHARDS ? [`${folder}/`] : shards.map((s) => `${folder}/${s}/`);
    for (const prefix of prefixes) {
      try {
        await inOrder(
          ctx.store.list(prefix),
          ctx.concurrency,
          (key) => {
            const name = key.slice(key.lastIndexOf('/') + 1).replace(/\.json$/, '');
            ctx.report.scrub.keys++;
            // A page also stored whole: that copy was hashed in objects/ (same shard).
            return (ctx.checked.has(name) ? null : firstCheck(ctx, name)) ?? Promise.resolve(null);
          },
          (key, check) => reportCheck(ctx, check, key, null),
        );
      } catch (e) {
        ctx.problem('object-store', prefix, `listing ${prefix} in ${ctx.store.description} failed: ${oneLine((e as Error).message, 200)}`);
      }
    }
  }
}

/** Strays and temp files in the local objects/ or pages/ folder (when it exists): its top level, and the given shards. */
function checkLocalShards(ctx: Ctx, folder: 'objects' | 'pages', shards: Set<string>): void {
  const root = join(ctx.dir, folder);
  if (!existsSync(root)) return;
  for (const shard of readdirSync(root).sort()) {
    const shardPath = join(root, shard);
    if (!statSync(shardPath).isDirectory()) {
      ctx.problem('orphan', rel(ctx.dir, shardPath), `stray file in ${folder}/`);
      continue;
    }
    if (!/^[0-9a-f]{2}$/.test(shard)) {
      ctx.problem('orphan', rel(ctx.dir, shardPath), `not a shard folder of ${folder}/`);
      continue;
    }
    if (!shards.has(shard)) continue;
    for (const file of readdirSync(shardPath).sort()) {
      const name = folder === LAYOUT.pages ? file.replace(/\.json$/, '') : file;
      const ok = isObjectName(name) && name.startsWith(shard) && (folder === LAYOUT.objects || file.endsWith('.json'));
      if (!ok) ctx.problem('orphan', rel(ctx.dir, join(shardPath, file)), folder === LAYOUT.pages ? 'not a page manifest (temp file left by a crash?)' : 'not a content-addressed object (temp file left by a crash?)');
    }
  }
}

type ObjectCheck = Awaited<ReturnType<typeof checkObjectIn>> | { ok: false; missing: false; unreadable: true; message: string };

/** Check an object (or packed page) not checked yet; null when it was, or is being, checked (that check reports it). */
function firstCheck(ctx: Ctx, sha: string): Promise<ObjectCheck> | null {
  if (ctx.checked.has(sha)) return null;
  ctx.checked.add(sha);
  return checkObjectIn(ctx.store, sha, ctx.entries).catch((e: unknown) => ({ ok: false as const, missing: false as const, unreadable: true as const, message: `${ctx.store.description} did not answer: ${oneLine((e as Error).message, 200)}` }));
}

/** A check's finding, reported at the object's key (scrub) or at the place that refers to it. */
function reportCheck(ctx: Ctx, check: ObjectCheck | null, where: string, refName: string | null): void {
  if (check === null) return;
  if (check.ok || !check.missing) ctx.report.objects++;
  if (check.ok) return;
  const what = refName ? `object ${refName.slice(0, 12)}…: ` : '';
  if ('unreadable' in check) ctx.problem('object-unreadable', where, `${what}${check.message}`);
  else if (check.missing) ctx.problem('object-missing', where, refName ? `object ${refName.slice(0, 12)}… is missing` : check.message);
  else ctx.problem('object-corrupt', where, `${what}${check.message}`);
}

function refer(ctx: Ctx, sha: string | null, where: string): void {
  if (sha && !ctx.referenced.has(sha)) ctx.referenced.set(sha, where);
}

/**
 * 0. The stored files of the scope (every one in a full verify; the scope's days and rosters in an
 * incremental one): the index must parse, each file's object must exist and hash to its line (a
 * referenced object, checked in step 5), and a file the folder lacks is brought from the store so
 * steps 2–4 and the chain read it as they read any other. Returns what was brought (removed afterwards).
 */
async function bringStored(ctx: Ctx, scope: Scope): Promise<string[]> {
  const index = readStoredIndex(ctx.dir);
  for (const p of index.problems) ctx.problem('stored-invalid', `${p.file}:${p.line}`, p.message);
  const brought: string[] = [];
  for (const line of index.files.values()) {
    const day = storedDay(line.path);
    const roster = line.path.startsWith(`${LAYOUT.rosters}/`) ? line.path.slice(LAYOUT.rosters.length + 1, -'.gz'.length) : null;
    const inScope = roster !== null ? scope.rosters === null || scope.rosters.has(roster) : scope.days === null || scope.days.has(day);
    if (!inScope) continue;
    ctx.report.stored.named++;
    refer(ctx, line.sha256, `${LAYOUT.stored}: ${line.path}`);
    if (isLocal(ctx.dir, line.path)) continue;
    try {
      await materialize(ctx.dir, line.path, index, ctx.store);
      brought.push(line.path);
    } catch (error) {
      ctx.problem('stored-missing', line.path, (error as Error).message);
    }
  }
  return brought;
}

/** 2. Rosters: every entry of rosters/ (incremental: the scope's roster files, and any entry that is not a roster). */
function checkRosters(ctx: Ctx, scope: Scope): void {
  for (const file of rosterEntries(ctx.dir)) {
    const where = `${LAYOUT.rosters}/${file}`;
    if (!file.endsWith('.json')) {
      ctx.problem('orphan', where, 'not a roster file (temp file left by a crash?)');
      continue;
    }
    if (scope.rosters && !scope.rosters.has(file)) continue;
    const r = readRoster(ctx.dir, file);
    if (!r.ok) {
      ctx.problem('roster-invalid', where, r.message);
      continue;
    }
    const roster = r.value;
    ctx.rosters.set(file, { complete: roster.complete });
    ctx.report.rosters++;
    roster.pages.forEach((p, i) => refer(ctx, p.sha256, `${where} page ${i}`));
    const failedPage = roster.pages.some((p) => p.sha256 === null || p.error !== null);
    if (roster.complete && failedPage) ctx.problem('roster-complete', where, 'complete: true but a page failed');
    const last = roster.pages[roster.pages.length - 1];
    if (roster.complete && last && last.next_cursor !== null && last.count !== 0) {
      ctx.problem('roster-complete', where, 'complete: true but the last page still points to a next page');
    }
  }
}

/**
 * 3. Observation rows of the scope's days, line by line, per series (observations/ v1, observations-v2/
 * v2): each folder holds rows of its own series only, validated by that series' contract. A run's
 * rows are all in its day's files, so per-run tallies and duplicates are complete for every day read.
 */
async function checkRows(ctx: Ctx, scope: Scope): Promise<void> {
  const { dir, report } = ctx;
  // series \0 run_id \0 target, of the day being read: a run's rows are all in its day's files (a row
  // elsewhere is misfiled, reported below), so a duplicate is always within a day. Kept per day, so a
  // full verify's memory does not grow by a key per row of the whole archive (≈ 5 MB a day at 42,000 targets).
  let seen = new Set<string>();
  const days = new Set<string>();
  for (const series of RUN_SERIES) {
    const folder = SERIES_FOLDER[series];
    const obsDir = join(dir, folder);
    for (const file of existsSync(obsDir) ? readdirSync(obsDir).sort() : []) {
      if (!DAY_FILE.test(file)) ctx.problem('orphan', `${folder}/${file}`, 'not a day file (temp file left by a crash?)');
    }
    for (const day of listDays(dir, folder)) {
      if (scope.days && !scope.days.has(day.day)) continue;
      days.add(day.day);
      seen = new Set();
      report.dayFiles += day.files.length;
      for (const file of day.files) if (!file.endsWith('.gz') && tornLastLine(join(dir, file))) ctx.problem('torn-line', file, 'last line has no newline (an interrupted append)');
      try {
        const lines = series === 'v1' ? observationLines(dir, day) : observationV2Lines(dir, day);
        for await (const { row: r, file, n } of lines as AsyncGenerator<ObservationLine<Observation | ObservationV2>>) {
          const at = `${file}:${n}`;
          if (!r) {
            ctx.problem('row-invalid', at, 'empty line');
            continue;
          }
          if (!r.ok) {
            ctx.problem('row-invalid', at, r.message);
            continue;
          }
          const row = r.value;
          report.rows++;
          if (row.day !== day.day) ctx.problem('row-misfiled', at, `row of day ${row.day} in the file of ${day.day}`);
          if (row.methodology_version !== series) ctx.problem('row-invalid', at, `a recorded row names series ${row.methodology_version}; only restatements may`);
          const key = `${series}\0${row.run_id}\0${row.target}`;
          if (seen.has(key)) ctx.problem('row-duplicate', at, `second row for target ${oneLine(row.target, 80)} in run ${row.run_id}`);
          seen.add(key);
          refer(ctx, row.body_sha256, at);
          refer(ctx, row.registry_page_sha256, at);
          const runKey = `${series}\0${row.run_id}`;
          let run = ctx.perRun.get(runKey);
          if (!run) ctx.perRun.set(runKey, (run = { outcomes: zeroOutcomes(), reasons: zeroReasons(), statuses: new Map(), eras: new Map(), requests: 0, first: at }));
          run.outcomes[row.outcome]++;
          if (row.not_attempted_reason) run.reasons[row.not_attempted_reason]++;
          if ('era' in row) {
            // v2: the handshake and every tools/list page are stored, and the first page is body_sha256.
            refer(ctx, row.handshake_sha256, at);
            for (const sha of row.tools_pages_sha256 ?? []) refer(ctx, sha, at);
            if (row.tools_pages_sha256 && row.body_sha256 !== row.tools_pages_sha256[0]) ctx.problem('row-invalid', at, 'body_sha256 is not the first of tools_pages_sha256');
            if (row.status) run.statuses.set(row.status, (run.statuses.get(row.status) ?? 0) + 1);
            run.eras.set(row.era, (run.eras.get(row.era) ?? 0) + 1);
            if (row.outcome === 'ok' || row.outcome === 'error') run.requests += row.requests;
          }
        }
      } catch (e) {
        ctx.problem('day-file-corrupt', day.files.join(' + '), `unreadable: ${(e as Error).message.slice(0, 160)}`);
      }
    }
  }
  report.scope.days = [...days].sort();
}

/**
 * 4. Runs: every line of runs.jsonl parses, no run is recorded twice per series, and a run recording
 * both series has one row of each sharing the run's facts (all cheap: runs.jsonl is a line or two a
 * day). Each run row of a day in the scope agrees with its series' rows and its roster.
 */
function checkRuns(ctx: Ctx, scope: Scope): void {
  const { dir, report } = ctx;
  const runIds = new Set<string>(); // series \0 run_id
  const checkedRuns = new Set<string>();
  const shared = new Map<string, { day: string; roster_file: string | null; eligible: number; at: string }>();
  if (existsSync(runsPath(dir))) {
    if (tornLastLine(runsPath(dir))) ctx.problem('torn-line', LAYOUT.runs, 'last line has no newline (an interrupted append)');
    for (const { n, row: r } of runLines(dir)) {
      const at = `${LAYOUT.runs}:${n}`;
      if (!r || !r.ok) {
        ctx.problem('run-invalid', at, r ? r.message : 'empty line');
        continue;
      }
      const run = r.value;
      const series = run.methodology_version;
      const runKey = `${series}\0${run.run_id}`;
      if (runIds.has(runKey)) ctx.problem('run-duplicate', at, `run ${run.run_id} (${series}) recorded twice`);
      runIds.add(runKey);
      const other = shared.get(run.run_id);
      if (!other) shared.set(run.run_id, { day: run.day, roster_file: run.roster_file, eligible: run.eligible, at });
      else if (other.day !== run.day || other.roster_file !== run.roster_file || other.eligible !== run.eligible) {
        ctx.problem('run-series', at, `run ${run.run_id}: its ${series} row and the row at ${other.at} disagree on day, roster or eligible`);
      }
      if (scope.days && !scope.days.has(run.day)) continue; // its rows and roster were not read
      report.runs++;
      checkedRuns.add(run.run_id);
      const tally = ctx.perRun.get(runKey);
      const rows = tally?.outcomes ?? zeroOutcomes();
      const reasons = tally?.reasons ?? zeroReasons();
      const where = series === 'v1' ? 'the day files' : `the ${SERIES_FOLDER[series]} day files`;
      for (const o of OUTCOMES) {
        // Run rows written before not_attempted existed lack its count: it reads as 0.
        const said = run.outcomes[o] ?? 0;
        if (rows[o] !== said) ctx.problem('run-counts', at, `run ${run.run_id} says ${said} ${o} rows, ${where} hold ${rows[o]}`);
      }
      if (run.attempts !== rows.ok + rows.error) ctx.problem('run-counts', at, `attempts ${run.attempts} ≠ ok + error rows ${rows.ok + rows.error}`);
      // not_attempted targets are eligible ones the run did not contact: never more than eligible with the attempts.
      if (rows.ok + rows.error + rows.not_attempted > run.eligible) ctx.problem('run-counts', at, `attempts + not_attempted rows ${rows.ok + rows.error + rows.not_attempted} > eligible ${run.eligible}`);
      if (run.scheduling) {
        for (const why of NOT_ATTEMPTED_REASONS) {
          // A reason a run row lacks (one written before the reason existed) counts 0.
          if ((run.scheduling.not_attempted[why] ?? 0) !== reasons[why]) ctx.problem('run-counts', at, `run ${run.run_id} says ${run.scheduling.not_attempted[why] ?? 0} not_attempted (${why}) rows, ${where} hold ${reasons[why]}`);
        }
      }
      if (isRunV2(run)) {
        for (const [status, said] of Object.entries(run.statuses)) {
          const held = tally?.statuses.get(status) ?? 0;
          if (held !== said) ctx.problem('run-counts', at, `run ${run.run_id} says ${said} rows of status ${status}, ${where} hold ${held}`);
        }
        for (const [era, said] of Object.entries(run.eras)) {
          const held = tally?.eras.get(era) ?? 0;
          if (held !== said) ctx.problem('run-counts', at, `run ${run.run_id} says ${said} rows of era ${era}, ${where} hold ${held}`);
        }
        if (run.requests.total !== (tally?.requests ?? 0)) ctx.problem('run-counts', at, `run ${run.run_id} says ${run.requests.total} requests, ${where} count ${tally?.requests ?? 0}`);
      }
      if (run.roster_file !== null) {
        const roster = ctx.rosters.get(run.roster_file);
        if (!roster) ctx.problem('roster-missing', at, `roster ${run.roster_file} is missing`);
        else if (roster.complete !== run.roster_complete) ctx.problem('roster-complete', at, `run says roster_complete ${run.roster_complete}, the roster says ${roster.complete}`);
      }
      if (rows.retired > 0 && !run.roster_complete) ctx.problem('retired-on-incomplete', at, 'targets retired although the roster was incomplete');
    }
  }
  for (const [key, run] of ctx.perRun) {
    const [series, id] = key.split('\0') as [string, string];
    if (!runIds.has(key)) ctx.warn('run-unfinished', run.first, `rows of run ${id} (${series}) have no run row (interrupted and not resumed yet)`);
  }
  report.scope.runs = [...checkedRuns];
}

/** 5. Every object the rows and rosters read refer to exists and is sound (hashed now unless the scrub just did). */
async function checkReferences(ctx: Ctx): Promise<void> {
  ctx.report.referenced = ctx.referenced.size;
  await inOrder(
    ctx.referenced,
    ctx.concurrency,
    ([sha]) => firstCheck(ctx, sha) ?? Promise.resolve(null),
    ([sha, where], check) => reportCheck(ctx, check, where, sha),
  );
}

/** 6. Leftovers of a crash elsewhere: temp files in the archive root, quarantined bytes, a lock. */
function checkLeftovers(ctx: Ctx): void {
  const { dir } = ctx;
  for (const name of readdirSync(dir)) {
    if (/\.tmp|~$/.test(name)) ctx.problem('orphan', name, 'temp file in the archive root');
  }
  const quarantine = join(dir, LAYOUT.quarantine);
  for (const name of existsSync(quarantine) ? readdirSync(quarantine).sort() : []) {
    ctx.warn('quarantine', `${LAYOUT.quarantine}/${name}`, 'bytes set aside by a crash repair (kept for inspection, not part of the record)');
  }
  if (existsSync(join(dir, LAYOUT.lock))) ctx.warn('lock', LAYOUT.lock, 'a lock file is present (a run in progress, or a dead one the next run recovers)');
}

/** The validation gate's records (validations/, docs/VALIDATION.md): each a sound record whose bytes hash to its name. */
function checkValidations(ctx: Ctx): void {
  for (const p of readValidations(ctx.dir).problems) ctx.problem('validation', p.file, p.message);
}

/** After a verify with zero problems: the chain's head as verified becomes the state (written atomically). */
function recordState(dir: string, report: VerifyReport, cycleDays: number, now: Date): void {
  const head = report.chain?.head;
  if (report.problems.length > 0) {
    report.notRecorded = `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}: the verified head stays where it was`;
    return;
  }
  if (!head) {
    report.notRecorded = `no ${LAYOUT.chain}: an incremental verify starts from a chain head`;
    return;
  }
  const prefix = existsSync(chainPath(dir)) ? linesPrefix(readFileSync(chainPath(dir)), head.line) : null;
  const onLine = readChain(dir).manifests.find((m) => m.n === head.line)?.manifest;
  if (prefix === null || !onLine || chainHash(onLine) !== head.hash) {
    report.notRecorded = `${LAYOUT.chain} changed while it was verified`;
    return;
  }
  const state: VerifyState = {
    format: VERIFY_STATE_FORMAT,
    chain_seq: head.seq,
    chain_head: head.hash,
    chain_lines: head.line,
    chain_sha256: sha256(prefix),
    verified_at: now.toISOString(),
    scrub_cycle_days: cycleDays,
  };
  writeAtomic(join(dir, LAYOUT.verifyState), Buffer.from(`${JSON.stringify(VerifyState.parse(state), null, 2)}\n`), { durable: true });
  report.recorded = true;
}

export function formatReport(r: VerifyReport): string {
  const out: string[] = [];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (r.mode === 'incremental') {
    out.push(`mode: incremental, from the head verified on ${r.since!.verified_at} (manifest ${r.since!.seq}, ${r.since!.hash.slice(0, 12)}…)`);
  } else out.push(r.fallback ? `mode: full, not incremental: ${r.fallback}` : 'mode: full');
  const runs = r.mode === 'incremental' ? (r.scope.runs.length === 0 ? 'no new run' : `${plural(r.scope.runs.length, 'new run')} (${r.scope.runs.slice(0, 5).join(', ')}${r.scope.runs.length > 5 ? ', …' : ''})`) : `every run (${plural(r.scope.runs.length, 'run')})`;
  const chain = r.chain ? `; chain: ${r.chain.checked} of ${r.chain.manifests} manifests checked` : '';
  out.push(`covered: ${runs}: ${plural(r.runs, 'run row')}, ${plural(r.dayFiles, 'day file')}, ${plural(r.rows, 'row')}, ${plural(r.rosters, 'roster')}; ${plural(r.objects, 'object')} hashed (${r.referenced} referenced, ${plural(r.scrub.keys, 'key')} scrubbed)${chain}`);
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  const shards = r.scrub.first > r.scrub.last ? 'no shard today' : r.scrub.first === 0 && r.scrub.last === SHARDS - 1 ? `all ${SHARDS} shards` : `shards ${hex(r.scrub.first)}..${hex(r.scrub.last)} of ${SHARDS}`;
  if (r.pageEntries.read + r.pageEntries.reused > 0) out.push(`pages: ${r.pageEntries.read === 1 ? '1 entry' : `${r.pageEntries.read} entries`} read to check the packed pages' joins, ${r.pageEntries.reused} reads saved (entries repeated across pages)`);
  if (r.stored.named > 0) out.push(`stored: ${plural(r.stored.named, 'closed file')} named by ${LAYOUT.stored} covered, ${r.stored.brought} brought from the object store to be read`);
  out.push(`scrub: ${shards}${r.mode === 'incremental' ? ` (cycle day ${r.scrub.cycleDay}/${r.scrub.cycleDays})` : ''}, ${plural(r.scrub.keys, 'key')} listed`);
  out.push(`archive ${r.dir}: ${r.dayFiles} day files, ${r.rows} rows, ${r.runs} runs, ${r.rosters} rosters, ${r.objects} objects, ${r.editions} editions`);
  const h = r.chain?.head;
  if (h) out.push(`chain: ${r.chain!.manifests} manifests, head ${h.hash} (manifest ${h.seq}${h.run_id ? `, run ${h.run_id}` : ''}), ${h.key_id ? `signed by ${h.key_id}` : 'unsigned'}`);
  const broken = r.problems.find((p) => p.kind.startsWith('chain'));
  if (broken) out.push(`chain: first broken link: ${broken.message}`);
  for (const [label, list] of [['problem', r.problems], ['warning', r.warnings]] as const) {
    for (const f of list.slice(0, MAX_LISTED)) out.push(`${label}: ${f.kind} at ${f.where}: ${f.message}`);
    if (list.length > MAX_LISTED) out.push(`… and ${list.length - MAX_LISTED} more ${label}s`);
  }
  out.push(r.problems.length === 0 ? 'ok: no problems' : `FAILED: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}`);
  if (r.recorded) out.push(`state: recorded ${LAYOUT.verifyState} at manifest ${r.chain!.head!.seq}`);
  else if (r.notRecorded) out.push(`state: not recorded (${r.notRecorded})`);
  out.push(`time: ${(r.ms / 1000).toFixed(2)} s`);
  return out.join('\n');
}

/**
 * work(item) for each item, at most `limit` at once; done(item, result) in the items' order (so the
 * report reads the same however fast the store answers). `work` must not reject.
 */
async function inOrder<T, R>(items: Iterable<T> | AsyncIterable<T>, limit: number, work: (item: T) => Promise<R>, done: (item: T, result: R) => void): Promise<void> {
  const window: { item: T; result: Promise<R> }[] = [];
  for await (const item of items) {
    window.push({ item, result: work(item) });
    if (window.length >= limit) {
      const head = window.shift()!;
      done(head.item, await head.result);
    }
  }
  for (const { item, result } of window) done(item, await result);
}

/** The bytes of the first `lines` LF-terminated lines, or null when there are fewer. */
function linesPrefix(bytes: Buffer, lines: number): Buffer | null {
  let end = 0;
  for (let i = 0; i < lines; i++) {
    const lf = bytes.indexOf(0x0a, end);
    if (lf < 0) return null;
    end = lf + 1;
  }
  return bytes.subarray(0, end);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function zeroReasons(): Record<NotAttemptedReason, number> {
  return Object.fromEntries(NOT_ATTEMPTED_REASONS.map((o) => [o, 0])) as Record<NotAttemptedReason, number>;
}

function zeroOutcomes(): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
}

function rel(dir: string, path: string): string {
  return relative(dir, path);
}
