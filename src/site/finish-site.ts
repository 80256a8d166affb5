// The last step of a site build: the Pagefind index over the server pages, then the site's size and
// file count against the host limit. Imported by the Astro hook (post-build.ts) and by
// search-step.ts, which npm run build runs after Astro has exited; it imports no loader, so that
// process holds Pagefind and little else.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { SERVER_PAGES_GLOB, SITE_PAGES_GLOB, writeSearchIndex } from '../outputs/search-index.ts';
import { serverPagesHosted } from './settings.ts';
import { timed } from './timings.ts';

/** GitHub Pages publishes sites up to 1 GB; we warn well before. */
export const SITE_BYTES_LIMIT = 1_000_000_000;

/** The last step of a build: the search index over the server pages, then the site's size against the host limit. */
export async function finishSite(outDir: string): Promise<string> {
  // Server pages on the file host: the site-wide pages instead (servers are found by name, /api/server-names/).
  const indexed = await timed('search', () => writeSearchIndex(outDir, serverPagesHosted() ? SITE_PAGES_GLOB : SERVER_PAGES_GLOB));
  const size = await siteSize(outDir);
  const warn = size.bytes > SITE_BYTES_LIMIT ? ` — WARNING: over the ${SITE_BYTES_LIMIT / 1e9} GB GitHub Pages limit` : '';
  return `search over ${indexed} pages; site ${(size.bytes / 1e6).toFixed(1)} MB in ${size.files} files${warn}`;
}

export async function siteSize(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    files++;
    bytes += (await stat(path.join(e.parentPath, e.name))).size;
  }
  return { bytes, files };
}
