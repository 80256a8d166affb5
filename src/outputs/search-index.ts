// The Pagefind index of the server pages (queried by /search/ through Pagefind's JS API).
import path from 'node:path';

/** Pagefind writes one fragment per page unless capped: hosts limit file counts. */
const MAX_SEARCH_FRAGMENTS = 500;

/** Index `outDir`'s server pages into `outDir`/pagefind; returns the pages indexed. */
export async function writeSearchIndex(outDir: string): Promise<number> {
  const pagefind = await import('pagefind');
  const { index, errors } = await pagefind.createIndex({ maxFragments: MAX_SEARCH_FRAGMENTS } as Parameters<typeof pagefind.createIndex>[0]);
  if (!index) throw new Error(`pagefind: ${errors.join('; ')}`);
  const added = await index.addDirectory({ path: outDir, glob: 'servers/*/index.html' });
  if (added.errors.length) throw new Error(`pagefind: ${added.errors.join('; ')}`);
  const written = await index.writeFiles({ outputPath: path.join(outDir, 'pagefind') });
  if (written.errors.length) throw new Error(`pagefind: ${written.errors.join('; ')}`);
  await pagefind.close();
  return added.page_count;
}
