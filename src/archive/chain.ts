// The archive's hash chain on disk (chain.jsonl; methodology v1, "Verifiable history"): reading and
// validating it, computing what the archive holds for a run (the digest a manifest records), and
// appending manifests. The manifest's form, hash, signature and the comparison live in src/lib/chain.ts.
//
//   - A run's rows are the exact bytes of its lines (each with its LF) in every row-series folder
//     (observations/, observations-<series>/), per day file in file order; a compacted day is read
//     through its gzip, so compaction does not change a digest. A line is the run's when its run_id
//     is; the collector writes run_id first, so it is read from the line's start (JSON.parse only when
//     a line does not start that way).
//   - The objects of a run are the distinct object names in its rows' OBJECT_FIELDS and its roster's
//     pages: content-addressed, so their names pin their bytes (verify hashes every object).
//   - Appends are one write of whole lines, fsynced; a torn last line is cut by the collector's store
//     on its next start, like any other line file.
//   - Memory stays flat: digests are computed day by day and a run's object set lives while its day is read.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ChainManifest, chainLine, isObject, OBJECT_FIELDS, objectSetText, sealManifest, type ChainSigner, type RunDigest } from '../lib/index.ts';
import { listDays, readLines, splitLines, type DayFiles } from './day-files.ts';
import { chainPath, LAYOUT, ROSTER_FILE, ROW_SERIES_DIR, runsPath } from './layout.ts';
import { parseJson, type Problem } from './problems.ts';
import { readRosterBytes } from './rosters.ts';

export interface ChainLine {
  /** 1-based line number in chain.jsonl. */
  n: number;
  manifest: ChainManifest;
}

/** The manifests of chain.jsonl in file order, and the lines that failed validation. */
export function readChain(dir: string): { manifests: ChainLine[]; problems: Problem[] } {
  const file = chainPath(dir);
  const manifests: ChainLine[] = [];
  const problems: Problem[] = [];
  if (!existsSync(file)) return { manifests, problems };
  splitLines(readFileSync(file, 'utf8')).forEach((text, i) => {
    if (text.trim() === '') return;
    const parsed = parseJson(text, ChainManifest);
    if (parsed.ok) manifests.push({ n: i + 1, manifest: parsed.value });
    else problems.push({ file: LAYOUT.chain, line: i + 1, message: parsed.message });
  });
  return { manifests, problems };
}

/** The folders of row files runs write to (observations/ and any observations-<series>/), sorted. */
export function rowSeriesFolders(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => ROW_SERIES_DIR.test(name) && statSync(join(dir, name)).isDirectory())
    .sort();
}

/** The run a line belongs to, or null when it names none (not JSON, or no string run_id). */
export function lineRunId(line: string): string | null {
  const prefix = '{"run_id":"';
  if (line.startsWith(prefix)) {
    const end = line.indexOf('"', prefix.length);
    // A run id with an escape in it is read by JSON.parse below.
    if (end > 0 && !line.slice(prefix.length, end).includes('\\')) return line.slice(prefix.length, end);
  }
  try {
    const v: unknown = JSON.parse(line);
    return isObject(v) && typeof v.run_id === 'string' ? v.run_id : null;
  } catch {
    return null;
  }
}

// An object field's value as our writers put it (JSON.stringify, no whitespace): "<hex>" or ["<hex>",…].
const OBJECT_REF = new RegExp(`"(?:${OBJECT_FIELDS.join('|')})":("[0-9a-f]{64}"|\\[[^\\]]*\\])`, 'g');
const HEX = /[0-9a-f]{64}/g;

/** What a run row names (from runs.jsonl): its id, day and roster file. */
export interface RunRef {
  run_id: string;
  day: string;
  roster_file: string | null;
}

/** Per run id: its lines of runs.jsonl, in order (one per series it recorded), and the run's reference. */
export function runsByRun(dir: string): Map<string, { lines: string[]; ref: RunRef | null }> {
  const out = new Map<string, { lines: string[]; ref: RunRef | null }>();
  if (!existsSync(runsPath(dir))) return out;
  for (const line of splitLines(readFileSync(runsPath(dir), 'utf8'))) {
    const id = lineRunId(line);
    if (id === null) continue;
    const entry = out.get(id) ?? { lines: [], ref: null };
    entry.lines.push(line);
    if (!entry.ref) {
      try {
        const v = JSON.parse(line) as Partial<RunRef>;
        if (typeof v.day === 'string') entry.ref = { run_id: id, day: v.day, roster_file: typeof v.roster_file === 'string' ? v.roster_file : null };
      } catch {
        /* an unparseable run line still counts in the runs digest; verify reports it */
      }
    }
    out.set(id, entry);
  }
  return out;
}

