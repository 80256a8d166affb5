import type { APIRoute } from 'astro';
import { siteArchive } from '../../site/site-archive.ts';
import { simulated } from '../../site/settings.ts';
import { eraAdoptionCsv } from '../../outputs/v2-figures.ts';

export const GET: APIRoute = async () => new Response(eraAdoptionCsv((await siteArchive()).v2?.adoption ?? [], simulated()), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
