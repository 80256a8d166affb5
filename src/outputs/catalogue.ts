// What /data/ offers and how each field reads: one catalogue used by the page, the bundle writer and
// datapackage.json (Frictionless Data Package v1), so the three never disagree. The field lists of
// the recorded formats come from their zod contracts (src/lib/contract/): a field added to a contract
// is a compile error here until it is described, and the order is the contract's.
import { NOT_ATTEMPTED_REASONS, Observation, OUTCOMES, Roster, RosterPage, RosterTarget, Run, type Interval, type NotAttemptedReason } from '../lib/index.ts';
import type { Archive, ChangeView } from '../loader/views.ts';
import { DESCRIPTOR_BLOCKS } from './descriptor-schema.ts';
import { SITE_NAME, type Publication } from './publication.ts';

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

export type ResourceName = 'observations' | 'runs' | 'changes' | 'contract-intervals' | 'survival' | 'rosters' | 'servers';

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
  type: 'string' | 'integer' | 'number' | 'boolean' | 'datetime' | 'date' | 'object' | 'array' | 'any';
  description: string;
}

const REASON_DOCS: Record<NotAttemptedReason, string> = {
  host_unresponsive: 'its host stopped answering earlier in the run',
  run_deadline: "the run's deadline came before its turn",
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

export const RUN_FIELDS: Field[] = [{ name: 'run', type: 'object', description: `One collector run per line, verbatim: ${Object.keys(Run.shape).join(', ')}.` }];

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
];

export const CHANGE_FIELDS: Field[] = CHANGE_COLUMNS.map(({ name, type, description }) => ({ name, type, description }));

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

/** Roster fields as the contract lists them, with the fields of its pages and targets. */
const ROSTER_KEYS = Object.keys(Roster.shape).map((k) => (k === 'pages' ? `pages (${Object.keys(RosterPage.shape).join(', ')})` : k === 'targets' ? `targets (${Object.keys(RosterTarget.shape).join(', ')})` : k));

const ROSTER_FIELDS: Field[] = [{ name: 'roster', type: 'object', description: `One validated roster per line: ${ROSTER_KEYS.join(', ')}.` }];

/** A descriptor's top-level fields: the registry's server.json, and each of our _meta blocks (descriptor-schema.ts says what each holds). */
const SERVER_FIELDS: Field[] = [
  { name: 'server', type: 'object', description: "The registry's server.json for the server, verbatim (registry text, unvetted)." },
  { name: '_meta', type: 'object', description: `The registry's own _meta for the entry, verbatim, and our blocks (${DESCRIPTOR_BLOCKS.map((b) => `${b.key}: ${b.title.toLowerCase()}`).join('; ')}), each documented field by field on the data page (/data/#descriptors) and in /api/schema/descriptor.json.` },
];

export const RESOURCES: Record<ResourceName, { title: string; description: string; fields: Field[] }> = {
  observations: { title: 'Observations', description: 'One row per target per run, failures included.', fields: OBSERVATION_FIELDS },
  runs: { title: 'Runs', description: 'One row per collector run: counts, coverage, degraded and partial flags.', fields: RUN_FIELDS },
  changes: { title: 'Drift events', description: 'Every contract change with its summarised diff and classification findings.', fields: CHANGE_FIELDS },
  'contract-intervals': { title: 'Contract intervals', description: 'Contract lifetimes (event or censored): the input of the survival estimate.', fields: INTERVAL_FIELDS },
  survival: { title: 'Survival curve', description: 'The Kaplan–Meier table, one row per distinct time.', fields: SURVIVAL_FIELDS },
  rosters: { title: 'Roster snapshots', description: 'The registry roster fetched by each run.', fields: ROSTER_FIELDS },
  servers: { title: 'Per-server descriptors', description: "Every server the archive has seen, retired and opted-out ones included: the registry entry verbatim plus our health, connectability, tools, contract and identity blocks (the files under /api/servers/).", fields: SERVER_FIELDS },
};

/** The files the writer produces, for the page (which renders before the files exist). */
export interface PlannedBundle {
  name: string;
  resource: ResourceName | null;
  note: string;
  where: 'site' | 'release';
}

