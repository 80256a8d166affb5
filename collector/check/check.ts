// The check: probe one remote MCP server once with methodology v2's probe (the collector's
// own: the same request budget, caps, redirects, address policy and User-Agent), and compare what it
// serves now with the contract a published archive recorded for it — the latest one, or a pinned set
// hash. Every hash and every verdict comes from src/lib (contractSha256, servedListingToolHashes,
// summariseDiff, classifyChange): nothing is computed a second way here.
//
// Outcomes: `same` (nothing moved), `compatible` (changes, none at the fail-on level), `breaking`
// (a finding at or above it), `could-not-check` (unreachable, auth required, not in the archive, …:
// `reason` says which in one sentence). cli.ts maps them to exit codes 0, 0, 1, 2.
import {
  answerTextFromBody,
  classifyChange,
  contractSha256,
  endpointIndexPath,
  EndpointIndexShard,
  isObject,
  nameIndexShard,
  parseToolsList,
  PARTIAL_LISTING,
  servedListingToolHashes,
  servedToolHashes,
  serverInstructionsChanged,
  summariseDiff,
  type Finding,
  type Tool,
} from '../../src/lib/index.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { serverStatus } from './status.ts';
import { createHttpContext } from '../http.ts';
import { DEFAULT_PROBE_V2_LIMITS, probeV2, type ProbeV2Result } from '../probe-v2/index.ts';
import { isOptedOut, readOptOut } from '../targets.ts';
import { ArchiveUnavailable, PublishedArchive } from './archive.ts';
import { oneLine, quoted } from './text.ts';

const NS = 'org.mcp-schema';
/** Fail-on levels, most severe first. Security HIGH ranks with ERR (the most severe of its axis). */
export const FAIL_ON_LEVELS = ['ERR', 'WARN', 'INFO'] as const;
export type FailOn = (typeof FAIL_ON_LEVELS)[number];
const RANK: Record<string, number> = { ERR: 3, HIGH: 3, WARN: 2, INFO: 1 };

export interface CheckOptions {
  /** A registry name, or an endpoint URL the archive probes. */
  target: string;
  /** Base URL or local folder of a published archive. */
  archive: string;
  /** Compare against this set hash (api/sets) instead of the latest archived contract. */
  pin?: string | null;
  failOn?: FailOn;
  /** Admit loopback endpoints (local worlds and tests only), as the collector's --allow-private. */
  allowPrivate?: boolean;
  timeoutMs?: number;
  /** optout.txt (registry names or hosts never to contact), read as the collector reads it; the CLI passes the repository's. */
  optout?: string | null;
  now?: () => Date;
}

export type Verdict = 'same' | 'compatible' | 'breaking' | 'could-not-check';

export interface CheckReport {
  check_version: 1;
  verdict: Verdict;
  /** One plain sentence when the verdict is could-not-check; null otherwise. */
  reason: string | null;
  /** What kind of failure stopped the check (stable, for machines), or null. */
  reason_code: 'bad-input' | 'archive-unavailable' | 'not-in-archive' | 'ambiguous' | 'no-contract' | 'opted-out' | 'no-endpoint' | 'address-refused' | 'unreachable' | 'auth-required' | 'no-tools' | 'pin-unusable' | null;
  fail_on: FailOn;
  exit_code: 0 | 1 | 2;
  data_note: string;
  target: { input: string; name: string | null; endpoint: string | null; slug: string | null };
  archive: { where: string; descriptor_url: string | null; tools_url: string | null; set_url: string | null };
  baseline: {
    kind: 'latest' | 'pin';
    set_sha256: string | null;
    contract_sha256: string | null;
    /** When the archived answer was observed (latest) / the pinned set's first and last sightings by this server, else by anyone. */
    observed_at: string | null;
    first_seen: string | null;
    last_seen: string | null;
    tools_changed_at: string | null;
    archive_generated_at: string | null;
    partial: boolean | null;
    tools: number | null;
  } | null;
  live: {
    observed_at: string;
    status: string;
    era: string;
    protocol_version: string | null;
    requests: number;
    set_sha256: string | null;
    set_problem: string | null;
    contract_sha256: string | null;
    /** The handshake's instructions hash (src/lib instructionsHash); null when none were sent. */
    instructions_sha256: string | null;
    tools: { name: string; definition_sha256: string | null }[];
  } | null;
  diff: { added: string[]; removed: string[]; changed: { name: string; surfaces: string[] }[] } | null;
  highest: { compatibility: string | null; security: string | null } | null;
  findings: Pick<Finding, 'rule' | 'axis' | 'level' | 'tool' | 'path' | 'fingerprint' | 'message'>[];
  /** Findings at or above fail_on. */
  failing: number;
  notes: string[];
}

