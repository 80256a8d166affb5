import type { APIRoute } from 'astro';
import { siteArchive } from '../../site/site-archive.ts';
import { simulated } from '../../site/settings.ts';
import { everChangedCsv } from '../../outputs/trend-csv.ts';

export const GET: APIRoute = async () => new Response(everChangedCsv(await siteArchive(), simulated()), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
