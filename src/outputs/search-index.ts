// The Pagefind index of the server pages (queried by /search/ through Pagefind's JS API). With server
// pages on the file host (MCP_SCHEMA_SERVER_PAGES) there are none on the site: the index is then of the
// site-wide pages that explain and sum up (SITE_PAGES_GLOB), and servers are found by name from the
// shards under /api/server-names/ (server-name-index.ts).
import path from 'node:path';

/** Pagefind writes one fragment per page unless capped: hosts limit file counts. */
const MAX_SEARCH_FRAGMENTS = 500;

/** The server pages, when they are on the site. */
export const SERVER_PAGES_GLOB = 'servers/*/index.html';
/** The site-wide pages worth a text search (not the drift or lookup lists, which grow with every change). */
export const SITE_PAGES_GLOB = '{index.html,methodology/**/index.html,statistics/index.html,trends/index.html,data/index.html,charts/**/index.html,editions/**/index.html}';

/** Index `outDir`'s pages matching `glob` (default: the server pages) into `outDir`/pagefind; returns the pages indexed. */
export async function writeSearchIndex(outDir: string, glob = SERVER_PAGES_GLOB): Promise<number> {
  const pagefind = await import('pagefind');
  const { index, errors } = await pagefind.createIndex({ maxFragments: MAX_SEARCH_FRAGMENTS } as Parameters<typeof pagefind.createIndex>[0]);
  if (!index) throw new Error(`pagefind: ${errors.join('; ')}`);
  const added = await index.addDirectory({ path: outDir, glob });
  if (added.errors.length) throw new Error(`pagefind: ${added.errors.join('; ')}`);
  const written = await index.writeFiles({ outputPath: path.join(outDir, 'pagefind') });
  if (written.errors.length) throw new Error(`pagefind: ${written.errors.join('; ')}`);
  await pagefind.close();
  return added.page_count;
}
