// The social preview image every page names in og:image (src/charts/social-card.ts), rasterised at
// build time by sharp (librsvg), which Astro already installs for its image service.
import type { APIRoute } from 'astro';
import { socialCard } from '../charts/social-card.ts';
import { halfLifeText } from '../lib/index.ts';
import { siteArchive } from '../site/site-archive.ts';
import { simulated } from '../site/settings.ts';
import { withPngText } from '../charts/png-text.ts';
import { SIMULATED_NOTE, SITE_NAME } from '../outputs/publication.ts';

export const GET: APIRoute = async () => {
  const { default: sharp } = await import('sharp');
  const a = await siteArchive();
  const contract = halfLifeText(a.km);
  const server = halfLifeText(a.serverKm);
  const svg = socialCard({
    headline: 'What remote MCP servers promise their callers',
    lines: a.empty ? ['Nothing has been observed yet.'] : [`Schema half-life: ${contract.value}`, `Until a server first changes: ${server.value}`, `${a.rows.length.toLocaleString('en')} servers followed daily`],
    footer: a.asOfDay ? `Data as of ${a.asOfDay} · CC BY 4.0` : 'CC BY 4.0',
    banner: simulated() ? 'Simulated data: a local test world, not the MCP registry' : null,
  });
  const raw = await sharp(Buffer.from(svg)).png().toBuffer();
  // Saved alone, the image still says what it is: its Title and Comment text chunks carry the mark.
  const png = simulated() ? withPngText(raw, [['Title', `SIMULATED DATA — ${SITE_NAME}`], ['Comment', SIMULATED_NOTE]]) : raw;
  return new Response(new Uint8Array(png), { headers: { 'Content-Type': 'image/png' } });
};
