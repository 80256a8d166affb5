import type { APIRoute } from 'astro';
import { loadArchive } from '../loader/load-archive.ts';
import { jsonFeed } from '../outputs/feeds.ts';

export const GET: APIRoute = async () => {
  const a = await loadArchive();
  const body = jsonFeed(a.changes, {
    title: 'mcp-schema: MCP tool contract changes',
    homePath: '/drift/',
    feedPath: '/drift.json',
    description: a.empty ? 'Nothing has been observed yet.' : 'Changes of the tools/list contracts of remote MCP servers in the official registry, newest first.',
  });
  return new Response(body, { headers: { 'Content-Type': 'application/feed+json; charset=utf-8' } });
};
