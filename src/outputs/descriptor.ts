// The per-server descriptor (/api/servers/<slug>.json) and the server's tools file
// (/api/tools/<slug>.json): the registry's list item for the server verbatim, plus our blocks
// under `_meta` (descriptor-schema.ts documents every field). Every server the archive has seen gets
// one — retired, opted-out and never-answering servers too, with their tools empty and the reason —
// so no name the archive has seen is ever a 404.
//
// Everything here is read from the derived archive (src/loader) and computed by src/lib; registry
// facts are derived defensively from the hostile entry (registry-facts.ts).
import { breakingFeedPaths } from './breaking-feeds.ts';
import { clip, contractSha256, isObject, PARTIAL_LISTING, parseWwwAuthenticate, probedRemote, proseSha256, qualityChecks, qualitySummary, resourceMetadataHint, schemaHygiene, statusPath, statusShard, toolSurfaceHashes, type Finding, type QualityCheck, type RegistrySchemaCheck, type RegistrySchemaChecker, type ServedToolHashes, type Tool } from '../lib/index.ts';
import { byCodeUnits } from '../lib/index.ts';
import type { Archive, ServerView } from '../loader/views.ts';
import type { V2Latest } from '../loader/v2-summary.ts';
import {
  DESCRIPTOR_BLOCKS,
  type Caching,
  type Connectability,
  type Contract,
  type DescriptorInfo,
  type FindingRecord,
  type Health,
  type Identity,
  type Observed,
  type Quality,
  QUALITY_DISCLAIMER,
  type ToolsBlock,
} from './descriptor-schema.ts';
import { familyBlock } from './families-download.ts';
import { shownLastSeen, stateSince } from './server-pages-incremental.ts';
import { familiesOf, type FamiliesView } from '../loader/families.ts';
import { rawObjectPath } from './linked-objects.ts';
import { META_NAMESPACE, type Publication, simulatedName } from './publication.ts';
import { declaredRemotes, namespaceOf, repositoryKey, repositoryUrl } from './registry-facts.ts';
import { eachServer } from '../loader/shards.ts';

/** What methodology v1 cannot say: the fields the v2 rows (src/lib contract/observation-v2.ts: era, supported_versions, instructions_sha256, auth fields) fill once the archive holds a v2 probe of the server. */
const NOT_IN_V1 = 'not observed: methodology v1 does not record this';
/** Tool descriptions in a descriptor are cut here; the tools file has them whole. */
const DESCRIPTION_MAX = 1000;
/** Other names sharing a repository, listed at most. */
const SAME_REPOSITORY_MAX = 50;

export const RETIRED_REASON = 'absent from the complete registry roster (retired or deleted upstream)';
export const EXCLUDED_REASON = "excluded at the operator's request";
/** Why the latest run did not contact an eligible server (schedule.ts; changelog "Deviation from v1: scheduling"). */
export function notAttemptedReason(s: Pick<ServerView, 'notAttemptedReason'>): string {
  return s.notAttemptedReason === 'run_deadline' ? "not contacted in the latest run: the run's deadline came first" : 'not contacted in the latest run: its host stopped answering earlier in the run';
}

/** Site paths of a server's machine-readable files. */
export const descriptorPath = (slug: string) => `/api/servers/${slug}.json`;
export const toolsPath = (slug: string) => `/api/tools/${slug}.json`;
export const setPath = (setHash: string) => `/api/sets/${setHash}.json`;
export const DESCRIPTOR_SCHEMA_PATH = '/api/schema/descriptor.json';
/** The version 1 format's JSON Schema, kept published so a reader of version 1 can still validate what it stored. */
export const DESCRIPTOR_V1_SCHEMA_PATH = '/api/schema/descriptor.v1.json';
/** Site path of the status file a server's daily-moving figures are in (src/lib server-status.ts). */
export const serverStatusPath = (slug: string) => statusPath(statusShard(slug));

/**
 * Where every descriptor is in one file: /api/servers.json; with a release folder (the real deploy,
 * where /api/servers.json would be too big for the site) the site's gzipped twin,
 * /data/servers.jsonl.gz. The release folder itself is not published (nothing is
 * re-uploaded every day; closed months are parts of their own), so nothing may link into it.
 */