export function plannedBundles(a: Archive, pub: Publication): PlannedBundle[] {
  const rel = pub.releaseDir !== null;
  const recent = new Set(a.months.slice(-SITE_MONTHS));
  const big = rel ? ('release' as const) : ('site' as const);
  const list: Omit<PlannedBundle, 'where'>[] = [];
  const at = new Map<string, PlannedBundle['where']>();
  const add = (b: Omit<PlannedBundle, 'where'>, where: PlannedBundle['where'] = 'site') => {
    list.push(b);
    at.set(b.name, where);
  };
  add({ name: 'observations.jsonl.gz', resource: 'observations', note: 'whole archive, JSON Lines, gzip' }, big);
  add({ name: 'observations.csv.gz', resource: 'observations', note: 'whole archive, CSV, gzip' }, big);
  for (const m of a.months) {
    const where = rel && !recent.has(m) ? 'release' : 'site';
    add({ name: `observations-${m}.jsonl.gz`, resource: 'observations', note: `${m}, JSON Lines, gzip` }, where);
    add({ name: `observations-${m}.csv.gz`, resource: 'observations', note: `${m}, CSV, gzip` }, where);
  }
  add({ name: 'rosters.jsonl.gz', resource: 'rosters', note: 'JSON Lines, gzip' }, big);
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

export function datapackage(a: Archive, files: readonly BundleFile[], pub: Publication): unknown {
  return {
    profile: 'data-package',
    name: 'mcp-schema',
    title: 'mcp-schema: observations of remote MCP servers\' tool contracts',
    description: 'Daily tools/list observations of every remote MCP server in the official registry, contract changes, contract lifetimes and their Kaplan–Meier survival estimate. Methodology v1.',
    homepage: pub.permalink('/data/'),
    version: a.asOfDay ?? 'empty',
    created: a.asOf ?? undefined,
    licenses: [{ name: 'CC-BY-4.0', path: 'https://creativecommons.org/licenses/by/4.0/', title: 'Creative Commons Attribution 4.0' }],
    resources: files
      .filter((f) => f.resource !== null)
      .map((f) => {
        const r = RESOURCES[f.resource!];
        const csv = f.name.includes('.csv');
        const json = /\.json$/.test(f.name);
        return {
          name: f.name.replace(/[^a-z0-9._-]/g, '-').replace(/\.(jsonl|csv)(\.gz)?$/, '').replace(/\.json$/, '-json').toLowerCase(),
          title: r.title,
          description: r.description,
          path: f.url ?? f.name,
          format: csv ? 'csv' : json ? 'json' : 'jsonl',
          mediatype: csv ? 'text/csv' : json ? 'application/json' : 'application/x-ndjson',
          ...(f.name.endsWith('.gz') ? { compression: 'gz' } : {}),
          encoding: 'utf-8',
          bytes: f.bytes,
          hash: `sha256:${f.sha256}`,
          rows: f.rows,
          schema: { fields: r.fields },
          ...(csv && f.resource === 'observations' ? { dialect: { delimiter: ',', lineTerminator: '\r\n', header: true } } : {}),
        };
      }),
    notes: CSV_NOTE,
  };
}

export function citationCff(a: Archive, pub: Publication): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    'cff-version: 1.2.0',
    'message: "If you use this dataset, please cite it as below, with the data-as-of date."',
    'type: dataset',
    `title: ${q(`${SITE_NAME}: observations of remote MCP servers' tool contracts`)}`,
    'authors:',
    `  - name: ${q(`${SITE_NAME} contributors`)}`,
    `version: ${q(a.asOfDay ?? 'empty')}`,
    ...(a.asOfDay ? [`date-released: ${q(a.asOfDay)}`] : []),
    `url: ${q(pub.permalink('/data/'))}`,
    'license: CC-BY-4.0',
    'keywords: ["Model Context Protocol", "MCP", "API drift", "survival analysis"]',
    '',
  ].join('\n');
}

export function licenceData(pub: Publication): string {
  return `The mcp-schema dataset (observations, runs, drift events, contract intervals, survival curve and
roster snapshots) is licensed under the Creative Commons Attribution 4.0 International licence (CC BY 4.0):
https://creativecommons.org/licenses/by/4.0/legalcode

Attribution: "mcp-schema, data as of <date>, ${pub.permalink('/data/')}".
Tool names, descriptions and schemas inside the raw answers were written by each server's publisher.
`;
}

export const LICENCE_CODE = `MIT License

Copyright (c) mcp-schema contributors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE
USE OR OTHER DEALINGS IN THE SOFTWARE.
`;
