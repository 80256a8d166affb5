// The gzip members the /data/ bundles are concatenated from (see bundles.ts), cached beside the
// loader's cache by the content key of what they hold. Two writers, chunking alike so a member's bytes
// do not depend on which one wrote it (same rows, same bytes): the bundle writer, and — on a first
// build — the loader's day-summary workers, which this module hands a tap per day and a job per roster file
// (membersPrebuild, src/loader/workers.ts), so a day is parsed once.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeAtomic } from '../archive/atomic.ts';
import type { DayFiles } from '../archive/day-files.ts';
import { listRosterFiles, readRoster, rosterFileOnDisk } from '../archive/rosters.ts';
import type { Observation, ObservationV2 } from '../lib/index.ts';
import type { DayTap } from '../loader/day-summary.ts';
import type { Prebuild, WorkerCall } from '../loader/workers.ts';
import { ROW_SERIES, type RowSeries } from './catalogue.ts';

/** This module, relative to the source root: what a day-summary worker imports to run the taps and jobs below. */
const MEMBERS_MODULE = 'src/outputs/members.ts';

/** The CSV columns of each row series: its contract's keys, in order (catalogue.ts ROW_SERIES). */
export const SERIES_COLUMNS: Record<RowSeries, string[]> = {
  observations: ROW_SERIES.observations.fields.map((f) => f.name),
  'observations-v2': ROW_SERIES['observations-v2'].fields.map((f) => f.name),
};
export const OBS_COLUMNS = SERIES_COLUMNS.observations;
export const OBS_V2_COLUMNS = SERIES_COLUMNS['observations-v2'];
/** Rows per gzip member. */
const PER_MEMBER = 2000;

/**
 * Bump when what a CSV cell is written as changes: CSV members are cached under this name, and a
 * cached member written by an older rule must not be reused (csv-2: the OWASP rule in full).
 */
export const CSV_RULES = 'csv-2';

/**
 * One RFC 4180 line (CRLF). Registry text is hostile, and a spreadsheet runs a cell that reads as a
 * formula, so text cells follow OWASP's "CSV Injection" guidance in full (the data page says the same):
 *   - a text cell that begins with tab, CR, LF or NUL, or whose first character that is not
 *     whitespace or a control character is `=`, `+`, `-` or `@`, gets a leading `'` (OWASP lists
 *     = + - @ tab CR LF; ASVS 1.2.10 adds NUL; spreadsheets skip leading spaces before `=`, so
 *     ` =1+1` runs too);
 *   - a cell holding `,` `;` `"` tab CR or LF is quoted, `"` doubled, so a reader that splits on
 *     semicolons (many locales) or tabs cannot start a new cell inside it.
 * Numbers and booleans are written as they are (`-1` stays a number); null is an empty cell.
 */
