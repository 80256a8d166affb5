// How the published site is addressed, for every output that writes a URL (feeds, the per-server API
// answers, datapackage.json, CITATION.cff, the licence text) or a file outside the site (the release
// folder). Outputs take it as an argument and read no environment: the site builds one from its
// settings (src/site/settings.ts publication()), a test from whatever it likes.

export const SITE_NAME = 'mcp-schema';
/** The code and the archive (data/ with its chain), for "verify it yourself" (the collector's User-Agent names the same). */
export const SOURCE_REPOSITORY = 'https://github.com/mcp-schema/mcp-schema';
/** Our `_meta` namespace in /api/servers/<slug>.json (reverse DNS, as the registry's own keys are). */
export const META_NAMESPACE = 'org.mcp-schema';

export interface Publication {
  /** The permanent absolute URL of a site path (citations, feeds, the API). */
  permalink(pathname: string): string;
  /** The folder the big bundles go to, published as release assets; null: every file is on the site under /data/. */
  releaseDir: string | null;
  /** The public base URL of that folder, with a trailing slash. */
  releaseUrl: string;
  /**
   * The build shows a simulated world (the demo, tests): every file it writes says so — images carry a
   * stamp and text metadata, data files a `-SIMULATED` name (simulatedName) and a field or line, feeds
   * and API answers a field and their titles. Outputs read it here, never from the environment.
   */
  simulated: boolean;
  /**
   * The public base URL of the object store's objects/ folder, with a trailing slash: raw bodies the site
   * does not carry are linked there (linked-objects.ts bodyLocation). Null or absent: every body is on the site.
   */
  objectsUrl?: string | null;
  /**
   * Older months are published as monthly parts (npm run months: release data-<YYYY-MM>), not by this
   * build: the bundles cover the site's recent months only, and no whole-archive file is written, so
   * a daily build reads three months of day files, not the archive. The site's is
   * MCP_SCHEMA_RELEASE=parts.
   */
  partsOnly?: boolean;
  /**
   * The file host (src/lib/file-host.ts onFileHost says which paths): the folder the build moves those
   * files to and its public base URL, with a trailing slash. `permalink` already points there for its
   * paths; outputs need it only to say where a file is. Null or absent: every file on the site.
   */
  fileHost?: { dir: string; url: string } | null;
  /**
   * The concept DOI of the dataset's Zenodo record (all its versions; `10.5281/zenodo.<n>`), minted by
   * the operator's Zenodo–GitHub link from .zenodo.json (docs/OPERATIONS.md, "DOI"); the site's is
   * MCP_SCHEMA_CONCEPT_DOI. When set, every citation form names it (CITATION.cff, BibTeX, plain text,
   * the chart's source line, edition.json); null or absent: none says anything about a DOI.
   */
  conceptDoi?: string | null;
}

/** A DOI as the settings accept it (Crossref's recommended pattern): `10.<registrant>/<suffix>`. */
export const DOI_PATTERN = /^10\.\d{4,9}\/[-._;()/:A-Za-z0-9]+$/;

/** A DOI's resolver URL. */
export const doiUrl = (doi: string) => `https://doi.org/${doi}`;

/**
 * What a citation says of the concept DOI: it resolves to the latest version, and each edition's own
 * version DOI is on the record's page (Zenodo mints it when the edition's release is published, after
 * the edition was cut and signed, so no edition file can hold it).
 */
export const CONCEPT_DOI_NOTE = 'concept DOI: resolves to the latest version; each edition\'s version DOI is listed on the record';

/** CITATION.cff lines for the concept DOI ([] without one). */
export function cffDoiLines(pub: Pick<Publication, 'conceptDoi'>): string[] {
  const doi = pub.conceptDoi ?? null;
  if (doi === null) return [];
  return [`doi: ${JSON.stringify(doi)}`, 'identifiers:', '  - type: doi', `    value: ${JSON.stringify(doi)}`, `    description: ${JSON.stringify(CONCEPT_DOI_NOTE)}`];
}

/** The word every file of a simulated build carries, in its name or its text. */
export const SIMULATED_MARK = 'SIMULATED';

/** What a simulated file says, in one line. */
export const SIMULATED_NOTE = 'SIMULATED DATA: a local test world, not the official MCP registry. No figure here describes real servers.';

/**
 * A data file's published name: as is, or with `-SIMULATED` before its extensions in a simulated build
 * (`observations-2025-12.jsonl.gz` → `observations-2025-12-SIMULATED.jsonl.gz`), so a file saved
 * alone still says what it is. Names tools look for by convention (datapackage.json, CITATION.cff,
 * SHA256SUMS, licences) keep their name and say it in their text.
 */
export function simulatedName(name: string, pub: Pick<Publication, 'simulated'>): string {
  if (!pub.simulated) return name;
  const m = /^([^.]+)(\..*)?$/.exec(name);
  return m ? `${m[1]}-${SIMULATED_MARK}${m[2] ?? ''}` : `${name}-${SIMULATED_MARK}`;
}
