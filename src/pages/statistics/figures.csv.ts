import type { APIRoute } from 'astro';
import { siteArchive } from '../../site/site-archive.ts';
import { simulated } from '../../site/settings.ts';
import { v2FiguresCsv } from '../../outputs/v2-figures.ts';
import { gateForRun } from '../../outputs/validation.ts';
import { registryHygieneFigure } from '../../outputs/registry-schemas.ts';
import { siteRegistrySchemas } from '../../site/site-archive.ts';

export const GET: APIRoute = async () => {
  const a = await siteArchive();
  const latest = a.v2?.latest ?? null;
  const validated = gateForRun(latest?.run ?? null, a.validations?.records ?? [])?.state === 'passed';
  const rh = await registryHygieneFigure(a, siteRegistrySchemas());
  const registry = a.asOfDay ? { day: a.asOfDay, entries: rh.entries, valid: rh.valid, invalid: rh.invalid, unknownSchema: rh.unknownSchema } : null;
  return new Response(v2FiguresCsv(latest, simulated(), validated, registry), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
};
