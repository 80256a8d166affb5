import rss from '@astrojs/rss';
import type { APIRoute } from 'astro';
import { loadArchive } from '../../../archive.ts';
import { rssItems } from '../../../feeds.ts';
import { permalink } from '../../../settings.ts';

export async function getStaticPaths() {
  const a = await loadArchive();
  return a.servers.map((s) => ({ params: { slug: s.slug } }));
}

export const GET: APIRoute = async ({ params }) => {
  const a = await loadArchive();
  const s = a.bySlug.get(params.slug!)!;
  return rss({
    title: `mcp-schema: changes of ${s.name.slice(0, 200)}`,
    description: 'Changes of this server\'s tools/list contract, newest first.',
    site: permalink(`/servers/${s.slug}/`),
    items: rssItems(s.changes),
  });
};
