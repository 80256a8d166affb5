// Closed day files and rosters kept in the object store instead of git (DESIGN "Where the record
// lives"): stored.jsonl, one line per file, says which object holds a file's bytes.
//
//   stored.jsonl   {"path":"observations/2026-12-01.jsonl.gz","sha256":"<64 hex>","bytes":3712345}
//
// A closed file (a gzipped day file of any row series, a gzipped roster) is put as an ordinary
// content-addressed object (objects/<aa>/<sha256> of its gz bytes: written once, re-hashed by verify's
// scrub like any other object) and named here. Git then carries, per day, a few lines of this index
// beside runs.jsonl and chain.jsonl instead of ≈ 4.9 MB of gz bytes that do not delta. The chain is
// unchanged: it pins a run's lines and a roster's uncompressed bytes, not where they are kept.
//
// The archive folder stays the working copy: every reader of day files and rosters reads them there.
// A job first brings what it reads into the folder (`npm run store -- pull`, materialize below):
// the collector the last days' rosters, the deploy the months the site publishes, a full verify the
// days of its shard. The site's loader needs no day file it has a cached digest of: it takes a stored
// file's SHA-256 from this index and fetches the file only on a cache miss.
//
// Lines are appended, never rewritten. A path may appear again when a late run's rows were merged
// into its day's gz (npm run compact): the last line names the file's current bytes, earlier objects
// stay in the store (written once). A line that does not parse is reported and skipped.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SHA256_HEX, sha256Hex } from '../lib/index.ts';
import { writeAtomicAsync } from './atomic.ts';
import { listDays, splitLines, tornLastLine, type DayFiles } from './day-files.ts';
import { DAY_FILE, LAYOUT, objectKey, ROSTER_FILE, ROW_SERIES_DIR } from './layout.ts';
import type { ObjectStore } from './object-store.ts';
import { parseJson, type Problem } from './problems.ts';
import { ROSTER_GZ, rosterEntries, rosterFileOnDisk } from './rosters.ts';
import { rowSeriesFolders } from './chain.ts';

/** A file the index may name: a gzipped day file of a row series, or a gzipped roster. Nothing else, so a line cannot name a path outside them. */
export const STORED_PATH = /^(?:observations(?:-[\w.-]+)?\/\d{4}-\d{2}-\d{2}\.jsonl\.gz|rosters\/[\w.-]+\.json\.gz)$/;

export const StoredLine = z
  .object({
    path: z.string().max(256).regex(STORED_PATH),
    sha256: z.string().regex(SHA256_HEX),
    bytes: z.number().int().min(0),
  })
  .strict();
export type StoredLine = z.infer<typeof StoredLine>;

export interface StoredIndex {
  /** By path: the last line naming it. */
  files: Map<string, StoredLine>;
  problems: Problem[];
}

/** The index of an archive (empty when it has no stored.jsonl). */
export function readStoredIndex(dir: string): StoredIndex {
  const files = new Map<string, StoredLine>();
  const problems: Problem[] = [];
  const file = join(dir, LAYOUT.stored);
  if (!existsSync(file)) return { files, problems };
  splitLines(readFileSync(file, 'utf8')).forEach((text, i) => {
    if (text.trim() === '') return;
    const parsed = parseJson(text, StoredLine);
    if (parsed.ok) files.set(parsed.value.path, parsed.value);
    else problems.push({ file: LAYOUT.stored, line: i + 1, message: parsed.message });
  });
  return { files, problems };
}

/** The UTC day a stored path belongs to: its day file's day, or its roster's (`<day>.json`, `<day>.<n>.json`). */
export function storedDay(path: string): string {
  const base = path.slice(path.indexOf('/') + 1);
  return base.slice(0, 10);
}

/** The folder (row series, or rosters) a stored path lives in. */
function folderOf(path: string): string {
  return path.slice(0, path.indexOf('/'));
}

/**
 * The days of a row-series folder, as listDays lists them, plus the days whose gz is only in the
 * store (named by the index, absent from the folder). Oldest first; a day's gz part first.
 */
