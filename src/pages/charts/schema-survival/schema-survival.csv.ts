import type { APIRoute } from 'astro';
import { loadArchive } from '../../../loader/load-archive.ts';
import { survivalCsv } from '../../../charts/survival-export.ts';

export const GET: APIRoute = async () => new Response(survivalCsv(await loadArchive()), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
