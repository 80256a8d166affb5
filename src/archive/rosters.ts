// The one reader of roster files (rosters/<day>.json; methodology v1, "Roster"): listed, name-checked
// and validated by the zod contract (src/lib/contract/roster.ts) the same way for the loader, the
// bundles, verify and the collector's store.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Roster } from '../lib/index.ts';
import { LAYOUT, ROSTER_FILE, rosterPath } from './layout.ts';
import { parseJson, type Parsed } from './problems.ts';

/** Every entry of rosters/, sorted (temp files and strays included: verify reports them). */
export function rosterEntries(dir: string): string[] {
  const d = join(dir, LAYOUT.rosters);
  return existsSync(d) ? readdirSync(d).sort() : [];
}

/** The roster files of an archive (`*.json`), sorted by name. */
export function listRosterFiles(dir: string): string[] {
  return rosterEntries(dir).filter((f) => f.endsWith('.json'));
}

/** One roster file, validated. The name is checked first, so a name from a row cannot leave rosters/. */
export function readRoster(dir: string, file: string): Parsed<Roster> {
  if (!ROSTER_FILE.test(file)) return { ok: false, message: 'not a roster file name' };
  let text: string;
  try {
    text = readFileSync(rosterPath(dir, file), 'utf8');
  } catch (error) {
    return { ok: false, message: `unreadable (${(error as { code?: string }).code ?? 'error'})` };
  }
  return parseJson(text, Roster);
}
