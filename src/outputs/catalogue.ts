// What /data/ offers and how each field reads: one catalogue used by the page, the bundle writer and
// datapackage.json (Frictionless Data Package v1), so the three never disagree. The field lists of
// the recorded formats come from their zod contracts (src/lib/contract/): a field added to a contract
// is a compile error here until it is described, and the order is the contract's.
import { ChainManifest, headlineMethodology, NOT_ATTEMPTED_REASONS, Observation, ObservationV2, OUTCOMES, OUTCOMES_V2, Roster, RosterPage, RosterTarget, Run, RunV2, V2_STATUSES, type Interval, type NotAttemptedReason } from '../lib/index.ts';
import type { Archive, ChangeView } from '../loader/views.ts';
import { DESCRIPTOR_BLOCKS } from './descriptor-schema.ts';
import { flatColumnsOf, type FieldType } from './parquet-schema.ts';
import { FAMILY_FIELDS } from './families-download.ts';
// The citation and licence files of /data/ live in citation-files.ts (this file stays under its size budget).
export { chainHeadJson, citationCff, LICENCE_CODE, licenceData } from './citation-files.ts';
import { SIMULATED_MARK, SIMULATED_NOTE, simulatedName, type Publication } from './publication.ts';

/**
 * Where the big files live (bench/README.md, "Deployability"). A static host caps the published site
 * (GitHub Pages: 1 GB), and a year of observations as JSONL.gz + CSV.gz is larger than that on its own.
 * With a release folder (Publication.releaseDir; the site's is MCP_SCHEMA_RELEASE_DIR), the
 * whole-archive bundles (observations, rosters) and the monthly observation bundles older than the
 * latest SITE_MONTHS go there (with their own SHA256SUMS), to be published as release assets or object
 * storage, and are linked at Publication.releaseUrl with checksums; without one (tests, the demo, small
 * archives), everything is on the site under /data/.
 */
export const SITE_MONTHS = 3;

/** The public URL of a bundle: on the site under /data/, or in the release folder. */
export function bundleUrl(name: string, where: 'site' | 'release', pub: Publication): string {
  return where === 'release' ? pub.releaseUrl + encodeURIComponent(name) : pub.permalink(`/data/${name}`);
}

export type ResourceName = 'observations' | 'observations-v2' | 'runs' | 'runs-v2' | 'changes' | 'findings' | 'contract-intervals' | 'survival' | 'rosters' | 'roster-targets' | 'servers' | 'chain' | 'families';

export interface BundleFile {
  name: string;
  /** Set for files written to the release folder. */
  url?: string;
  resource: ResourceName | null;
  rows: number | null;
  sha256: string;
  bytes: number;
}

export interface Field {
  name: string;
  type: FieldType;
  description: string;
}

const REASON_DOCS: Record<NotAttemptedReason, string> = {
  host_unresponsive: 'its host stopped answering earlier in the run',
  run_deadline: "the run's deadline came before its turn",
  shard_lost: 'the shard of the run holding it ended before writing its row',
};

/** How each observation field reads; the contract (src/lib/contract/observation.ts) gives the list and the order. */
const OBSERVATION_DOCS: { [K in keyof Observation]-?: Omit<Field, 'name'> } = {
  run_id: { type: 'string', description: 'The collector run that wrote the row.' },
  day: { type: 'date', description: 'UTC day of the run (the day file the row lives in).' },
  observed_at: { type: 'datetime', description: 'When the probe of this target finished (RFC 3339).' },
  target: { type: 'string', description: 'Registry server.name, verbatim and unvetted.' },
  registry_version: { type: 'string', description: 'Registry server.version of the latest entry used; empty for retired rows.' },
  registry_status: { type: 'string', description: 'Registry status of that entry (active, deprecated, ...), when known.' },
  registry_page_sha256: { type: 'string', description: 'SHA-256 of the raw registry page holding the entry (objects/).' },
  registry_page_index: { type: 'integer', description: 'Index of the entry in that page\'s servers[] array.' },
  endpoint: { type: 'string', description: 'The streamable-http URL probed, as listed; empty when none.' },
  outcome: { type: 'string', description: `${OUTCOMES.slice(0, -1).join(', ')} or ${OUTCOMES.at(-1)}. not_attempted: eligible but not contacted this run (see not_attempted_reason); it counts against coverage, and is not an error class.` },
  error_class: { type: 'string', description: 'One of timeout, tls, http_4xx, http_5xx, auth, rate_limited, no_endpoint, parse; empty when ok.' },
  step: { type: 'string', description: 'Probe step that failed: roster, address, initialize, initialized, tools/list.' },
  detail: { type: 'string', description: 'Short, truncated text on why it failed or what was odd.' },
  http_status: { type: 'integer', description: 'HTTP status of the failing or final response.' },
  jsonrpc_code: { type: 'integer', description: 'JSON-RPC error code, when the server answered one.' },
  www_authenticate: { type: 'string', description: 'WWW-Authenticate header of a 401, truncated.' },
  retry_after: { type: 'string', description: 'Retry-After header of a 429 or 503.' },
  final_url: { type: 'string', description: 'URL that answered after redirects, when any were followed.' },
  redirects: { type: 'integer', description: 'Redirects followed.' },
  protocol_version: { type: 'string', description: 'MCP protocol version the server answered in initialize.' },
  server_name: { type: 'string', description: 'serverInfo.name from initialize (unvetted).' },
  server_version: { type: 'string', description: 'serverInfo.version from initialize (unvetted).' },
  session: { type: 'boolean', description: 'Whether initialize issued an Mcp-Session-Id.' },
  tools_sha256: { type: 'string', description: 'Canonical v1 contract hash of result.tools (methodology, Canonicalisation).' },
  body_sha256: { type: 'string', description: 'SHA-256 of the raw tools/list HTTP body, stored verbatim under objects/.' },
  body_content_type: { type: 'string', description: 'Content-Type of that body (application/json or text/event-stream).' },
  tool_count: { type: 'integer', description: 'Number of tools in the first page of tools/list.' },
  next_cursor: { type: 'boolean', description: 'tools/list offered a next page (v1 reads the first page only).' },
  latency_ms: { type: 'number', description: 'Wall time of the probe in milliseconds.' },
  prober_version: { type: 'string', description: 'Version of the collector that probed.' },
  methodology_version: { type: 'string', description: 'Methodology the row was written under (v1).' },
  tools_set_hash: {
    type: 'string',
    description:
      'Tool definition hash, version 1 (mcp-pin: RFC 8785 per definition, sorted name:hash lines) set hash of the served page, read from the raw body. Empty on rows written before the collector recorded it (the site derives it from the raw body for every ok row: see the per-server descriptors and /api/sets/), and when the page has none: a repeated member name, or a first page that offers a next one.',
  },
  not_attempted_reason: { type: 'string', description: `Why a not_attempted row was not contacted: ${NOT_ATTEMPTED_REASONS.map((r) => `${r} (${REASON_DOCS[r]})`).join(' or ')}. Empty on other rows; absent from rows written before the field existed.` },
};