export function listDaysWithStored(dir: string, folder: string = LAYOUT.observations, index: StoredIndex = readStoredIndex(dir)): DayFiles[] {
  const local = listDays(dir, folder);
  const byDay = new Map(local.map((d) => [d.day, d]));
  for (const path of index.files.keys()) {
    if (folderOf(path) !== folder) continue;
    const day = storedDay(path);
    const d = byDay.get(day);
    if (!d) byDay.set(day, { day, files: [path] });
    else if (!d.files.includes(path)) d.files.unshift(path);
  }
  return [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

/** The row-series folders the archive has, in the folder or only in the store. */
export function rowFoldersWithStored(dir: string, index: StoredIndex = readStoredIndex(dir)): string[] {
  const folders = new Set(rowSeriesFolders(dir));
  for (const path of index.files.keys()) if (ROW_SERIES_DIR.test(folderOf(path))) folders.add(folderOf(path));
  return [...folders].sort();
}

/** Roster names (`<day>.json`) in the folder or only in the store, sorted. */
export function rosterFilesWithStored(dir: string, index: StoredIndex = readStoredIndex(dir)): string[] {
  const names = new Set(rosterEntries(dir).filter((f) => f.endsWith('.json')));
  for (const path of index.files.keys()) if (folderOf(path) === LAYOUT.rosters) names.add(path.slice(LAYOUT.rosters.length + 1, -ROSTER_GZ.length));
  return [...names].sort();
}

/** The stored path of a roster name (`rosters/<name>.gz`), or null when the name is not a roster's. */
export function storedRosterPath(name: string): string | null {
  return ROSTER_FILE.test(name) ? `${LAYOUT.rosters}/${name}${ROSTER_GZ}` : null;
}

/** Whether `rel` (a path relative to the archive) is on disk. */
export function isLocal(dir: string, rel: string): boolean {
  return existsSync(join(dir, rel));
}

/**
 * Bring a stored file into the archive folder from `store`, checked against the index's SHA-256 and
 * size before it is renamed into place. 'local' when it is there already (the folder's copy wins: it
 * may be newer than the index, a late run merged into it), 'fetched' when it was brought.
 * Throws, naming the file, when the index does not name it or the store's bytes are missing or wrong.
 */
export async function materialize(dir: string, rel: string, index: StoredIndex, store: ObjectStore): Promise<'local' | 'fetched'> {
  if (isLocal(dir, rel)) return 'local';
  const line = index.files.get(rel);
  if (!line) throw new Error(`${rel} is neither in the archive folder nor named by ${LAYOUT.stored}`);
  const bytes = await store.get(objectKey(line.sha256));
  if (bytes === null) throw new Error(`${rel}: its object ${line.sha256.slice(0, 12)}… is not in ${store.description}`);
  const actual = sha256Hex(bytes);
  if (actual !== line.sha256 || bytes.length !== line.bytes) throw new Error(`${rel}: the stored bytes hash to ${actual.slice(0, 12)}… (${bytes.length} bytes), not to ${line.sha256.slice(0, 12)}… (${line.bytes} bytes) as ${LAYOUT.stored} says`);
  await writeAtomicAsync(join(dir, rel), bytes);
  return 'fetched';
}

/** Which closed files are not yet named by the index with their current bytes (compacted: gz day files and gz rosters). */
export async function unstored(dir: string, index: StoredIndex = readStoredIndex(dir)): Promise<{ path: string; bytes: Buffer }[]> {
  const out: { path: string; bytes: Buffer }[] = [];
  const consider = async (rel: string) => {
    if (!STORED_PATH.test(rel) || !isLocal(dir, rel)) return;
    const known = index.files.get(rel);
    // A stored file is rewritten only by a merge that appends to it, so the same size is the same
    // file: an archive kept whole in its folder is not re-read every day (verify checks the bytes).
    if (known && statSync(join(dir, rel)).size === known.bytes) return;
    const bytes = await readFile(join(dir, rel));
    if (known && known.sha256 === sha256Hex(bytes)) return;
    out.push({ path: rel, bytes });
  };
  for (const folder of rowSeriesFolders(dir)) for (const d of listDays(dir, folder)) for (const f of d.files) if (DAY_FILE.exec(f.slice(folder.length + 1))?.[2]) await consider(f);
  for (const name of rosterEntries(dir)) {
    const at = rosterFileOnDisk(dir, name);
    if (at?.gz) await consider(`${LAYOUT.rosters}/${name}${ROSTER_GZ}`);
  }
  return out;
}

/**
 * Put every closed file the index does not name yet into `store` (as the object of its bytes) and
 * append its line: the object first, so a line never names an object that is not there. Returns the
 * lines added. One append of whole lines, fsynced.
 */
export async function offload(dir: string, store: ObjectStore): Promise<StoredLine[]> {
  const index = readStoredIndex(dir);
  const added: StoredLine[] = [];
  for (const { path, bytes } of await unstored(dir, index)) {
    const sha256 = sha256Hex(bytes);
    await store.put(objectKey(sha256), bytes);
    added.push({ path, sha256, bytes: bytes.length });
  }
  if (added.length > 0) appendLines(join(dir, LAYOUT.stored), added.map((l) => JSON.stringify(l)));
  return added;
}

/**
 * Bring the stored files of days `from`..`to` (inclusive; null: unbounded) into the folder. Returns
 * what it fetched and what was already there.
 */
export async function pullStored(dir: string, store: ObjectStore, range: { from: string | null; to: string | null }, index: StoredIndex = readStoredIndex(dir)): Promise<{ fetched: string[]; local: number; bytes: number }> {
  const fetched: string[] = [];
  let local = 0;
  let bytes = 0;
  for (const line of [...index.files.values()].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const day = storedDay(line.path);
    if ((range.from !== null && day < range.from) || (range.to !== null && day > range.to)) continue;
    if ((await materialize(dir, line.path, index, store)) === 'fetched') {
      fetched.push(line.path);
      bytes += line.bytes;
    } else local++;
  }
  return { fetched, local, bytes };
}

/** Append whole lines; after a torn last line (a crash mid-append), start on a fresh line so the new ones parse. */
function appendLines(file: string, lines: string[]): void {
  const torn = existsSync(file) && tornLastLine(file);
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, `${torn ? '\n' : ''}${lines.join('\n')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
