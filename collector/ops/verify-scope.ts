// What a verify reads (verify.ts runs it): the whole archive, the runs after the verified head
// (incremental, from verify-state.json), or part k of n of a full verify; the scrub's slice of the 256
// object shards for a UTC day; and the state a verify with zero problems records.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../../src/archive/atomic.ts';
import { readChain, runsByRun } from '../../src/archive/chain.ts';
import { listDays } from '../../src/archive/day-files.ts';
import { chainPath, LAYOUT, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { listDaysWithStored, readStoredIndex, rosterFilesWithStored, rowFoldersWithStored } from '../../src/archive/stored-files.ts';
import { chainHash, RUN_SERIES } from '../../src/lib/index.ts';
import { oneLine } from '../errors.ts';
import { SHARDS, VERIFY_STATE_FORMAT, VerifyState, type Scope, type ScrubListingRef, type VerifyReport } from './verify-types.ts';

/** Whether a day is in part k of n: its month counted from year 0, mod n. */
export function dayInPart(day: string, part: { k: number; n: number }): boolean {
  const months = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;
  return months % part.n === part.k - 1;
}

/** The object shards of part k of n: consecutive slices of the 256. */
export function partShards(part: { k: number; n: number }): { first: number; last: number } {
  return { first: Math.floor(((part.k - 1) * SHARDS) / part.n), last: Math.floor((part.k * SHARDS) / part.n) - 1 };
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
export function partScope(dir: string, part: { k: number; n: number }, report: VerifyReport): Scope {
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

export function planScope(dir: string, mode: 'full' | 'auto', state: ReturnType<typeof readVerifyState>, report: VerifyReport, slice: { first: number; last: number }): Scope {
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

/** After a verify with zero problems: the chain's head as verified becomes the state (written atomically). */
export function recordState(dir: string, report: VerifyReport, cycleDays: number, now: Date, previous: VerifyState | null = null, listings: readonly { shard: string; ref: ScrubListingRef }[] = []): void {
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
  // The shards listed now replace their recorded listings; the others keep theirs (a failed verify never gets here).
  const scrubListings = { ...(previous?.scrub_listings ?? {}) };
  for (const l of listings) scrubListings[l.shard] = l.ref;
  if (Object.keys(scrubListings).length > 0) state.scrub_listings = Object.fromEntries(Object.entries(scrubListings).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeAtomic(join(dir, LAYOUT.verifyState), Buffer.from(`${JSON.stringify(VerifyState.parse(state), null, 2)}\n`), { durable: true });
  report.recorded = true;
}

/** The bytes of the first `lines` LF-terminated lines, or null when there are fewer. */
export function linesPrefix(bytes: Buffer, lines: number): Buffer | null {
  let end = 0;
  for (let i = 0; i < lines; i++) {
    const lf = bytes.indexOf(0x0a, end);
    if (lf < 0) return null;
    end = lf + 1;
  }
  return bytes.subarray(0, end);
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
