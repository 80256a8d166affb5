// The validation gate (the study's §5; docs/VALIDATION.md), the operator's side:
//   draw  — from the latest full v2 run's study frame (src/lib studyFrame: the population the figures
//           count), a stratified sample of probed endpoints (src/lib drawStratified)
//           and a worksheet per endpoint: what the archive recorded (status, era, the stored raw answers)
//           and the curl commands that repeat the probe by hand, with the probe's own bytes
//           (collector/probe-v2/requests.ts), every word shell-quoted (registry URLs are hostile);
//   score — the reviewer's statuses against the statuses the archive's rows hold (read again from the
//           archive, never taken from the worksheet), agreement and Cohen's κ, kept as a record in the
//           archive (src/archive/validations.ts), written once.
// The CLI is validation-cli.ts.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { listDays } from '../../src/archive/day-files.ts';
import { objectKey, objectPath, pageKey, pagePath, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { observationV2Lines } from '../../src/archive/observations.ts';
import { readRuns, runsOf } from '../../src/archive/runs.ts';
import { writeValidationRecord } from '../../src/archive/validations.ts';
import {
  DRAW_RULE,
  drawStratified,
  studyFrame,
  LEGACY_OFFERS,
  parseWwwAuthenticate,
  protectedResourceMetadataUrls,
  resourceMetadataHint,
  REVIEW_STATUSES,
  scoreWorksheet,
  shellQuote,
  VALIDATION_RECORD_FORMAT,
  VALIDATION_THRESHOLD,
  Worksheet,
  WORKSHEET_FORMAT,
  WorksheetError,
  type ObservationV2,
  type RunV2,
  type V2Status,
  type ValidationRecord,
  type WorksheetEntry,
} from '../../src/lib/index.ts';
import { CANARY_TOOL_NAME } from '../probe-v2/canary.ts';
import { discoverBody, initializeBody, initializedBody, legacyCanaryBody, legacyToolsListBody, modernCanaryBody, modernHeaders, modernToolsListBody } from '../probe-v2/requests.ts';
import { DEFAULT_PROBE_V2_LIMITS, Wire } from '../probe-v2/wire.ts';
import { DEFAULTS } from '../run.ts';
import { USER_AGENT } from '../version.ts';

/** A problem the operator can fix (no full v2 run, a day file not in the folder, a bad worksheet). */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
}

const full = (r: RunV2) => r.status === 'finished' && !r.partial;

/** The latest full v2 run (finished, not limited), by start time; null when there is none. */
export function latestFullV2Run(dir: string): RunV2 | null {
  const runs = runsOf(readRuns(dir).runs, 'v2').filter(full);
  return runs.sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at)).at(-1) ?? null;
}

/** The run's probed rows (outcome ok or error), read from its day's files in the folder. */
export async function probedRows(dir: string, run: RunV2): Promise<ObservationV2[]> {
  const day = listDays(dir, SERIES_FOLDER.v2).find((d) => d.day === run.day);
  if (!day) throw new ValidationError(`the v2 rows of ${run.day} (run ${run.run_id}) are not in ${dir}: bring them back with npm run store -- pull --data ${dir} --from ${run.day} --to ${run.day}`);
  const rows: ObservationV2[] = [];
  for await (const { row, file, n } of observationV2Lines(dir, day)) {
    if (row === null) continue;
    if (!row.ok) throw new ValidationError(`${file}:${n}: ${row.message} (run npm run verify)`);
    if (row.value.run_id === run.run_id) rows.push(row.value);
  }
  // The draw is from the population the figures count (src/lib studyFrame: active entries, one row per
  // URL, exclusions apart), probed.
  return studyFrame(rows).rows.filter((r) => (r.outcome === 'ok' || r.outcome === 'error') && r.status !== null);
}

/** Where a stored object is in the archive folder: objects/…, or a packed page's manifest under pages/…; objects/… when neither is here (the bucket has it). */
function storedPath(dir: string, sha256: string): string {
  if (existsSync(objectPath(dir, sha256))) return objectKey(sha256);
  if (existsSync(pagePath(dir, sha256))) return pageKey(sha256);
  return objectKey(sha256);
}

