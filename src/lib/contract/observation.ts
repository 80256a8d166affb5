// Data contract: one observation row per target per run (data/observations/<day>.jsonl).
// Methodology v1, "Rows". Fields are snake_case and are never dropped; new ones are added as optional.
import { z } from 'zod';
import { SHA256_HEX } from '../canonical.ts';
import { V1_SERIES } from '../methodology-series.ts';

export const METHODOLOGY_VERSION = 'v1' as const;

/** The closed set of v1 error classes. `no_endpoint` is also an outcome of its own. */
export const ERROR_CLASSES = [
  'timeout',
  'tls',
  'http_4xx',
  'http_5xx',
  'auth',
  'rate_limited',
  'no_endpoint',
  'parse',
] as const;
export const ErrorClass = z.enum(ERROR_CLASSES);
export type ErrorClass = z.infer<typeof ErrorClass>;

/**
 * ok: tools/list answered and was hashed. error: we contacted the endpoint (or tried to) and it failed.
 * no_endpoint: the registry entry has no usable streamable-http remote, so nothing was contacted.
 * retired: in the previous complete roster, absent from today's complete roster (one row, once).
 * excluded: opted out by its operator; never contacted.
 * not_attempted: eligible, but the run did not contact it (`not_attempted_reason` says why; changelog
 * "Deviation from v1: scheduling"). It counts in eligible, not in attempts, so it lowers coverage.
 */
export const OUTCOMES = ['ok', 'error', 'no_endpoint', 'retired', 'excluded', 'not_attempted'] as const;
export const Outcome = z.enum(OUTCOMES);
export type Outcome = z.infer<typeof Outcome>;

/**
 * Why an eligible target was not contacted. host_unresponsive: its host failed the collector's
 * unresponsive rule earlier in the run (K consecutive timeouts or connection failures); run_deadline:
 * the run's deadline came before its turn; shard_lost: the run was probed in shards and the shard
 * holding the target ended (failed, killed, timed out) before writing its row.
 */
export const NOT_ATTEMPTED_REASONS = ['host_unresponsive', 'run_deadline', 'shard_lost'] as const;
export const NotAttemptedReason = z.enum(NOT_ATTEMPTED_REASONS);
export type NotAttemptedReason = z.infer<typeof NotAttemptedReason>;

/** The probe step that failed (or `roster`/`address` for failures before any request). */
export const PROBE_STEPS = ['roster', 'address', 'initialize', 'initialized', 'tools/list'] as const;
export const ProbeStep = z.enum(PROBE_STEPS);
export type ProbeStep = z.infer<typeof ProbeStep>;

const sha256 = z.string().regex(SHA256_HEX);
const isoInstant = z.string().datetime({ offset: true });
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const Observation = z
  .object({
    run_id: z.string().min(1).max(64),
    day,
    observed_at: isoInstant,
    /** Registry `server.name`, verbatim (unvetted text). */
    target: z.string().min(1).max(512),
    /** Registry `server.version` of the latest entry used for this row; null for retired rows. */
    registry_version: z.string().max(256).nullable(),
    /** Registry `_meta[...official].status` of that entry (active, deprecated, ...), null when unknown. */
    registry_status: z.string().max(64).nullable(),
    /** Raw roster page object holding the registry entry, and the entry's index in `servers[]`. */
    registry_page_sha256: sha256.nullable(),
    registry_page_index: z.number().int().nonnegative().nullable(),
    /** The streamable-http URL probed (as listed), or null. */
    endpoint: z.string().max(4096).nullable(),
    outcome: Outcome,
    error_class: ErrorClass.nullable(),
    step: ProbeStep.nullable(),
    /** Short, truncated human text: why it failed or what was odd. */
    detail: z.string().max(1024).nullable(),
    http_status: z.number().int().nullable(),
    jsonrpc_code: z.number().int().nullable(),
    www_authenticate: z.string().max(1024).nullable(),
    retry_after: z.string().max(256).nullable(),
    /** URL actually answered after redirects (null when none were followed). */
    final_url: z.string().max(4096).nullable(),
    redirects: z.number().int().nonnegative(),
    /** Protocol version the server answered in initialize. */
    protocol_version: z.string().max(64).nullable(),
    server_name: z.string().max(512).nullable(),
    server_version: z.string().max(256).nullable(),
    /** Whether initialize issued an Mcp-Session-Id. */
    session: z.boolean().nullable(),
    /** Canonical v1 contract hash of result.tools (methodology "Canonicalisation"). */
    tools_sha256: sha256.nullable(),
    /** SHA-256 of the raw tools/list HTTP body, stored verbatim under objects/. */
    body_sha256: sha256.nullable(),
    body_content_type: z.string().max(256).nullable(),
    tool_count: z.number().int().nonnegative().nullable(),
    /** tools/list result carried a nextCursor (v1 reads the first page only). */
    next_cursor: z.boolean().nullable(),
    latency_ms: z.number().nonnegative().nullable(),
    prober_version: z.string().min(1).max(64),
    /** 'v1' on every row the collector writes; a restatement's rows name their series (see methodology-series.ts). */
    methodology_version: z.enum(V1_SERIES),
    /**
     * The tool definition hash, version 1 set hash of the served page (servedSetHash), on ok rows; null
     * when the page has none (a repeated member name, a partial listing), and null on every other row:
     * the collector always writes it. Absent only on rows written before the collector recorded it (and,
     * until the 2026-12-01 changelog entry on per-server descriptors, on rows that were not ok), which reads as null: readers derive it again from the raw body.
     */
    tools_set_hash: sha256.nullable().optional(),
    /**
     * Set on not_attempted rows only. Added after v1 shipped: the collector always writes it (null on
     * every other row); rows written before it lack it, which reads as null. Optional rather than
     * defaulted, so a row parses back to exactly what was written. After every earlier field, so CSV
     * columns keep their positions.
     */
    not_attempted_reason: NotAttemptedReason.nullable().optional(),
  })
  .strict()
  .superRefine((row, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, message });
    switch (row.outcome) {
      case 'ok':
        if (row.error_class !== null) fail('ok row carries an error_class');
        if (!row.tools_sha256 || !row.body_sha256 || row.tool_count === null) fail('ok row lacks hashes or tool_count');
        break;
      case 'error':
        if (row.error_class === null || row.error_class === 'no_endpoint') fail('error row needs a probe error_class');
        if (row.tools_sha256 !== null) fail('error row carries tools_sha256');
        if (row.tools_set_hash) fail('error row carries tools_set_hash');
        break;
      case 'no_endpoint':
        if (row.error_class !== 'no_endpoint') fail('no_endpoint row must have error_class no_endpoint');
        break;
      case 'retired':
      case 'excluded':
        if (row.error_class !== null || row.tools_sha256 !== null || row.tools_set_hash) fail(`${row.outcome} row carries probe results`);
        break;
      case 'not_attempted':
        if (row.not_attempted_reason == null) fail('not_attempted row needs a not_attempted_reason');
        if (row.error_class !== null || row.tools_sha256 !== null || row.body_sha256 !== null || row.http_status !== null || row.tools_set_hash) fail('not_attempted row carries probe results');
        break;
    }
    if (row.outcome !== 'not_attempted' && row.not_attempted_reason != null) fail(`${row.outcome} row carries a not_attempted_reason`);
  });
export type Observation = z.infer<typeof Observation>;
