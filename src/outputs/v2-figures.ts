// The figures of /statistics/: the pre-registered study's questions for the
// latest full methodology v2 run, as rows — one per share — that the page's tables and its CSV both
// print, so the two cannot disagree. Every number is a src/lib result carried by the loader
// (src/loader/v2-summary.ts); this module only lays them out. Cells go through csvLine, the site's one
// CSV rule; a simulated build gets a first `simulated` column, as every CSV of the site does.
import type { FrameExclusion, HygieneShare, StudyFrame, StudyShare } from '../lib/index.ts';
import { FRAME_EXCLUSIONS, PROBED_STATUSES } from '../lib/index.ts';
import type { V2StatisticsView } from '../loader/v2-summary.ts';
import { csvLine } from './members.ts';
import { SIMULATED_MARK } from './publication.ts';

export type Question = 'RQ1' | 'RQ2' | 'RQ3' | 'RQ4' | 'RQ5' | 'RQ6';

export interface FigureRow {
  question: Question;
  /** Machine name of the measure (CSV), e.g. `status_ok`, `era_modern`. */
  measure: string;
  /** The measure in words (the page). */
  label: string;
  /** What the denominator counts, in words. */
  of: string;
  count: number | null;
  n: number | null;
  /** The share (or, for Cohen's κ, the coefficient); NaN when there is no denominator. */
  value: number;
  lower: number | null;
  upper: number | null;
  /** Mean of within-host shares; null where the study defines none (RQ4 is pooled over tools, RQ6 over pairs). */
  hostWeighted: number | null;
  hosts: number | null;
  largestHostCount: number | null;
}

export const STATUS_WORDS: Record<(typeof PROBED_STATUSES)[number], string> = {
  unreachable: 'unreachable (no answer at all)',
  auth_compliant: 'auth required, challenge followable',
  auth_noncompliant: 'auth required, challenge not followable',
  ok: 'answered with its tool list',
  handshake_only: 'handshake, then no tool list',
  modern_rejected: 'modern, rejected the revisions we speak',
  legacy_sse: 'deprecated HTTP+SSE transport only',
  jsonrpc_error: 'JSON-RPC error',
  payment_required: 'payment required (402)',
  server_error: 'server error (5xx or 429)',
  not_mcp: 'answered, but not MCP',
};

export const QUESTIONS: Record<Question, string> = {
  RQ1: 'Reachable and answering',
  RQ2: 'Protocol era and revision',
  RQ3: 'Auth-gated endpoints',
  RQ4: 'Schemas, annotations and descriptions',
  RQ5: 'Errors for an unknown tool',
  RQ6: 'Day-over-day stability',
};

function study(question: Question, measure: string, label: string, of: string, s: StudyShare): FigureRow {
  return { question, measure, label, of, count: s.count, n: s.n, value: s.p, lower: s.lower, upper: s.upper, hostWeighted: s.hostWeighted, hosts: s.hosts, largestHostCount: s.largestHostCount };
}

function pooled(question: Question, measure: string, label: string, of: string, s: HygieneShare): FigureRow {
  return { question, measure, label, of, count: s.count, n: s.n, value: s.p, lower: s.lower, upper: s.upper, hostWeighted: null, hosts: null, largestHostCount: null };
}