export function bulkUrl(pub: Publication): string {
  return pub.releaseDir ? pub.permalink(`/data/${simulatedName('servers.jsonl.gz', pub)}`) : pub.permalink('/api/servers.json');
}

/** Registry names by repository key, over every server the archive has seen (built once per build). */
export type RepositoryIndex = Map<string, { name: string; slug: string; status: string }[]>;

/** The registry entry a server's latest row with a roster page points at, or null. */
export async function entryOf(a: Archive, s: ServerView): Promise<Record<string, unknown> | null> {
  const entry = s.registryRow ? await a.registryEntry(s.registryRow) : null;
  return isObject(entry) ? entry : null;
}

export async function repositoryIndex(a: Archive): Promise<RepositoryIndex> {
  const index: RepositoryIndex = new Map();
  // Shard by shard (Archive.serversIn), then keys and names in the order one pass in name order gives.
  const found: [string, { name: string; slug: string; status: string }][] = [];
  for await (const [, s] of eachServer(a)) {
    const key = repositoryKey(repositoryUrl((await entryOf(a, s))?.server));
    if (key !== null) found.push([key, { name: s.name, slug: s.slug, status: s.status }]);
  }
  for (const [key, server] of found.sort((x, y) => byCodeUnits(x[1].name, y[1].name))) {
    let names = index.get(key);
    if (!names) index.set(key, (names = []));
    names.push(server);
  }
  return index;
}

/** What a descriptor and its tools file are built from: read once per server. */
export interface ServerFacts {
  entry: Record<string, unknown> | null;
  /** The latest successful answer's tools, or why they cannot be read; null before one. */
  tools: Tool[] | string | null;
  hashes: ServedToolHashes | string | null;
  /** Site path of the latest successful answer's raw body (linked-objects.ts rawObjectPath); null before one. */
  rawBodyPath: string | null;
  /** The entry's `server` against the server.json schema its `$schema` names (src/lib registrySchemaChecker); null without an entry. */
  schemaCheck: RegistrySchemaCheck | null;
  /** The archive's contract families (src/loader/families.ts), built once per archive. */
  families: FamiliesView;
}

export async function serverFacts(a: Archive, s: ServerView, schemas: RegistrySchemaChecker): Promise<ServerFacts> {
  const body = s.current?.bodySha256 ?? null;
  const entry = await entryOf(a, s);
  return {
    entry,
    tools: body ? await a.tools(body) : null,
    hashes: body ? await a.toolHashes(body) : null,
    rawBodyPath: body ? rawObjectPath(body, a.contentType(body)) : null,
    schemaCheck: entry === null ? null : schemas.check(entry.server),
    families: await familiesOf(a),
  };
}

/** The descriptor of one server. */
export function serverDescriptor(a: Archive, s: ServerView, f: ServerFacts, repos: RepositoryIndex, pub: Publication): Record<string, unknown> {
  const base: Record<string, unknown> = f.entry ?? { server: { name: s.name } };
  const meta = isObject(base._meta) ? base._meta : {};
  const tools = Array.isArray(f.tools) ? f.tools : null;
  const hashes = isObject(f.hashes) ? (f.hashes as ServedToolHashes) : null;
  const blocks: Record<string, unknown> = {
    [`${META_NAMESPACE}/descriptor`]: info(a, s, pub),
    [`${META_NAMESPACE}/health`]: health(s),
    [`${META_NAMESPACE}/connectability`]: connectability(s, base.server, a.v2?.latestByTarget.get(s.name) ?? null),
    [`${META_NAMESPACE}/tools`]: toolsBlock(s, tools, hashes, f, pub),
    [`${META_NAMESPACE}/schema-history`]: contract(s, tools, f, pub),
    [`${META_NAMESPACE}/identity`]: identity(s, base.server, repos, pub),
    [`${META_NAMESPACE}/caching`]: caching(a, s),
    [`${META_NAMESPACE}/quality`]: qualityBlock(a, s, tools ?? (typeof f.tools === 'string' ? f.tools : null), f.schemaCheck, pub),
    [`${META_NAMESPACE}/family`]: familyBlock(f.families, s.name, pub),
  };
  // Our keys last and in DESCRIPTOR_BLOCKS order: an entry's own _meta cannot shadow them.
  const ours = Object.fromEntries(DESCRIPTOR_BLOCKS.map((b) => [b.key, blocks[b.key]]));
  const theirs = Object.fromEntries(Object.entries(meta).filter(([k]) => !(k in ours)));
  return { ...base, _meta: { ...theirs, ...ours } };
}

