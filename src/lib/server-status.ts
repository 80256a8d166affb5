// The static API's status files: what moves every day for every server (the latest run's instants,
// the rolling 30-day health window, the checks decided over a rolling window), kept out of the
// per-server files so that a descriptor, a tools file or a set file changes only when its server does
// (DESIGN "A site whose daily work is the day's changes"). A bounded number of files carries them:
// a server's entry is in the shard named like a name-index key (src/lib name-index.ts): the first 2 hex
// digits of the SHA-256 of its slug, so at most 256 files, every one of them rewritten each day
// (≈ 2,100 servers a shard at 534,750). Only shards that hold a server are written; each descriptor
// links its own (`status_url`), so a reader never guesses.
//
// One rule for the writer (src/outputs/status-files.ts) and every reader (the check, the lock, the MCP
// server); the shard's shape is the zod schema below, published as JSON Schema beside the descriptor's.
import { z } from 'zod';
import { nameIndexShard } from './name-index.ts';

export const STATUS_DIR = '/api/status';
export const STATUS_SCHEMA_PATH = '/api/schema/status.json';
export const STATUS_SHARD_RULE = "the first 2 hex digits of the SHA-256 of the server's slug (its UTF-8 bytes): the name indexes' rule";

/** The status shard a server (by slug) is listed in: lowercase hex, the name indexes' rule applied to the slug. */
export function statusShard(slug: string): string {
  return nameIndexShard(slug);
}

/** Site path of a status shard. */
export const statusPath = (shard: string) => `${STATUS_DIR}/${shard}.json`;

const instant = z.string();
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const ServerStatusEntry = z
  .object({
    slug: z.string().describe("The server's slug: its descriptor is /api/servers/<slug>.json."),
    name: z.string().describe('The registry name (registry text, unvetted).'),
    status: z.string().describe("Outcome of the latest row (the descriptor's health.status)."),
    last_observed_at: instant.describe('The latest row of any outcome.'),
    last_probe_at: instant.nullable().describe('The latest probe (ok or error row); null if never probed.'),
    last_ok_at: instant.nullable().describe('The latest probe that answered tools/list; null if never.'),
    consecutive_failures: z.number().int().nonnegative().describe('Failed probes since the last ok one (all of them if never ok); rows that probed nothing are skipped.'),
    window: z
      .object({ from_day: day.describe('First UTC day, inclusive.'), to_day: day.describe("Last UTC day, inclusive: the archive's as-of day."), days: z.number().int().positive().describe('Length in days (30).') })
      .strict()
      .nullable()
      .describe('The window of the figures below; null for an empty archive.'),
    probes: z.number().int().nonnegative().describe('Probes (ok and error rows) in the window.'),
    ok: z.number().int().nonnegative().describe('Of which answered tools/list.'),
    ok_share: z.number().nullable().describe('ok / probes; null with no probe in the window.'),
    ok_share_ci95: z.tuple([z.number(), z.number()]).nullable().describe('Wilson 95% interval of ok_share; null with no probe.'),
    latency_ms: z
      .object({
        n: z.number().int().nonnegative().describe('Ok probes in the window that carry a latency.'),
        median: z.number().nullable().describe('Median, ms (R type 7).'),
        p90: z.number().nullable().describe('90th percentile, ms (R type 7).'),
      })
      .strict()
      .describe('Wall time of the ok probes in the window, initialize to tools/list (failed probes are left out: a timeout measures our deadline).'),
    tools_observed_at: instant.nullable().describe('The latest successful answer (the one the tools file holds); null if never.'),
    set_observations: z.number().int().nonnegative().nullable().describe('Observations of the set the server serves now, as its set file counts them once it stops; null when it serves none.'),
    v2_run_id: z.string().nullable().describe("The latest full methodology v2 run that holds a row of this server (the descriptor's caching block, v2 fields and v2 checks come from it); null without one."),
    v2_observed_at: instant.nullable().describe('When that row was observed; null without one.'),
    v2_probe_shared_with: z.string().nullable().describe('The registry name whose probe that row repeats: names listing one endpoint URL share one probe a run (methodology v2, "One probe per endpoint"); null when the row made its own probe, or without one.'),
    quality: z
      .array(z.object({ id: z.string().describe('The quality check (the descriptor lists it with detail null).'), detail: z.string().describe('What was found over the window ending on the as-of day.') }).strict())
      .describe('The detail of each quality check decided over a rolling window (source probes): it names the window, so it moves daily.'),
  })
  .strict();

export const StatusShard = z
  .object({
    version: z.literal(1),
    kind: z.literal('status'),
    shard: z.string().regex(/^[0-9a-f]+$/),
    shard_rule: z.string().describe('How a server finds its shard.'),
    methodology: z.literal('v1'),
    as_of: instant.nullable().describe("The archive as of this instant (the latest run's finish); null for an empty archive."),
    as_of_day: day.nullable().describe('Its UTC day.'),
    simulated: z.literal(true).optional().describe('Present in a simulated build (the demo): the data is not real.'),
    servers: z.array(ServerStatusEntry).describe('Every server of the shard, sorted by slug (UTF-16 code units).'),
  })
  .strict()
  .describe("One status shard: /api/status/<shard>.json, what moves every day for each of its servers (the descriptor's status_url names it).");

export type ServerStatusEntry = z.infer<typeof ServerStatusEntry>;
export type StatusShard = z.infer<typeof StatusShard>;