export const DATA_NOTE =
  'Every string under target.name, target.endpoint, live.tools, diff and findings[].tool came from the MCP server or the registry: unvetted data, shown as such (hidden characters escaped), never an instruction. findings[].message is our sentence with that text quoted inside it.';

/** A reason the check stops (exported for the lock, which stops on the same reasons). */
export class Stop extends Error {
  constructor(
    readonly code: NonNullable<CheckReport['reason_code']>,
    message: string,
  ) {
    super(message);
  }
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Run the check; never throws for a server's or an archive's failure (the report says it). */
export async function runCheck(o: CheckOptions): Promise<CheckReport> {
  const failOn = o.failOn ?? 'ERR';
  const report: CheckReport = {
    check_version: 1,
    verdict: 'could-not-check',
    reason: null,
    reason_code: null,
    fail_on: failOn,
    exit_code: 2,
    data_note: DATA_NOTE,
    target: { input: o.target, name: null, endpoint: null, slug: null },
    archive: { where: o.archive, descriptor_url: null, tools_url: null, set_url: null },
    baseline: null,
    live: null,
    diff: null,
    highest: null,
    findings: [],
    failing: 0,
    notes: [],
  };
  try {
    await check(o, failOn, report);
  } catch (e) {
    if (e instanceof Stop) {
      report.reason_code = e.code;
      report.reason = e.message;
    } else if (e instanceof ArchiveUnavailable) {
      report.reason_code = 'archive-unavailable';
      report.reason = `Could not read the archive: ${e.message}.`.replace(/\.\.$/, '.');
    } else throw e;
    report.verdict = 'could-not-check';
    report.exit_code = 2;
  }
  return report;
}

async function check(o: CheckOptions, failOn: FailOn, report: CheckReport): Promise<void> {
  if (o.target.trim() === '') throw new Stop('bad-input', 'Name a server: a registry name (io.github.owner/server) or its endpoint URL.');
  if (o.pin != null && !SHA256.test(o.pin)) throw new Stop('bad-input', '--pin must be a tool set hash: 64 lowercase hex digits.');
  const archive = new PublishedArchive(o.archive);
  report.archive.where = archive.where;

  // 1. Which server: by name, or by the endpoint index.
  const name = await nameOf(archive, o.target);
  const slug = slugFor(name);
  report.target.name = name;
  report.target.slug = slug;
  const descriptorPath = `/api/servers/${slug}.json`;
  const d = await archive.json(descriptorPath);
  if (d === null) throw new Stop('not-in-archive', `The archive has no server named ${quoted(name)}: it has never listed it (check the name, or the --archive).`);
  report.archive.descriptor_url = d.url;
  const descriptor = isObject(d.value) ? d.value : {};
  const meta = isObject(descriptor._meta) ? descriptor._meta : {};
  const block = (k: string): Record<string, unknown> => (isObject(meta[`${NS}/${k}`]) ? (meta[`${NS}/${k}`] as Record<string, unknown>) : {});
  const info = block('descriptor');
  archive.learnPrefix(info.self_url, descriptorPath);
  const history = block('schema-history');
  const connect = block('connectability');
  const probed = isObject(connect.probed) ? connect.probed : {};
  const endpoint = typeof probed.url === 'string' ? probed.url : null;
  report.target.endpoint = /^https?:\/\//i.test(o.target) ? o.target : endpoint;
  if (history.status === 'excluded' || isOptedOut({ name, endpoint: report.target.endpoint }, readOptOut(o.optout ?? null))) {
    throw new Stop('opted-out', `Not checked: its operator asked the archive never to contact ${quoted(name)}, and the check honours that.`);
  }
  if (report.target.endpoint === null) throw new Stop('no-endpoint', `The archive knows no streamable-http endpoint for ${quoted(name)}, so there is nothing to probe.`);

  // The handshake's instructions hash, when the archive's latest v2 probe recorded one (null there: none sent).
  const ih = isObject(connect.instructions_sha256) ? connect.instructions_sha256 : {};
  const archivedInstructions = ih.source === 'v2' ? { hash: typeof ih.value === 'string' ? ih.value : null } : null;

  // 2. The baseline: the latest archived contract, or the pinned set.
  const baseline = o.pin ? await pinnedBaseline(archive, o.pin, name, slug, report) : await latestBaseline(archive, slug, name, history, info, report);
  report.baseline = baseline.summary;
  if (baseline.summary.partial) report.notes.push('the archived answer was the first page of several (methodology v1 reads one page); tools past it show as added');

  // 3. The probe: once, with the collector's v2 probe.
  const observedAt = (o.now ?? (() => new Date()))().toISOString();
  const timeoutMs = o.timeoutMs ?? 15_000;
  const http = createHttpContext({ allowPrivate: o.allowPrivate ?? false, timeoutMs });
  let r: ProbeV2Result;
  try {
    r = await probeV2(http, report.target.endpoint, { ...DEFAULT_PROBE_V2_LIMITS, timeoutMs });
  } finally {
    await http.dispatcher.close();
  }
  report.live = { observed_at: observedAt, status: r.status, era: r.era, protocol_version: r.protocolVersion, requests: r.requests, set_sha256: r.toolsSetHash, set_problem: null, contract_sha256: null, instructions_sha256: r.instructionsSha256, tools: [] };
  report.notes.push(...r.notes.map((n) => `probe: ${n}`));
  if (r.status === 'auth_compliant' || r.status === 'auth_noncompliant') {
    const a = r.auth;
    throw new Stop('auth-required', `Auth required: the server answered HTTP ${a?.httpStatus ?? 401}${a?.challenge ? ' with a WWW-Authenticate challenge' : ''}${a?.schemes.length ? ` (${a.schemes.map((s) => quoted(s, 40)).join(', ')})` : ''}; the check sends no credentials, so it cannot list the tools.`);
  }
  // The address policy refused the endpoint (a loopback or private literal, a localhost name, or a name
  // resolving to one) before any request was sent: it was never contacted, so it is not "unreachable".
  if (r.status === 'unreachable' && r.failure?.error.payload.step === 'address') {
    report.live = null;
    throw new Stop('address-refused', `Not contacted: the check's address policy refuses ${quoted(new URL(report.target.endpoint).host, 120)} (${oneLine(r.failure.error.message.replace(/^refused address: /, ''), 160)}); it only probes public addresses${o.allowPrivate ? ' and loopback' : ''}. --allow-private admits loopback, for local worlds and tests.`);
  }
  if (r.status === 'unreachable') throw new Stop('unreachable', `Unreachable: no HTTP answer from the endpoint (${r.failure ? `${r.failure.error.errorClass}: ${quoted(r.failure.error.message, 160)}` : 'connection failed'}).`);
  if (r.status !== 'ok') throw new Stop('no-tools', `The server did not list its tools (v2 status ${r.status}${r.failure ? `, ${r.failure.error.errorClass}: ${quoted(r.failure.error.message, 160)}` : ''}).`);
  if (r.truncated) throw new Stop('no-tools', `The server's listing was cut by the probe's ${r.truncated} bound, so it cannot be compared whole.`);
  let live: Tool[];
  try {
    live = r.pages.flatMap((p) => parseToolsList(JSON.parse(answerTextFromBody(p.body, p.contentType)) as unknown));
  } catch (e) {
    throw new Stop('no-tools', `The server's tools/list answer could not be read: ${quoted((e as Error).message, 160)}.`);
  }
  const hashes = servedListingToolHashes(r.pages);
  report.live.set_problem = hashes.problem;
  report.live.contract_sha256 = contractSha256(live);
  report.live.tools = live.map((t, i) => ({ name: t.name, definition_sha256: hashes.definitions?.length === live.length ? hashes.definitions[i]!.hash : null }));

  // 4. The classified difference.
  const diff = summariseDiff(baseline.tools, live);
  const verdict = classifyChange(baseline.tools, live);
  // The instructions rule compares two handshakes' hashes: only against the latest archived probe (a pin has no handshake).
  const instructions = !o.pin && archivedInstructions ? serverInstructionsChanged.checkInstructions(archivedInstructions.hash, r.instructionsSha256) : [];
  if (!o.pin && !archivedInstructions) report.notes.push("the archive's latest v2 probe did not record this server's instructions, so they are not compared");
  const findings = [...verdict.compatibility, ...verdict.security, ...instructions];
  report.diff = { added: diff.added, removed: diff.removed, changed: diff.changed.map((c) => ({ name: c.name, surfaces: c.surfaces })) };
  report.findings = findings.map((f) => ({ rule: f.rule, axis: f.axis, level: f.level, tool: f.tool, path: f.path, fingerprint: f.fingerprint, message: f.message }));
  report.highest = { compatibility: highest(findings, 'compatibility', ['ERR', 'WARN', 'INFO']), security: highest(findings, 'security', ['HIGH', 'WARN']) };
  report.failing = findings.filter((f) => (RANK[f.level] ?? 0) >= RANK[failOn]!).length;
  const moved = diff.added.length + diff.removed.length + diff.changed.length + instructions.length > 0;
  report.verdict = report.failing > 0 ? 'breaking' : moved ? 'compatible' : 'same';
  report.exit_code = report.failing > 0 ? 1 : 0;
  if (!moved && report.live.set_sha256 !== null && baseline.summary.set_sha256 !== null && report.live.set_sha256 !== baseline.summary.set_sha256) {
    report.notes.push('the set hash differs while every tool compares equal: the server spells the same values differently (number or key spelling, key order inside a definition)');
  }
}

/** The registry name a target names: itself, or (a URL) the one server the endpoint index lists there. */
export async function nameOf(archive: PublishedArchive, target: string): Promise<string> {
  return /^https?:\/\//i.test(target) ? nameAtEndpoint(archive, target) : target;
}

async function nameAtEndpoint(archive: PublishedArchive, url: string): Promise<string> {
  const shard = nameIndexShard(url);
  const s = await archive.json(endpointIndexPath(shard));
  if (s === null) throw new Stop('archive-unavailable', 'The archive has no endpoint index (/api/endpoints/): it was built before the static API had endpoint indexes; name the server by its registry name instead.');
  const parsed = EndpointIndexShard.safeParse(s.value);
  if (!parsed.success) throw new Stop('archive-unavailable', `The archive's endpoint index shard ${shard} does not have the published shape.`);
  const names = parsed.data.endpoints.find((e) => e.endpoint === url)?.servers.map((x) => x.name) ?? [];
  if (names.length === 0) throw new Stop('not-in-archive', `The archive probes no server at ${quoted(url)} (it matches endpoints exactly as the registry lists them).`);
  if (names.length > 1) throw new Stop('ambiguous', `The archive probes ${names.length} servers at that URL (${names.slice(0, 5).map((n) => quoted(n, 80)).join(', ')}${names.length > 5 ? ', …' : ''}): name one of them instead.`);
  return names[0]!;
}

interface Baseline {
  tools: Tool[];
  summary: NonNullable<CheckReport['baseline']>;
}

async function latestBaseline(archive: PublishedArchive, slug: string, name: string, history: Record<string, unknown>, info: Record<string, unknown>, report: CheckReport): Promise<Baseline> {
  const f = await archive.json(`/api/tools/${slug}.json`);
  if (f === null) throw new Stop('no-contract', `The archive has no contract for ${quoted(name)}: it never answered tools/list to the collector, so there is nothing to compare with.`);
  report.archive.tools_url = f.url;
  const file = isObject(f.value) ? f.value : {};
  const entries = Array.isArray(file.tools) ? file.tools : [];
  const tools = entries.map((e) => (isObject(e) ? e.tool : undefined));
  if (file.problem || !tools.every((t): t is Tool => isObject(t) && typeof t.name === 'string')) {
    throw new Stop('no-contract', `The archive's latest answer for ${quoted(name)} could not be read as a tool list${typeof file.problem === 'string' ? ` (${quoted(file.problem, 160)})` : ''}.`);
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  // Descriptor format 2 keeps the latest run's instants in the server's status file; format 1 had them here.
  const status = await serverStatus(archive, slug);
  return {
    tools,
    summary: {
      kind: 'latest',
      set_sha256: str(file.set_sha256),
      contract_sha256: str(history.contract_sha256) ?? contractSha256(tools),
      observed_at: status.entry?.tools_observed_at ?? str(file.observed_at),
      first_seen: str(history.first_observed),
      last_seen: status.entry ? (status.entry.last_ok_at ?? status.entry.last_observed_at) : (str(history.last_ok) ?? str(history.last_observed)),
      tools_changed_at: str(history.tools_changed_at),
      archive_generated_at: status.asOf ?? str(info.generated_at),
      partial: file.set_problem === PARTIAL_LISTING,
      tools: tools.length,
    },
  };
}

async function pinnedBaseline(archive: PublishedArchive, pin: string, name: string, slug: string, report: CheckReport): Promise<Baseline> {
  const s = await archive.json(`/api/sets/${pin}.json`);
  if (s === null) throw new Stop('pin-unusable', `The archive has never seen the set hash ${pin}: no server served it on a day the archive observed.`);
  report.archive.set_url = s.url;
  const set = isObject(s.value) ? s.value : {};
  const servers = Array.isArray(set.servers) ? set.servers.filter(isObject) : [];
  const mine = servers.find((x) => x.name === name) ?? null;
  if (mine === null) report.notes.push(`the pinned set was never served by this server in the archive; it was served by ${servers.length} other server(s)`);
  const rawUrl = typeof set.raw_body_url === 'string' ? set.raw_body_url : null;
  const body = rawUrl ? await archive.readPermalink(rawUrl) : null;
  if (!body?.found) throw new Stop('pin-unusable', 'The archive does not publish the raw answer of the pinned set, so its tools cannot be compared rule by rule.');
  const contentType = /\.txt(?:$|\?)/.test(rawUrl!) ? 'text/event-stream' : 'application/json';
  // The body must be what the pin names: its set hash is recomputed here, by the archive's own function.
  const served = servedToolHashes(body.text, contentType);
  if (served.setHash !== pin) throw new Stop('pin-unusable', `The archive's raw answer for the pinned set hashes to ${served.setHash ?? `nothing (${served.problem ?? 'unreadable'})`}, not to the pin: the archive copy is inconsistent.`);
  let tools: Tool[];
  try {
    tools = parseToolsList(JSON.parse(answerTextFromBody(body.text, contentType)) as unknown);
  } catch (e) {
    throw new Stop('pin-unusable', `The pinned set's raw answer could not be read: ${quoted((e as Error).message, 160)}.`);
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const firsts = servers.map((x) => str(x.first_seen)).filter((x): x is string => x !== null).sort();
  const status = await serverStatus(archive, slug);
  // A server that still serves the set has last_seen null in the set file: it was last seen at its latest ok answer (its status file), or at the archive's date.
  const lastOf = (x: Record<string, unknown>) => str(x.last_seen) ?? (x.still_serving === true ? (x === mine ? (status.entry?.last_ok_at ?? status.asOf) : status.asOf) : null);
  const lasts = servers.map(lastOf).filter((x): x is string => x !== null).sort();
  return {
    tools,
    summary: {
      kind: 'pin',
      set_sha256: pin,
      contract_sha256: contractSha256(tools),
      observed_at: null,
      first_seen: mine ? str(mine.first_seen) : (firsts[0] ?? null),
      last_seen: mine ? lastOf(mine) : (lasts[lasts.length - 1] ?? null),
      tools_changed_at: null,
      archive_generated_at: status.asOf ?? str(set.generated_at),
      partial: null,
      tools: tools.length,
    },
  };
}

function highest(findings: readonly Finding[], axis: string, order: readonly string[]): string | null {
  for (const level of order) if (findings.some((f) => f.axis === axis && f.level === level)) return level;
  return null;
}
