import type { APIRoute } from 'astro';
import { siteArchive } from '../../site/site-archive.ts';
import { simulated } from '../../site/settings.ts';
import { v2FiguresCsv } from '../../outputs/v2-figures.ts';
import { gateForRun } from '../../outputs/validation.ts';

export const GET: APIRoute = async () => {
  const a = await siteArchive();
  const latest = a.v2?.latest ?? null;
  const validated = gateForRun(latest?.run ?? null, a.validations?.records ?? [])?.state === 'passed';
  return new Response(v2FiguresCsv(latest, simulated(), validated), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
};
