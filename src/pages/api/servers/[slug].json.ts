// /api/servers/<slug>.json: the server's registry entry verbatim (from the raw roster page the row
// points at) plus our schema history under _meta, so the site can serve agents as a sub-registry.
import type { APIRoute } from 'astro';
import { findLast, loadArchive } from '../../../archive.ts';
import { contractSha256, proseSha256 } from '../../../lib/index.ts';
import { META_NAMESPACE, permalink } from '../../../settings.ts';

export async function getStaticPaths() {
  const a = await loadArchive();
  return a.servers.map((s) => ({ params: { slug: s.slug } }));
}

export const GET: APIRoute = async ({ params }) => {
  const a = await loadArchive();
  const s = a.bySlug.get(params.slug!)!;
  // The entry of the last row that points at a roster page: retired rows carry none, so a retired
  // server answers with its last known entry and the reason.
  const withEntry = findLast(s.rows, (r) => r.registry_page_sha256 !== null) ?? null;
  const entry = withEntry ? await a.registryEntry(withEntry) : null;
  const base = entry && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Record<string, unknown>) : { server: { name: s.name } };
  const meta = base._meta && typeof base._meta === 'object' && !Array.isArray(base._meta) ? (base._meta as Record<string, unknown>) : {};
  const current = s.head?.bodySha256 ? await a.tools(s.head.bodySha256) : null;
  const tools = Array.isArray(current) ? current : null;
  const history = {
    tools_sha256: s.head?.toolsSha256 ?? null,
    contract_sha256: tools ? contractSha256(tools) : null,
    prose_sha256: tools ? proseSha256(tools) : null,
    tools_changed_at: s.lastChange,
    last_observed: s.lastObserved,
    last_ok: s.lastOk,
    status: s.status,
    error_class: s.errorClass,
    changes: s.changes.length,
    retired: s.status === 'retired',
    reason: s.status === 'retired' ? 'absent from the complete registry roster (retired or deleted upstream)' : s.status === 'excluded' ? 'excluded at the operator\'s request' : null,
    registry_entry_available: entry !== null,
    history_url: permalink(`/servers/${s.slug}/`),
  };
  const body = { ...base, _meta: { ...meta, [`${META_NAMESPACE}/schema-history`]: history } };
  return new Response(JSON.stringify(body, null, 2), { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
};
