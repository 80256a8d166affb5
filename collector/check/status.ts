// A server's status file entry, as the check, the lock and the MCP server read it: descriptor format 2
// moved what moves daily (the archive's as-of instant, the latest probe and ok answer, the 30-day
// window) out of the per-server files into /api/status/<shard>.json (src/lib server-status.ts).
import { statusPath, statusShard, StatusShard, type ServerStatusEntry } from '../../src/lib/index.ts';
import type { PublishedArchive } from './archive.ts';

export interface ServerStatusRead {
  /** The archive as of this instant (the status file's as_of); null when the archive has none or no status file. */
  asOf: string | null;
  /** The server's entry; null when its shard does not list it (or the archive predates status files). */
  entry: ServerStatusEntry | null;
  url: string | null;
}

/** The status entry of the server with this slug, and the archive's as-of instant; nulls when there is no readable status file. */
export async function serverStatus(archive: PublishedArchive, slug: string): Promise<ServerStatusRead> {
  const f = await archive.json(statusPath(statusShard(slug)));
  if (f === null) return { asOf: null, entry: null, url: null };
  const parsed = StatusShard.safeParse(f.value);
  if (!parsed.success) return { asOf: null, entry: null, url: f.url };
  return { asOf: parsed.data.as_of, entry: parsed.data.servers.find((x) => x.slug === slug) ?? null, url: f.url };
}