function info(a: Archive, s: ServerView, pub: Publication): DescriptorInfo {
  return {
    version: 2,
    methodology: 'v1',
    self_url: pub.permalink(descriptorPath(s.slug)),
    bulk_url: bulkUrl(pub),
    schema_url: pub.permalink(DESCRIPTOR_SCHEMA_PATH),
    status_url: pub.permalink(serverStatusPath(s.slug)),
    docs_url: pub.permalink('/data/#descriptors'),
    ...(pub.simulated ? { simulated: true as const } : {}),
  };
}

// Version 2: what describes the current state names the day it began (`since`), never the latest run;
// the latest run's instants and the rolling window are in the server's status file (status-files.ts).
function health(s: ServerView): Health {
  const probe = s.status === 'ok' || s.status === 'error';
  return {
    methodology: 'v1',
    status: s.status,
    error_class: s.errorClass,
    http_status: s.latest.http_status,
    reachable: probe ? s.status === 'ok' : null,
    since: stateSince(s),
    ok_until: s.status === 'ok' ? null : s.lastOk,
  };
}

function connectability(s: ServerView, server: unknown, latestV2: V2Latest | null): Connectability {
  const { remotes, total } = declaredRemotes(server);
  const probed = probedRemote(isObject(server) ? server.remotes : undefined);
  const row = s.latest;
  const probe = row.outcome === 'ok' || row.outcome === 'error';
  const v1 = <T>(value: T | null, whyNull: string): Observed<T> => (probe ? { value, source: 'v1', note: value === null ? whyNull : null } : { value: null, source: null, note: neverProbed(s) });
  // v1 records WWW-Authenticate on auth errors; src/lib parses it (RFC 9110: several challenges, quoted commas).
  const parsed = row.outcome === 'error' && row.error_class === 'auth' && row.www_authenticate !== null ? parseWwwAuthenticate(row.www_authenticate) : null;
  const challenge = parsed && {
    http_status: row.http_status,
    schemes: parsed.challenges.map((c) => c.scheme),
    resource_metadata_hint: resourceMetadataHint(parsed.challenges) !== null,
    parse_error: parsed.error,
    www_authenticate: row.www_authenticate!,
  };
  const notV1 = { value: null, source: null, note: NOT_IN_V1 };
  // Methodology v2's fields come from the target's row in the latest full v2 run when it probed the
  // server; without one (or when it did not probe: no endpoint, retired, opted out, not attempted) they
  // keep v1's note.
  const probedV2 = latestV2 !== null && (latestV2.outcome === 'ok' || latestV2.outcome === 'error') ? latestV2 : null;
  const v2 = <T>(value: T | null, whyNull: string): Observed<T> => (probedV2 ? { value, source: 'v2', note: value === null ? whyNull : null } : notV1);
  const gated = probedV2 !== null && (probedV2.status === 'auth_compliant' || probedV2.status === 'auth_noncompliant');
  const noChallenge = 'the latest v2 probe met no auth challenge';
  const v1Version = v1(row.protocol_version, 'the latest probe did not complete initialize');
  return {
    remotes,
    remotes_total: total,
    probed: {
      index: probed.index,
      url: s.endpoint,
      why: 'v1 probes the first streamable-http remote of the latest entry',
      problem: s.status === 'excluded' ? 'opted out: never contacted' : s.status === 'retired' ? 'retired: no longer probed' : s.status === 'not_attempted' ? notAttemptedReason(s) : probed.problem,
    },
    challenge: v1(challenge, 'the latest probe met no auth challenge'),
    protected_resource_metadata_valid: v2(gated ? probedV2.auth_metadata_valid : null, noChallenge),
    auth_bearer: v2(gated ? probedV2.auth_bearer : null, noChallenge),
    protected_resource_metadata_source: v2(gated ? probedV2.auth_metadata_source : null, gated ? 'no valid protected-resource metadata was found' : noChallenge),
    protocol_version: v1Version.value === null && probedV2?.protocol_version ? { value: probedV2.protocol_version, source: 'v2', note: null } : v1Version,
    protocol_era: v2(probedV2 && probedV2.era !== 'none' ? probedV2.era : null, 'the latest v2 probe could not tell the era (no handshake answer)'),
    supported_versions: v2(probedV2?.supported_versions ?? null, 'the server listed no supported versions (a modern server\'s discover result, or a -32022 error, lists them)'),
    instructions_sha256: v2(probedV2?.instructions_sha256 ?? null, 'no handshake answer, or it carried no instructions'),
    session: probe ? row.session : null,
  };
}

