// The status files under /api/status/ (the shard rule and the shape are src/lib server-status.ts): what
// moves every day for every server, so that its descriptor, tools file and set files change only when
// it does. Fed one server at a time by writeServerFiles (server-files.ts), then written as every shard
// that holds a server, plus the JSON Schema. Every shard is rewritten daily: a bounded number of files
// (at most 256) is the day's upload of what moved, whatever the archive's size.
//   /api/status/<shard>.json        { version, kind, shard, shard_rule, methodology, as_of, as_of_day, servers: [...] }
//   /api/schema/status.json         its JSON Schema
// Entries are held as JSON text per shard and spilled to a scratch folder past SPILL_BYTES, so the
// writer holds one shard at a time, not ≈ 750 B for each of hundreds of thousands of servers.
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
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
    v2_probe_shared_with: v2?.probe_shared_with ?? null,
    quality: windowDetails(checks),
  };
}

/** Entries held in memory before they are spilled to the scratch folder (a line each: slug, tab, JSON). */
const SPILL_BYTES = 32 << 20;

export class StatusFiles {
  private readonly pending = new Map<string, string[]>();
  private readonly spilled = new Set<string>();
  private held = 0;
  private scratch: string | null = null;
  /** `spillBytes`: what is held before a spill (a test passes a small one to take the spilling path). */
  constructor(
    private readonly pub: Pick<Publication, 'permalink' | 'simulated'>,
    private readonly spillBytes = SPILL_BYTES,
  ) {}

  async add(entry: ServerStatusEntry): Promise<void> {
    const shard = statusShard(entry.slug);
    const line = `${entry.slug}\t${JSON.stringify(entry)}\n`;
    const list = this.pending.get(shard);
    if (list) list.push(line);
    else this.pending.set(shard, [line]);
    this.held += line.length;
    if (this.held > this.spillBytes) await this.spill();
  }

  private async spill(): Promise<void> {
    this.scratch ??= await mkdtemp(path.join(os.tmpdir(), 'mcps-status-'));
    for (const [shard, lines] of this.pending) {
      await appendFile(path.join(this.scratch, shard), lines.join(''));
      this.spilled.add(shard);
    }
    this.pending.clear();
    this.held = 0;
  }

  /** A shard's entries, sorted by slug (UTF-16 code units), as JSON texts. */
  private async entries(shard: string): Promise<string[]> {
    const lines = [...(this.spilled.has(shard) && this.scratch ? (await readFile(path.join(this.scratch, shard), 'utf8')).split('\n').filter(Boolean) : []), ...(this.pending.get(shard) ?? []).map((l) => l.slice(0, -1))];
    const items = lines.map((l): [string, string] => [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)]);
    return items.sort(([x], [y]) => byCodeUnits(x, y)).map(([, json]) => json);
  }

  /** Every shard that holds a server, and the schema; returns the files written. */
  async write(outDir: string, asOf: string | null): Promise<number> {
    await mkdir(path.join(outDir, ...STATUS_DIR.split('/').filter(Boolean)), { recursive: true });
    let files = 0;
    for (const shard of [...new Set([...this.spilled, ...this.pending.keys()])].sort(byCodeUnits)) {
      const head = { version: 1, kind: 'status', shard, shard_rule: STATUS_SHARD_RULE, methodology: 'v1', as_of: asOf, as_of_day: asOf?.slice(0, 10) ?? null, ...(this.pub.simulated ? { simulated: true } : {}) } satisfies Omit<StatusShard, 'servers'>;
      await writeFile(path.join(outDir, ...statusPath(shard).split('/').filter(Boolean)), `${JSON.stringify(head).slice(0, -1)},"servers":[${(await this.entries(shard)).join(',')}]}`);
      files++;
    }
    if (this.scratch) await rm(this.scratch, { recursive: true, force: true });
    this.scratch = null;
    await mkdir(path.join(outDir, 'api', 'schema'), { recursive: true });
    const json = { $id: this.pub.permalink(STATUS_SCHEMA_PATH), title: 'mcp-schema status shard', ...(zodToJsonSchema(StatusShard, { $refStrategy: 'none', target: 'jsonSchema7' }) as Record<string, unknown>) };
    await writeFile(path.join(outDir, ...STATUS_SCHEMA_PATH.split('/').filter(Boolean)), JSON.stringify(json, null, 2));
    return files + 1;
  }
}

function tenth(x: number | null): number | null {
  return x === null ? null : Math.round(x * 10) / 10;
}
