import type { APIRoute } from 'astro';
import { siteArchive } from '../site/site-archive.ts';
import { driftChannel, jsonFeed } from '../outputs/feeds.ts';
import { publication } from '../site/settings.ts';

export const GET: APIRoute = async () => {
  const a = await siteArchive();
  return new Response(jsonFeed(a.changes, driftChannel(a.empty), publication(), a.bodyFindings), { headers: { 'Content-Type': 'application/feed+json; charset=utf-8' } });
};
