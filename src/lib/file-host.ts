// Which of the site's paths a file host serves, when one is configured (issue 23, "The site stays under
// 1 GB"; DESIGN "The file host"). At the real registry's size the machine-readable files per server
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
// HTML never goes there: a page is always the site's.

/** The site's own note of where its files live (always on the site). */
export const FILE_HOST_INDEX_PATH = '/api/index.json';

const SERVER_FILE = /^\/servers\/[^/]+\/(?:badge\.svg|feed\.xml|feed\.json|breaking\.xml|breaking\.json|changes\/[^/]+\.patch\.json)$/;
const DATA_BUNDLE = /^\/data\/[^/]+\.(?:jsonl\.gz|csv\.gz|parquet)$/;

/** Whether a site path (starting with `/`, no query) is served by the file host when one is configured. */
export function onFileHost(sitePath: string): boolean {
  if (sitePath === FILE_HOST_INDEX_PATH) return false;
  // The site has no page under /api/ or /objects/: a folder there (/api/sets/, a link's prefix) is the file host's too.
  if (sitePath.startsWith('/api/') || sitePath.startsWith('/objects/')) return !sitePath.endsWith('.html');
  return SERVER_FILE.test(sitePath) || DATA_BUNDLE.test(sitePath);
}

/** /data/ files the site keeps and the file host also carries (its data/ then checks alone). */
export function copiedToFileHost(sitePath: string): boolean {
  return /^\/data\/[^/]+$/.test(sitePath) && !onFileHost(sitePath) && !sitePath.endsWith('.html');
}
