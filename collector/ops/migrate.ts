// `npm run migrate`: moves an archive whose listing pages are stored whole to the layout that lasts, in place and
// without losing a byte (DESIGN "Where the record lives"):
//   1. every raw listing page stored whole (objects/<aa>/<sha256>) is packed as its entries and a page
//      manifest (pages/<aa>/<sha256>.json), and the whole copy is removed only after the packed page
//      reads back as the same bytes — through the same reader every other reader uses;
//   2. finished runs' rosters and every finished day are gzipped in place (`npm run compact --finished`);
//   3. verify stays green: the chain's digests are of names and of uncompressed bytes, so no manifest
//      changes, and every page's SHA-256 still resolves to the page.
// Idempotent: a second run finds nothing to do. Moving the objects to an S3-compatible store is
// `npm run store -- push` afterwards (collector/ops/store-cli.ts). Takes the collector's lock.
import fs from 'node:fs';
import { objectPath } from '../../src/archive/layout.ts';
import { readObject } from '../../src/archive/objects.ts';
import { listRosterFiles, readRoster } from '../../src/archive/rosters.ts';
import { manifestBytes, splitPage } from '../../src/lib/index.ts';
import { Store } from '../store.ts';
import { compactArchive, type CompactSummary } from './compact.ts';

export interface MigrateSummary {
  /** Distinct page names the rosters list. */
  pages: number;
  /** Pages packed by this run (their whole copies removed). */
  packed: number;
  /** Pages kept whole: the scanner cannot split them exactly (they stay readable as they were). */
  kept_whole: number;
  /** Pages already packed by an earlier run. */
  already_packed: number;
  /** Bytes of whole pages removed, and bytes of entries and manifests written for them. */
  bytes_removed: number;
  bytes_written: number;
  compact: CompactSummary;
}

export async function migrateArchive(dataDir: string): Promise<MigrateSummary> {
  const summary: Omit<MigrateSummary, 'compact'> = { pages: 0, packed: 0, kept_whole: 0, already_packed: 0, bytes_removed: 0, bytes_written: 0 };
  const store = Store.open(dataDir, new Date().toISOString());
  try {
    const pages = new Set<string>();
    for (const file of listRosterFiles(dataDir)) {
      const roster = readRoster(dataDir, file);
      if (!roster.ok) throw new Error(`rosters/${file}: ${roster.message}; nothing after it was migrated`);
      for (const p of roster.value.pages) if (p.sha256) pages.add(p.sha256);
    }
    summary.pages = pages.size;
    for (const sha of [...pages].sort()) {
      const wholePath = objectPath(dataDir, sha);
      if (!fs.existsSync(wholePath)) {
        summary.already_packed++;
        continue;
      }
      const whole = fs.readFileSync(wholePath);
      const split = splitPage(whole);
      if (split === null) {
        summary.kept_whole++;
        continue;
      }
      const fresh = new Map(split.entries.filter((e) => !fs.existsSync(objectPath(dataDir, e.sha256))).map((e) => [e.sha256, e.bytes.length]));
      const written = [...fresh.values()].reduce((a, b) => a + b, 0) + manifestBytes(split.manifest).length;
      await store.putPage(whole);
      // The whole copy goes only once the packed page reads back as these very bytes (readObject
      // prefers a whole object, so it is moved aside first and put back if the read disagrees).
      const aside = `${wholePath}.migrating`;
      fs.renameSync(wholePath, aside);
      const back = await readObject(dataDir, sha);
      if (back === null || !back.equals(whole)) {
        fs.renameSync(aside, wholePath);
        throw new Error(`page ${sha.slice(0, 12)}… did not read back from its manifest; it is kept whole and nothing after it was migrated`);
      }
      fs.rmSync(aside);
      summary.packed++;
      summary.bytes_removed += whole.length;
      summary.bytes_written += written;
    }
  } finally {
    store.close();
  }
  return { ...summary, compact: compactArchive(dataDir, { finished: true }) };
}
