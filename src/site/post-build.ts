// The post-build step (called from astro.config.mjs once the pages are written): the per-server API
// answers and feeds, the /data/ bundles, the raw objects pages link to and the search index
// (src/outputs/; with MCP_SCHEMA_SEARCH=after the index is src/site/search-step.ts's, run after the
// Astro build exits), then the published site's size and file count, checked against the host limits we
// design for (bench/README.md, "Deployability"). Here the outputs get the site's settings.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeBundles } from '../outputs/bundles.ts';
import { fillBundleSizes } from '../outputs/bundle-sizes.ts';
import { bytes } from './format.ts';
import { copyEditions } from '../outputs/editions.ts';
import { copyLinkedObjects } from '../outputs/linked-objects.ts';
import { writeServerFiles } from '../outputs/server-files.ts';
import { writeServerNameIndex } from '../outputs/server-name-index.ts';
import { checkFileHostDir, FILE_HOST_INDEX_PATH, fileHostIndex, moveToFileHost } from '../outputs/file-host.ts';
import { writeChartZip } from './chart-files.ts';
import { cacheDir, publication, publishedBundlesFile, searchAfterBuild, serverPagesHosted } from './settings.ts';
import { readSealRecord } from '../outputs/sealed-months.ts';
import { serverSelection, writeFingerprints } from './changed-servers.ts';
import { siteArchive, siteRegistrySchemas } from './site-archive.ts';
import { finishSite, siteSize } from './finish-site.ts';
import { mark, markSince, timed } from './timings.ts';


export async function writeSiteOutputs(outDir: string): Promise<string> {
  markSince('render');
  const a = await siteArchive();
  const pub = publication();
  if (pub.fileHost) await checkFileHostDir(pub.fileHost.dir);
  // With MCP_SCHEMA_SERVER_PAGES=changed, the badge, feeds and patches of the servers whose pages render (changed-servers.ts).
  const selection = await serverSelection(a);
  const perServer = await timed('server-files', () => writeServerFiles(a, outDir, pub, siteRegistrySchemas(), selection.rendered));
  // 'bundles' includes its two parts, marked as they end: 'bundles-jsonl' (JSON Lines, CSV) and 'parquet'.
  const files = await timed('bundles', () => writeBundles(a, outDir, { pub, cacheDir: cacheDir(), written: perServer.bundles, onStage: mark, sealed: readSealRecord(publishedBundlesFile()) }));
  await timed('chart-zip', () => writeChartZip(a, outDir, pub));
  // Every server name in shards by prefix: what /search/ finds servers by (Pagefind indexes pages, which at the registry's size cannot run daily).
  await timed('server-names', () => writeServerNameIndex(a, outDir, pub));
  const editions = await timed('editions', () => copyEditions(a, outDir, pub));
  await fillBundleSizes(outDir, files, bytes);
  const objects = await timed('objects', () => copyLinkedObjects(a, outDir, pub.objectsUrl ?? null));
  await mkdir(path.join(outDir, 'api'), { recursive: true });
  await writeFile(path.join(outDir, ...FILE_HOST_INDEX_PATH.split('/').filter(Boolean)), fileHostIndex(pub, a.asOf));
  // With a file host, its files leave the site now (after every writer, before the search index and the size check).
  const host = pub.fileHost ? await timed('file-host', () => moveToFileHost(outDir, pub.fileHost!.dir, { serverPages: serverPagesHosted() })) : null;
  const fingerprinted = await writeFingerprints(a);
  const hosted = host && pub.fileHost ? await siteSize(pub.fileHost.dir) : null;
  const rendered = selection.rendered === null ? 'every server' : `${selection.rendered.size} of ${a.rows.length} servers (fingerprint moved${selection.published ? '' : '; none published yet'})`;
  const pages = fingerprinted !== null ? `; server pages on the file host: ${rendered}, ${fingerprinted} fingerprints` : '';
  const elsewhere = host && hosted ? `; file host (${pub.fileHost!.dir}): ${host.moved} files moved there and ${host.copied} copied, ${(hosted.bytes / 1e6).toFixed(1)} MB in ${hosted.files} files${pages}` : '';
  const wrote = `wrote ${perServer.files} per-server descriptors, tools files, feeds and set files, ${files.site.length} data files (+${files.release.length} in the release folder), ${objects} raw objects, ${editions} editions; the archive derived in ${a.shards === 1 ? 'one shard' : `${a.shards} shards`}`;
  // npm run build indexes the search once this process has exited (src/site/search-step.ts): Pagefind's
  // memory then comes after the loaded archive's, not on top of it.
  if (searchAfterBuild()) return `${wrote}${elsewhere}; the search index and the size check follow (src/site/search-step.ts)`;
  return `${wrote}, ${await finishSite(outDir)}${elsewhere}`;
}
