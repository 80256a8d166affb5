// Post-build outputs (called from astro.config.mjs once the pages are written): bundles, the raw
// objects pages link to, and the search index.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { loadArchive } from './archive.ts';
import { writeBundles } from './bundles.ts';

/** Pagefind writes one fragment per page unless capped: hosts limit file counts. */
const MAX_SEARCH_FRAGMENTS = 500;

export async function writeSiteOutputs(outDir: string): Promise<string> {
  const a = await loadArchive();
  const files = await writeBundles(a, outDir);
  const objects = await copyLinkedObjects(a, outDir);
  const indexed = await writeSearchIndex(outDir);
  return `wrote ${files.length} data files, ${objects} raw objects, search over ${indexed} pages`;
}

/** Raw bodies of every contract version (what server pages link to), served without an extension so hosts send them as downloads, never as HTML. */
async function copyLinkedObjects(a: Awaited<ReturnType<typeof loadArchive>>, outDir: string): Promise<number> {
  const shas = new Set<string>();
  for (const s of a.servers) for (const v of s.versions) if (v.bodySha256) shas.add(v.bodySha256);
  for (const c of a.changes) for (const sha of [c.beforeBody, c.afterBody]) if (sha) shas.add(sha);
  let copied = 0;
  for (const sha of shas) {
    if (!/^[0-9a-f]{64}$/.test(sha)) continue;
    const from = path.join(a.dir, 'objects', sha.slice(0, 2), sha);
    const to = path.join(outDir, 'objects', sha.slice(0, 2), sha);
    try {
      await mkdir(path.dirname(to), { recursive: true });
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
