import type { APIRoute } from 'astro';
import { siteArchive } from '../../site/site-archive.ts';
import { simulated } from '../../site/settings.ts';
import { TREND_NAMES, trendCsv, type TrendName } from '../../outputs/trend-csv.ts';

export function getStaticPaths() {
  return TREND_NAMES.map((name) => ({ params: { name } }));
}

export const GET: APIRoute = async ({ params }) => new Response(trendCsv(await siteArchive(), params.name as TrendName, simulated()), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
