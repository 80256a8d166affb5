// How the published site is addressed, for every output that writes a URL (feeds, the per-server API
// answers, datapackage.json, CITATION.cff, the licence text) or a file outside the site (the release
// folder). Outputs take it as an argument and read no environment: the site builds one from its
// settings (src/site/settings.ts publication()), a test from whatever it likes.

export const SITE_NAME = 'mcp-schema';
/** Our `_meta` namespace in /api/servers/<slug>.json (reverse DNS, as the registry's own keys are). */
export const META_NAMESPACE = 'org.mcp-schema';

export interface Publication {
  /** The permanent absolute URL of a site path (citations, feeds, the API). */
  permalink(pathname: string): string;
  /** The folder the big bundles go to, published as release assets; null: every file is on the site under /data/. */
  releaseDir: string | null;
  /** The public base URL of that folder, with a trailing slash. */
  releaseUrl: string;
}
