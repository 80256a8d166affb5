// Which of the site's paths a file host serves, when one is configured (the site stays under
// 1 GB; DESIGN "The file host"). At the real registry's size the machine-readable files per server
// (descriptor, tools file, badge, feeds, JSON Patches), the set files, the name indexes, the raw bodies
// and the data bundles are most of the site's bytes and nearly all of its files; GitHub Pages holds
// 1 GB. With a file host (a public bucket) those paths are served there, under the same paths below
// its base URL, and the HTML pages stay on Pages. One rule, here, decides both where the build writes
// a file and where every link to it points, so the two never disagree. Pure: paths in, booleans out.
//
// On the file host:
//   /api/**                        except /api/index.json (the site's note of where its files are)
//   /objects/**                    raw bodies
//   /servers/<slug>/badge.svg, feed.xml, feed.json, breaking.xml, breaking.json, changes/<file>.patch.json
//   /data/<name>.jsonl.gz, .csv.gz, .parquet   the bundles (every other /data/ file is small: the
//                                  site keeps it, and the file host gets a copy, so that its data/ is
//                                  complete for `sha256sum -c SHA256SUMS`)
// HTML goes there in one case only, when the build says so ({ serverPages: true }, the site setting
// MCP_SCHEMA_SERVER_PAGES): each server's page and its change pages, /servers/<slug>/ and
// /servers/<slug>/changes/<id>/ (a slug always holds `_` or `~`, src/lib/slug.ts, so the server list's
// /servers/page-<n>/ never matches). At the registry's size those pages are most of the HTML and grow
// with every new server; the site-wide pages stay the site's. With server pages there, the build's
// assets (/_astro/**: stylesheets and scripts, named by their content) are copied there too, so a
// page on the file host finds its styles under its own origin (copiedToFileHost).

/**
 * The build's per-server fingerprints, written into the file host's folder with server pages there
 * (src/site/changed-servers.ts): the upload records them in its manifest once every file is up, and
 * never publishes the file itself.
 */
export const SERVER_FINGERPRINTS_FILE = '.server-fingerprints.json';

/**
 * The months whose data bundles a build or the bundles step wrote to the file host (src/outputs/sealed-months.ts),
 * written into its folder beside the fingerprints: the upload records them in its manifest once every
 * file is up, never publishes the file itself, and hands them back to the next build, which then
 * neither reads those months' days nor writes their files again.
 */
export const SEALED_BUNDLES_FILE = '.sealed-bundles.json';

/** The site's own note of where its files live (always on the site). */
export const FILE_HOST_INDEX_PATH = '/api/index.json';

const SERVER_PAGE = /^\/servers\/[^/]*[_~][^/]*\/(?:changes\/[^/]+\/)?(?:index\.html)?$/;
const SERVER_FILE = /^\/servers\/[^/]+\/(?:badge\.svg|feed\.xml|feed\.json|breaking\.xml|breaking\.json|changes\/[^/]+\.patch\.json)$/;
const DATA_BUNDLE = /^\/data\/[^/]+\.(?:jsonl\.gz|csv\.gz|parquet)$/;

/** What the build puts on the file host besides its files: `serverPages`, each server's page and change pages. */
export interface FileHostOptions {
  serverPages?: boolean;
}

/** Whether a site path (starting with `/`, no query) is served by the file host when one is configured. */
export function onFileHost(sitePath: string, options: FileHostOptions = {}): boolean {
  if (sitePath === FILE_HOST_INDEX_PATH) return false;
  if (options.serverPages && SERVER_PAGE.test(sitePath)) return true;
  // The site has no page under /api/ or /objects/: a folder there (/api/sets/, a link's prefix) is the file host's too.
  if (sitePath.startsWith('/api/') || sitePath.startsWith('/objects/')) return !sitePath.endsWith('.html');
  return SERVER_FILE.test(sitePath) || DATA_BUNDLE.test(sitePath);
}

/** Files the site keeps and the file host also carries: the small /data/ files (its data/ then checks alone), and with server pages there the build's assets (/_astro/**). */
export function copiedToFileHost(sitePath: string, options: FileHostOptions = {}): boolean {
  if (options.serverPages && /^\/_astro\/[^/]+$/.test(sitePath)) return true;
  return /^\/data\/[^/]+$/.test(sitePath) && !onFileHost(sitePath) && !sitePath.endsWith('.html');
}
