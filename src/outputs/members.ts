// The gzip members the /data/ bundles are concatenated from (see src/bundles.ts), shared by the
// bundle writer and the loader's digest workers (src/archive-cache.ts), which write a day's members
// while they read it on a first build. Both paths chunk alike, so a member's bytes do not depend on
// which one wrote it: same rows, same bytes.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { OBSERVATION_FIELDS } from './catalogue.ts';
import { cacheDir } from '../loader/cache.ts';
import { Roster, type Observation } from '../lib/index.ts';

export const OBS_COLUMNS = OBSERVATION_FIELDS.map((f) => f.name);
/** Rows per gzip member. */
const PER_MEMBER = 2000;

/**
 * Bump when what a CSV cell is written as changes: CSV members are cached under this name, and a
 * cached member written by an older rule must not be reused (csv-2: the OWASP rule in full, issue 10).
 */
const CSV_RULES = 'csv-2';

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

export function csvOf(row: Observation): string {
  return csvLine(OBS_COLUMNS.map((c) => row[c as keyof Observation]));
}

/** Lines (each ending in its newline) as consecutive gzip members of PER_MEMBER lines. */
export function gzipMembers(lines: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < lines.length; i += PER_MEMBER) parts.push(gzipSync(lines.slice(i, i + PER_MEMBER).join('')));
  return Buffer.concat(parts);
}

/** Where a day's members live in the cache, by the day's content key. */
export function memberPaths(cacheDir: string, key: string): { jsonl: string; csv: string } {
  return { jsonl: path.join(cacheDir, 'members', `${key}.jsonl.gz`), csv: path.join(cacheDir, 'members', `${key}.${CSV_RULES}.csv.gz`) };
}

export function writeMember(file: string, bytes: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
}

/** The cached member of a roster file, keyed by its path, size and mtime; null when the file is gone. */
export async function rosterMemberPath(archive: string, file: string): Promise<string | null> {
  const st = await stat(path.join(archive, 'rosters', file)).catch(() => null);
  if (!st) return null;
  const key = createHash('sha256').update(`roster-1\0${path.join(archive, 'rosters', file)}\0${st.size}\0${st.mtimeMs}`).digest('hex');
  return path.join(cacheDir(), 'members', `${key}.roster.gz`);
}

/** Validate a roster file (as src/archive.ts readRoster does) and write its member; null when invalid. */
export function writeRosterMember(archive: string, file: string, member: string): string | null {
  if (!/^[\w.-]+\.json$/.test(file)) return null;
  let parsed;
  try {
    parsed = Roster.safeParse(JSON.parse(readFileSync(path.join(archive, 'rosters', file), 'utf8')));
  } catch {
    return null;
  }
  if (!parsed.success) return null;
  writeMember(member, gzipSync(JSON.stringify(parsed.data) + '\n'));
  return member;
}