export const OBSERVATION_FIELDS: Field[] = Object.keys(Observation.innerType().shape).map((name) => ({ name, ...OBSERVATION_DOCS[name as keyof Observation] }));

/** How each run field reads; the contract (src/lib/contract/run.ts) gives the list and the order (one field each, not one object). */
const RUN_DOCS: { [K in keyof Run]-?: Omit<Field, 'name'> } = {
  run_id: { type: 'string', description: 'The run (its start instant, compact form).' },
  day: { type: 'date', description: 'UTC day of the run.' },
  started_at: { type: 'datetime', description: 'When the run started (RFC 3339).' },
  finished_at: { type: 'datetime', description: 'When it finished: "data as of".' },
  registry: { type: 'string', description: 'Base URL of the registry listed.' },
  roster_file: { type: 'string', description: 'File under rosters/ the run wrote; null when no roster could be fetched.' },
  roster_complete: { type: 'boolean', description: 'Paging reached the end of the registry listing.' },
  targets: { type: 'integer', description: 'Distinct server names in the roster (plus retired ones).' },
  eligible: { type: 'integer', description: 'Targets meant to be contacted: listed, with an endpoint, not opted out.' },
  attempts: { type: 'integer', description: 'Targets contacted (ok + error rows).' },
  coverage: { type: 'number', description: 'attempts / eligible (1 when nothing was eligible).' },
  degraded: { type: 'boolean', description: 'coverage below 0.9: published with a "degraded" badge.' },
  partial: { type: 'boolean', description: 'Restricted by --limit: never feeds published shares.' },
  limit: { type: 'integer', description: 'The --limit given; null when none.' },
  outcomes: { type: 'object', description: 'Rows per outcome: ok, error, no_endpoint, retired, excluded, not_attempted (eligible but not contacted; absent from runs before the outcome existed).' },
  error_classes: { type: 'object', description: 'Error rows per class (no_endpoint included).' },
  status: { type: 'string', description: 'finished, or failed (the run could not do its job, e.g. zero attempts).' },
  message: { type: 'string', description: 'Why a run failed or what was odd; null otherwise.' },
  prober_version: { type: 'string', description: 'Version of the collector.' },
  methodology_version: { type: 'string', description: 'Methodology the run was made under (v1).' },
  scheduling: { type: 'object', description: 'How the probe stage was scheduled (changelog "Deviation from v1: scheduling"): scheduler, hosts, max_targets_per_host, per_host_limit, global_concurrency, max_in_flight_per_host, unresponsive_after, deadline_at, not_attempted (rows per reason), slowest_hosts. Absent from runs written before it existed.' },
};

export const RUN_FIELDS: Field[] = Object.keys(Run.shape).map((name) => ({ name, ...RUN_DOCS[name as keyof Run] }));

/**
 * How each methodology v2 observation field reads (src/lib/contract/observation-v2.ts gives the list and
 * the order; a field it adds without a line here is a type error). Fields v2 keeps from v1 read as in
 * v1 unless said here.
 */
