// The file host (src/lib/file-host.ts says which paths go there): after the outputs are
// written, the build moves the file host's files out of the site into its folder, under the same
// paths (npm run publish-files uploads that folder), copies the small /data/ files beside them so that
// the file host's data/ checks alone with `sha256sum -c SHA256SUMS`, and writes /api/index.json on the
// site: where each kind of file is, for a reader or a tool that starts from the site.
import { copyFile, mkdir, readdir, rename, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { copiedToFileHost, ENDPOINT_INDEX_DIR, FILE_HOST_INDEX_PATH, onFileHost, STATUS_DIR, TOOL_INDEX_DIR, type FileHostOptions } from '../lib/index.ts';
import { DESCRIPTOR_SCHEMA_PATH, descriptorPath, setPath, toolsPath } from './descriptor.ts';
import { SIMULATED_NOTE, type Publication } from './publication.ts';

/** A site path's absolute URL on the file host, or null when it is the site's (or there is no file host). */
export function fileHostUrl(pub: Pick<Publication, 'fileHost'>, sitePath: string, options: FileHostOptions = {}): string | null {
  return pub.fileHost && onFileHost(sitePath, options) ? pub.fileHost.url + sitePath.replace(/^\/+/, '') : null;
}

/** Refuse a file host folder that holds anything: a stale file left there would be uploaded as today's. */
export async function checkFileHostDir(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return;
    throw error;
  }
  if (names.length > 0) throw new Error(`MCP_SCHEMA_FILES_DIR (${dir}) must be an empty or absent folder: it holds ${names.length} entr${names.length === 1 ? 'y' : 'ies'} (${JSON.stringify(names[0]!.slice(0, 60))}…), which would be published as this build's`);
}

export interface MovedFiles {
  moved: number;
  copied: number;
}

/** Move every file the file host serves from `outDir` to its folder (same relative paths), and copy the small /data/ files (and with server pages there, /_astro/) there too. */
export async function moveToFileHost(siteDir: string, dir: string, options: FileHostOptions = {}): Promise<MovedFiles> {
  const outDir = path.resolve(siteDir);
  let moved = 0;
  let copied = 0;
  const made = new Set<string>();
  const into = async (rel: string) => {
    const to = path.join(dir, rel);
    const parent = path.dirname(to);
    if (!made.has(parent)) {
      await mkdir(parent, { recursive: true });
      made.add(parent);
    }
    return to;
  };
  const emptied = new Set<string>();
  for (const e of await readdir(outDir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const from = path.join(e.parentPath, e.name);
    const rel = path.relative(outDir, from);
    const sitePath = `/${rel.split(path.sep).join('/')}`;
    if (onFileHost(sitePath, options)) {
      await rename(from, await into(rel));
      emptied.add(path.dirname(from));
      moved++;
    } else if (copiedToFileHost(sitePath, options)) {
      await copyFile(from, await into(rel));
      copied++;
    }
  }
  // Folders the move left empty (/objects/<aa>/, /servers/<slug>/changes/) go too, deepest first.
  for (const d of [...emptied].sort((x, y) => y.length - x.length)) await removeEmpty(d, outDir);
  return { moved, copied };
}

async function removeEmpty(dir: string, root: string): Promise<void> {
  for (let d = dir; d.startsWith(root + path.sep); d = path.dirname(d)) {
    try {
      await rmdir(d);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return;
      if (code !== 'ENOENT') throw error;
    }
  }
}

/**
 * /api/index.json, always on the site: the file host's base URL (null: every file is on the site) and
 * the URL of each kind of file, with `{slug}` and `{hash}` to fill in.
 */
export function fileHostIndex(pub: Pick<Publication, 'permalink' | 'simulated' | 'fileHost'>, generatedAt: string | null): string {
  const at = (p: string) => pub.permalink(p);
  return `${JSON.stringify(
    {
      ...(pub.simulated ? { simulated: true, note: SIMULATED_NOTE } : {}),
      site: at('/'),
      file_host: pub.fileHost?.url ?? null,
      note: pub.fileHost
        ? "The machine-readable files (descriptors, tools and set files, status files, name indexes, badges, feeds, JSON Patches, raw bodies, the data bundles) are served by the file host under the same paths as the site's; the pages, /data/SHA256SUMS and datapackage.json are on the site too, and the file host's data/ carries a copy of them, so it checks alone."
        : 'Every file is on the site.',
      urls: {
        descriptor: at(descriptorPath('{slug}')),
        tools: at(toolsPath('{slug}')),
        set: at(setPath('{hash}')),
        badge: at('/servers/{slug}/badge.svg'),
        feed_rss: at('/servers/{slug}/feed.xml'),
        feed_json: at('/servers/{slug}/feed.json'),
        tool_names_index: at(`${TOOL_INDEX_DIR}/`),
        endpoints_index: at(`${ENDPOINT_INDEX_DIR}/`),
        status: at(`${STATUS_DIR}/`),
        descriptor_schema: at(DESCRIPTOR_SCHEMA_PATH),
        data: at('/data/'),
        checksums: at('/data/SHA256SUMS'),
      },
      generated_at: generatedAt,
    },
    null,
    2,
  )}\n`;
}

export { FILE_HOST_INDEX_PATH };
