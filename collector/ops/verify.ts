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
// Two modes, one implementation of each check (the daily job's cost must not grow with the archive's
// age). Each check below takes a scope; a full verify gives it the whole archive,
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
//     days (default 28; chosen by --today's UTC day number mod N), and every object stored.jsonl names
//     in the slice checked present, so a deleted stored file is found within the cycle as a corrupted
//     one is (verify-objects.ts checkPresence); and each shard's listing compared with the one its
//     previous scrub recorded (verify-listings.ts): objects are never deleted, so any key listed then
//     and not now, even one only old rows or rosters reference, is named on its shard's next day.
//     What only a full verify catches: an edit to an old row, roster or run line that still validates
//     (the chain pins them; the weekly full verify re-reads them), and a bad object no new row
//     references until its shard's day (a deleted one it names sooner, by name, when referenced).
//
// verifyArchive itself runs full unless asked for `mode: 'auto'` (migrate and the tests want the
// whole archive); the CLI asks for auto unless --full. The state (verify-state.json,
// LAYOUT.verifyState: the head, and the scrub's shard listings, written to the store first) is written
// only when asked (`--record`) and only after a verify with zero problems, so a failed verify never
// advances it. A state that does not match chain.jsonl (rewritten
// history) makes the verify a full one, and the report says why.
// Every file is read through src/archive/ (the same readers and the same messages as the site's
// loader), objects through an ObjectStore (the archive folder, or a bucket: objects are listed with
// its list(), never by reading data/objects/, which may be an empty cache); day files line by line,
// so memory stays flat as the archive grows.
//
// The parts, by concern: verify-types.ts (the report, options, scope, context), verify-scope.ts (what a
// verify reads: full, incremental, a part; the scrub's slice; the recorded state), verify-objects.ts
// (the store: scrub, presence, referenced objects, stored files), verify-listings.ts (each shard's
// listing against the one recorded), verify-rows.ts (rosters, rows, runs,
// leftovers, validation records), verify-chain.ts, verify-editions.ts, verify-report.ts (the text),
// verify-plan.ts (how many parts a full verify needs).
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EntryCache } from '../../src/archive/objects.ts';
import { FsObjectStore } from '../../src/archive/object-store.ts';
import { verifyChain } from './verify-chain.ts';
import { verifyEditions } from './verify-editions.ts';
import { checkListings, putListings, type PendingListing } from './verify-listings.ts';
import { bringStored, checkObjectFolders, checkReferences } from './verify-objects.ts';
import { checkLeftovers, checkRosters, checkRows, checkRuns, checkValidations } from './verify-rows.ts';
import { partScope, planScope, readVerifyState, recordState, scrubSlice } from './verify-scope.ts';
import { DEFAULT_SCRUB_CYCLE_DAYS, SHARDS, type Ctx, type VerifyOptions, type VerifyReport } from './verify-types.ts';

export { formatReport } from './verify-report.ts';
export { dayInPart, partShards, readVerifyState, scrubSlice } from './verify-scope.ts';
export { DEFAULT_SCRUB_CYCLE_DAYS, SHARDS, VERIFY_STATE_FORMAT, VerifyState, type Finding, type VerifyOptions, type VerifyReport } from './verify-types.ts';

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
    scrub: { first: 0, last: SHARDS - 1, cycleDay: 1, cycleDays: DEFAULT_SCRUB_CYCLE_DAYS, keys: 0, named: 0 },
    listings: { compared: 0, first: 0, recorded: 0 },
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
    listed: new Map(),
    listFailed: new Set(),
    keepListing: () => false,
    problem: (kind, where, message) => report.problems.push({ kind, where, message }),
    warn: (kind, where, message) => report.warnings.push({ kind, where, message }),
  };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    ctx.problem('archive', dir, 'not a directory');
    report.ms = performance.now() - started;
    return report;
  }

  const state = readVerifyState(dir);
  const listings = options.scrubListings ?? true;
  const recordable = listings && !!options.record && !options.part;
  const recorded = state.state?.scrub_listings ?? {};
  ctx.keepListing = (shard) => listings && (recordable || shard in recorded);
  const cycleDays = options.scrubCycleDays ?? (state.state?.scrub_cycle_days ?? DEFAULT_SCRUB_CYCLE_DAYS);
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const slice = scrubSlice(today, cycleDays);
  report.scrub = { ...slice, cycleDay: slice.cycleDay + 1, cycleDays, keys: 0, named: 0 };
  if (options.part && (!Number.isInteger(options.part.n) || options.part.n < 1 || options.part.n > 64 || !Number.isInteger(options.part.k) || options.part.k < 1 || options.part.k > options.part.n)) {
    throw new Error(`a part is k/n with 1 <= k <= n <= 64, not ${options.part.k}/${options.part.n}`);
  }
  const scope = options.part ? partScope(dir, options.part, report) : planScope(dir, options.mode ?? 'full', state, report, slice);

  // 0. Files kept in the object store (stored.jsonl): those of the scope are brought into the folder
  // for the checks below and removed again after them; each one's object is a referenced object.
  const brought = await bringStored(ctx, scope);
  let pending: PendingListing[] = [];
  try {
    await checkObjectFolders(ctx, scope); // 1. objects and packed pages of the scope's shards
    checkRosters(ctx, scope); // 2. rosters
    await checkRows(ctx, scope); // 3. rows, per series
    checkRuns(ctx, scope); // 4. run rows against rows and rosters
    await checkReferences(ctx); // 5. every referenced object exists and is sound
    // 5b. every key the shards' recorded listings hold is listed again (verify-listings.ts)
    if (listings) pending = await checkListings(ctx, scope, state.state, today, recordable);
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
  else if (options.record) {
    // The listings are written before the state that names them, and only when the state may be recorded.
    const written = report.problems.length === 0 && report.chain?.head ? await putListings(ctx, pending) : false;
    recordState(dir, report, cycleDays, options.now?.() ?? new Date(), state.state, written ? pending : []);
  }
  report.ms = performance.now() - started;
  return report;
}
