import type { APIRoute } from 'astro';
import { siteArchive } from '../../../site/site-archive.ts';
import { emptyChartSvg, survivalExportSvg } from '../../../outputs/survival-export.ts';
import { liveChartContext } from '../../../site/chart-context.ts';

// The standalone SVG carries its title, legend and source line (survival-export.ts); an empty archive
// still answers with a valid SVG that says so, so embeds never break.
export const GET: APIRoute = async () => {
  const a = await siteArchive();
  const ctx = liveChartContext(a);
  const body = survivalExportSvg(a, ctx) ?? emptyChartSvg(ctx);
  return new Response(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`, { headers: { 'Content-Type': 'image/svg+xml' } });
};