const { next_cursor: _v1Only, ...SHARED_DOCS } = OBSERVATION_DOCS;
const OBSERVATION_V2_DOCS: { [K in keyof ObservationV2]-?: Omit<Field, 'name'> } = {
  ...SHARED_DOCS,
  outcome: { type: 'string', description: `${OUTCOMES_V2.slice(0, -1).join(', ')} or ${OUTCOMES_V2.at(-1)}: ok iff status is ok (tools hashed); a probed non-ok row is error.` },
  status: { type: 'string', description: `The v2 status, exactly one, in this order of precedence: ${V2_STATUSES.join(', ')} (methodology v2, "Statuses"). Empty for rows never probed (no_endpoint, retired, not_attempted).` },
  era: { type: 'string', description: 'How the probe could talk to the endpoint: modern (a server/discover result, or -32020/-32021), legacy (an initialize result), legacy_sse (the deprecated HTTP+SSE endpoint event only), none (could not tell, or never probed).' },
  error_class: { type: 'string', description: "v1's error class of the step that failed (timeout, tls, http_4xx, http_5xx, auth, rate_limited, no_endpoint, parse), so the two series compare; empty on ok rows." },
  step: { type: 'string', description: 'Probe step that failed: roster, address, discover, initialize, initialized, tools/list, sse.' },
  requests: { type: 'integer', description: 'Requests sent to the endpoint and its metadata URLs (at most 8); redirect hops and tools/list pages after the first are not counted.' },
  protocol_version: { type: 'string', description: '2026-07-28 for a modern server; the revision initialize negotiated for a legacy one.' },
  supported_versions: { type: 'array', description: 'The server/discover result\'s supportedVersions, or the -32022 error\'s supported list of a modern_rejected row.' },
  capabilities: { type: 'array', description: "Top-level names of the server's capabilities object (tools, resources, ...), sorted." },
  handshake_latency_ms: { type: 'number', description: 'Milliseconds from the first byte of the probe to the handshake answer (discover or initialize result).' },
  latency_ms: { type: 'number', description: 'Wall time of the whole probe in milliseconds, first byte to last answer.' },
  handshake_sha256: { type: 'string', description: 'SHA-256 of the raw handshake body (the discover or initialize answer: server info, capabilities, instructions), stored under objects/.' },
  handshake_content_type: { type: 'string', description: 'Content-Type of that body.' },
  instructions_sha256: { type: 'string', description: "Instructions hash of the handshake result's instructions (tool definition hash, version 1 §4); empty when it has none." },
  tools_sha256: { type: 'string', description: 'Canonical v1 contract hash of the tools of all pages read, concatenated (methodology v2, "Canonicalisation").' },
  tools_set_hash: { type: 'string', description: 'Tool definition hash, version 1 set hash over all pages\' raw tools text; empty when it has none (e.g. a repeated member name).' },
  tool_count: { type: 'integer', description: 'Number of tools over all pages read.' },
  tools_pages: { type: 'integer', description: 'tools/list pages read.' },
  tools_truncated: { type: 'boolean', description: 'A bound (pages, tools, bytes, a repeated cursor) stopped the listing before its end.' },
  tools_pages_sha256: { type: 'array', description: 'SHA-256 of the raw body of every tools/list page read, in order, each stored under objects/; body_sha256 is the first.' },
  tools_pages_content_types: { type: 'array', description: 'Content-Type of each of those pages (what reads the stored body back: JSON or an event stream).' },
  body_sha256: { type: 'string', description: 'SHA-256 of the raw body of the first tools/list page (objects/).' },
  canary_sent: { type: 'boolean', description: 'The canary was sent: one tools/call of a tool that cannot exist, after a complete tools/list.' },
  canary_http_status: { type: 'integer', description: 'HTTP status of the canary answer.' },
  canary_in_channel: { type: 'boolean', description: 'The canary error came back in JSON-RPC (an error, or result.isError true), judged apart from the HTTP status.' },
  canary_jsonrpc_code: { type: 'integer', description: 'JSON-RPC error code of the canary answer, when one.' },
  auth_http_status: { type: 'integer', description: '401 or 403 of the challenge that made this an auth row (the first one).' },
  auth_schemes: { type: 'array', description: 'Every challenge\'s scheme in the WWW-Authenticate value(s), lower-cased, in order.' },
  auth_bearer: { type: 'boolean', description: 'A Bearer challenge is among them.' },
  auth_metadata_valid: { type: 'boolean', description: 'A valid RFC 9728 protected-resource metadata document was found (a resource string and a non-empty authorization_servers array of strings).' },
  auth_metadata_source: { type: 'string', description: "Where: hint (the challenge's resource_metadata URL), well_known_path (/.well-known/oauth-protected-resource{path}) or well_known_root." },
  auth_metadata_url: { type: 'string', description: 'The URL of the valid document.' },
  auth_resource_matches: { type: 'boolean', description: "RFC 9728 §3.3 (secondary): the document's resource is the identifier the client used." },
  auth_metadata_problem: { type: 'string', description: 'Why no valid document was found (each candidate\'s problem, short).' },
  legacy_sse_endpoint: { type: 'string', description: "The deprecated HTTP+SSE transport's endpoint event data (clipped), for legacy_sse rows." },
  methodology_version: { type: 'string', description: 'Methodology the row was written under (v2).' },
  list_cache_scope: { type: 'string', description: "From 2026-12-02 (absent before; empty for rows other than modern ok ones): the cacheScope of the list (its first tools/list page), MCP 2026-07-28 Caching: public (the same list for every caller), private (it may differ per caller: the archive saw an anonymous caller's), absent, or invalid (present but neither)." },
  list_ttl_ms: { type: 'number', description: 'From 2026-12-02: the ttlMs of that result, when a finite number ≥ 0 (how long the server says the list may be reused; 0: not at all).' },
  list_result_type: { type: 'string', description: 'From 2026-12-02: the resultType of that result, when a string (clipped at 64).' },
  server_info_name: { type: 'string', description: 'From 2026-12-02: the name in _meta["io.modelcontextprotocol/serverInfo"] of the discover result (else of the first page), when it and the version are strings.' },
  server_info_version: { type: 'string', description: 'From 2026-12-02: the version beside it.' },
  caching_missing: { type: 'array', description: 'From 2026-12-02: the fields 2026-07-28 requires that the answers lack (absent, or of a wrong type or value), as discover.ttlMs, discover.cacheScope, tools/list.ttlMs, tools/list.cacheScope (any page); [] when none.' },
  probe_shared_with: { type: 'string', description: "From 2026-12-07 (absent before; empty on a row that made its own probe or none): the registry name whose probe this row's results are. Names whose endpoints share one normalised URL (scheme and host lower-cased, default port, query, fragment and trailing slash dropped) get one probe a run; every other name's row repeats that probe's results and stored bodies under its own identity (target, registry_version, registry_status, registry page, endpoint as listed), with requests 0 (it sent none). Count one endpoint once: keep the rows without it." },
};

export const OBSERVATION_V2_FIELDS: Field[] = Object.keys(ObservationV2.innerType().shape).map((name) => ({ name, ...OBSERVATION_V2_DOCS[name as keyof ObservationV2] }));

/** How each v2 run field reads: v1's run fields, v2's own counts and the requests sent. */
const RUN_V2_DOCS: { [K in keyof RunV2]-?: Omit<Field, 'name'> } = {
  ...RUN_DOCS,
  targets: { type: 'integer', description: 'Rows of the v2 series in the run (today\'s roster plus retired targets).' },
  attempts: { type: 'integer', description: 'ok + error rows of the v2 series.' },
  outcomes: { type: 'object', description: `v2 rows per outcome: ${OUTCOMES_V2.join(', ')}.` },
  statuses: { type: 'object', description: 'v2 rows per status (rows without one are not counted).' },
  eras: { type: 'object', description: 'v2 rows per era (none includes every row never probed).' },
  error_classes: { type: 'object', description: "v1's error classes of the v2 error rows." },
  requests: { type: 'object', description: 'Requests the v2 probe sent: total, max and mean over probed rows.' },
  methodology_version: { type: 'string', description: 'Methodology the run row was written under (v2; a run recording both series writes a v1 row and a v2 row with the same run_id).' },
};

