import rss from '@astrojs/rss';
import type { APIRoute } from 'astro';
import { loadArchive } from '../loader/load-archive.ts';
import { rssItems } from '../outputs/feeds.ts';
import { permalink } from '../site/settings.ts';

export const GET: APIRoute = async () => {
  const a = await loadArchive();
  return rss({
    title: 'mcp-schema: MCP tool contract changes',
    description: a.empty ? 'Nothing has been observed yet.' : 'Changes of the tools/list contracts of remote MCP servers in the official registry, newest first.',
    site: permalink('/drift/'),
    items: rssItems(a.changes),
  });
};
