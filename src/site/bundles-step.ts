// `npm run bundles` (scripts/bundles.ts): the month bundles alone, in a job of their own (deploy.yml's bundles job, the
// pipeline's `bundles` step). With a file host and the site's recent months (MCP_SCHEMA_RELEASE=parts),
// it writes into MCP_SCHEMA_FILES_DIR/data/ each recent month's raw files (rows as JSON Lines, CSV and
// Parquet in both series, roster targets) that the sealed-months record (MCP_SCHEMA_PUBLISHED_BUNDLES)
// does not hold under their current key — the open month included — and the record of every month it
// wrote or found. publish-files then uploads them and keeps the record; the site build takes every
// month's entries from it, so a month of bundles (≈ 5 GB at year 5 of the registry) is never on the
// site build's disk. It reads the days of those months one at a time (src/loader/month-view.ts): no
// fold, no build cache, no Astro; the same environment as the site build.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { useObjectStore } from '../archive/objects.ts';
import { openObjectStore, readStoreConfig } from '../archive/store-config.ts';
import { SITE_MONTHS } from '../outputs/catalogue.ts';
import { writeBundles } from '../outputs/bundles.ts';
import { readSealRecord } from '../outputs/sealed-months.ts';
import { checkFileHostDir } from '../outputs/file-host.ts';
import { monthView } from '../loader/month-view.ts';
import type { Archive } from '../loader/views.ts';
import { cacheDir, dataDir, publication, publishedBundlesFile, sourceRoot, storeEnv } from './settings.ts';

/** A setting the step cannot run with (the command line's usage error). */
export class BundlesSettingsError extends Error {}

/** Write the month bundles and the record (see the header); returns what it did, in one line. */
export async function bundlesStep(): Promise<string> {
  const pub = publication();
  if (!pub.fileHost) throw new BundlesSettingsError('MCP_SCHEMA_FILES_DIR and MCP_SCHEMA_FILES_URL are not set: without a file host the site build writes the bundles');
  if (!pub.partsOnly) throw new BundlesSettingsError('MCP_SCHEMA_RELEASE is not parts: the month bundles alone are the recent months of a parts build');
  await checkFileHostDir(pub.fileHost.dir);
  const dir = dataDir();
  if (readStoreConfig(storeEnv()) !== null) useObjectStore(dir, openObjectStore(dir, storeEnv()));
  const t0 = Date.now();
  const sealed = readSealRecord(publishedBundlesFile());
  const view = await monthView(dir, { sourceRoot: sourceRoot(), months: SITE_MONTHS });
  const scratch = path.join(cacheDir(), 'bundles-step');
  try {
    // The view holds what the month bundles read of an archive (its months, days and rosters): nothing else is asked of it.
    const written = await writeBundles(view as unknown as Archive, pub.fileHost.dir, { pub, cacheDir: scratch, sealed, monthsOnly: true });
    const months = new Set([...view.months, ...view.v2.dayFiles.map((d) => d.day.slice(0, 7))]);
    const reused = [...months].filter((m) => sealed?.months[m]?.files.every((x) => written.site.some((f) => f.name === x.name && f.sha256 === x.sha256))).length;
    return `${months.size} months, ${months.size - reused} written to ${pub.fileHost.dir} (${reused} already on the file host), ${written.site.length} files described, in ${((Date.now() - t0) / 1000).toFixed(1)} s`;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