export const RUN_V2_FIELDS: Field[] = Object.keys(RunV2.shape).map((name) => ({ name, ...RUN_V2_DOCS[name as keyof RunV2] }));

/** changes.jsonl, one table: each field's name, how it reads, and where its value comes from. */
const CHANGE_COLUMNS: (Field & { of: (c: ChangeView) => unknown })[] = [
  { name: 'target', type: 'string', description: 'Registry server.name.', of: (c) => c.target },
  { name: 'day', type: 'date', description: 'UTC day of the first successful observation of the new contract.', of: (c) => c.day },
  { name: 'observed_at', type: 'datetime', description: 'Instant of that observation.', of: (c) => c.observedAt },
  { name: 'run_id', type: 'string', description: 'Run of that observation.', of: (c) => c.runId },
  { name: 'before_tools_sha256', type: 'string', description: 'Contract hash the head moved from (last successful observation before).', of: (c) => c.beforeSha256 },
  { name: 'after_tools_sha256', type: 'string', description: 'Contract hash the head moved to.', of: (c) => c.afterSha256 },
  { name: 'before_body_sha256', type: 'string', description: 'Raw body of the before observation (objects/).', of: (c) => c.beforeBody },
  { name: 'after_body_sha256', type: 'string', description: 'Raw body of the after observation (objects/).', of: (c) => c.afterBody },
  { name: 'revert', type: 'boolean', description: 'The new hash had been seen before on this target.', of: (c) => c.revert },
  { name: 'compatibility', type: 'string', description: 'Highest compatibility level among the findings: ERR, WARN, INFO, or null.', of: (c) => c.compatibility },
  { name: 'security', type: 'string', description: 'Highest security level among the findings: HIGH, WARN, or null.', of: (c) => c.security },
  { name: 'diff', type: 'object', description: 'summariseDiff: added, removed, returned and changed tools, with JSON-pointer schema diffs.', of: (c) => c.diff },
  { name: 'diff_problem', type: 'string', description: 'Why no diff could be computed (raw body missing or unreadable), else null.', of: (c) => c.diffProblem },
  { name: 'findings', type: 'array', description: 'Classification findings: rule, axis, level, tool, path, before, after, fingerprint, message.', of: (c) => c.findings },
  // Last, so earlier columns keep their positions (methodology v2).
  { name: 'protocol_migration', type: 'boolean', description: 'Methodology v2: the before and after observations are v2 successful answers whose era (modern, legacy) or negotiated protocol version differ. Counted as a change event in the headline half-life; the sensitivity series v2-without-migrations censors at it instead (changelog). Always false for changes of the v1 series.', of: (c) => c.protocolMigration },
  // Last again.
  { name: 'private_scope_list', type: 'boolean', description: "Methodology v2: the server's tools/list result in the latest full v2 run as of this file's build is private-scope (MCP 2026-07-28 Caching: cacheScope \"private\", the list may differ per caller), so the change may be the caller's, not the server's. A caution by the server's latest scope, not the scope at the change: it can differ between builds. false otherwise, and for servers the latest full v2 run did not read a modern list from.", of: (c) => c.privateScopeList === true },
];

export const CHANGE_FIELDS: Field[] = CHANGE_COLUMNS.map(({ name, type, description }) => ({ name, type, description }));

/** findings-<month>.parquet: one row per classification finding, flattened out of the changes, with the change it belongs to. */
const FINDING_COLUMNS: (Field & { of: (c: ChangeView, f: ChangeView['findings'][number]) => unknown })[] = [
  { name: 'target', type: 'string', description: 'Registry server.name of the change.', of: (c) => c.target },
  { name: 'day', type: 'date', description: 'Day of the change.', of: (c) => c.day },
  { name: 'run_id', type: 'string', description: 'Run of the change.', of: (c) => c.runId },
  { name: 'after_tools_sha256', type: 'string', description: 'Contract hash the change moved to (with target, the change\'s key).', of: (c) => c.afterSha256 },
  { name: 'rule', type: 'string', description: 'Rule id (methodology rules page).', of: (_, f) => f.rule },
  { name: 'axis', type: 'string', description: 'compatibility or security.', of: (_, f) => f.axis },
  { name: 'level', type: 'string', description: 'ERR, WARN, INFO (compatibility) or HIGH, WARN (security).', of: (_, f) => f.level },
  { name: 'tool', type: 'string', description: 'Tool name (registry text).', of: (_, f) => f.tool },
  { name: 'path', type: 'string', description: 'RFC 6901 pointer into the tool.', of: (_, f) => f.path },
  { name: 'before', type: 'any', description: 'Value at the pointer before (JSON). Parquet readers turn a JSON null into SQL NULL, the same as an absent value: has_before tells them apart.', of: (_, f) => f.before ?? null },
  { name: 'after', type: 'any', description: 'Value at the pointer after (JSON). Parquet readers turn a JSON null into SQL NULL, the same as an absent value: has_after tells them apart.', of: (_, f) => f.after ?? null },
  { name: 'fingerprint', type: 'string', description: 'Stable id of (rule, tool, path).', of: (_, f) => f.fingerprint },
  { name: 'message', type: 'string', description: 'The finding in one sentence.', of: (_, f) => f.message },
  // Last, so the earlier columns keep their positions.
  { name: 'has_before', type: 'boolean', description: 'Whether the pointer had a value before: false when it was absent (before is NULL), true when it held one, JSON null included (before is then NULL too).', of: (_, f) => f.before !== undefined },
  { name: 'has_after', type: 'boolean', description: 'Whether the pointer had a value after: false when it was absent (after is NULL), true when it held one, JSON null included (after is then NULL too).', of: (_, f) => f.after !== undefined },
];

export const FINDING_FIELDS: Field[] = FINDING_COLUMNS.map(({ name, type, description }) => ({ name, type, description }));

/** The findings of a change as records (keys FINDING_FIELDS, in that order). */
export function findingRecords(c: ChangeView): Record<string, unknown>[] {
  return c.findings.map((f) => Object.fromEntries(FINDING_COLUMNS.map((col) => [col.name, col.of(c, f)])));
}