/** Every figure of the page, in page order. */
export function v2FigureRows(v: V2StatisticsView): FigureRow[] {
  const s = v.statistics;
  const probed = 'probed endpoints';
  const hand = 'endpoints that completed a handshake';
  const gated = 'auth-gated endpoints';
  const tools = 'tools listed by endpoints that answered';
  const rows: FigureRow[] = [
    study('RQ1', 'reachable', 'reachable (any answer)', probed, s.reachable),
    study('RQ1', 'handshake', 'completed a handshake', probed, s.handshake),
    ...PROBED_STATUSES.map((st) => study('RQ1', `status_${st}`, STATUS_WORDS[st], probed, s.statuses[st])),
    study('RQ2', 'era_modern', 'modern (2026-07-28, server/discover)', hand, s.era.modern),
    study('RQ2', 'era_legacy', 'legacy (initialize)', hand, s.era.legacy),
    study('RQ2', 'era_dual_advertised', 'dual-era (advertised; a lower bound)', hand, s.era.dualEraAdvertised),
    study('RQ3', 'auth_followable', 'challenge followable (Bearer and valid metadata)', gated, s.auth.followable),
    study('RQ3', 'auth_bearer', 'Bearer challenge', gated, s.auth.bearer),
    study('RQ3', 'auth_metadata_valid', 'valid protected-resource metadata (RFC 9728)', gated, s.auth.metadataValid),
    pooled('RQ4', 'strict_input_schema', 'strict input schema', tools, v.hygiene.strictInputSchema),
    pooled('RQ4', 'read_only_hint', 'readOnlyHint annotation', tools, v.hygiene.readOnlyHint),
    pooled('RQ4', 'destructive_hint', 'destructiveHint annotation', tools, v.hygiene.destructiveHint),
    pooled('RQ4', 'description', 'a description', tools, v.hygiene.description),
    pooled('RQ4', 'output_schema', 'an output schema', tools, v.hygiene.outputSchema),
    study('RQ5', 'canary_in_channel', 'error came back in JSON-RPC', 'endpoints sent the unknown-tool call', s.canaryInChannel),
  ];
  if (v.stability) {
    const g = v.stability.agreement;
    const pairs = 'endpoints probed in both runs';
    rows.push({ question: 'RQ6', measure: 'status_agreement', label: 'same status in both runs', of: pairs, count: g.agreement.count, n: g.n, value: g.agreement.p, lower: g.agreement.lower, upper: g.agreement.upper, hostWeighted: null, hosts: null, largestHostCount: null });
    rows.push({ question: 'RQ6', measure: 'cohens_kappa', label: "Cohen's κ", of: pairs, count: null, n: g.n, value: g.kappa, lower: null, upper: null, hostWeighted: null, hosts: null, largestHostCount: null });
  }
  return rows;
}

export const EXCLUSION_WORDS: Record<FrameExclusion, string> = {
  retired: 'retired (gone from the registry since the last complete listing)',
  not_active: 'registry status not active',
  no_streamable_http: 'no streamable-http remote',
  templated_url: 'URL with template variables ({…})',
  invalid_url: 'invalid or non-HTTP URL',
  no_latest_entry: 'no latest entry visible',
  opted_out: 'opted out (optout.txt)',
  private_address: 'private, loopback or reserved address (refused)',
  duplicate_url: 'duplicate URL (merged)',
};

/**
 * The study's population as rows of counts (question `FRAME`, measure machine names): every registry
 * name the run listed, each row by registry status, each exclusion, the frame, and its http:// part.
 * Counts of a census, not estimates: the share is of the names listed, with no interval.
 */
export function frameRows(f: StudyFrame): { measure: string; label: string; of: string; count: number; n: number }[] {
  const listed = 'registry names the run listed';
  return [
    { measure: 'listed', label: 'registry names listed', count: f.listed, n: f.listed },
    ...f.registryStatus.map((s) => ({ measure: `registry_status_${s.status ?? 'none'}`, label: `registry status ${s.status ?? '(none recorded)'}`, count: s.count, n: f.listed })),
    ...FRAME_EXCLUSIONS.map((k) => ({ measure: `excluded_${k}`, label: EXCLUSION_WORDS[k], count: f.excluded[k], n: f.listed })),
    { measure: 'frame_endpoints', label: 'endpoints in the frame', count: f.endpoints, n: f.listed },
    { measure: 'frame_probed', label: 'frame endpoints probed', count: f.probed, n: f.listed },
    { measure: 'frame_not_attempted', label: 'frame endpoints the run did not attempt', count: f.notAttempted, n: f.listed },
    { measure: 'frame_non_https', label: 'frame endpoints at an http:// URL (kept: a deviation from the study)', count: f.nonHttps, n: f.listed },
  ].map((r) => ({ ...r, of: listed }));
}

/** The list-caching counts (MCP 2026-07-28 Caching) as the page's table and the CSV print them, in that order. */
export function cachingRows(v: V2StatisticsView): { measure: string; label: string; of: string; count: number; n: number; value: number; lower: number; upper: number }[] {
  const c = v.caching;
  const of = 'modern endpoints that answered with their tool list (stored answers read back)';
  return ([
    ['list_scope_public', 'is public-scope (the same for every caller)', c.public],
    ['list_scope_private', 'is private-scope (may differ per caller)', c.private],
    ['list_scope_absent', 'has no cacheScope', c.absent],
    ['list_scope_invalid', 'has a cacheScope that is neither public nor private', c.invalid],
    ['missing_required', 'lacks a required field (ttlMs or cacheScope, on discover or any page)', c.missingRequired],
  ] as const).map(([measure, label, x]) => ({ measure, label, of, count: x.count, n: x.n, value: x.share.p, lower: x.share.lower, upper: x.share.upper }));
}