/** Every run's digest, in one streaming pass over the day files (verify). Runs with no run row get rows only. */
export async function archiveDigests(dir: string): Promise<Map<string, RunDigest>> {
  const runs = runsByRun(dir);
  const byDay = new Map<string, string[]>();
  for (const [id, r] of runs) if (r.ref) byDay.set(r.ref.day, [...(byDay.get(r.ref.day) ?? []), id]);
  const days = new Map<string, DayFiles[]>();
  for (const folder of rowSeriesFolders(dir)) for (const d of listDays(dir, folder)) days.set(d.day, [...(days.get(d.day) ?? []), d]);
  for (const day of byDay.keys()) if (!days.has(day)) days.set(day, []);
  const out = new Map<string, RunDigest>();
  for (const day of [...days.keys()].sort()) {
    const finish = new Set(byDay.get(day) ?? []);
    const partial = await digestDay(dir, days.get(day)!, finish, runs);
    for (const [id, d] of partial) {
      const seen = out.get(id);
      if (!seen) out.set(id, d);
      // A run's roster and objects are read on its own day; rows of it in an earlier day's file came first.
      else if (finish.has(id)) out.set(id, { ...d, rows: [...seen.rows, ...d.rows] });
      else seen.rows.push(...d.rows);
    }
  }
  for (const d of out.values()) d.rows.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return out;
}

/** The digest of one run as the archive holds it now (the collector, at the end of a run), with its day. */
export async function runDigest(dir: string, runId: string): Promise<(RunDigest & { day: string }) | null> {
  const runs = runsByRun(dir);
  const ref = runs.get(runId)?.ref;
  if (!ref) return null;
  const files = rowSeriesFolders(dir).flatMap((folder) => listDays(dir, folder).filter((d) => d.day === ref.day));
  const digest = (await digestDay(dir, files, new Set([runId]), runs)).get(runId);
  return digest ? { ...digest, day: ref.day } : null;
}

/**
 * The digests of the runs of one day: rows per (run, file) for every run whose lines are in the day's
 * files, and — for `finish`, the runs recorded on this day — their runs.jsonl lines, roster and objects.
 */
async function digestDay(dir: string, files: DayFiles[], finish: Set<string>, runs: Map<string, { lines: string[]; ref: RunRef | null }>): Promise<Map<string, RunDigest>> {
  const rows = new Map<string, Map<string, { hash: Hash; lines: number }>>();
  const objects = new Map<string, Set<string>>();
  for (const day of files) {
    const logical = day.files[0]!.replace(/\.gz$/, '');
    for (const file of day.files) {
      for await (const line of readLines(join(dir, file))) {
        const id = lineRunId(line);
        if (id === null) continue;
        let perFile = rows.get(id);
        if (!perFile) rows.set(id, (perFile = new Map()));
        let acc = perFile.get(logical);
        if (!acc) perFile.set(logical, (acc = { hash: createHash('sha256'), lines: 0 }));
        acc.hash.update(line).update('\n');
        acc.lines++;
        if (finish.has(id)) {
          let set = objects.get(id);
          if (!set) objects.set(id, (set = new Set()));
          for (const m of line.matchAll(OBJECT_REF)) for (const h of m[1]!.matchAll(HEX)) set.add(h[0]);
        }
      }
    }
  }
  const out = new Map<string, RunDigest>();
  for (const id of new Set([...rows.keys(), ...finish])) {
    const digest: RunDigest = {
      runs: linesDigest(runs.get(id)?.lines ?? []),
      roster: null,
      rows: [...(rows.get(id) ?? new Map()).entries()].map(([file, acc]) => ({ file, lines: acc.lines, sha256: acc.hash.digest('hex') })).sort((a, b) => (a.file < b.file ? -1 : 1)),
      objects: linesDigest([]),
    };
    if (finish.has(id)) {
      const set = objects.get(id) ?? new Set<string>();
      const rosterFile = runs.get(id)?.ref?.roster_file ?? null;
      if (rosterFile !== null) {
        const bytes = ROSTER_FILE.test(rosterFile) ? rosterBytesOrNull(dir, rosterFile) : null;
        digest.roster = { file: rosterFile, sha256: bytes ? createHash('sha256').update(bytes).digest('hex') : MISSING };
        for (const page of bytes ? rosterPages(bytes) : []) set.add(page);
      }
      digest.objects = { lines: set.size, sha256: createHash('sha256').update(objectSetText(set)).digest('hex') };
    }
    out.set(id, digest);
  }
  return out;
}

/** SHA-256 over lines, each followed by LF, and their count. */
export function linesDigest(lines: readonly string[]): { lines: number; sha256: string } {
  const h = createHash('sha256');
  for (const l of lines) h.update(l).update('\n');
  return { lines: lines.length, sha256: h.digest('hex') };
}

/** A roster's hash when its file is gone: no SHA-256 is this, so it never matches a manifest. */
const MISSING = 'missing';

function rosterPages(bytes: Buffer): string[] {
  try {
    const r = JSON.parse(bytes.toString('utf8')) as { pages?: { sha256?: unknown }[] };
    return (r.pages ?? []).map((p) => p.sha256).filter((s): s is string => typeof s === 'string');
  } catch {
    return [];
  }
}