/** One line of changes.jsonl (its keys are CHANGE_FIELDS, in that order). */
export function changeRecord(c: ChangeView): Record<string, unknown> {
  return Object.fromEntries(CHANGE_COLUMNS.map((f) => [f.name, f.of(c)]));
}

export const INTERVAL_FIELDS: (Field & { name: keyof Interval })[] = [
  { name: 'target', type: 'string', description: 'Registry server.name.' },
  { name: 'tools_sha256', type: 'string', description: 'The contract.' },
  { name: 'start_day', type: 'date', description: 'Day of its first successful observation.' },
  { name: 'end_day', type: 'date', description: 'Day of the first successful observation of a different hash (event) or of its last successful observation (censored).' },
  { name: 'duration', type: 'integer', description: 'Whole days from start_day to end_day.' },
  { name: 'event', type: 'boolean', description: 'true: ended by a change; false: censored.' },
  { name: 'retired', type: 'boolean', description: 'Censored because the server left the registry.' },
];

export const SURVIVAL_FIELDS: Field[] = [
  { name: 'time_days', type: 'integer', description: 'A distinct duration (days).' },
  { name: 'at_risk', type: 'integer', description: 'Contracts with duration ≥ time.' },
  { name: 'events', type: 'integer', description: 'Contracts that changed at time.' },
  { name: 'censored', type: 'integer', description: 'Contracts censored at time.' },
  { name: 'survival', type: 'number', description: 'Kaplan–Meier estimate S(t).' },
  { name: 'std_err', type: 'number', description: 'Greenwood standard error of S (NA where S = 0).' },
  { name: 'lower_95', type: 'number', description: 'Plain pointwise 95% band, lower (clipped to 0).' },
  { name: 'upper_95', type: 'number', description: 'Plain pointwise 95% band, upper (clipped to 1).' },
];

/** How each roster field reads; the contract (src/lib/contract/roster.ts) gives the list and the order. */
const ROSTER_DOCS: { [K in keyof Roster]-?: Omit<Field, 'name'> } = {
  day: { type: 'date', description: 'UTC day of the run that fetched it.' },
  run_id: { type: 'string', description: 'That run.' },
  fetched_at: { type: 'datetime', description: 'When paging finished (RFC 3339).' },
  source: { type: 'string', description: 'The list endpoint paged.' },
  complete: { type: 'boolean', description: 'Paging reached the end: only complete rosters retire servers.' },
  incomplete_reason: { type: 'string', description: 'Why paging stopped early; null when complete.' },
  pages: { type: 'array', description: `One object per page fetched: ${Object.keys(RosterPage.shape).join(', ')}.` },
  counts: { type: 'object', description: 'pages, entries (name+version rows), targets (distinct names), with_endpoint.' },
  targets: { type: 'array', description: `One object per distinct server name, the isLatest entry: ${Object.keys(RosterTarget.shape).join(', ')}.` },
};

export const ROSTER_FIELDS: Field[] = Object.keys(Roster.shape).map((name) => ({ name, ...ROSTER_DOCS[name as keyof Roster] }));

/** roster-targets-<month>.parquet: one row per target of each roster, with the roster's day, run and completeness (names from the contracts). */
const ROSTER_TARGET_DOCS: Record<string, string> = {
  day: 'Day of the roster.',
  run_id: 'Run that fetched it.',
  fetched_at: 'When it was fetched.',
  complete: 'Whether the listing was read to its end.',
  name: 'Registry server.name (one target per name).',
  version: 'Registry server.version of its latest entry.',
  status: 'Registry status of that entry.',
  endpoint: 'Its first streamable-http remote, when usable.',
  endpoint_problem: 'Why there is no endpoint (no_streamable_http, templated_url, invalid_url, ...).',
  page_sha256: 'Raw registry page holding the entry (objects/).',
  page_index: 'Index of the entry in that page.',
};
const ROSTER_TARGET_FIELDS: Field[] = [...(['day', 'run_id', 'fetched_at', 'complete'] as const), ...(Object.keys(RosterTarget.shape) as (keyof typeof RosterTarget.shape)[])].map((name) => ({
  name,
  type: name === 'day' ? 'date' : name === 'fetched_at' ? 'datetime' : name === 'complete' ? 'boolean' : name === 'page_index' ? 'integer' : 'string',
  description: ROSTER_TARGET_DOCS[name] ?? name,
}));

/** A descriptor's top-level fields: the registry's server.json, and each of our _meta blocks (descriptor-schema.ts says what each holds). */
const SERVER_FIELDS: Field[] = [
  { name: 'server', type: 'object', description: "The registry's server.json for the server, verbatim (registry text, unvetted)." },
  { name: '_meta', type: 'object', description: `The registry's own _meta for the entry, verbatim, and our blocks (${DESCRIPTOR_BLOCKS.map((b) => `${b.key}: ${b.title.toLowerCase()}`).join('; ')}), each documented field by field on the data page (/data/#descriptors) and in /api/schema/descriptor.json.` },
];

