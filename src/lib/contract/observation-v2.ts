// Data contract, methodology v2: one row per target per run of the dual-era probe
// (data/observations-v2/<day>.jsonl; methodology v2, "Rows"). It keeps every v1 field that still means
// the same thing (so the two series compare column by column, `error_class` included), drops
// `next_cursor` (v2 reads every page: `tools_pages`, `tools_truncated`), and adds the era, the status,
// the handshake, every page, the auth challenge and the canary. Fields are snake_case and never dropped;
// new ones are added as optional.
import { z } from 'zod';
import { SHA256_HEX } from '../canonical.ts';
import { ERAS } from '../eras.ts';
import { CACHING_TEXT_MAX } from '../list-caching.ts';
import { V2_STATUSES } from '../v2-status.ts';
import { ERROR_CLASSES, NOT_ATTEMPTED_REASONS } from './observation.ts';

export const METHODOLOGY_VERSION_V2 = 'v2' as const;

/** v1's outcomes plus `not_attempted` (a target the run meant to probe and did not start: see not_attempted_reason). */
export const OUTCOMES_V2 = ['ok', 'error', 'no_endpoint', 'retired', 'excluded', 'not_attempted'] as const;
export const OutcomeV2 = z.enum(OUTCOMES_V2);
export type OutcomeV2 = z.infer<typeof OutcomeV2>;

// Why a target was not attempted: NOT_ATTEMPTED_REASONS, one list for both series (observation.ts).

/** The probe step that failed, or `roster`/`address` for failures before any request. */
export const PROBE_STEPS_V2 = ['roster', 'address', 'discover', 'initialize', 'initialized', 'tools/list', 'sse'] as const;
export const ProbeStepV2 = z.enum(PROBE_STEPS_V2);
export type ProbeStepV2 = z.infer<typeof ProbeStepV2>;

/** Where the valid protected-resource metadata was found (RFC 9728): the challenge's hint, or a well-known URL. */
export const AUTH_METADATA_SOURCES = ['hint', 'well_known_path', 'well_known_root'] as const;

/** At most this many requests per endpoint per run, further tools/list pages and redirect hops not counted. */
export const V2_REQUEST_BUDGET = 8;

const sha256 = z.string().regex(SHA256_HEX);
const isoInstant = z.string().datetime({ offset: true });
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const count = z.number().int().nonnegative();

/** Statuses of a row the probe never contacted, or contacted and classified: see the superRefine. */
const PROBED_NOT_OK = V2_STATUSES.filter((s) => s !== 'ok' && s !== 'excluded');