/** A roster's bytes through its gzip; null when it is absent or unreadable (a damaged gzip): never a match. */
function rosterBytesOrNull(dir: string, file: string): Buffer | null {
  try {
    return readRosterBytes(dir, file);
  } catch {
    return null;
  }
}

export interface SealOptions {
  signer: ChainSigner | null;
  /** When the manifests are sealed (the run's clock for the collector). */
  sealedAt: string;
  /** fsync the append (default true; the bench's throwaway archives skip it). */
  durable?: boolean;
}

/**
 * After a run: a manifest for every run of runs.jsonl after the chain's last one (the run just
 * recorded, and any run whose manifest a crash prevented), each sealed now. An archive without a
 * chain gets a genesis first, which counts the runs recorded before this one as unchained (verify
 * says "no chain before run X"; `npm run chain -- --adopt` is the way to cover them, before the first
 * chained run). Returns the manifests written.
 */
export async function appendRunManifests(dir: string, runId: string, opts: SealOptions): Promise<ChainManifest[]> {
  const { manifests, problems } = readChain(dir);
  if (problems.length > 0) throw new Error(`${LAYOUT.chain}:${problems[0]!.line}: ${problems[0]!.message} (run npm run verify)`);
  const order = [...runsByRun(dir).keys()];
  const chained = new Set(manifests.map((m) => m.manifest.run_id).filter((id): id is string => id !== null));
  let last = manifests.at(-1)?.manifest ?? null;
  const written: ChainManifest[] = [];
  if (!last) {
    const before = order.indexOf(runId);
    const unchained = before < 0 ? 0 : before;
    last = sealGenesis(opts, unchained, unchained === 0 ? 'The chain starts with the archive\'s first run.' : `No chain before run ${runId}: the ${unchained} run${unchained === 1 ? '' : 's'} recorded before it are not covered.`);
    written.push(last);
  }
  // The runs to seal: from this one on for a new chain, else every run after the last chained one.
  const start = written.length > 0 ? Math.max(order.indexOf(runId), 0) : Math.max(-1, ...[...chained].map((id) => order.indexOf(id))) + 1;
  for (const id of order.slice(start)) {
    if (chained.has(id)) continue;
    const digest = await runDigest(dir, id);
    if (!digest) continue;
    last = sealManifest(last, { kind: 'run', sealed_at: opts.sealedAt, run_id: id, day: digest.day, ...digestFields(id, digest), unchained_runs: null, note: null }, opts.signer);
    written.push(last);
  }
  appendLines(dir, written, opts.durable ?? true);
  return written;
}

/** A chain's first manifest: it covers no run; its note says where the chain starts and what it does not cover. */
function sealGenesis(opts: SealOptions, unchainedRuns: number, note: string): ChainManifest {
  return sealManifest(
    null,
    { kind: 'genesis', sealed_at: opts.sealedAt, run_id: null, day: null, runs: null, roster: null, rows: [], objects: null, unchained_runs: unchainedRuns, note },
    opts.signer,
  );
}

/**
 * `npm run chain -- --adopt`: an archive recorded before the chain existed gets a genesis that says
 * when and how it was adopted, and one `adopted` manifest per past run, all sealed `at`. Refused
 * when a chain exists (history is never rewritten, the chain's included).
 */
export async function adoptChain(dir: string, opts: SealOptions): Promise<ChainManifest[]> {
  if (readChain(dir).manifests.length > 0 || existsSync(chainPath(dir))) throw new Error(`${LAYOUT.chain} exists: an adopted chain can only start an archive that has none`);
  const runs = runsByRun(dir);
  const day = opts.sealedAt.slice(0, 10);
  let last = sealGenesis(opts, 0, `Adopted on ${day}: the ${runs.size} manifest${runs.size === 1 ? '' : 's'} after this one were written on ${day} for runs recorded before it. They show that those runs have not changed since ${day}, not that they were unchanged before.`);
  const written = [last];
  const all = await archiveDigests(dir);
  for (const [id, r] of runs) {
    const digest = all.get(id);
    if (!digest) continue;
    last = sealManifest(last, { kind: 'adopted', sealed_at: opts.sealedAt, run_id: id, day: r.ref?.day ?? null, ...digestFields(id, digest), unchained_runs: null, note: null }, opts.signer);
    written.push(last);
  }
  appendLines(dir, written, opts.durable ?? true);
  return written;
}

function digestFields(runId: string, d: RunDigest): Pick<ChainManifest, 'runs' | 'roster' | 'rows' | 'objects'> {
  if (d.roster?.sha256 === MISSING) throw new Error(`run ${runId}: its roster ${d.roster.file} is missing, so it cannot be sealed (run npm run verify)`);
  return { runs: d.runs, roster: d.roster, rows: d.rows, objects: d.objects };
}

function appendLines(dir: string, manifests: ChainManifest[], durable: boolean): void {
  if (manifests.length === 0) return;
  const fd = openSync(chainPath(dir), 'a');
  try {
    writeSync(fd, manifests.map(chainLine).join(''));
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