/** The caching block: the target's list in the latest full v2 run (v2-summary cachingByTarget), or why there is none. */
function caching(a: Archive, s: ServerView): Caching {
  const c = a.v2?.cachingByTarget.get(s.name) ?? null;
  if (c) return { methodology: 'v2', cache_scope: c.cacheScope, cache_scope_invalid: c.cacheScopeInvalid, ttl_ms: c.ttlMs, ttl_ms_invalid: c.ttlMsInvalid, result_type: c.resultType, missing_required: c.missing, note: null };
  const row = a.v2?.latestByTarget.get(s.name) ?? null;
  const note = !a.v2?.latest
    ? 'not observed: no full methodology v2 run yet'
    : row === null
      ? 'not in the latest full v2 run'
      : row.outcome === 'ok' && row.era === 'modern'
      ? 'the stored answers of the latest full v2 run could not be read back'
      : row.outcome === 'ok'
        ? 'not applicable: the latest full v2 run got a legacy answer (caching fields are 2026-07-28)'
        : 'the latest full v2 run got no tool list from this server';
  return { methodology: 'v2', cache_scope: null, cache_scope_invalid: false, ttl_ms: null, ttl_ms_invalid: false, result_type: null, missing_required: [], note };
}

/** Where the quality checks' rules are published. */
export const QUALITY_RULES_PATH = '/methodology/quality/';

/**
 * The quality block: src/lib qualityChecks over what the archive observed of this server. `tools` is
 * the latest successful answer's tools, or why they cannot be read (null: none, or not read back).
 * The server page prints its summary from the same call.
 */
export function qualityBlock(a: Archive, s: ServerView, tools: Tool[] | string | null, schemaCheck: RegistrySchemaCheck | null, pub: Pick<Publication, 'permalink'>): Quality {
  const checks = serverQualityChecks(a, s, tools, schemaCheck);
  return {
    rules_url: pub.permalink(QUALITY_RULES_PATH),
    disclaimer: QUALITY_DISCLAIMER,
    summary: qualitySummary(checks),
    // The category is the id's first part: not repeated in every descriptor. A check over a rolling
    // window names the window in its detail, so that detail is in the status file (windowDetails).
    checks: checks.map(({ id, status, detail, source }) => ({ id, status, detail: source === 'probes' ? null : detail, source })),
  };
}

/** The details the descriptor leaves to the status file: those of the checks decided over a rolling window. */
export function windowDetails(checks: readonly QualityCheck[]): { id: string; detail: string }[] {
  return checks.filter((c) => c.source === 'probes').map(({ id, detail }) => ({ id, detail }));
}

/** src/lib qualityChecks over what the archive observed of one server (the descriptor's quality block and the status file read it). */
export function serverQualityChecks(a: Archive, s: ServerView, tools: Tool[] | string | null, schemaCheck: RegistrySchemaCheck | null): QualityCheck[] {
  const v2 = a.v2?.latestByTarget.get(s.name) ?? null;
  const cur = s.current;
  return qualityChecks({
    asOfDay: a.asOfDay ?? s.lastObserved.slice(0, 10),
    v2Run: Boolean(a.v2?.latest),
    v2: v2 && { run_id: v2.run_id, observed_at: v2.observed_at, outcome: v2.outcome, status: v2.status, era: v2.era, protocol_version: v2.protocol_version, canary_sent: v2.canary_sent, canary_in_channel: v2.canary_in_channel },
    tools: !cur ? null : Array.isArray(tools) ? { tools, observed_at: cur.observedAt, run_id: null, source: 'v1' } : (tools ?? 'raw body missing'),
    health: s.health && { probes: s.health.probes, ok: s.health.ok, fromDay: s.health.fromDay, toDay: s.health.toDay },
    changes: s.changes.map((c) => ({ day: c.day, id: c.id, breaking: c.compatibility === 'ERR' })),
    firstObservedDay: s.firstObserved.slice(0, 10),
    registry: schemaCheck && { status: schemaCheck.status, errorsTotal: schemaCheck.errorsTotal, checkedAgainst: schemaCheck.checkedAgainst, note: schemaCheck.note },
  });
}

