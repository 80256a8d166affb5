// Static site: every page is rendered at build time from the archive (see src/archive.ts).
import { defineConfig } from 'astro/config';
import mdx from '@astrojs/mdx';

export default defineConfig({
  output: 'static',
  site: process.env.MCP_SCHEMA_SITE_URL ?? 'https://mcp-schema.example.org',
  trailingSlash: 'always',
  integrations: [mdx()],
  build: { format: 'directory' },
});
