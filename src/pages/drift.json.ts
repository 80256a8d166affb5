import type { APIRoute } from 'astro';
import { loadArchive } from '../loader/load-archive.ts';
import { driftChannel, jsonFeed } from '../outputs/feeds.ts';

export const GET: APIRoute = async () => {
  const a = await loadArchive();
  return new Response(jsonFeed(a.changes, driftChannel(a.empty)), { headers: { 'Content-Type': 'application/feed+json; charset=utf-8' } });
};