export const ObservationV2 = z
  .object({
    run_id: z.string().min(1).max(64),
    day,
    observed_at: isoInstant,
    target: z.string().min(1).max(512),
    registry_version: z.string().max(256).nullable(),
    registry_status: z.string().max(64).nullable(),
    registry_page_sha256: sha256.nullable(),
    registry_page_index: count.nullable(),
    endpoint: z.string().max(4096).nullable(),
    outcome: OutcomeV2,
    /** The v2 status (methodology v2, "Statuses"); null for rows never probed (no_endpoint, retired, not_attempted). */
    status: z.enum(V2_STATUSES).nullable(),
    /** How the probe could talk to the endpoint; `none` when it could not tell or never probed. */
    era: z.enum(ERAS),
    not_attempted_reason: z.enum(NOT_ATTEMPTED_REASONS).nullable(),
    /** v1's class of the step that failed, so the series compare; null on ok rows. */
    error_class: z.enum(ERROR_CLASSES).nullable(),
    step: ProbeStepV2.nullable(),
    detail: z.string().max(1024).nullable(),
    http_status: z.number().int().nullable(),
    jsonrpc_code: z.number().int().nullable(),
    www_authenticate: z.string().max(1024).nullable(),
    retry_after: z.string().max(256).nullable(),
    final_url: z.string().max(4096).nullable(),
    redirects: count,
    /** Requests sent to the endpoint and its metadata URLs, redirect hops and tools/list pages after the first not counted. */
    requests: count.max(V2_REQUEST_BUDGET),
    /** 2026-07-28 for a modern server; the revision initialize negotiated for a legacy one. */
    protocol_version: z.string().max(64).nullable(),
    /** DiscoverResult.supportedVersions, or the -32022 `supported` list of a modern_rejected row. */
    supported_versions: z.array(z.string().max(64)).max(32).nullable(),
    /** Top-level names of the server's capabilities object (`tools`, `resources`, …), sorted. */
    capabilities: z.array(z.string().max(64)).max(64).nullable(),
    server_name: z.string().max(512).nullable(),
    server_version: z.string().max(256).nullable(),
    /** initialize issued an Mcp-Session-Id (legacy only; null when no legacy handshake). */
    session: z.boolean().nullable(),
    /** From the first byte of the probe to the handshake answer (discover or initialize result). */
    handshake_latency_ms: z.number().nonnegative().nullable(),
    /** The whole probe, first byte to last answer. */
    latency_ms: z.number().nonnegative().nullable(),
    /** Raw handshake body (discover or initialize answer) under objects/. */
    handshake_sha256: sha256.nullable(),
    handshake_content_type: z.string().max(256).nullable(),
    /** instructionsHash() of the handshake result's `instructions` (null: none). */
    instructions_sha256: sha256.nullable(),
    /** Canonical v1 contract hash of the tools of all pages read, concatenated. */
    tools_sha256: sha256.nullable(),
    /** The tool definition set hash (src/lib toolSetHash) over all pages' raw tools text; null when it has none (e.g. a repeated member name). */
    tools_set_hash: sha256.nullable(),
    tool_count: count.nullable(),
    /** tools/list pages read. */
    tools_pages: count.nullable(),
    /** A bound (pages, tools, bytes, a repeated cursor) stopped the listing before its end. */
    tools_truncated: z.boolean().nullable(),
    /** Raw body of every tools/list page read, in order, under objects/; body_sha256 is the first. */
    tools_pages_sha256: z.array(sha256).max(64).nullable(),
    /** Content-Type of each of those pages (what re-reads the stored body: JSON or an event stream). */
    tools_pages_content_types: z.array(z.string().max(256).nullable()).max(64).nullable(),
    body_sha256: sha256.nullable(),
    body_content_type: z.string().max(256).nullable(),
    /** The canary tools/call of a tool that cannot exist was sent. */
    canary_sent: z.boolean(),
    canary_http_status: z.number().int().nullable(),
    /** The error came back in JSON-RPC (an `error`, or `result.isError: true`), judged apart from the HTTP status. */
    canary_in_channel: z.boolean().nullable(),
    canary_jsonrpc_code: z.number().int().nullable(),
    /** 401 or 403 of the challenge that made this an auth row (the first one); null otherwise. */
    auth_http_status: z.number().int().nullable(),
    /** Every challenge's scheme in the WWW-Authenticate value(s), lower-cased, in order. */
    auth_schemes: z.array(z.string().max(64)).max(32).nullable(),
    /** A Bearer challenge is among them. */
    auth_bearer: z.boolean().nullable(),
    auth_metadata_valid: z.boolean().nullable(),
    auth_metadata_source: z.enum(AUTH_METADATA_SOURCES).nullable(),
    auth_metadata_url: z.string().max(4096).nullable(),
    /** RFC 9728 §3.3 (secondary): the valid document's `resource` is the identifier the client used. */
    auth_resource_matches: z.boolean().nullable(),
    /** Why no valid document was found (each candidate's problem, short), or null. */
    auth_metadata_problem: z.string().max(1024).nullable(),
    /** The deprecated HTTP+SSE transport's `endpoint` event data (clipped), for legacy_sse rows. */
    legacy_sse_endpoint: z.string().max(512).nullable(),
    prober_version: z.string().min(1).max(64),
    methodology_version: z.literal(METHODOLOGY_VERSION_V2),
    // From 2026-12-02: what a modern ok answer says about caching (MCP 2026-07-28 Caching),
    // read at probe time from the answers the row stores (src/lib answerCaching), checked by restate.
    // Absent from rows written before; null on rows they do not apply to (not a modern ok row). Last, so
    // every earlier column keeps its position.
    /** The list's cacheScope (its first tools/list page): public, private, absent, or present but neither (invalid). */
    list_cache_scope: z.enum(['public', 'private', 'absent', 'invalid']).nullable().optional(),
    /** Its ttlMs, when a finite number ≥ 0. */
    list_ttl_ms: z.number().nonnegative().nullable().optional(),
    /** Its resultType, when a string (cut to 64 code units with its ellipsis). */
    list_result_type: z.string().max(CACHING_TEXT_MAX.resultType).nullable().optional(),
    /** _meta["io.modelcontextprotocol/serverInfo"] of the discover result (else of the first page), when its name and version are strings. */
    server_info_name: z.string().max(CACHING_TEXT_MAX.serverInfoName).nullable().optional(),
    server_info_version: z.string().max(CACHING_TEXT_MAX.serverInfoVersion).nullable().optional(),
    /** Fields 2026-07-28 requires that the answers lack: discover.ttlMs, discover.cacheScope, tools/list.ttlMs, tools/list.cacheScope. */
    caching_missing: z.array(z.enum(['discover.ttlMs', 'discover.cacheScope', 'tools/list.ttlMs', 'tools/list.cacheScope'])).max(4).nullable().optional(),
    // From 2026-12-07: registry names whose endpoints share one normalised URL (src/lib
    // normaliseEndpointUrl) get their rows from ONE probe per run. The row that made the probe leaves this
    // field out; every other name's row is that probe's row under its own identity and names here the
    // registry name whose probe it shares, with `requests` 0 (it sent none). Absent from rows written
    // before, and from rows that made their own probe or made none.
    /** The registry name whose probe this row's results are (same endpoint once normalised); absent when the row made its own probe. */
    probe_shared_with: z.string().min(1).max(512).nullable().optional(),
  })
  .strict()
  .superRefine((row, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, message });
    const probed = row.outcome === 'ok' || row.outcome === 'error';
    if ((row.outcome === 'not_attempted') !== (row.not_attempted_reason !== null)) fail('not_attempted_reason goes with outcome not_attempted, and only with it');
    if (!probed && row.era !== 'none') fail(`${row.outcome} row must have era none`);
    if (!probed && row.requests !== 0) fail(`${row.outcome} row sent no request`);
    const cachingRecorded = [row.list_cache_scope, row.list_ttl_ms, row.list_result_type, row.server_info_name, row.server_info_version, row.caching_missing].some((v) => v !== undefined && v !== null);
    if (cachingRecorded && !(row.outcome === 'ok' && row.era === 'modern')) fail('caching fields (list_cache_scope, …) go with a modern ok row only');
    if (row.outcome === 'ok' && row.era === 'modern' && row.list_cache_scope === null) fail('a modern ok row records its list_cache_scope (absent when the answer has none), or leaves the caching fields out');
    switch (row.outcome) {
      case 'ok':
        if (row.status !== 'ok') fail('ok row must have status ok');
        if (row.error_class !== null) fail('ok row carries an error_class');
        if (row.era !== 'modern' && row.era !== 'legacy') fail('ok row must be modern or legacy');
        if (!row.tools_sha256 || !row.body_sha256 || !row.handshake_sha256 || row.tool_count === null) fail('ok row lacks hashes or tool_count');
        if (!row.tools_pages || row.tools_pages_sha256?.length !== row.tools_pages || row.tools_pages_content_types?.length !== row.tools_pages) fail('ok row needs one stored body per page read');
        if (row.tools_pages_sha256 && row.tools_pages_sha256[0] !== row.body_sha256) fail('body_sha256 must be the first page');
        if (row.tools_truncated === null) fail('ok row must say whether the listing was truncated');
        break;
      case 'error':
        if (row.status === null || !(PROBED_NOT_OK as readonly string[]).includes(row.status)) fail('error row needs a probed non-ok status');
        if (row.error_class === null || row.error_class === 'no_endpoint') fail('error row needs a probe error_class');
        if (row.tools_sha256 !== null) fail('error row carries tools_sha256');
        break;
      case 'excluded':
        if (row.status !== 'excluded') fail('excluded row must have status excluded');
        if (row.error_class !== null || row.tools_sha256 !== null) fail('excluded row carries probe results');
        break;
      case 'no_endpoint':
        if (row.status !== null) fail('no_endpoint row has no status');
        if (row.error_class !== 'no_endpoint') fail('no_endpoint row must have error_class no_endpoint');
        break;
      case 'retired':
      case 'not_attempted':
        if (row.status !== null) fail(`${row.outcome} row has no status`);
        if (row.error_class !== null || row.tools_sha256 !== null) fail(`${row.outcome} row carries probe results`);
        break;
    }
    if (row.status === 'modern_rejected' && row.era !== 'modern') fail('modern_rejected row must be modern');
    if (row.status === 'handshake_only' && row.era !== 'modern' && row.era !== 'legacy') fail('handshake_only row must be modern or legacy');
    if ((row.status === 'legacy_sse') !== (row.era === 'legacy_sse')) fail('era legacy_sse goes with status legacy_sse, and only with it');
    if ((row.status === 'auth_compliant' || row.status === 'auth_noncompliant') !== (row.auth_http_status !== null)) fail('auth fields go with auth statuses, and only with them');
    if (row.status === 'auth_compliant' && (row.auth_http_status !== 401 || row.auth_bearer !== true || row.auth_metadata_valid !== true)) fail('auth_compliant needs a 401, a Bearer challenge and valid metadata');
    if (row.canary_sent && row.outcome !== 'ok') fail('the canary is sent only after a complete tools/list');
    if (row.probe_shared_with !== undefined && row.probe_shared_with !== null) {
      if (!probed) fail(`${row.outcome} row shares no probe: probe_shared_with goes with ok and error rows only`);
      if (row.probe_shared_with === row.target) fail('probe_shared_with names another registry name, not the row\'s own');
      if (row.requests !== 0) fail('a row sharing another name\'s probe sent no request: requests 0');
    }
  });
export type ObservationV2 = z.infer<typeof ObservationV2>;
