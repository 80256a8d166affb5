import type { APIRoute } from 'astro';
import { siteArchive } from '../site/site-archive.ts';
import { driftChannel, rssFeed } from '../outputs/feeds.ts';
import { publication } from '../site/settings.ts';

export const GET: APIRoute = async () => {
  const a = await siteArchive();
  return new Response(await rssFeed(a.changes, driftChannel(a.empty), publication(), a.bodyFindings), { headers: { 'Content-Type': 'application/xml; charset=utf-8' } });
};