function objectsOf(dir: string, r: ObservationV2): WorksheetEntry['objects'] {
  const out: WorksheetEntry['objects'] = [];
  if (r.handshake_sha256) out.push({ role: r.era === 'modern' ? 'handshake (server/discover answer)' : 'handshake (initialize answer)', sha256: r.handshake_sha256, path: storedPath(dir, r.handshake_sha256), content_type: r.handshake_content_type });
  const pages = r.tools_pages_sha256 ?? (r.body_sha256 ? [r.body_sha256] : []);
  pages.forEach((sha, i) => out.push({ role: `tools/list page ${i + 1}`, sha256: sha, path: storedPath(dir, sha), content_type: r.tools_pages_content_types?.[i] ?? (i === 0 ? r.body_content_type : null) }));
  return out;
}

const CURL_BASE = ['curl', '--silent', '--show-error', '--include', '--globoff', '--max-time', String(Math.round(DEFAULTS.timeoutMs / 1000))];

function words(parts: readonly string[]): string {
  return parts.join(' ');
}

function post(url: string, headers: Record<string, string>, body: string, extra: string[] = []): string {
  return words([...CURL_BASE, '--request', 'POST', ...Object.entries(headers).flatMap(([k, v]) => ['--header', shellQuote(`${k}: ${v}`)]), ...extra, '--data-raw', shellQuote(body), '--url', shellQuote(url)]);
}

function get(url: string, accept: string, seconds: number, extra: string[] = []): string {
  return words(['curl', '--silent', '--show-error', '--include', '--globoff', '--max-time', String(seconds), '--location', '--max-redirs', String(DEFAULT_PROBE_V2_LIMITS.maxRedirects), '--header', shellQuote(`accept: ${accept}`), '--header', shellQuote(`user-agent: ${USER_AGENT}`), ...extra, '--url', shellQuote(url)]);
}

/** The legacy session headers, from shell variables the reviewer sets after initialize (empty: not sent). */
const SESSION_WORDS = ['${MCP_SESSION:+--header "mcp-session-id: $MCP_SESSION"}', '${MCP_PV:+--header "mcp-protocol-version: $MCP_PV"}'];

/**
 * The requests the v2 probe sends to `endpoint`, as curl commands, in the probe's order, each with when
 * the probe sends it. Every URL, header and body is one single-quoted shell word; --globoff keeps curl
 * from reading [ ] { } in a URL as a pattern. `challenge`: the recorded WWW-Authenticate (its
 * resource_metadata URL is the first RFC 9728 lookup). An endpoint that is not a URL gets none.
 */
