// /api/server-names/: every server name, sharded by its tokens' first characters (src/lib
// server-name-search.ts says how), so the search page finds a server by name with one or two small
// fetches at any size (DESIGN "Incremental server pages", search). On the file host with the other
// /api/ files. No date inside: a shard changes only when a name in it comes or goes, so a day's upload
// is the shards that new servers touched.
//   /api/server-names/index.json     { format, rule, max_bytes, prefixes: [...], too_common: [...] }
//   /api/server-names/<prefix>.json  { servers: [[name, slug], ...] }
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NAME_SHARD_START, SERVER_NAME_INDEX_DIR, shardServerNames } from '../lib/index.ts';
import type { Archive } from '../loader/views.ts';
import { SIMULATED_NOTE, type Publication } from './publication.ts';

/** A shard's JSON stays under this (200 kB: a phone fetches it in well under a second). */
export const NAME_SHARD_MAX_BYTES = 200_000;

/** Write the index and its shards (marked in a simulated build, within the same bound); returns how many files. */
export async function writeServerNameIndex(a: Pick<Archive, 'rows'>, outDir: string, pub: Pick<Publication, 'simulated'>, maxBytes = NAME_SHARD_MAX_BYTES): Promise<number> {
  const dir = path.join(outDir, ...SERVER_NAME_INDEX_DIR.split('/').filter(Boolean));
  await mkdir(dir, { recursive: true });
  const mark = pub.simulated ? { simulated: true, note: SIMULATED_NOTE } : {};
  // The bound is on the file as written: the mark's bytes come off what the names may take.
  const { shards, tooCommon } = shardServerNames(a.rows, maxBytes - (JSON.stringify(mark).length - 2 + (pub.simulated ? 1 : 0)));
  const prefixes = [...shards.keys()].sort();
  for (const p of prefixes) await writeFile(path.join(dir, `${p}.json`), JSON.stringify({ ...mark, servers: shards.get(p) }));
  const index = {
    ...mark,
    format: 1,
    rule: `a name's tokens are its runs of a-z and 0-9 (lowercased, NFKC), two characters or more; a shard named by a prefix holds [name, slug] of every server whose name has a token starting with it (a prefix ending in _ : tokens equal to it); shards start at ${NAME_SHARD_START} characters and are split by one more while over max_bytes; a token whose names alone are over max_bytes is in too_common and in no shard`,
    max_bytes: maxBytes,
    prefixes,
    too_common: tooCommon,
  };
  await writeFile(path.join(dir, 'index.json'), JSON.stringify(index));
  return prefixes.length + 1;
}
