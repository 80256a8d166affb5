// The status files under /api/status/ (the shard rule and the shape are src/lib server-status.ts): what
// moves every day for every server, so that its descriptor, tools file and set files change only when
// it does. Fed one server at a time by writeServerFiles (server-files.ts), then written as every shard
// that holds a server, plus the JSON Schema. Every shard is rewritten daily: a bounded number of files
// (at most 256) is the day's upload of what moved, whatever the archive's size.
//   /api/status/<shard>.json        { version, kind, shard, shard_rule, methodology, as_of, as_of_day, servers: [...] }
//   /api/schema/status.json         its JSON Schema
// Entries are held as JSON text per shard until the write: a few hundred bytes a server.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { byCodeUnits, STATUS_DIR, STATUS_SCHEMA_PATH, STATUS_SHARD_RULE, statusPath, statusShard, StatusShard, type QualityCheck, type ServerStatusEntry } from '../lib/index.ts';
import type { Archive, ServerView } from '../loader/views.ts';
import { serverQualityChecks, windowDetails, type ServerFacts } from './descriptor.ts';
import type { Publication } from './publication.ts';

/**
 * A server's entry: the latest run's instants, the 30-day window, the latest v2 row, the window-bound
 * check details. `setObservations`: the observations of the set it serves now (null when it serves none).
 */
export function serverStatusEntry(a: Archive, s: ServerView, f: Pick<ServerFacts, 'tools' | 'schemaCheck'>, setObservations: number | null): ServerStatusEntry {
  const checks: readonly QualityCheck[] = serverQualityChecks(a, s, f.tools, f.schemaCheck);
  const h = s.health;
  const v2 = a.v2?.latestByTarget.get(s.name) ?? null;
  return {
    slug: s.slug,
    name: s.name,
    status: s.status,
    last_observed_at: s.lastObserved,
    last_probe_at: s.lastProbe,
    last_ok_at: s.lastOk,
    consecutive_failures: s.consecutiveFailures,
    window: h ? { from_day: h.fromDay, to_day: h.toDay, days: Math.round((Date.parse(h.toDay) - Date.parse(h.fromDay)) / 86_400_000) + 1 } : null,
    probes: h?.probes ?? 0,
    ok: h?.ok ?? 0,
    ok_share: h && h.probes > 0 ? h.okShare.p : null,
    ok_share_ci95: h && h.probes > 0 ? [h.okShare.lower, h.okShare.upper] : null,
    // Interpolated quantiles of whole milliseconds: a tenth is all the precision there is.
    latency_ms: h ? { n: h.latency.n, median: tenth(h.latency.median), p90: tenth(h.latency.p90) } : { n: 0, median: null, p90: null },
    tools_observed_at: s.current?.observedAt ?? null,
    set_observations: setObservations,
    v2_run_id: v2?.run_id ?? null,
    v2_observed_at: v2?.observed_at ?? null,
    quality: windowDetails(checks),
  };
}

export class StatusFiles {
  private readonly shards = new Map<string, [string, string][]>();
  constructor(private readonly pub: Pick<Publication, 'permalink' | 'simulated'>) {}

  add(entry: ServerStatusEntry): void {
    const shard = statusShard(entry.slug);
    const list = this.shards.get(shard);
    const item: [string, string] = [entry.slug, JSON.stringify(entry)];
    if (list) list.push(item);
    else this.shards.set(shard, [item]);
  }

  /** Every shard that holds a server, and the schema; returns the files written. */
  async write(outDir: string, asOf: string | null): Promise<number> {
    await mkdir(path.join(outDir, ...STATUS_DIR.split('/').filter(Boolean)), { recursive: true });
    let files = 0;
    for (const [shard, items] of [...this.shards].sort(([x], [y]) => byCodeUnits(x, y))) {
      const head = { version: 1, kind: 'status', shard, shard_rule: STATUS_SHARD_RULE, methodology: 'v1', as_of: asOf, as_of_day: asOf?.slice(0, 10) ?? null, ...(this.pub.simulated ? { simulated: true } : {}) } satisfies Omit<StatusShard, 'servers'>;
      const servers = items.sort(([x], [y]) => byCodeUnits(x, y)).map(([, json]) => json);
      await writeFile(path.join(outDir, ...statusPath(shard).split('/').filter(Boolean)), `${JSON.stringify(head).slice(0, -1)},"servers":[${servers.join(',')}]}`);
      files++;
    }
    await mkdir(path.join(outDir, 'api', 'schema'), { recursive: true });
    const json = { $id: this.pub.permalink(STATUS_SCHEMA_PATH), title: 'mcp-schema status shard', ...(zodToJsonSchema(StatusShard, { $refStrategy: 'none', target: 'jsonSchema7' }) as Record<string, unknown>) };
    await writeFile(path.join(outDir, ...STATUS_SCHEMA_PATH.split('/').filter(Boolean)), JSON.stringify(json, null, 2));
    return files + 1;
  }
}

function tenth(x: number | null): number | null {
  return x === null ? null : Math.round(x * 10) / 10;
}
