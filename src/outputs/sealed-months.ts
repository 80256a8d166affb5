// Sealed months (DESIGN "Sealed months and the bundles job"): with the file host and the site's recent months only
// (Publication.partsOnly), a month's raw bundles — its rows as JSON Lines, CSV and Parquet in each
// series, and its roster targets as Parquet — are a function of its days. Whoever writes them records
// them (SEALED_BUNDLES_FILE in the file host's folder): the bundles step (src/site/bundles-step.ts, a
// job of its own) every month it wrote, the site build the closed months it wrote. publish-files keeps
// the record in its manifest once they are uploaded and hands it to the next build, which takes their
// entries from it: it neither reads those days nor writes those files again. A closed month is then
// written once; the open month by the bundles step, each day, off the site build's disk.
//
// A month's seal key is a hash of everything those files are written from: each day's content key in
// both series (DayInfo.key: the files' SHA-256s under the contract), each roster's bytes (by the
// SHA-256 stored.jsonl records, or of the local file), the CSV and Parquet rules, whether the build is
// simulated, and the file host's URL (the entries carry it). A record whose key differs is not used:
// the month is written again, so a changed day (a late run appended to a compacted day) can never
// publish stale files. Changes and findings, derived by src/lib, are never sealed (they are small).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseSealedBundles, SEALED_BUNDLES_FILE, type SealedBundles, type SealedFile } from '../lib/index.ts';
import { rosterFileOnDisk } from '../archive/rosters.ts';
import { readStoredIndex, storedRosterPath, type StoredIndex } from '../archive/stored-files.ts';
import type { Archive } from '../loader/views.ts';
import type { BundleFile } from './catalogue.ts';
import { CSV_RULES } from './members.ts';
import { PARQUET_RULES } from './parquet.ts';
import type { Publication } from './publication.ts';

/** Bump when what a seal key covers changes: every record then misses, and the months are written again. */
export const SEAL_RULES = 'seal-1';

/** The raw per-month files a month's record holds, by their unsimulated names. */
export function sealedNames(month: string): string[] {
  return [
    `observations-${month}.jsonl.gz`,
    `observations-${month}.csv.gz`,
    `observations-v2-${month}.jsonl.gz`,
    `observations-v2-${month}.csv.gz`,
    `observations-${month}.parquet`,
    `roster-targets-${month}.parquet`,
    `observations-v2-${month}.parquet`,
  ];
}

/** The month a sealable file belongs to (by its unsimulated name), or null for every other file. */
export function sealableMonth(name: string): string | null {
  const m = /^(?:observations|observations-v2|roster-targets)-(\d{4}-\d{2})\.(?:jsonl\.gz|csv\.gz|parquet)$/.exec(name);
  return m && !(name.startsWith('roster-targets-') && !name.endsWith('.parquet')) ? m[1]! : null;
}

/**
 * What a build does with each month: `reuse` holds the months whose record matches (their entries are
 * taken from it), `seal` the closed months it writes and records. Null when sealing does not apply
 * (no file host, or whole-archive files: the Pages deploy carries every file it links).
 */
export interface SealPlan {
  reuse: Map<string, SealedFile[]>;
  seal: Set<string>;
  keys: Map<string, string>;
}

type Bundled = Pick<Archive, 'dir' | 'months' | 'dayFiles' | 'rosterFiles' | 'v2'>;

/**
 * A month is closed when the archive has a day after it and every day file of the month (both series)
 * is compacted: the same test month-parts applies, from the days instead of the clock.
 */
export function closedMonths(a: Bundled): Set<string> {
  const days = [...a.dayFiles, ...(a.v2?.dayFiles ?? [])];
  const last = days.reduce((m, d) => (d.day > m ? d.day : m), '');
  const open = new Set(days.filter((d) => d.files.some((f) => !f.endsWith('.gz'))).map((d) => d.day.slice(0, 7)));
  const months = new Set(days.map((d) => d.day.slice(0, 7)));
  return new Set([...months].filter((m) => m < last.slice(0, 7) && !open.has(m)));
}

