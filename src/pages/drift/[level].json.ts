// One JSON Feed per drift filter (/drift/err.json, …): the changes at that level only.
import type { APIRoute } from 'astro';
import { siteArchive } from '../../site/site-archive.ts';
import { jsonFeed, levelChannel } from '../../outputs/feeds.ts';
import { DRIFT_FILTERS } from '../../site/drift-filters.ts';
import { publication } from '../../site/settings.ts';

export function getStaticPaths() {
  return DRIFT_FILTERS.filter((f) => f.key).map((f) => ({ params: { level: f.key } }));
}

export const GET: APIRoute = async ({ params }) => {
  const f = DRIFT_FILTERS.find((x) => x.key === params.level)!;
  const a = await siteArchive();
  return new Response(jsonFeed(a.changes.filter(f.test), levelChannel(f.key, f.label), publication()), { headers: { 'Content-Type': 'application/feed+json; charset=utf-8' } });
};
