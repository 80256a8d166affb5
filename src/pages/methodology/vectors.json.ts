import type { APIRoute } from 'astro';
import vectors from '../../lib/canonical-vectors.json';

export const GET: APIRoute = () => new Response(JSON.stringify(vectors, null, 2), { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