/** One line of chain.jsonl (src/lib/chain.ts ChainManifest), field by field. */
const CHAIN_DOCS: { [K in keyof ChainManifest]-?: Omit<Field, 'name'> } = {
  chain: { type: 'string', description: 'The format name, mcp-schema/chain/v1.' },
  seq: { type: 'integer', description: '0 for the genesis manifest, then one more per line.' },
  kind: { type: 'string', description: 'genesis (where the chain starts), run (written by the run itself) or adopted (written after the fact for a past run).' },
  prev: { type: 'string', description: 'The hash of the manifest before it (SHA-256 of its RFC 8785 form without its signature); null for the genesis.' },
  sealed_at: { type: 'datetime', description: 'When the manifest was written.' },
  run_id: { type: 'string', description: 'The run it covers; null for the genesis.' },
  day: { type: 'date', description: 'The day of that run; null for the genesis.' },
  runs: { type: 'object', description: "{lines, sha256}: the run's lines of runs.jsonl, each followed by LF, hashed in file order." },
  roster: { type: 'object', description: '{file, sha256}: the roster file the run fetched and the SHA-256 of its bytes (read through gzip).' },
  rows: { type: 'array', description: "[{file, lines, sha256}]: per row file (<series folder>/<day>.jsonl), the run's row lines, each followed by LF, in file order." },
  objects: { type: 'object', description: "{lines, sha256}: the run's object set — the distinct raw-object names its rows (body_sha256, registry_page_sha256, handshake_sha256, tools_pages_sha256) and its roster's pages name, as lower-case hex, sorted, each followed by one LF (0x0A), no other separator; lines is how many, sha256 the SHA-256 of those bytes (an empty set hashes the empty string)." },
  unchained_runs: { type: 'integer', description: 'Genesis only: runs recorded before the chain began, not covered by it.' },
  note: { type: 'string', description: 'Genesis and adopted manifests: what they cover, in words.' },
  signature: { type: 'object', description: '{key_id, alg: ed25519, value}: Ed25519 signature (base64) of "mcp-schema chain v1" + LF + the manifest\'s hash in hex; null when unsigned.' },
};
const CHAIN_FIELDS: Field[] = Object.keys(ChainManifest.shape).map((name) => ({ name, ...CHAIN_DOCS[name as keyof ChainManifest] }));

export const RESOURCES: Record<ResourceName, { title: string; description: string; fields: Field[] }> = {
  observations: { title: 'Observations', description: 'One row per target per run, failures included.', fields: OBSERVATION_FIELDS },
  runs: { title: 'Runs', description: 'One row per collector run: counts, coverage, degraded and partial flags.', fields: RUN_FIELDS },
  'observations-v2': { title: 'Observations, methodology v2', description: 'One row per target per run of the dual-era probe (methodology v2): status, era, protocol revision, every tools/list page, the handshake, auth challenge and canary, and v1\'s error class for comparison.', fields: OBSERVATION_V2_FIELDS },
  'runs-v2': { title: 'Runs, methodology v2', description: 'The v2 series\' row of each run: counts, statuses, eras, requests sent, coverage, degraded and partial flags.', fields: RUN_V2_FIELDS },
  changes: { title: 'Drift events', description: 'Every contract change with its summarised diff and classification findings.', fields: CHANGE_FIELDS },
  'contract-intervals': { title: 'Contract intervals', description: 'Contract lifetimes (event or censored): the input of the survival estimate.', fields: INTERVAL_FIELDS },
  survival: { title: 'Survival curve', description: 'The Kaplan–Meier table, one row per distinct time.', fields: SURVIVAL_FIELDS },
  rosters: { title: 'Roster snapshots', description: 'The registry roster fetched by each run.', fields: ROSTER_FIELDS },
  'roster-targets': { title: 'Roster targets', description: 'One row per target of each roster (Parquet).', fields: ROSTER_TARGET_FIELDS },
  findings: { title: 'Findings', description: 'One row per classification finding of each change, flattened (Parquet).', fields: FINDING_FIELDS },
  chain: { title: 'Hash chain', description: 'One manifest per run: the SHA-256 of its rows, run record, roster and object set, and the hash of the manifest before it, Ed25519-signed (npm run verify checks it).', fields: CHAIN_FIELDS },
  families: { title: 'Contract families', description: 'Registry names that serve one hosted template (the same tools with each tenant\'s own words replaced, on one platform, on the same days): one row per stretch of membership, with its family beside it. The per-name figures count each member; /statistics/ counts each family once beside them.', fields: FAMILY_FIELDS },
  servers: { title: 'Per-server descriptors', description: "Every server the archive has seen, retired and opted-out ones included: the registry entry verbatim plus our health, connectability, tools, contract and identity blocks (the files under /api/servers/).", fields: SERVER_FIELDS },
};

/** The files the writer produces, for the page (which renders before the files exist). */
export interface PlannedBundle {
  name: string;
  resource: ResourceName | null;
  note: string;
  where: 'site' | 'release';
}

/**
 * The Parquet bundles' names (parquet.ts writes them, in this order): per month for the big tables,
 * methodology v2's rows per month of its own, whole for the small ones.
 */
export function parquetNames(months: readonly string[], monthsV2: readonly string[] = []): { name: string; resource: ResourceName; month: string | null }[] {
  return [
    ...months.flatMap((m) => (['observations', 'roster-targets', 'changes', 'findings'] as const).map((r) => ({ name: `${r}-${m}.parquet`, resource: r, month: m }))),
    ...monthsV2.map((m) => ({ name: `observations-v2-${m}.parquet`, resource: 'observations-v2' as const, month: m })),
    { name: 'runs.parquet', resource: 'runs' as const, month: null },
    { name: 'contract-intervals.parquet', resource: 'contract-intervals' as const, month: null },
  ];
}

/**
 * The row series published in every format (JSON Lines, CSV, Parquet), one column spec each: the CSV
 * columns and the Parquet columns are the contract's keys in its order. v1's rows are scalars; v2's
 * lists (supported versions, capabilities, every page's hash and type, auth schemes) are JSON text in
 * CSV and Parquet lists (flatColumnsOf: anything nested deeper would be JSON text).
 */
export const ROW_SERIES = {
  observations: { base: 'observations', fields: OBSERVATION_FIELDS, parquet: () => flatColumnsOf(Observation) },
  'observations-v2': { base: 'observations-v2', fields: OBSERVATION_V2_FIELDS, parquet: () => flatColumnsOf(ObservationV2) },
} as const satisfies Record<string, { base: string; fields: Field[]; parquet: () => [string, string][] }>;
export type RowSeries = keyof typeof ROW_SERIES;

/**
 * How a list or object field of a row series is written in CSV and in Parquet, in words: the field's
 * description in datapackage.json (its CSV and Parquet resources) ends with it; the data page says it once.
 */
export function formatNote(series: RowSeries, field: Field, format: 'csv' | 'parquet'): string | null {
  if (field.type !== 'array' && field.type !== 'object') return null;
  if (format === 'csv') return `In CSV: JSON text (${field.type === 'array' ? 'a JSON array, [] when empty' : 'a JSON object'}), an empty cell when null.`;
  const type = ROW_SERIES[series].parquet().find(([k]) => k === field.name)?.[1];
  if (type === 'JSON' || !type) return 'In Parquet: JSON text (a JSON column), NULL when null.';
  return `In Parquet: a list (${type}), empty when empty, NULL when null.`;
}