export function curlCommands(endpoint: string, challenge: string | null): WorksheetEntry['curl'] {
  let url: string;
  try {
    url = new URL(endpoint).href;
  } catch {
    return [];
  }
  const redirects = `The probe follows 307 and 308 redirects only (at most ${DEFAULT_PROBE_V2_LIMITS.maxRedirects}), keeping the method and body; on one, repeat the command at its Location.`;
  const out: WorksheetEntry['curl'] = [
    { step: '1. server/discover (2026-07-28)', when: `Always. A result carrying supportedVersions, or a modern error (-32020, -32021, -32022 naming no legacy revision), is a modern server: go on with 2. Any other answer (a -32601 "method not found" included) is a legacy server: go on with 4. No HTTP answer at all is unreachable; a 429 or 503 ends the probe. ${redirects}`, command: post(url, modernHeaders('server/discover'), discoverBody()) },
    { step: '2. tools/list (2026-07-28)', when: 'After a discover result. While a page has nextCursor (an empty string included, on 2026-07-28), send it again with "cursor" in params, beside _meta.', command: post(url, modernHeaders('tools/list'), modernToolsListBody()) },
    { step: '3. the canary: tools/call of a tool that cannot exist (2026-07-28)', when: 'After every tools/list page was read. Note whether the error comes back in JSON-RPC (an error, or a result with isError: true), whatever the HTTP status.', command: post(url, modernHeaders('tools/call', CANARY_TOOL_NAME), modernCanaryBody()) },
    { step: `4. initialize, offering ${LEGACY_OFFERS[0]} (the legacy fallback)`, when: 'When discover did not identify a modern server. Note the Mcp-Session-Id header of the answer, if any, and the protocolVersion of the result: set MCP_SESSION and MCP_PV below from them.', command: post(url, Wire.base(), initializeBody(LEGACY_OFFERS[0])) },
    { step: `5. initialize, offering ${LEGACY_OFFERS[1]}`, when: `Once, when 4 was refused with a JSON-RPC error (not after a 401/403, a 429 or a 503).`, command: post(url, Wire.base(), initializeBody(LEGACY_OFFERS[1])) },
    { step: '6. notifications/initialized', when: 'After an initialize result. First, in the same shell: MCP_SESSION=<the Mcp-Session-Id answered, or leave unset>; MCP_PV=<the negotiated revision when it is 2025-06-18 or later, else leave unset>.', command: words([post(url, Wire.base(), initializedBody(), SESSION_WORDS)]) },
    { step: '7. tools/list (legacy)', when: 'After notifications/initialized (unless it met an auth challenge). While a page has a non-empty nextCursor, send it again with params {"cursor": …}.', command: post(url, Wire.base(), legacyToolsListBody(), SESSION_WORDS) },
    { step: '8. the canary (legacy)', when: 'After every tools/list page was read, as 3.', command: post(url, Wire.base(), legacyCanaryBody(), SESSION_WORDS) },
    { step: '9. DELETE the session', when: 'When initialize issued an Mcp-Session-Id (politeness; its answer is not used).', command: words(['curl', '--silent', '--show-error', '--include', '--globoff', '--max-time', '5', '--request', 'DELETE', '--header', shellQuote(`user-agent: ${USER_AGENT}`), ...SESSION_WORDS, '--url', shellQuote(url)]) },
    { step: '10. HTTP+SSE detect (the deprecated 2024-11-05 transport)', when: 'When initialize got an HTTP answer without JSON-RPC in it (an HTML 404, an empty 405), and no auth challenge or modern error was seen. An `event: endpoint` first means legacy_sse.', command: get(url, 'text/event-stream', Math.round(DEFAULT_PROBE_V2_LIMITS.sseDetectMs / 1000), ['--no-buffer']) },
  ];
  const auth = 'When the step that ended the probe was answered 401, or 403 with WWW-Authenticate: RFC 9728 protected-resource metadata, stopping at the first valid document (a JSON object with a resource string and a non-empty authorization_servers array of strings). The probe takes the resource from the URL that answered with the challenge (after redirects).';
  let n = 11;
  // The same URL twice (a hint naming the well-known URL itself) is fetched once, as the probe does.
  const seen = new Set<string>();
  const lookup = (step: string, at: string) => {
    if (seen.has(at)) return;
    seen.add(at);
    out.push({ step: `${n++}. RFC 9728: ${step}`, when: auth, command: get(at, 'application/json', Math.round(DEFAULTS.timeoutMs / 1000)) });
  };
  const hint = challenge === null ? null : resourceMetadataHint(parseWwwAuthenticate(challenge.slice(0, 8192)).challenges);
  if (hint !== null) {
    let at: string | null = null;
    try {
      at = new URL(hint, url).href;
    } catch {
      /* not a URL: no command */
    }
    if (at !== null) lookup("the challenge's resource_metadata URL", at);
  }
  const wk = protectedResourceMetadataUrls(url);
  if (wk.path) lookup("the well-known URL built from the endpoint's path", wk.path.url);
  lookup('the well-known URL at the root', wk.root.url);
  return out;
}

export interface DrawOptions {
  seed: number;
  n: number;
}