/** Registry hygiene (every listed server's latest entry against the schema it names: a census of the roster, no probe, no gate). */
export interface RegistryHygieneCounts {
  /** The archive's as-of day: the roster it counts. */
  day: string;
  entries: number;
  valid: number;
  invalid: number;
  unknownSchema: number;
}

/**
 * The page's figures as CSV (the population, one row per figure, plus the negotiated revisions), with
 * the run they come from and whether a passed validation gate covers them (`validated`: the gate's
 * verdict for the classifier that made the run; the population's counts need no gate and say so by
 * an empty cell).
 */
export function v2FiguresCsv(v: V2StatisticsView | null, simulated = false, validated = false, registry: RegistryHygieneCounts | null = null): string {
  const head = ['run_id', 'day', 'question', 'measure', 'denominator', 'count', 'n', 'value', 'lower_95', 'upper_95', 'host_weighted', 'hosts', 'largest_host_count', 'validated'];
  const lines: unknown[][] = [];
  if (v) {
    for (const r of frameRows(v.frame)) lines.push([v.run.run_id, v.run.day, 'FRAME', r.measure, r.of, r.count, r.n, r.n === 0 ? NaN : r.count / r.n, null, null, null, null, null, null]);
    for (const r of v2FigureRows(v)) lines.push([v.run.run_id, v.run.day, r.question, r.measure, r.of, r.count, r.n, r.value, r.lower, r.upper, r.hostWeighted, r.hosts, r.largestHostCount, validated]);
    const hand = v.statistics.handshake.count;
    for (const p of v.statistics.protocolVersions) lines.push([v.run.run_id, v.run.day, 'RQ2', `protocol_version_${p.version}`, 'endpoints that completed a handshake', p.count, hand, hand === 0 ? NaN : p.count / hand, null, null, null, null, null, validated]);
    for (const r of cachingRows(v)) lines.push([v.run.run_id, v.run.day, 'CACHING', r.measure, r.of, r.count, r.n, r.value, r.lower, r.upper, null, null, null, validated]);
  }
  if (registry && registry.entries + registry.unknownSchema > 0) {
    const of = "listed servers' latest registry entries (read back)";
    const n = registry.entries;
    for (const [measure, k] of [['entries_valid', registry.valid], ['entries_invalid', registry.invalid], ['entries_unknown_schema', registry.unknownSchema]] as const) lines.push([null, registry.day, 'REGISTRY', measure, of, k, n, n === 0 ? NaN : k / n, null, null, null, null, null, null]);
  }
  const cells = (r: unknown[]) => r.map((c) => (typeof c === 'number' && Number.isNaN(c) ? null : c));
  if (simulated) return csvLine(['simulated', ...head]) + lines.map((r) => csvLine([SIMULATED_MARK, ...cells(r)])).join('');
  return csvLine(head) + lines.map((r) => csvLine(cells(r))).join('');
}

/** The era-adoption chart's data: one row per full v2 run. */
export function eraAdoptionCsv(points: readonly import('../lib/index.ts').EraAdoptionPoint[], simulated = false): string {
  const head = ['day', 'run_id', 'endpoints_era_known', 'modern', 'legacy', 'legacy_sse', 'dual_era_advertised', 'modern_share', 'modern_lower_95', 'modern_upper_95'];
  const lines = points.map((p) => [p.day, p.run_id, p.n, p.counts.modern, p.counts.legacy, p.counts.legacy_sse, p.counts.dualEraAdvertised, Number.isNaN(p.modern.p) ? null : p.modern.p, Number.isNaN(p.modern.lower) ? null : p.modern.lower, Number.isNaN(p.modern.upper) ? null : p.modern.upper]);
  if (simulated) return csvLine(['simulated', ...head]) + lines.map((r) => csvLine([SIMULATED_MARK, ...r])).join('');
  return csvLine(head) + lines.map(csvLine).join('');
}