/** The CSV and Parquet rule for list fields, said once (the data page; formatNote says it per field). */
export const LIST_NOTE =
  'Methodology v2\'s rows hold lists (supported_versions, capabilities, tools_pages_sha256, tools_pages_content_types, auth_schemes). ' +
  'In CSV a list is one cell holding its JSON text (a JSON array such as ["2025-06-18","2025-11-25"], [] when empty), and an empty cell is null; parse it with any JSON parser. ' +
  'In Parquet a list of strings is a Parquet list (VARCHAR[] in DuckDB); anything nested deeper would be JSON text. datapackage.json says which, field by field.';

/** The months of the methodology v2 series' days (none without it). */
export function v2Months(a: Pick<Archive, 'v2'>): string[] {
  return [...new Set((a.v2?.dayFiles ?? []).map((d) => d.day.slice(0, 7)))].sort();
}

/**
 * What the bundles are written from: the archive, or with Publication.partsOnly only its latest
 * SITE_MONTHS months (their days and rosters): the older ones are the monthly parts'.
 */
export function bundledArchive<A extends Pick<Archive, 'months' | 'dayFiles' | 'rosterFiles' | 'v2'>>(a: A, pub: Pick<Publication, 'partsOnly'>): A {
  if (!pub.partsOnly) return a;
  const months = a.months.slice(-SITE_MONTHS);
  const first = months[0] ?? '9999-99';
  const recentV2 = new Set(v2Months(a).slice(-SITE_MONTHS));
  return {
    ...a,
    months,
    dayFiles: a.dayFiles.filter((d) => d.day.slice(0, 7) >= first),
    rosterFiles: a.rosterFiles.filter((f) => f.slice(0, 7) >= first),
    v2: a.v2 ? { ...a.v2, dayFiles: a.v2.dayFiles.filter((d) => recentV2.has(d.day.slice(0, 7))) } : a.v2,
  };
}

export function plannedBundles(whole: Archive, pub: Publication): PlannedBundle[] {
  const a = bundledArchive(whole, pub);
  const rel = pub.releaseDir !== null && !pub.partsOnly;
  const wholeFiles = !pub.partsOnly;
  const recent = new Set(a.months.slice(-SITE_MONTHS));
  const big = rel ? ('release' as const) : ('site' as const);
  const list: Omit<PlannedBundle, 'where'>[] = [];
  const at = new Map<string, PlannedBundle['where']>();
  const add = (b: Omit<PlannedBundle, 'where'>, where: PlannedBundle['where'] = 'site') => {
    // Data files carry -SIMULATED in a simulated build; conventional names (datapackage.json, …) do not.
    const name = b.resource ? simulatedName(b.name, pub) : b.name;
    list.push({ ...b, name });
    at.set(name, where);
  };
  if (wholeFiles) {
    add({ name: 'observations.jsonl.gz', resource: 'observations', note: 'whole archive, JSON Lines, gzip' }, big);
    add({ name: 'observations.csv.gz', resource: 'observations', note: 'whole archive, CSV, gzip' }, big);
  }
  for (const m of a.months) {
    const where = rel && !recent.has(m) ? 'release' : 'site';
    add({ name: `observations-${m}.jsonl.gz`, resource: 'observations', note: `${m}, JSON Lines, gzip` }, where);
    add({ name: `observations-${m}.csv.gz`, resource: 'observations', note: `${m}, CSV, gzip` }, where);
  }
  if (wholeFiles) add({ name: 'rosters.jsonl.gz', resource: 'rosters', note: 'JSON Lines, gzip' }, big);
  // Methodology v2's rows, beside v1's: the same split between the site and the release folder.
  const monthsV2 = v2Months(a);
  if (monthsV2.length > 0) {
    const recentV2 = new Set(monthsV2.slice(-SITE_MONTHS));
    if (wholeFiles) add({ name: 'observations-v2.jsonl.gz', resource: 'observations-v2', note: 'methodology v2, whole archive, JSON Lines, gzip' }, big);
    if (wholeFiles) add({ name: 'observations-v2.csv.gz', resource: 'observations-v2', note: 'methodology v2, whole archive, CSV (lists as JSON text), gzip' }, big);
    for (const m of monthsV2) {
      const where = rel && !recentV2.has(m) ? 'release' : 'site';
      add({ name: `observations-v2-${m}.jsonl.gz`, resource: 'observations-v2', note: `methodology v2, ${m}, JSON Lines, gzip` }, where);
      add({ name: `observations-v2-${m}.csv.gz`, resource: 'observations-v2', note: `methodology v2, ${m}, CSV (lists as JSON text), gzip` }, where);
    }
    add({ name: 'runs-v2.jsonl', resource: 'runs-v2', note: 'methodology v2 run rows, JSON Lines' });
  }
  // Parquet: the same months on the site as the JSON Lines and CSV, older ones in the release folder.
  const recentV2 = new Set(monthsV2.slice(-SITE_MONTHS));
  for (const p of parquetNames(a.months, monthsV2)) {
    const older = p.month !== null && !(p.resource === 'observations-v2' ? recentV2 : recent).has(p.month);
    add({ name: p.name, resource: p.resource, note: `${p.resource === 'observations-v2' ? 'methodology v2, ' : ''}${p.month ? `${p.month}, ` : ''}Parquet (zstd)` }, rel && older ? 'release' : 'site');
  }
  if (a.chain.head) {
    add({ name: 'chain.jsonl', resource: 'chain', note: 'the hash chain: one manifest per run (npm run verify checks it)' });
    add({ name: simulatedName('chain-head.json', pub), resource: null, note: 'its head: the last manifest, its SHA-256 and signature' });
  }
  for (const b of smallBundles()) add(b);
  return list.map((b) => ({ ...b, where: at.get(b.name)! }));
}

