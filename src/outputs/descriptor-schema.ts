// The per-server descriptor's own blocks (/api/servers/<slug>.json): zod schemas whose
// descriptions are the documentation. The data page renders its field tables from the JSON Schema
// made of them (descriptorJsonSchema, published at /api/schema/descriptor.json), the tests validate
// every descriptor against both, and descriptor.ts builds values of these types: code, published
// schema and documentation cannot disagree.
//
// A descriptor is the registry's list item for the server, verbatim (`server` and the registry's own
// `_meta` key), plus our blocks under `_meta`, each under our reverse-DNS namespace — the official
// registry's convention for a sub-registry's enrichment (io.modelcontextprotocol.registry/official
// is theirs; org.mcp-schema/* is ours). Every value we derive says which methodology it comes from;
// what methodology v1 does not observe is null with a note, never a guess.
//
// Version 2 (changelog 2026-12-07, "Descriptor format 2"): nothing here names the latest run or the
// latest probe, so a descriptor changes only when its server does. What describes the current state
// names the day or instant that state began; the latest run's instants, the 30-day health window and
// the window-bound check details are in the server's status file (status_url, src/lib server-status.ts).
// Version 1's JSON Schema stays published, frozen, at /api/schema/descriptor.v1.json.
import { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { ENDPOINT_INDEX_DIR, QUALITY_RULES, QUALITY_STATUSES, REGISTRY_SCHEMA_STATUSES, SHARD_RULE, STATUS_DIR, STATUS_SHARD_RULE, TOOL_INDEX_DIR } from '../lib/index.ts';
import { META_NAMESPACE } from './publication.ts';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const instant = z.string().datetime({ offset: true });
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const url = z.string();
const LEVELS = ['ERR', 'WARN', 'INFO', 'HIGH'] as const;

/** A value some methodology observes: v1 fields carry it, fields only the v2 probe records are null with a note. */
function observed<T extends z.ZodTypeAny>(value: T, what: string) {
  return z
    .object({
      value: value.nullable().describe(what),
      source: z.enum(['v1', 'v2']).nullable().describe('The methodology whose observation rows this value comes from; null: not observed.'),
      note: z.string().nullable().describe('Why the value is null, when it is (e.g. "not observed: methodology v1 does not record this").'),
    })
    .strict()
    .describe(what);
}

const FindingRecord = z
  .object({
    rule: z.string().describe('Rule id (see /methodology/rules/).'),
    axis: z.enum(['compatibility', 'security']).describe('compatibility: for callers; security: for the people whose agents call these tools.'),
    level: z.enum(LEVELS).describe('ERR, WARN or INFO (compatibility); HIGH or WARN (security).'),
    tool: z.string().describe('The tool it is about (registry text); empty when it is about the whole answer.'),
    path: z.string().describe('RFC 6901 pointer into the tool (or into the answer, when tool is empty).'),
    fingerprint: z.string().describe('First 12 hex of sha256("rule:tool:path"): stable across runs.'),
    message: z.string().describe('One sentence for a reader; registry text quoted, cut at 80 characters, hidden characters shown as escapes.'),
  })
  .strict();

export const DescriptorInfo = z
  .object({
    version: z.literal(2).describe('Descriptor format version; a change that removes or renames a field gets a new number (2: no field names the latest run or probe; those figures are at status_url. Version 1\'s schema: /api/schema/descriptor.v1.json).'),
    methodology: z.literal('v1').describe('Methodology of the observations the blocks are computed from.'),
    self_url: url.describe('This descriptor.'),
    bulk_url: url.describe('Every descriptor in one file: /api/servers.json, shaped as the registry\'s list answer ({"servers": [...], "metadata": {...}}); on a site too big to carry that file, /data/servers.jsonl.gz (the same descriptors, one per line, gzip).'),
    schema_url: url.describe('JSON Schema of our blocks (this format).'),
    status_url: url.describe(`The server's status file, ${STATUS_DIR}/<shard>.json (the shard: ${STATUS_SHARD_RULE}): what moves every day — the archive's as-of instant, the latest row, probe and ok answer, consecutive failures, the 30-day health window (probes, ok share with its Wilson interval, latency), the latest v2 row and the details of the checks over a rolling window. Rewritten daily; this file changes only when the server does.`),
    docs_url: url.describe('The data page section that documents every field.'),
    simulated: z.literal(true).optional().describe('Present only in a build of a simulated world (the demo, tests): no figure in the file describes a real server.'),
  })
  .strict()
  .describe('What this file is: format version, methodology, links to its schema, its status file and documentation.');

export const Health = z
  .object({
    methodology: z.literal('v1').describe('Every field here comes from methodology v1 observation rows.'),
    status: z.string().describe('Outcome of the latest row: ok, error, no_endpoint, retired, excluded or not_attempted (eligible, not contacted that run: see reason).'),
    error_class: z.string().nullable().describe('Error class of the latest row (timeout, tls, http_4xx, http_5xx, auth, rate_limited, no_endpoint, parse), else null.'),
    http_status: z.number().int().nullable().describe('HTTP status of the latest row, when it has one.'),
    reachable: z.boolean().nullable().describe('Whether the latest probe answered tools/list without credentials (an auth wall is false); null when the latest row probed nothing (no endpoint, retired, opted out).'),
    since: day.nullable().describe('The UTC day the current status began: the first day of the server\'s newest run of equal outcome (the page\'s "since"); null before a first observation.'),
    ok_until: instant.nullable().describe('The last probe that answered tools/list, when the server does not answer now (status other than ok); null while it answers (see since) or if it never did.'),
  })
  .strict()
  .describe('Health, from our own rows: the current status, since when, reachable now, and the last ok answer when it is not. The 30-day window (probes, ok share, latency), consecutive failures and the latest probe\'s instant are in the status file (the descriptor block\'s status_url): they move every day.');

const HeaderDecl = z
  .object({
    name: z.string().nullable().describe('Header name as declared (null when not a string).'),
    required: z.boolean().nullable().describe('isRequired as declared (null when absent or not a boolean).'),
    secret: z.boolean().nullable().describe('isSecret as declared.'),
    has_value: z.boolean().describe('The entry gives a value or value template.'),
    placeholders: z.array(z.string()).describe('Environment-style names for what a client must supply: each {variable} of the value template in upper snake case, or, for a secret header without a template, the header name in upper snake case (X-Api-Key → X_API_KEY).'),
  })
  .strict();

const RemoteDecl = z
  .object({
    index: z.number().int().nonnegative().describe('Index in server.remotes.'),
    transport: z.string().nullable().describe('remotes[].type as declared (streamable-http, sse, …).'),
    url: z.string().nullable().describe('The URL as declared (cut at 4,096 characters).'),
    templated: z.boolean().describe('The URL holds {variables} a client must fill in.'),
    variables: z.array(z.string()).describe('Names of those variables.'),
    headers: z.array(HeaderDecl).describe('Declared headers (at most 32).'),
    declared_auth: z
      .object({
        kind: z.enum(['authorization-header', 'secret-header', 'required-header', 'none-declared']).describe('What the entry declares: an Authorization header, another secret header, a required non-secret header, or none. Declared, not observed.'),
        header: z.string().nullable().describe('The header that carries it.'),
        scheme: z.string().nullable().describe('Scheme of an Authorization value template (its first word, e.g. Bearer).'),
      })
      .strict()
      .describe('The auth the registry entry declares for this remote.'),
  })
  .strict();

export const Connectability = z
  .object({
    remotes: z.array(RemoteDecl).describe('Each remote of the registry entry, as declared (at most 32).'),
    remotes_total: z.number().int().nonnegative().describe('Remotes in the entry (more than listed when over 32).'),
    probed: z
      .object({
        index: z.number().int().nonnegative().nullable().describe('Index of the remote the v1 probe contacts: the first streamable-http remote; null when there is none.'),
        url: z.string().nullable().describe(`The URL probed (as the latest row recorded it). Every server probed at this URL: ${ENDPOINT_INDEX_DIR}/<shard>.json (the shard: ${SHARD_RULE}; /data/#name-indexes).`),
        why: z.string().describe('The rule, in words: methodology v1 probes the first remote of type streamable-http of the isLatest registry entry, as listed (real entries list an sse remote first); a URL with {variables}, or not http(s), is not probed.'),
        problem: z.string().nullable().describe('Why nothing is probed: no_streamable_http, templated_url, invalid_url, or the opt-out.'),
      })
      .strict()
      .describe('Which remote we probe and why (methodology v1, "Roster").'),
    challenge: observed(
      z
        .object({
          http_status: z.number().int().nullable().describe('401 or 403.'),
          schemes: z.array(z.string()).describe('Auth scheme of each challenge in the header, lower-cased (RFC 9110 §11.6.1: one header may hold several, e.g. ["basic", "bearer"]).'),
          resource_metadata_hint: z.boolean().describe('A challenge names a resource_metadata URL (RFC 9728 §5.1).'),
          parse_error: z.string().nullable().describe('Where the header stopped parsing, when it is not valid (the challenges before it are kept).'),
          www_authenticate: z.string().describe('The header as received (cut at 1,024 characters).'),
        })
        .strict(),
      'The auth challenge of the latest probe (v1 records WWW-Authenticate on auth errors); null when the latest probe met no challenge.',
    ),
    protected_resource_metadata_valid: observed(z.boolean(), 'Whether the protected-resource metadata (RFC 9728) the challenge points to is valid.'),
    auth_bearer: observed(z.boolean(), 'Whether the auth challenge the v2 probe met is a Bearer challenge (methodology v2).'),
    protected_resource_metadata_source: observed(z.enum(['hint', 'well_known_path', 'well_known_root']), 'Where the v2 probe found the valid protected-resource metadata: the challenge\'s resource_metadata URL (hint), /.well-known/oauth-protected-resource{path}, or the root well-known URL.'),
    protocol_version: observed(z.string(), 'Protocol revision the server answered in initialize (latest ok v1 probe); when v1 has none, the revision the v2 probe negotiated in the latest full v2 run (2026-07-28 for a modern server), with source v2.'),
    protocol_era: observed(z.string(), 'legacy (initialize), modern (2026-07-28, server/discover) or legacy_sse (the deprecated HTTP+SSE transport only), from the latest full v2 run.'),
    supported_versions: observed(z.array(z.string()), 'Revisions the server says it supports (server/discover).'),
    instructions_sha256: observed(sha256, 'Instructions hash (tool definition hash, version 1 §4) of the server\'s instructions.'),
    session: z.boolean().nullable().describe('Whether initialize issued an Mcp-Session-Id (latest ok probe).'),
  })
  .strict()
  .describe('Connectability: each remote with its transport, URL, template variables, declared headers (secret flags, environment-style placeholder names) and declared auth; which remote we probe and why; what the latest probe observed (challenge, protocol). Fields only the v2 probe records come from the target\'s row in the latest full v2 run (source v2) and are null with a note without one.');

const ToolSummary = z
  .object({
    name: z.string().describe(`Tool name (registry text, as JSON.parse reads the served body). Every server serving a tool of this name: ${TOOL_INDEX_DIR}/<shard>.json (the shard: ${SHARD_RULE}; /data/#name-indexes).`),
    title: z.string().nullable().describe('title, when a string.'),
    description: z.string().nullable().describe('description, when a string, cut at 1,000 characters (the tools file has it whole).'),
    description_clipped: z.boolean().describe('The description was cut.'),
    annotations: z.unknown().describe('annotations as served (any JSON; absent → null).'),
    definition_sha256: sha256.nullable().describe('Tool definition hash, version 1 of this definition as served; null when the body has no canonical form.'),
  })
  .strict();

export const ToolsBlock = z
  .object({
    methodology: z.literal('v1').describe('v1 reads the first page of tools/list.'),
    first_seen: instant.nullable().describe('The first ok probe that served the current contract (tools_sha256); null if never answered.'),
    last_seen: day.nullable().describe('The UTC day the server last served it, once it no longer does (an error, a retirement); null while it still serves it or if never answered. The latest ok probe\'s instant is in the status file (tools_observed_at).'),
    count: z.number().int().nonnegative().describe('Tools listed here (0 when retired, opted out or never answered).'),
    partial: z.boolean().nullable().describe('The answer offered a next page (v1 reads the first only); null when unknown.'),
    set_sha256: sha256.nullable().describe('Tool definition hash, version 1 set hash of the served page; null when it has none.'),
    set_problem: z.string().nullable().describe('Why there is no set hash (a repeated member name, a partial listing, an unreadable body).'),
    body_sha256: sha256.nullable().describe('The raw body these tools come from.'),
    raw_body_url: url.nullable().describe('That body, verbatim.'),
    tools_url: url.nullable().describe('Every tool with its schemas, surface hashes and definition hash.'),
    note: z.string().nullable().describe('Why the list is empty, when it is.'),
    tools: z.array(ToolSummary).describe('Name, title, description, annotations and definition hash of each tool, in served order; schemas are left out to keep this file small.'),
  })
  .strict()
  .describe('Tools: what the latest successful answer lists, without schemas (the tools file has them). Empty for retired, opted-out and never-answering servers.');

export const Contract = z
  .object({
    tools_sha256: sha256.nullable().describe('Canonical v1 contract hash of the head (the latest contract).'),
    contract_sha256: sha256.nullable().describe('Contract tier: name, inputSchema, outputSchema, annotations.'),
    prose_sha256: sha256.nullable().describe('Prose tier: name, description, title.'),
    set_sha256: sha256.nullable().describe('Tool definition hash, version 1 set hash of the latest successful answer (the interoperable one).'),
    set_url: url.nullable().describe('Every server that served that set hash, first and last seen.'),
    tools_changed_at: instant.nullable().describe('Instant of the latest change.'),
    first_observed: instant.describe('The first row of this server.'),
    ok_until: instant.nullable().describe('The last ok probe, when the server does not answer now; null while it answers or if it never did (as the health block).'),
    status: z.string().describe('Outcome of the latest row.'),
    error_class: z.string().nullable().describe('Its error class.'),
    changes: z.number().int().nonnegative().describe('Contract changes observed.'),
    retired: z.boolean().describe('Absent from the complete registry roster (retired or deleted upstream).'),
    retired_on: day.nullable().describe('The UTC day the server was first seen retired.'),
    reason: z.string().nullable().describe('Why the server is not probed (retired, opted out), else null.'),
    registry_entry_available: z.boolean().describe('The registry entry could be read; when false, server holds only the name.'),
    registry_entry_schema: z
      .object({
        status: z.enum(REGISTRY_SCHEMA_STATUSES).describe('valid: the entry\'s server object holds to the server.json schema its $schema names; invalid: it breaks it (errors say where); unknown_schema: it names no $schema, the empty string, or a schema the archive does not hold (note says which) — said so, not counted as a failure.'),
        schema: z.string().nullable().describe('$schema as the entry declares it (registry text, cut at 300); null when absent or not a string.'),
        checked_against: z.string().nullable().describe('The official schema checked against, by its $id (with the definition a #/definitions/<name> fragment names); null when unknown.'),
        note: z.string().nullable().describe('Why no schema was checked, when status is unknown_schema.'),
        errors: z
          .array(
            z
              .object({
                keyword: z.string().describe('The JSON Schema keyword that failed (required, enum, format, pattern, not, anyOf, …).'),
                instance_path: z.string().describe('RFC 6901 pointer into server where it failed (registry keys, cut at 300); empty for the server object itself.'),
                schema_path: z.string().describe('Where in the schema (e.g. #/definitions/Repository/required).'),
                message: z.string().describe('The validator\'s message (ajv 8), cut at 300: text, never markup.'),
              })
              .strict(),
          )
          .describe('The failing keywords and paths, in the validator\'s order, at most 20.'),
        errors_total: z.number().int().nonnegative().describe('Every error the validator reported (more than listed when over 20).'),
      })
      .strict()
      .nullable()
      .describe('The registry entry checked against the official server.json schema its $schema names (ajv 8, draft-07, every error, formats checked; the schema files are the official ones, with provenance, in the source repository\'s fixtures/registry/spec/). The entry above is kept verbatim either way. Null when the entry could not be read.'),
    history_url: url.describe('The server\'s page: every contract version and change.'),
    feed_url: url.nullable().describe('RSS of its changes (null before a first contract).'),
    breaking_feed_url: url.nullable().describe('RSS of its breaking changes only: compatibility ERR or security HIGH, and HIGH findings of its answers (the JSON Feed is beside it, breaking.json); null before a first contract.'),
    last_change: z
      .object({
        day: day.describe('UTC day.'),
        observed_at: instant.describe('The first ok probe of the new contract.'),
        before_tools_sha256: sha256.describe('From.'),
        after_tools_sha256: sha256.describe('To.'),
        revert: z.boolean().describe('Back to a contract seen before.'),
        compatibility: z.enum(['ERR', 'WARN', 'INFO']).nullable().describe('Highest compatibility level.'),
        security: z.enum(['HIGH', 'WARN']).nullable().describe('Highest security level.'),
        findings: z.array(FindingRecord).describe('Every finding of that change.'),
        url: url.describe('The change on the server page.'),
      })
      .strict()
      .nullable()
      .describe('The latest change with its findings and their levels; null if none.'),
    body_findings: z.array(FindingRecord).describe('Findings of the latest successful answer itself, not of a change (today: tools-repeated-member-name, a parser differential): they hold while that body is served.'),
    hygiene: z
      .object({
        tools: z.number().int().nonnegative().describe('Tools of the latest successful answer.'),
        strict_input_schema: z.number().int().nonnegative().describe('Of which with a strict input schema (type object, every property typed).'),
        read_only_hint: z.number().int().nonnegative().describe('Declaring readOnlyHint as a boolean.'),
        destructive_hint: z.number().int().nonnegative().describe('Declaring destructiveHint as a boolean.'),
        output_schema: z.number().int().nonnegative().describe('Declaring an outputSchema.'),
        description: z.number().int().nonnegative().describe('With a non-blank description.'),
      })
      .strict()
      .nullable()
      .describe('How well the tools describe themselves (src/lib schemaHygiene); null without a readable answer.'),
  })
  .strict()
  .describe('Contract (the schema-history block, kept under its first name): the v1 hashes and tiers, the interoperable set hash, the latest change with its findings, findings of the served body, schema hygiene, the registry entry against the server.json schema it names, and why a server is not probed.');

export const Identity = z
  .object({
    name: z.string().describe('server.name (registry text).'),
    namespace: z
      .object({
        form: z.enum(['github', 'reverse-dns', 'other']).describe('io.github.<login>/…, a reverse-DNS domain, or neither.'),
        github_login: z.string().nullable().describe('The login of an io.github.<login>/ name.'),
        domain: z.string().nullable().describe('The domain of a reverse-DNS name (com.example.mcp/x → mcp.example.com).'),
        rule: z.string().describe('The registry\'s naming rule for that form, in short (https://modelcontextprotocol.io/registry/authentication): io.github.<login>/ names are published only by a publisher signed in with GitHub (OAuth or Actions OIDC) as that user or organisation; reverse-DNS names (com.example/…, com.example.sub/…) only after proof of control of that domain or a parent of it, by a DNS TXT record or a key served over HTTPS.'),
        verified_by_us: z.literal(false).describe('Always false: we state the registry\'s rule; we verified nothing.'),
      })
      .strict()
      .describe('The namespace form of the name.'),
    repository_url: z.string().nullable().describe('server.repository.url as declared.'),
    repository_key: z.string().nullable().describe('That URL compared as host + path, lowercased, without www., .git or a trailing slash; null when it is not an http(s) URL.'),
    same_repository: z
      .array(z.object({ name: z.string().describe('Registry name.'), status: z.string().describe('Its latest outcome.'), url: url.describe('Its descriptor.') }).strict())
      .describe('Other registry names the archive has seen with the same repository_key (a common form of duplicate listing), at most 50.'),
    same_repository_total: z.number().int().nonnegative().describe('How many there are.'),
  })
  .strict()
  .describe('Identity: the namespace form of the name (the registry\'s rule, not a verification) and other registry names that share this server\'s repository.');

export const Caching = z
  .object({
    methodology: z.literal('v2').describe('Read from the stored raw answers of the latest full methodology v2 run (rows written from 2026-12-02 also record them, as list_cache_scope, list_ttl_ms, …; the block reads the answers, so it is the same for older rows).'),
    cache_scope: z.enum(['public', 'private']).nullable().describe('cacheScope of the tools/list result (its first page), MCP 2026-07-28 Caching: public, the same list for every caller; private, the list may differ per caller, so the archive saw an anonymous caller\'s list and a change may be the caller\'s, not the server\'s. null when absent or invalid.'),
    cache_scope_invalid: z.boolean().describe('cacheScope is present but neither "public" nor "private".'),
    ttl_ms: z.number().nonnegative().nullable().describe('ttlMs of that result: how long, in milliseconds, the server says the list may be reused; null when absent or not a finite number ≥ 0.'),
    ttl_ms_invalid: z.boolean().describe('ttlMs is present but not a finite number ≥ 0.'),
    result_type: z.string().nullable().describe('resultType of that result, when a string (cut at 64 characters).'),
    missing_required: z.array(z.string()).describe('Fields 2026-07-28 requires that the answers lack (absent, or of a wrong type or value): discover.ttlMs, discover.cacheScope (the server/discover result), tools/list.ttlMs, tools/list.cacheScope (any page).'),
    note: z.string().nullable().describe('Why the fields are null, when they are: no full v2 run yet, the latest one got no modern (2026-07-28) answer with a tool list, or its stored answers could not be read back.'),
  })
  .strict()
  .describe('Caching: what the server\'s 2026-07-28 answers say about reusing its tool list (ttlMs, cacheScope; MCP 2026-07-28, Server › Utilities › Caching), read from the stored discover and tools/list answers of the latest full methodology v2 run. Legacy servers do not carry these fields (not applicable).');

/** What the quality block says of itself, in every descriptor. */
export const QUALITY_DISCLAIMER = 'Observed, not audited: derived only from what this archive recorded of the server (each check names its source), by the rules at rules_url. Not a code or security review; it ranks nothing.';

export const Quality = z
  .object({
    rules_url: url.describe('The rules of every check, pass, fail and unknown in words (the methodology\'s quality checks page).'),
    disclaimer: z.string().describe('Observed, not audited; ranks nothing.'),
    summary: z
      .object(Object.fromEntries(QUALITY_STATUSES.map((s) => [s, z.number().int().nonnegative().describe(`Checks whose status is ${s}.`)])) as Record<(typeof QUALITY_STATUSES)[number], z.ZodNumber>)
      .strict()
      .describe('How many checks have each status. No single score is published: weigh the checks as you see fit.'),
    checks: z
      .array(
        z
          .object({
            id: z.enum(QUALITY_RULES.map((r) => r.id) as [string, ...string[]]).describe('The check (its category is the part before the dot; rules at rules_url): ' + QUALITY_RULES.map((r) => r.id).join(', ') + '.'),
            status: z.enum(QUALITY_STATUSES).describe('pass or fail by the rule; unknown when there is no observation to decide on, or the check does not apply (the detail says which).'),
            detail: z.string().nullable().describe('What was found, with the figure it was decided on (e.g. "3 of 5 tools have a description"); may quote server text, which is unvetted. Null for a check over a rolling window (source probes): its detail names the window, so it is in the status file.'),
            source: z.enum(['v1', 'v2', 'probes', 'registry']).nullable().describe('What it was decided on — v2: the server\'s row in the latest full methodology v2 run; v1: its latest successful tools/list answer; probes: its daily probes and contract changes of the last 30 days; registry: its latest registry entry; null: nothing observed. The v2 row\'s run and instant and the v1 answer\'s instant are in the status file (v2_run_id, v2_observed_at, tools_observed_at).'),
          })
          .strict(),
      )
      .describe('The checks, in the order of the rules page.'),
  })
  .strict()
  .describe('Quality: named checks of what the archive observed of this server (protocol era and revision, auth challenge, tool schemas, annotations, descriptions and output schemas, in-channel errors, uptime, contract stability, registry entry), each pass, fail or unknown with what it was decided on. Observed, not audited.');

export const FamilyBlock = z
  .object({
    family_id: z.string().nullable().describe('The contract family the server is in as of its last successful answer (16 hex: the start of its earliest template key, kept across joint changes), or null when it is in none.'),
    size: z.number().int().nonnegative().nullable().describe('Members still in that family at their last successful answer; null without a family.'),
    since: day.nullable().describe('The first day of the server\'s current membership; null without a family.'),
    platform: z.string().nullable().describe('The family\'s platform: its endpoint host with tenant words replaced by {tenant} (endpoint text, unvetted).'),
    memberships: z
      .array(
        z
          .object({
            family_id: z.string().describe('The family.'),
            first_day: day.describe('First day as a member.'),
            last_day: day.describe('Last day as a member (inclusive).'),
            open: z.boolean().describe('Still a member at the server\'s last successful answer.'),
          })
          .strict(),
      )
      .describe('Every stretch of membership, oldest first: a server that leaves a template leaves its family from that day.'),
    families_url: url.describe('Every family, its members and its changes (the families download).'),
  })
  .strict()
  .describe('Contract family: registry names that serve one hosted template (the same tools with each tenant\'s own words replaced, on one platform, on the same days). The per-name figures count each of them; /statistics/ counts each family once beside them. Methodology: "Contract families".');

/** Our blocks, by key under `_meta`, in the order a descriptor carries them. */
export const DESCRIPTOR_BLOCKS = [
  { key: `${META_NAMESPACE}/descriptor`, title: 'Descriptor', schema: DescriptorInfo },
  { key: `${META_NAMESPACE}/health`, title: 'Health', schema: Health },
  { key: `${META_NAMESPACE}/connectability`, title: 'Connectability', schema: Connectability },
  { key: `${META_NAMESPACE}/tools`, title: 'Tools', schema: ToolsBlock },
  { key: `${META_NAMESPACE}/schema-history`, title: 'Contract', schema: Contract },
  { key: `${META_NAMESPACE}/identity`, title: 'Identity', schema: Identity },
  { key: `${META_NAMESPACE}/caching`, title: 'Caching', schema: Caching },
  { key: `${META_NAMESPACE}/quality`, title: 'Quality', schema: Quality },
  { key: `${META_NAMESPACE}/family`, title: 'Contract family', schema: FamilyBlock },
] as const;

/** Our `_meta` blocks; other keys (the registry's own) pass through. */
export const DescriptorMeta = z
  .object(Object.fromEntries(DESCRIPTOR_BLOCKS.map((b) => [b.key, b.schema])) as z.ZodRawShape)
  .passthrough()
  .describe('The registry\'s _meta for this entry (verbatim) and our blocks.');

export const Descriptor = z
  .object({
    server: z.object({ name: z.string() }).passthrough().describe('The registry\'s server.json for this entry, verbatim (registry text, unvetted): validate it against the schema its $schema names.'),
    _meta: DescriptorMeta,
  })
  .passthrough()
  .describe('A per-server descriptor: the registry list item verbatim, plus our blocks under _meta.');

export type DescriptorInfo = z.infer<typeof DescriptorInfo>;
export type Health = z.infer<typeof Health>;
export type Connectability = z.infer<typeof Connectability>;
export type ToolsBlock = z.infer<typeof ToolsBlock>;
export type Contract = z.infer<typeof Contract>;
export type Identity = z.infer<typeof Identity>;
export type Caching = z.infer<typeof Caching>;
export type Quality = z.infer<typeof Quality>;
export type FamilyBlock = z.infer<typeof FamilyBlock>;
export type FindingRecord = z.infer<typeof FindingRecord>;
export type Observed<T> = { value: T | null; source: 'v1' | 'v2' | null; note: string | null };

/** The JSON Schema (draft-07) of a descriptor, published at /api/schema/descriptor.json. */
export function descriptorJsonSchema(id: string): Record<string, unknown> {
  return { $id: id, title: 'mcp-schema per-server descriptor', ...(zodToJsonSchema(Descriptor, { $refStrategy: 'none', target: 'jsonSchema7' }) as Record<string, unknown>) };
}

export interface FieldDoc {
  /** Dotted path inside the block (`latency_ms.median`, `remotes[].headers[].name`). */
  path: string;
  type: string;
  description: string;
}

/** Every field of a block, depth first, from its JSON Schema: what the data page lists. */
export function blockFields(schema: z.ZodTypeAny): FieldDoc[] {
  const out: FieldDoc[] = [];
  const walk = (node: Record<string, unknown>, prefix: string) => {
    const props = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [name, raw] of Object.entries(props)) {
      const p = prefix ? `${prefix}.${name}` : name;
      const { type, inner } = typeOf(raw);
      out.push({ path: p, type, description: String(raw.description ?? inner?.description ?? '') });
      if (inner?.type === 'object') walk(inner, p);
      else if (inner?.type === 'array' && isRecord(inner.items) && inner.items.type === 'object') walk(inner.items, `${p}[]`);
    }
  };
  walk(zodToJsonSchema(schema, { $refStrategy: 'none', target: 'jsonSchema7' }) as Record<string, unknown>, '');
  return out;
}

/** A property's type in words, and the schema to descend into (the non-null branch of a nullable). */
function typeOf(node: Record<string, unknown>): { type: string; inner: Record<string, unknown> | null } {
  const branches = Array.isArray(node.anyOf) ? (node.anyOf as Record<string, unknown>[]) : [node];
  const words: string[] = [];
  let inner: Record<string, unknown> | null = null;
  for (const b of branches) {
    const types = Array.isArray(b.type) ? (b.type as string[]) : b.type === undefined ? ['any'] : [String(b.type)];
    for (const t of types) {
      const word = t === 'array' && isRecord(b.items) && typeof b.items.type === 'string' ? `array of ${b.items.type}` : t;
      if (!words.includes(word)) words.push(word);
    }
    if (types.some((t) => t === 'object' || t === 'array')) inner = b;
  }
  const values = node.enum ?? (node.const !== undefined ? [node.const] : null);
  return { type: `${words.join(' or ')}${Array.isArray(values) ? ` (${values.join(', ')})` : ''}`, inner };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