function neverProbed(s: ServerView): string {
  switch (s.status) {
    case 'retired':
      return `not probed: ${RETIRED_REASON}`;
    case 'excluded':
      return `not probed: ${EXCLUDED_REASON}`;
    case 'not_attempted':
      return notAttemptedReason(s);
    default:
      return 'not probed: the latest registry entry has no usable streamable-http remote';
  }
}

function toolsBlock(s: ServerView, tools: Tool[] | null, hashes: ServedToolHashes | null, f: ServerFacts, pub: Pick<Publication, 'permalink'>): ToolsBlock {
  const cur = s.current;
  const links = {
    body_sha256: cur?.bodySha256 ?? null,
    raw_body_url: cur && f.rawBodyPath ? pub.permalink(f.rawBodyPath) : null,
    tools_url: cur ? pub.permalink(toolsPath(s.slug)) : null,
  };
  const common = {
    methodology: 'v1' as const,
    ...servedDates(s),
    partial: hashes ? hashes.problem === PARTIAL_LISTING : null,
    set_sha256: cur?.setHash ?? null,
    set_problem: cur?.setHashProblem ?? null,
    ...links,
  };
  const empty = (note: string): ToolsBlock => ({ ...common, count: 0, note, tools: [] });
  if (s.status === 'retired') return empty(`${RETIRED_REASON}; the last known contract is at tools_url and raw_body_url`);
  if (s.status === 'excluded') return empty(`${EXCLUDED_REASON}; nothing is probed`);
  if (!cur) return empty('never answered tools/list');
  if (!tools) return empty(`the latest answer could not be read: ${typeof f.tools === 'string' ? f.tools : 'raw body missing'}`);
  const defs = hashes?.definitions?.length === tools.length ? hashes.definitions : null;
  return {
    ...common,
    count: tools.length,
    note: null,
    tools: tools.map((t, i) => {
      const description = typeof t.description === 'string' ? t.description : null;
      return {
        name: t.name,
        title: typeof t.title === 'string' ? t.title : null,
        description: description === null ? null : clip(description, DESCRIPTION_MAX),
        description_clipped: description !== null && description.length > DESCRIPTION_MAX,
        annotations: t.annotations === undefined ? null : t.annotations,
        definition_sha256: defs?.[i]?.hash ?? null,
      };
    }),
  };
}

/** When the archive first saw the server serve its current contract, and the day it last did: null while it still serves it. */
function servedDates(s: ServerView): { first_seen: string | null; last_seen: string | null } {
  return { first_seen: s.head?.firstSeen ?? null, last_seen: s.head ? shownLastSeen(s, s.head) : null };
}

