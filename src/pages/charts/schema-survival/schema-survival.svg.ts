import type { APIRoute } from 'astro';
import { siteArchive } from '../../../site/site-archive.ts';
import { survivalSvg } from '../../../charts/survival-export.ts';

export const GET: APIRoute = async () => {
  const svg = survivalSvg(await siteArchive());
  // An empty archive still answers with a valid SVG that says so, so embeds never break.
  const body = svg ?? '<svg xmlns="http://www.w3.org/2000/svg" width="720" height="60" role="img"><title>No data yet</title><text x="10" y="35" font-family="sans-serif" font-size="16">Nothing has been observed yet.</text></svg>';
  return new Response(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`, { headers: { 'Content-Type': 'image/svg+xml' } });
};