/** The worksheet for the latest full v2 run of `dir` (draw). */
export async function drawWorksheet(dir: string, opts: DrawOptions): Promise<Worksheet> {
  const run = latestFullV2Run(dir);
  if (!run) throw new ValidationError(`no full v2 run in ${dir} (finished, not limited by --limit): nothing to validate yet`);
  const rows = await probedRows(dir, run);
  if (rows.length === 0) throw new ValidationError(`run ${run.run_id} probed no endpoint: nothing to draw`);
  const d = drawStratified(rows.map((r) => ({ ...r, status: r.status as V2Status })), opts.n, opts.seed);
  const prober = [...new Set(rows.map((r) => r.prober_version))];
  const endpoints: WorksheetEntry[] = d.drawn
    .map((r) => ({
      target: r.target,
      endpoint: r.endpoint ?? '',
      recorded: {
        status: r.status,
        era: r.era,
        protocol_version: r.protocol_version,
        step: r.step,
        http_status: r.http_status,
        jsonrpc_code: r.jsonrpc_code,
        detail: r.detail,
        www_authenticate: r.www_authenticate,
        auth_metadata_url: r.auth_metadata_url,
        tool_count: r.tool_count,
        canary_in_channel: r.canary_in_channel,
      },
      objects: objectsOf(dir, r),
      curl: curlCommands(r.endpoint ?? '', r.www_authenticate),
      reviewer_status: null,
      reviewer_note: null,
    }))
    // Listed by target, not by status: the order gives the reviewer no hint.
    .sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  return {
    format: WORKSHEET_FORMAT,
    run_id: run.run_id,
    run_day: run.day,
    prober_version: prober.length === 1 ? prober[0]! : run.prober_version,
    seed: opts.seed,
    n: opts.n,
    rule: DRAW_RULE,
    vocabulary: [...REVIEW_STATUSES],
    population: Object.fromEntries(d.population),
    allocation: Object.fromEntries(d.allocation),
    endpoints,
  };
}

/** The worksheet's bytes (what the reviewer edits and score reads). */
export function worksheetJson(ws: Worksheet): string {
  return `${JSON.stringify(ws, null, 2)}\n`;
}