/** The seal key of each month the bundles cover (see the header for what it covers). */
export function sealKeys(a: Bundled, pub: Pick<Publication, 'simulated' | 'fileHost'>): Map<string, string> {
  let index: StoredIndex | null = null;
  const rosterSha = (file: string): string => {
    const stored = storedRosterPath(file);
    const line = stored ? (index ??= readStoredIndex(a.dir)).files.get(stored) : undefined;
    if (line) return line.sha256;
    const onDisk = rosterFileOnDisk(a.dir, file);
    return onDisk ? `local:${createHash('sha256').update(readFileSync(onDisk.path)).digest('hex')}` : 'absent';
  };
  const months = new Set([...a.months, ...(a.v2?.dayFiles ?? []).map((d) => d.day.slice(0, 7))]);
  const out = new Map<string, string>();
  for (const month of [...months].sort()) {
    const h = createHash('sha256').update(JSON.stringify([SEAL_RULES, CSV_RULES, PARQUET_RULES, pub.simulated, pub.fileHost?.url ?? null, month]));
    for (const d of a.dayFiles) if (d.day.startsWith(month)) h.update(`\0v1:${d.day}:${d.key}`);
    for (const d of a.v2?.dayFiles ?? []) if (d.day.startsWith(month)) h.update(`\0v2:${d.day}:${d.key}`);
    for (const f of a.rosterFiles) if (f.startsWith(month)) h.update(`\0roster:${f}:${rosterSha(f)}`);
    out.set(month, h.digest('hex'));
  }
  return out;
}

/**
 * The plan for a build handed `published` (the record publish-files kept; null: none yet). A month
 * whose record has its current key is reused, open or closed (the bundles step writes the open month
 * under the key of its days as they stand: a day appended to since changes it). Of the others, the
 * site build seals the closed ones; the bundles step (`all`) every month it writes.
 */
export function sealPlan(a: Bundled, pub: Pick<Publication, 'simulated' | 'fileHost' | 'partsOnly'>, published: SealedBundles | null, opts: { all?: boolean } = {}): SealPlan | null {
  if (!pub.fileHost || !pub.partsOnly) return null;
  const keys = sealKeys(a, pub);
  const closed = closedMonths(a);
  const reuse = new Map<string, SealedFile[]>();
  const seal = new Set<string>();
  for (const [month, key] of keys) {
    const rec = published?.months[month];
    if (rec && rec.key === key) reuse.set(month, rec.files);
    else if (opts.all || closed.has(month)) seal.add(month);
  }
  return { reuse, seal, keys };
}

/** The entry a reused month's record holds for `name` (a published name); throws when the record lacks it. */
export function reusedEntry(plan: SealPlan, month: string, name: string): BundleFile {
  const f = plan.reuse.get(month)!.find((x) => x.name === name);
  if (!f) throw new Error(`the sealed-months record for ${month} has no entry for ${name}: remove ${SEALED_BUNDLES_FILE}'s record (publish-files --sealed-out) to write the month again`);
  return { ...f, resource: f.resource as BundleFile['resource'] };
}

/** Write this build's record into the file host's folder: every month it reused or sealed, with its entries. */
export async function writeSealRecord(plan: SealPlan, dir: string, written: readonly BundleFile[], nameOf: (name: string) => string): Promise<number> {
  const months: SealedBundles['months'] = {};
  for (const [month, files] of plan.reuse) months[month] = { key: plan.keys.get(month)!, files };
  for (const month of plan.seal) {
    const names = new Set(sealedNames(month).map(nameOf));
    const files = written.filter((f) => names.has(f.name)).map((f): SealedFile => ({ name: f.name, ...(f.url ? { url: f.url } : {}), resource: f.resource, rows: f.rows, sha256: f.sha256, bytes: f.bytes }));
    months[month] = { key: plan.keys.get(month)!, files };
  }
  const record: SealedBundles = { format: 1, months: Object.fromEntries(Object.entries(months).sort(([x], [y]) => (x < y ? -1 : 1))) };
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, SEALED_BUNDLES_FILE), `${JSON.stringify(record)}\n`);
  return Object.keys(record.months).length;
}

/** The record a build is handed (MCP_SCHEMA_PUBLISHED_BUNDLES): null for no file; an Error for one it cannot trust. */
export function readSealRecord(file: string | null): SealedBundles | null {
  if (!file || !existsSync(file)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    parsed = undefined;
  }
  const record = parseSealedBundles(parsed);
  if (!record) throw new Error(`MCP_SCHEMA_PUBLISHED_BUNDLES (${file}) is not a sealed-months record ({"format": 1, "months": {…}}): write it again with npm run publish-files -- --sealed-out, or remove it to write every month's bundles`);
  return record;
}
