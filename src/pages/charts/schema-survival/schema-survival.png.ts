import type { APIRoute } from 'astro';
import { siteArchive } from '../../../site/site-archive.ts';
import { survivalSvg } from '../../../charts/survival-export.ts';

// Rasterised at build time by sharp (librsvg), which Astro already installs for its image service.
export const GET: APIRoute = async () => {
  const { default: sharp } = await import('sharp');
  const svg = survivalSvg(await siteArchive()) ?? '<svg xmlns="http://www.w3.org/2000/svg" width="720" height="60"><rect width="720" height="60" fill="white"/><text x="10" y="35" font-family="sans-serif" font-size="16">Nothing has been observed yet.</text></svg>';
  const png = await sharp(Buffer.from(svg), { density: 144 }).flatten({ background: '#ffffff' }).png().toBuffer();
  return new Response(new Uint8Array(png), { headers: { 'Content-Type': 'image/png' } });
};
