// The one reader of roster files (rosters/<day>.json; methodology v1, "Roster"): listed, name-checked
// and validated by the zod contract (src/lib/contract/roster.ts) the same way for the loader, the
// bundles, verify and the collector's store.
//
// A roster is written once as rosters/<day>.json; `npm run compact` later gzips it in place
// (rosters/<day>.json.gz: ≈ 10 MB of JSON a day at 42,000 targets). Its name stays
// `<day>.json` everywhere — run rows, the chain, the site — and its bytes are the same: every reader
// here reads through the gzip, so a roster's SHA-256 (which the chain pins) does not change with it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Roster } from '../lib/index.ts';
import { LAYOUT, ROSTER_FILE, rosterPath } from './layout.ts';
import { parseJson, type Parsed } from './problems.ts';

/** What a gzipped roster file adds to its name. */
export const ROSTER_GZ = '.gz';

/**
 * Every entry of rosters/, sorted, a gzipped roster under its roster name (`<day>.json`, once when a
 * crash left both forms). Temp files and strays are included as they are: verify reports them.
 */
export function rosterEntries(dir: string): string[] {
  const d = join(dir, LAYOUT.rosters);
  if (!existsSync(d)) return [];
  const names = readdirSync(d).map((f) => (f.endsWith(`.json${ROSTER_GZ}`) && ROSTER_FILE.test(f.slice(0, -ROSTER_GZ.length)) ? f.slice(0, -ROSTER_GZ.length) : f));
  return [...new Set(names)].sort();
}

/** The roster files of an archive (`*.json`, plain or gzipped), by roster name, sorted. */
export function listRosterFiles(dir: string): string[] {
  return rosterEntries(dir).filter((f) => f.endsWith('.json'));
}

/** Where a roster's bytes are on disk: the plain file, else its gzip; null when neither exists or the name is not a roster's. */
export function rosterFileOnDisk(dir: string, file: string): { path: string; gz: boolean } | null {
  if (!ROSTER_FILE.test(file)) return null;
  const plain = rosterPath(dir, file);
  if (existsSync(plain)) return { path: plain, gz: false };
  const gz = `${plain}${ROSTER_GZ}`;
  return existsSync(gz) ? { path: gz, gz: true } : null;
}

/** A roster file's bytes as written (read through its gzip when compacted), or null when it is absent. */
export function readRosterBytes(dir: string, file: string): Buffer | null {
  const at = rosterFileOnDisk(dir, file);
  if (at === null) return null;
  const bytes = readFileSync(at.path);
  return at.gz ? gunzipSync(bytes) : bytes;
}

/** One roster file, validated. The name is checked first, so a name from a row cannot leave rosters/. */
export function readRoster(dir: string, file: string): Parsed<Roster> {
  if (!ROSTER_FILE.test(file)) return { ok: false, message: 'not a roster file name' };
  let text: string;
  try {
    const bytes = readRosterBytes(dir, file);
    if (bytes === null) return { ok: false, message: 'unreadable (ENOENT)' };
    text = bytes.toString('utf8');
  } catch (error) {
    return { ok: false, message: `unreadable (${(error as { code?: string }).code ?? 'error'})` };
  }
  return parseJson(text, Roster);
}
