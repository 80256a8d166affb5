// Static site: every page is rendered at build time from the archive (src/site/site-archive.ts, src/loader/).
import { defineConfig } from 'astro/config';
import mdx from '@astrojs/mdx';
import { unified } from '@astrojs/markdown-remark';
import { fileURLToPath } from 'node:url';

/**
 * After the pages: the /data/ bundles (streamed to disk, never held in memory), the raw objects the
 * pages link to, and the Pagefind index. Runs in Node, so the TypeScript modules are loaded through tsx;
 * the archive itself is shared with the pages through a process-wide cache (see loadArchive).
 */
function archiveOutputs() {
  return {
    name: 'mcp-schema-archive-outputs',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const { tsImport } = await import('tsx/esm/api');
        const out = fileURLToPath(dir);
        const started = Date.now();
        const { writeSiteOutputs } = await tsImport('./src/site/post-build.ts', import.meta.url);
        const summary = await writeSiteOutputs(out);
        logger.info(`${summary} in ${Date.now() - started} ms`);
      },
    },
  };
}

// The MCP_SCHEMA_* variables below are the only ones read outside src/site/settings.ts: Astro
// needs them before any of src/ loads, and importing a .ts module here makes Astro load this file
// through Vite, whose module runner is closed by the time the post-build hook runs. The site URL's
// default is src/site/settings.ts DEFAULT_SITE_URL; settings.ts checks MCP_SCHEMA_SERVER_PAGES and
// MCP_SCHEMA_FILES_URL (the build fails there on a bad value).
//
// With server pages on the file host (MCP_SCHEMA_SERVER_PAGES), every page loads its stylesheets and
// scripts from the file host (build.assetsPrefix): the build copies /_astro/ there (named by their
// content, never deleted), so a page published there on an earlier day still finds the assets it
// names, whatever the site deployed since; a root-relative /_astro/ would not reach a file host
// under a path, nor the site's origin from the file host's.
const serverPagesHosted = Boolean(process.env.MCP_SCHEMA_SERVER_PAGES) && Boolean(process.env.MCP_SCHEMA_FILES_URL);
const assetsPrefix = serverPagesHosted ? process.env.MCP_SCHEMA_FILES_URL.replace(/\/+$/, '') : undefined;
export default defineConfig({
  output: 'static',
  // Astro's content store in the checkout (git ignores .astro/), not node_modules/.astro: checkouts that
  // share one node_modules would otherwise render each other's changelog entries.
  cacheDir: './.astro/cache',
  // Tests build several archives side by side; the default stays dist/.
  outDir: process.env.MCP_SCHEMA_OUT || './dist',
  site: process.env.MCP_SCHEMA_SITE_URL || 'https://mcp-schema.example.org',
  // GitHub Pages project sites live under /<repo>/ (set by .github/workflows/deploy.yml).
  base: process.env.MCP_SCHEMA_BASE || '/',
  trailingSlash: 'always',
  // Astro 5's whitespace handling (lossless). Astro 7's default ('jsx') joins lines and drops the
  // whitespace around elements, which can remove a space a reader sees between two inline elements.
  compressHTML: true,
  // The remark/rehype pipeline Astro 5 rendered Markdown and MDX with. Astro 7's default (Sätteri)
  // renders some text otherwise (SmartyPants quotes, entities), and the methodology versions are frozen.
  markdown: { processor: unified() },
  integrations: [mdx(), archiveOutputs()],
  build: { format: 'directory', inlineStylesheets: 'never', ...(assetsPrefix ? { assetsPrefix } : {}) },
  // Scripts become files, never inline, so the CSP can say script-src 'self'.
  vite: { build: { assetsInlineLimit: 0 } },
});
