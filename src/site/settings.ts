// Build settings read from the environment, in one place so pages and tests agree.
//   MCP_SCHEMA_DATA       the archive directory (default: ./data)
//   MCP_SCHEMA_SIMULATED  "1" shows the simulated-data banner on every page (demo builds)
//   MCP_SCHEMA_SITE_URL   the permanent base URL used in citations, feeds and the API (astro.config.mjs)
import path from 'node:path';

export const SITE_NAME = 'mcp-schema';
/** Our `_meta` namespace in /api/servers/<slug>.json (reverse DNS, as the registry's own keys are). */
export const META_NAMESPACE = 'org.mcp-schema';
export const DEFAULT_SITE_URL = 'https://mcp-schema.example.org';

export function dataDir(): string {
  return path.resolve(process.env.MCP_SCHEMA_DATA || 'data');
}

export function simulated(): boolean {
  return process.env.MCP_SCHEMA_SIMULATED === '1';
}

export function siteUrl(): string {
  return (process.env.MCP_SCHEMA_SITE_URL || DEFAULT_SITE_URL).replace(/\/+$/, '');
}

/** Base path the site is served under (GitHub Pages project sites use `/<repo>/`), with a trailing slash. */
export function basePath(): string {
  const base = (process.env.MCP_SCHEMA_BASE || '/').replace(/\/+$/, '');
  return `${base.startsWith('/') ? base : `/${base}`}/`.replace(/^\/\/$/, '/');
}

/** A site-internal link: `href('/servers/')` → `/servers/` or `/<base>/servers/`. */
export function href(pathname: string): string {
  return basePath() + pathname.replace(/^\/+/, '');
}

/** The permanent absolute URL of a site path (citations, feeds, the API). */
export function permalink(pathname: string): string {
  return siteUrl() + href(pathname);
}
