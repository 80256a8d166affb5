// Per-server machine-readable files, written by the post-build step (src/site/post-build.ts) rather
// than as Astro routes: an Astro route costs milliseconds of rendering machinery per file, and a
// year of the full registry has 25,000 servers, each with an API answer and (once it has a
// contract) two feeds. Same URLs, same content as the routes they replace:
//   /api/servers/<slug>.json       the registry entry verbatim + our schema history under _meta
//   /servers/<slug>/feed.xml       RSS 2.0 of the server's changes (feeds.ts rssFeed)
//   /servers/<slug>/feed.json      JSON Feed 1.1 of the same
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { contractSha256, isObject, proseSha256 } from '../lib/index.ts';
import type { Archive, ServerView } from '../loader/views.ts';
import { jsonFeed, rssFeed, serverChannel } from './feeds.ts';
import { META_NAMESPACE, SIMULATED_NOTE, type Publication } from './publication.ts';

/** The /api/servers/<slug>.json body. */
export async function serverApiJson(a: Archive, s: ServerView, pub: Pick<Publication, 'permalink' | 'simulated'>): Promise<string> {
  // The entry of the last row that points at a roster page: retired rows carry none, so a retired
  // server answers with its last known entry and the reason.
  const entry = s.registryRow ? await a.registryEntry(s.registryRow) : null;
  const base: Record<string, unknown> = isObject(entry) ? entry : { server: { name: s.name } };
  const meta = isObject(base._meta) ? base._meta : {};
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
    reason: s.status === 'retired' ? 'absent from the complete registry roster (retired or deleted upstream)' : s.status === 'excluded' ? "excluded at the operator's request" : null,
    registry_entry_available: entry !== null,
    history_url: pub.permalink(`/servers/${s.slug}/`),
    // A simulated build's answers say so (Publication.simulated); a real one's carry no such field.
    ...(pub.simulated ? { simulated: true, simulated_note: SIMULATED_NOTE } : {}),
  };
  return JSON.stringify({ ...base, _meta: { ...meta, [`${META_NAMESPACE}/schema-history`]: history } }, null, 2);
}

/** A feed per server that has a contract (answered tools/list at least once): only those can change. */
export function hasFeeds(s: ServerView): boolean {
  return s.head !== null;
}

export async function serverFeeds(s: ServerView, pub: Pick<Publication, 'permalink' | 'simulated'>): Promise<{ rss: string; json: string }> {
  const channel = serverChannel(s.name, s.slug);
  return { rss: await rssFeed(s.changes, channel, pub), json: jsonFeed(s.changes, channel, pub) };
}

/** Write every server's API answer and feeds; returns the number of files. */
export async function writeServerFiles(a: Archive, outDir: string, pub: Pick<Publication, 'permalink' | 'simulated'>): Promise<number> {
  let files = 0;
  await mkdir(path.join(outDir, 'api', 'servers'), { recursive: true });
  for (const s of a.servers) {
    await writeFile(path.join(outDir, 'api', 'servers', `${s.slug}.json`), await serverApiJson(a, s, pub));
    files++;
    if (!hasFeeds(s)) continue;
    const dir = path.join(outDir, 'servers', s.slug);
    await mkdir(dir, { recursive: true });
    const f = await serverFeeds(s, pub);
    await writeFile(path.join(dir, 'feed.xml'), f.rss);
    await writeFile(path.join(dir, 'feed.json'), f.json);
    files += 2;
  }
  return files;
}
