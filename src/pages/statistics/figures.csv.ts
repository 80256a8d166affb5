import type { APIRoute } from 'astro';
import { siteArchive } from '../../site/site-archive.ts';
import { simulated } from '../../site/settings.ts';
import { v2FiguresCsv } from '../../outputs/v2-figures.ts';

export const GET: APIRoute = async () => new Response(v2FiguresCsv((await siteArchive()).v2?.latest ?? null, simulated()), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
