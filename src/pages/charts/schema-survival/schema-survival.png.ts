import type { APIRoute } from 'astro';
import { siteArchive } from '../../../site/site-archive.ts';
import { emptyChartSvg, survivalExportPng, survivalExportSvg } from '../../../outputs/survival-export.ts';
import { liveChartContext } from '../../../site/chart-context.ts';

// Rasterised at build time by sharp (librsvg), which Astro already installs for its image service,
// with the chart's text in PNG text chunks.
export const GET: APIRoute = async () => {
  const a = await siteArchive();
  const ctx = liveChartContext(a);
  const png = await survivalExportPng(survivalExportSvg(a, ctx) ?? emptyChartSvg(ctx), ctx);
  return new Response(new Uint8Array(png), { headers: { 'Content-Type': 'image/png' } });
};