function contract(s: ServerView, tools: Tool[] | null, f: ServerFacts, pub: Pick<Publication, 'permalink'>): Contract {
  const check = f.schemaCheck;
  const last = s.changes[0] ?? null;
  const h = tools ? schemaHygiene([{ target: s.name, tools }]) : null;
  return {
    tools_sha256: s.head?.toolsSha256 ?? null,
    contract_sha256: tools ? contractSha256(tools) : null,
    prose_sha256: tools ? proseSha256(tools) : null,
    set_sha256: s.current?.setHash ?? null,
    set_url: s.current?.setHash ? pub.permalink(setPath(s.current.setHash)) : null,
    tools_changed_at: s.lastChange,
    first_observed: s.firstObserved,
    ok_until: s.status === 'ok' ? null : s.lastOk,
    status: s.status,
    error_class: s.errorClass,
    changes: s.changes.length,
    retired: s.status === 'retired',
    retired_on: s.status === 'retired' ? stateSince(s) : null,
    reason: s.status === 'retired' ? RETIRED_REASON : s.status === 'excluded' ? EXCLUDED_REASON : s.status === 'not_attempted' ? notAttemptedReason(s) : null,
    registry_entry_available: f.entry !== null,
    registry_entry_schema: check && {
      status: check.status,
      schema: check.schema,
      checked_against: check.checkedAgainst,
      note: check.note,
      errors: check.errors.map((e) => ({ keyword: e.keyword, instance_path: e.instancePath, schema_path: e.schemaPath, message: e.message })),
      errors_total: check.errorsTotal,
    },
    history_url: pub.permalink(`/servers/${s.slug}/`),
    feed_url: s.head ? pub.permalink(`/servers/${s.slug}/feed.xml`) : null,
    breaking_feed_url: s.head ? pub.permalink(breakingFeedPaths(s.slug).rss) : null,
    last_change: last && {
      day: last.day,
      observed_at: last.observedAt,
      before_tools_sha256: last.beforeSha256,
      after_tools_sha256: last.afterSha256,
      revert: last.revert,
      compatibility: last.compatibility,
      security: last.security,
      findings: last.findings.map(findingRecord),
      url: pub.permalink(`/servers/${s.slug}/`) + `#change-${last.id}`,
    },
    body_findings: (s.current?.findings ?? []).map(findingRecord),
    hygiene: h && {
      tools: h.tools,
      strict_input_schema: h.strictInputSchema.count,
      read_only_hint: h.readOnlyHint.count,
      destructive_hint: h.destructiveHint.count,
      output_schema: h.outputSchema.count,
      description: h.description.count,
    },
  };
}

export function findingRecord(f: Finding): FindingRecord {
  return { rule: f.rule, axis: f.axis, level: f.level, tool: f.tool, path: f.path, fingerprint: f.fingerprint, message: f.message };
}

function identity(s: ServerView, server: unknown, repos: RepositoryIndex, pub: Pick<Publication, 'permalink'>): Identity {
  const url = repositoryUrl(server);
  const key = repositoryKey(url);
  const others = key === null ? [] : (repos.get(key) ?? []).filter((o) => o.name !== s.name);
  return {
    name: s.name,
    namespace: namespaceOf(s.name),
    repository_url: url,
    repository_key: key,
    same_repository: others.slice(0, SAME_REPOSITORY_MAX).map((o) => ({ name: o.name, status: o.status, url: pub.permalink(descriptorPath(o.slug)) })),
    same_repository_total: others.length,
  };
}

/** /api/tools/<slug>.json: every tool of the latest successful answer whole, with its hashes; null before one. */
export function serverToolsFile(s: ServerView, f: ServerFacts, pub: Pick<Publication, 'permalink'>): Record<string, unknown> | null {
  const cur = s.current;
  if (!cur) return null;
  const tools = Array.isArray(f.tools) ? f.tools : null;
  const hashes = isObject(f.hashes) ? (f.hashes as ServedToolHashes) : null;
  const defs = tools && hashes?.definitions?.length === tools.length ? hashes.definitions : null;
  return {
    name: s.name,
    methodology: 'v1',
    descriptor_url: pub.permalink(descriptorPath(s.slug)),
    ...servedDates(s),
    body_sha256: cur.bodySha256,
    raw_body_url: pub.permalink(f.rawBodyPath ?? rawObjectPath(cur.bodySha256, null)),
    tools_sha256: s.head?.toolsSha256 ?? null,
    set_sha256: cur.setHash,
    set_problem: cur.setHashProblem,
    set_url: cur.setHash ? pub.permalink(setPath(cur.setHash)) : null,
    definition_hash: 'tool definition hash, version 1 (mcp-pin docs/TOOL_DEFINITION_HASH.md): SHA-256 of the RFC 8785 form of each definition as served; the set hash is the SHA-256 of the sorted name:hash lines',
    problem: tools ? null : typeof f.tools === 'string' ? f.tools : 'raw body missing',
    tools: (tools ?? []).map((t, i) => ({ definition_sha256: defs?.[i]?.hash ?? null, surfaces: surfaces(t), tool: t })),
  };
}

function surfaces(t: Tool): Record<string, string | null> | null {
  try {
    return toolSurfaceHashes(t);
  } catch {
    return null; // deeper than the canonical writer takes: the collector could not have hashed it either
  }
}
