// Post-build outputs (called from astro.config.mjs once the pages are written): bundles, the raw
// objects pages link to, and the search index; then the published site's size and file count,
// checked against the host limits we design for (bench/README.md, "Deployability").
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadArchive } from '../loader/load-archive.ts';
import { writeBundles } from './bundles.ts';
import { writeServerFiles } from './server-files.ts';
import { markSince, timed } from '../site/timings.ts';

/** Pagefind writes one fragment per page unless capped: hosts limit file counts. */
const MAX_SEARCH_FRAGMENTS = 500;
/** GitHub Pages publishes sites up to 1 GB; we warn well before. */
export const SITE_BYTES_LIMIT = 1_000_000_000;

export async function writeSiteOutputs(outDir: string): Promise<string> {
  markSince('render');
  const a = await loadArchive();
  const perServer = await timed('server-files', () => writeServerFiles(a, outDir));
  const files = await timed('bundles', () => writeBundles(a, outDir));
  const objects = await timed('objects', () => copyLinkedObjects(a, outDir));
  const indexed = await timed('search', () => writeSearchIndex(outDir));
  const size = await siteSize(outDir);
  const warn = size.bytes > SITE_BYTES_LIMIT ? ` — WARNING: over the ${SITE_BYTES_LIMIT / 1e9} GB GitHub Pages limit` : '';
  return `wrote ${perServer} per-server API answers and feeds, ${files.site.length} data files (+${files.release.length} in the release folder), ${objects} raw objects, search over ${indexed} pages; site ${(size.bytes / 1e6).toFixed(1)} MB in ${size.files} files${warn}`;
}

/** Raw bodies of every contract version (what server pages link to), served without an extension so hosts send them as downloads, never as HTML. */
async function copyLinkedObjects(a: Awaited<ReturnType<typeof loadArchive>>, outDir: string): Promise<number> {
  const shas = new Set<string>();
  for (const s of a.servers) for (const v of s.versions) if (v.bodySha256) shas.add(v.bodySha256);
  for (const c of a.changes) for (const sha of [c.beforeBody, c.afterBody]) if (sha) shas.add(sha);
  let copied = 0;
  const dirs = new Set<string>();
  for (const sha of shas) {
    if (!/^[0-9a-f]{64}$/.test(sha)) continue;
    const from = path.join(a.dir, 'objects', sha.slice(0, 2), sha);
    const to = path.join(outDir, 'objects', sha.slice(0, 2), sha);
    try {
      if (!dirs.has(path.dirname(to))) {
        await mkdir(path.dirname(to), { recursive: true });
        dirs.add(path.dirname(to));
      }
      await copyFile(from, to);
      copied++;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
    }
  }
  return copied;
}

async function writeSearchIndex(outDir: string): Promise<number> {
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
