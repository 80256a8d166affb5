// File sizes on the /data/ page (the page showed none). The page is rendered before the
// bundles are written (post-build), so each size cell is a marker, `data-bundle-size="<file>"` holding
// "—", that this step fills with the size of the file as written — in the site's data folder or the
// release folder, the same bytes datapackage.json and SHA256SUMS describe.
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BundleFile } from './catalogue.ts';

const MARKER = /(<td\b[^>]*\bdata-bundle-size="([^"]+)"[^>]*>)—(<\/td>)/g;

/** Fill the size cells of `<outDir>/data/index.html`; returns how many were filled. `format` spells a size. */
export async function fillBundleSizes(outDir: string, written: { site: BundleFile[]; release: BundleFile[] }, format: (bytes: number) => string): Promise<number> {
  const page = path.join(outDir, 'data', 'index.html');
  const html = await readFile(page, 'utf8').catch(() => null);
  if (html === null) return 0;
  const sizes = new Map([...written.site, ...written.release].map((f) => [f.name, f.bytes]));
  for (const [, , name] of html.matchAll(MARKER)) {
    if (sizes.has(name!)) continue;
    // Files that describe the others (datapackage.json, SHA256SUMS) are not in their own lists.
    const s = await stat(path.join(outDir, 'data', path.basename(name!))).catch(() => null);
    if (s?.isFile()) sizes.set(name!, s.size);
  }
  let filled = 0;
  const out = html.replace(MARKER, (all, open: string, name: string, close: string) => {
    const bytes = sizes.get(name);
    if (bytes === undefined) return all;
    filled++;
    return `${open}${format(bytes)}${close}`;
  });
  await writeFile(page, out);
  return filled;
}
