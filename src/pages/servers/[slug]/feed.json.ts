import type { APIRoute } from 'astro';
import { loadArchive } from '../../../archive.ts';
import { jsonFeed } from '../../../feeds.ts';

export async function getStaticPaths() {
  const a = await loadArchive();
  return a.servers.map((s) => ({ params: { slug: s.slug } }));
}

export const GET: APIRoute = async ({ params }) => {
  const a = await loadArchive();
  const s = a.bySlug.get(params.slug!)!;
  const body = jsonFeed(s.changes, {
    title: `mcp-schema: changes of ${s.name.slice(0, 200)}`,
    homePath: `/servers/${s.slug}/`,
    feedPath: `/servers/${s.slug}/feed.json`,
    description: "Changes of this server's tools/list contract, newest first.",
  });
  return new Response(body, { headers: { 'Content-Type': 'application/feed+json; charset=utf-8' } });
};