/** A Markdown inline code span that holds any text (a run of backticks longer than any inside it). */
function code(s: string): string {
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const ticks = '`'.repeat(Math.max(0, ...[...clean.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  return `${ticks} ${clean} ${ticks}`;
}

/** A fenced block that no line of `s` can close. */
function fenced(s: string, lang = 'sh'): string {
  const fence = '`'.repeat(Math.max(3, ...[...s.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}${lang}\n${s}\n${fence}`;
}

/**
 * The worksheet for reading: per endpoint the stored raw answers and the commands, blind (the recorded
 * statuses are in a table at the end, to read after the review). Registry text (targets, URLs, details)
 * is shown as code, control characters escaped.
 */
export function worksheetMarkdown(ws: Worksheet, jsonName: string): string {
  const lines: string[] = [];
  lines.push(`# Validation worksheet: run ${ws.run_id} (${ws.run_day})`, '');
  lines.push(`Seed ${ws.seed}, n ${ws.n}: ${ws.endpoints.length} endpoints drawn from the probed endpoints of the latest full methodology v2 run (prober ${code(ws.prober_version)}).`, '');
  lines.push(`**The draw.** ${ws.rule}`, '');
  lines.push('| status | probed | drawn |', '|---|---:|---:|');
  for (const [s, k] of Object.entries(ws.population)) lines.push(`| ${s} | ${k} | ${ws.allocation[s] ?? 0} |`);
  lines.push('');
  lines.push(`**The review.** For each endpoint, repeat the probe by hand with the commands below (they send what the probe sends, per MCP 2026-07-28 with its legacy fallback), read the stored raw answers, and decide its status by methodology v2's table (content/statuses-v2.md). Write it in ${code(jsonName)}, field ${code('reviewer_status')}, one of: ${ws.vocabulary.map(code).join(', ')}; a note in ${code('reviewer_note')} if you like. Decide before you read the last section. Then: ${code(`npm run validation -- score ${jsonName}`)}.`, '');
  ws.endpoints.forEach((e, i) => {
    lines.push(`## ${i + 1}. ${code(e.target)}`, '');
    lines.push(`Endpoint: ${code(e.endpoint)}`, '');
    if (e.objects.length > 0) {
      lines.push('Stored raw answers:', '');
      for (const o of e.objects) lines.push(`- ${o.role}: ${code(o.path)}${o.content_type ? ` (${code(o.content_type)})` : ''}`);
      lines.push('');
    } else lines.push('No raw answer stored (the probe got no handshake or tools/list answer to keep).', '');
    if (e.curl.length === 0) lines.push('The recorded endpoint is not a URL: there is nothing to send.', '');
    for (const c of e.curl) lines.push(`**${c.step}.** ${c.when}`, '', fenced(c.command), '');
    lines.push('Reviewer status: ____________', '');
  });
  lines.push('## What the archive recorded (read after your review)', '');
  lines.push('| # | target | status | era | step | HTTP | JSON-RPC | detail |', '|---:|---|---|---|---|---:|---:|---|');
  ws.endpoints.forEach((e, i) => {
    const r = e.recorded;
    const cell = (s: string | null) => (s === null ? '—' : code(s.slice(0, 160)).replace(/\|/g, '\\|'));
    lines.push(`| ${i + 1} | ${cell(e.target)} | ${r.status} | ${r.era} | ${r.step ?? '—'} | ${r.http_status ?? '—'} | ${r.jsonrpc_code ?? '—'} | ${cell(r.detail)} |`);
  });
  return `${lines.join('\n')}\n`;
}

/** Parse a worksheet's text: JSON, the worksheet contract. */
export function parseWorksheet(text: string): Worksheet {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ValidationError(`the worksheet is not JSON: ${(e as Error).message}`);
  }
  const p = Worksheet.safeParse(value);
  if (!p.success) {
    const issue = p.error.issues[0]!;
    throw new ValidationError(`the worksheet is not a validation worksheet (${WORKSHEET_FORMAT}): ${issue.path.join('.')}: ${issue.message}`);
  }
  return p.data;
}

export interface ScoreResult {
  record: ValidationRecord;
  file: string;
  sha256: string;
  written: boolean;
}

/**
 * Score a filled-in worksheet against the archive and keep the record (validations/<day>-<sha256>.json).
 * The recorded statuses, the classifier's version and the draw itself come from the run's rows in
 * `dir`, never from the worksheet (only its reviewer columns, seed and n are read). Throws a WorksheetError (the reviewer's
 * column) or a ValidationError (the run is not in this archive).
 */
export async function scoreAndRecord(dir: string, text: string, now: Date): Promise<ScoreResult> {
  const ws = parseWorksheet(text);
  const run = runsOf(readRuns(dir).runs, 'v2').find((r) => r.run_id === ws.run_id && r.day === ws.run_day);
  if (!run) throw new ValidationError(`run ${ws.run_id} of ${ws.run_day} is not a v2 run of ${dir}: score a worksheet against the archive it was drawn from`);
  const rows = await probedRows(dir, run);
  const scored = scoreWorksheet(ws, new Map(rows.map((r) => [r.target, r.status as V2Status])));
  // The endpoints must be the draw itself (the same run, seed and n give the same rows): a worksheet
  // cannot be scored on endpoints picked by hand.
  const drawn = drawStratified(rows.map((r) => ({ target: r.target, status: r.status as V2Status })), ws.n, ws.seed).drawn.map((r) => r.target).sort();
  const listed = ws.endpoints.map((e) => e.target).sort();
  if (drawn.length !== listed.length || drawn.some((t, i) => t !== listed[i])) throw new ValidationError(`the worksheet's endpoints are not the draw of seed ${ws.seed}, n ${ws.n} from run ${ws.run_id}: score the worksheet draw wrote, as it wrote it (reviewer columns aside)`);
  const prober = [...new Set(rows.map((r) => r.prober_version))];
  const record: ValidationRecord = {
    format: VALIDATION_RECORD_FORMAT,
    scored_at: now.toISOString(),
    day: now.toISOString().slice(0, 10),
    run_id: ws.run_id,
    run_day: ws.run_day,
    // From the archive, not the worksheet: the classifier this gate validates.
    prober_version: prober.length === 1 ? prober[0]! : run.prober_version,
    seed: ws.seed,
    n: ws.n,
    rule: DRAW_RULE,
    worksheet_sha256: createHash('sha256').update(text).digest('hex'),
    threshold: VALIDATION_THRESHOLD,
    agreement: { count: scored.agreement.count, n: scored.agreement.n, share: scored.agreement.p, lower: scored.agreement.lower, upper: scored.agreement.upper },
    kappa: Number.isNaN(scored.kappa.kappa) ? null : scored.kappa.kappa,
    expected: scored.kappa.expected,
    passed: scored.passed,
    endpoints: scored.endpoints,
    disagreements: scored.disagreements,
  };
  return { record, ...writeValidationRecord(dir, record) };
}

export { WorksheetError };
export const worksheetPaths = (out: string): { json: string; md: string } => {
  const base = out.replace(/\.(json|md)$/, '');
  return { json: `${base}.json`, md: `${base}.md` };
};
