import type { APIRoute } from 'astro';
import { siteArchive } from '../../../site/site-archive.ts';
import { survivalCsv } from '../../../outputs/survival-csv.ts';
import { simulated } from '../../../site/settings.ts';

export const GET: APIRoute = async () => new Response(survivalCsv(await siteArchive(), simulated()), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
