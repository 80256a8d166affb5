// The shapes one `npm run verify` shares between its parts (verify.ts runs them; verify-scope.ts says
// what a verify reads, verify-objects.ts the object store's checks, verify-rows.ts the rows', runs' and
// rosters', verify-report.ts prints the report): the report, the options, the scope and the context.
import { z } from 'zod';
import type { EntryCache } from '../../src/archive/objects.ts';
import type { ObjectStore } from '../../src/archive/object-store.ts';
import type { NotAttemptedReason, Outcome } from '../../src/lib/index.ts';
import type { ChainReport, Finding, TrustedKey } from './verify-chain.ts';

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
    /**
     * The listing of each shard the scrub last recorded (verify-listings.ts): the SHA-256 of its object
     * (scrub/<shard>/<sha256>.txt.gz in the store), how many keys it holds, and the UTC day it was listed.
     * The shard's next scrub must list every one of those keys again (objects are never deleted).
     */
    scrub_listings: z.record(z.string().regex(/^[0-9a-f]{2}$/), z.object({ sha256: SHA256, keys: z.number().int().nonnegative(), day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) }).strict()).optional(),
  })
  .strict();
export type VerifyState = z.infer<typeof VerifyState>;
export type ScrubListingRef = NonNullable<VerifyState['scrub_listings']>[string];

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
  /**
   * The rotating scrub: shards first..last of 256 listed and re-hashed (full: 0..255), on day cycleDay
   * (1-based) of a cycleDays cycle; `named`: the objects stored.jsonl names in those shards, each
   * checked present (a deletion is found within the cycle).
   */
  scrub: { first: number; last: number; cycleDay: number; cycleDays: number; keys: number; named: number };
  /**
   * The scrub's listings (verify-listings.ts): shards whose listing was compared with the one recorded
   * for them (every key recorded then listed again), shards listed for the first time with --record
   * (nothing to compare with: recorded without a comparison), and the listings written with --record.
   */
  listings: { compared: number; first: number; recorded: number };
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
  /**
   * Compare the scrub's shard listings with those verify-state.json records, and record new ones with
   * --record (default true). False when the store is not the primary one (--against a copy: the copy
   * holds no listings, and what it lacks is checked by name).
   */
  scrubListings?: boolean;
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

/** What one run's rows of one series hold (v2: statuses, eras and requests too). */
export interface RunTally {
  outcomes: Record<Outcome, number>;
  reasons: Record<NotAttemptedReason, number>;
  statuses: Map<string, number>;
  eras: Map<string, number>;
  requests: number;
  first: string;
}

/** What a check reads: null is everything; otherwise the days (of day files, of run rows) and roster files. */
export interface Scope {
  days: Set<string> | null;
  rosters: Set<string> | null;
  shards: { first: number; last: number };
  /** Lines of chain.jsonl pinned by the verified head (0: none). */
  chainLines: number;
}

/** The shared state of one verify: the report, where objects are, and what has been hashed already. */
export interface Ctx {
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
  /** What the scrub listed, by shard (hex): each key with its size (null when the store does not say). */
  listed: Map<string, Map<string, number | null>>;
  /** Whether a shard's listing is kept in `listed`: it has a recorded listing to compare with, or this verify may record one (a full verify's memory stays that of its keys' names otherwise). */
  keepListing(shard: string): boolean;
  /** Shards whose listing failed (no comparison, no record: the failure is a problem). */
  listFailed: Set<string>;
  problem(kind: string, where: string, message: string): void;
  warn(kind: string, where: string, message: string): void;
}
