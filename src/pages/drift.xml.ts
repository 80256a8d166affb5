import type { APIRoute } from 'astro';
import { loadArchive } from '../loader/load-archive.ts';
import { driftChannel, rssFeed } from '../outputs/feeds.ts';

export const GET: APIRoute = async () => {
  const a = await loadArchive();
  return new Response(await rssFeed(a.changes, driftChannel(a.empty)), { headers: { 'Content-Type': 'application/xml; charset=utf-8' } });
};
