// The one reader of editions (editions/<id>/edition.json; methodology v1, "Editions"): each folder's
// name checked (EDITION_ID), its manifest validated by the zod contract (src/lib/contract/edition.ts)
// and its id matched against the folder, for the loader (the site lists and copies them) and for
// verify. Sorted by month, then revision: the last one is the edition the site cites.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Edition } from '../lib/index.ts';
import { EDITION_ID, editionDir, LAYOUT } from './layout.ts';
import { parseJson, type Problem } from './problems.ts';

/** An edition's manifest file, inside its folder. */
export const EDITION_MANIFEST = 'edition.json';

export interface EditionEntry {
  id: string;
  /** Its folder, absolute. */
  dir: string;
  edition: Edition;
}

export function readEditions(dir: string): { editions: EditionEntry[]; problems: Problem[] } {
  const root = join(dir, LAYOUT.editions);
  const editions: EditionEntry[] = [];
  const problems: Problem[] = [];
  if (!existsSync(root)) return { editions, problems };
  for (const id of readdirSync(root).sort()) {
    const where = `${LAYOUT.editions}/${id}/${EDITION_MANIFEST}`;
    if (id.startsWith('.')) continue; // an edition being cut (a temp folder renamed into place when whole)
    if (!EDITION_ID.test(id)) {
      problems.push({ file: `${LAYOUT.editions}/${id}`, line: null, message: 'not an edition folder (YYYY-MM or YYYY-MM-rN)' });
      continue;
    }
    let text: string;
    try {
      text = readFileSync(join(editionDir(dir, id), EDITION_MANIFEST), 'utf8');
    } catch {
      problems.push({ file: where, line: null, message: 'missing (an edition being cut, or a damaged one)' });
      continue;
    }
    const parsed = parseJson(text, Edition);
    if (!parsed.ok) problems.push({ file: where, line: null, message: parsed.message });
    else if (parsed.value.edition !== id) problems.push({ file: where, line: null, message: `names edition ${parsed.value.edition}, not its folder's ${id}` });
    else editions.push({ id, dir: editionDir(dir, id), edition: parsed.value });
  }
  editions.sort((a, b) => (a.edition.month === b.edition.month ? a.edition.revision - b.edition.revision : a.edition.month < b.edition.month ? -1 : 1));
  return { editions, problems };
}