export function csvLine(values: readonly unknown[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}

const FORMULA = /^(?:[\t\r\n\0]|[\s\p{Cc}]*[=+\-@])/u;
const QUOTE = /[,;"\t\r\n]/;

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (FORMULA.test(s)) s = `'${s}`;
  return QUOTE.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A row as one CSV line of its series' columns: a list (v2) is its JSON text in one cell (csvCell). */
export function csvOfColumns(columns: readonly string[], row: Record<string, unknown>): string {
  return csvLine(columns.map((c) => row[c]));
}

export function csvOf(row: Observation): string {
  return csvOfColumns(OBS_COLUMNS, row);
}

export function csvOfV2(row: ObservationV2): string {
  return csvOfColumns(OBS_V2_COLUMNS, row);
}

/** Lines (each ending in its newline) as consecutive gzip members of PER_MEMBER lines. */
export function gzipMembers(lines: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < lines.length; i += PER_MEMBER) parts.push(gzipSync(lines.slice(i, i + PER_MEMBER).join('')));
  return Buffer.concat(parts);
}

/** Where a day's members live in the cache, by the day's content key. */
export function memberPaths(cacheDir: string, key: string, series: RowSeries = 'observations'): { jsonl: string; csv: string } {
  const v = series === 'observations' ? '' : '.v2';
  return { jsonl: path.join(cacheDir, 'members', `${key}${v}.jsonl.gz`), csv: path.join(cacheDir, 'members', `${key}${v}.${CSV_RULES}.csv.gz`) };
}

/** A member file, written whole (a temp file renamed into place: concurrent builds never read half of one). */
export function writeMember(file: string, bytes: Buffer): void {
  writeAtomic(file, bytes);
}

/** A day's members from its rows in file order: JSONL verbatim (unless the day is bundled as its own .gz) and CSV. */
export function dayMembers(day: DayFiles, lines: readonly string[], csv: readonly string[], problems: number, to: { jsonl: string | null; csv: string | null }): void {
  // A closed, clean day is bundled as its compacted file itself: no JSONL member needed.
  if (to.jsonl && !bundledAsIs(day, problems)) writeMember(to.jsonl, gzipMembers(lines));
  if (to.csv) writeMember(to.csv, gzipMembers(csv));
}

/** A closed day with no invalid line is its compacted file as it stands. */
export function bundledAsIs(day: DayFiles, problems: number): boolean {
  return day.files.length === 1 && day.files[0]!.endsWith('.gz') && problems === 0;
}

/** The tap a day-summary worker runs on a day it reads (see membersPrebuild): the day's members, from the rows it validated. */
export function dayMembersTap(to: { jsonl: string | null; csv: string | null }, day: DayFiles): DayTap {
  const lines: string[] = [];
  const csv: string[] = [];
  return {
    row(text, row) {
      if (to.jsonl) lines.push(text + '\n');
      if (to.csv) csv.push(csvOf(row));
    },
    end(problems) {
      dayMembers(day, lines, csv, problems, to);
    },
  };
}

/** The cached member of a roster file, keyed by its path, size and mtime; null when the file is gone. */
export async function rosterMemberPath(archive: string, file: string, cacheDir: string): Promise<string | null> {
  const onDisk = rosterFileOnDisk(archive, file);
  const st = onDisk ? await stat(onDisk.path).catch(() => null) : null;
  if (!onDisk || !st) return null;
  const key = createHash('sha256').update(`roster-1\0${onDisk.path}\0${st.size}\0${st.mtimeMs}`).digest('hex');
  return path.join(cacheDir, 'members', `${key}.roster.gz`);
}

/** A roster file's member: its validated JSON on one line, gzipped; null when it does not validate. */
export function writeRosterMember(job: { archive: string; file: string; member: string }): string | null {
  const roster = readRoster(job.archive, job.file);
  if (!roster.ok) return null;
  writeMember(job.member, gzipSync(JSON.stringify(roster.value) + '\n'));
  return job.member;
}

/**
 * What the site's day-summary workers do beside the day summaries on a first build: a day's members from the rows
 * they read (only those not cached yet), and the members of roster files not cached yet.
 */
export function membersPrebuild(archive: string, cacheDir: string, sourceRoot: string): Pick<Prebuild, 'dayTap' | 'jobs'> {
  const module = path.join(sourceRoot, MEMBERS_MODULE);
  return {
    dayTap(src): WorkerCall {
      const m = memberPaths(cacheDir, src.key);
      return { module, export: 'dayMembersTap', args: { jsonl: existsSync(m.jsonl) ? null : m.jsonl, csv: existsSync(m.csv) ? null : m.csv } };
    },
    async jobs(): Promise<WorkerCall[]> {
      const calls: WorkerCall[] = [];
      for (const file of listRosterFiles(archive)) {
        const member = await rosterMemberPath(archive, file, cacheDir);
        if (member && !existsSync(member)) calls.push({ module, export: 'writeRosterMember', args: { archive, file, member } });
      }
      return calls;
    },
  };
}