function smallBundles(): Omit<PlannedBundle, 'where'>[] {
  return [
    { name: 'runs.jsonl', resource: 'runs', note: 'JSON Lines' },
    { name: 'changes.jsonl.gz', resource: 'changes', note: 'JSON Lines, gzip' },
    { name: 'servers.jsonl.gz', resource: 'servers', note: 'one descriptor per line, JSON Lines, gzip; the same as /api/servers.json' },
    { name: 'contract-intervals.csv', resource: 'contract-intervals', note: 'CSV' },
    { name: 'survival.csv', resource: 'survival', note: 'CSV' },
    { name: 'families.jsonl', resource: 'families', note: 'contract families, JSON Lines' },
    { name: 'families.csv', resource: 'families', note: 'contract families, CSV' },
    { name: 'datapackage.json', resource: null, note: 'Frictionless Data Package: every file, every field' },
    { name: 'CITATION.cff', resource: null, note: 'how to cite the dataset' },
    { name: 'LICENSE-DATA.txt', resource: null, note: 'CC BY 4.0' },
    { name: 'LICENSE-CODE.txt', resource: null, note: 'MIT' },
    { name: 'SHA256SUMS', resource: null, note: 'checksums of every file above (sha256sum -c SHA256SUMS)' },
  ];
}

/**
 * What the CSV files do to registry text, in words: the data page and datapackage.json both say this,
 * and src/outputs/members.ts (csvLine) does it.
 */
export const CSV_NOTE =
  "CSV files follow RFC 4180 (comma, CRLF, header row) and OWASP's CSV-injection guidance, so a spreadsheet never runs registry text as a formula. " +
  'A text cell gets a leading apostrophe when it begins with a tab, carriage return, line feed or NUL, or when its first character that is not whitespace or a control character is =, +, - or @ (so " =1+1" is written "\' =1+1"). ' +
  'A cell holding a comma, semicolon, double quote, tab or line break is wrapped in double quotes, its double quotes doubled, so a spreadsheet that splits on semicolons or tabs still reads one cell. ' +
  'Numbers, booleans and empty cells are never changed. For the exact text, use the JSON Lines files: they are verbatim.';

/**
 * A file's resource name in datapackage.json: unique, as the Data Package spec requires, and of its
 * characters (lower-case a-z, 0-9, `.`, `_`, `-`). The file name without the `-SIMULATED` mark (the
 * package says it is simulated), its compression and its format extension, then the format as a
 * suffix unless it is JSON Lines, the verbatim record: `observations-2026-01` (the .jsonl.gz),
 * `observations-2026-01-csv`, `observations-2026-01-parquet`, `survival-csv`, `chain`.
 */
export function resourceName(file: string): string {
  const m = /^([^.]+)\.(jsonl|csv|parquet|json)(\.gz)?$/.exec(file.replace(new RegExp(`-${SIMULATED_MARK}(?=\\.|$)`), ''));
  if (!m) throw new Error(`no resource name for ${JSON.stringify(file)}`);
  const base = m[1]!.toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
  return m[2] === 'jsonl' ? base : `${base}-${m[2]}`;
}

export function datapackage(a: Archive, files: readonly BundleFile[], pub: Publication): unknown {
  const sim = (text: string) => (pub.simulated ? `${SIMULATED_NOTE} ${text}` : text);
  return {
    profile: 'data-package',
    name: pub.simulated ? 'mcp-schema-simulated' : 'mcp-schema',
    title: `${pub.simulated ? 'SIMULATED DATA — ' : ''}mcp-schema: observations of remote MCP servers' tool contracts`,
    description: sim(`Daily tools/list observations of every remote MCP server in the official registry, contract changes, contract lifetimes and their Kaplan–Meier survival estimate. Changes, contract intervals and the survival curve (the headline figures): methodology ${headlineMethodology(a.headline)}. Observations and runs: methodology v1's rows${(a.v2?.dayFiles.length ?? 0) > 0 ? '; the rows of methodology v2 (the dual-era probe) beside them, as observations-v2 and runs-v2' : ''}.`),
    ...(pub.simulated ? { simulated: true } : {}),
    homepage: pub.permalink('/data/'),
    version: a.asOfDay ?? 'empty',
    created: a.asOf ?? undefined,
    licenses: [{ name: 'CC-BY-4.0', path: 'https://creativecommons.org/licenses/by/4.0/', title: 'Creative Commons Attribution 4.0' }],
    resources: files
      .filter((f) => f.resource !== null)
      .map((f) => {
        const r = RESOURCES[f.resource!];
        const csv = f.name.includes('.csv');
        const parquet = f.name.endsWith('.parquet');
        const json = /\.json$/.test(f.name);
        return {
          name: resourceName(f.name),
          title: r.title,
          description: r.description,
          path: f.url ?? f.name,
          format: parquet ? 'parquet' : csv ? 'csv' : json ? 'json' : 'jsonl',
          mediatype: parquet ? 'application/vnd.apache.parquet' : csv ? 'text/csv' : json ? 'application/json' : 'application/x-ndjson',
          ...(f.name.endsWith('.gz') ? { compression: 'gz' } : {}),
          ...(parquet ? {} : { encoding: 'utf-8' }),
          bytes: f.bytes,
          hash: `sha256:${f.sha256}`,
          rows: f.rows,
          schema: { fields: pub.simulated && f.resource === 'survival' ? [{ name: 'simulated', type: 'string', description: SIMULATED_NOTE }, ...r.fields] : f.resource === 'observations-v2' && (csv || parquet) ? withFormatNotes('observations-v2', r.fields, csv ? 'csv' : 'parquet') : r.fields },
          ...(csv && (f.resource === 'observations' || f.resource === 'observations-v2') ? { dialect: { delimiter: ',', lineTerminator: '\r\n', header: true } } : {}),
        };
      }),
    notes: CSV_NOTE,
  };
}

/** A row series' fields with each list or object field's CSV or Parquet form at the end of its description. */
function withFormatNotes(series: RowSeries, fields: readonly Field[], format: 'csv' | 'parquet'): Field[] {
  return fields.map((f) => {
    const note = formatNote(series, f, format);
    return note ? { ...f, description: `${f.description} ${note}` } : f;
  });
}
