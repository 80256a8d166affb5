// qualityChecks: the descriptor's quality block (the descriptor seed's `quality`
// checks), derived only from what the archive observed of one server: its row in the latest full
// methodology v2 run, its latest successful tool list, its probes of the last 30 days, its contract
// changes, and its registry entry against the schema the entry names. Each check is `pass`, `fail` or
// `unknown` (never guessed: no observation, or not applicable, is unknown and says why), with its
// evidence — the series and run it comes from, when, and the figure it was decided on.
//
// These are observations, not an audit, and not a ranking: the archive publishes each server's checks
// in its own descriptor and never lists servers by them (the pre-registered study's rule: no
// per-server "worst offender" lists). No single score: the counts of each status are given, and a
// reader who wants a score can weigh the checks as they see fit.
//
// QUALITY_RULES is the one statement of the rules: the methodology's quality page and the descriptor
// schema render it, qualityChecks applies it.
import type { Era } from './eras.ts';
import { isLegacyRevision, MODERN_PROTOCOL_VERSION } from './eras.ts';
import { toolHygiene } from './schema-hygiene.ts';
import type { Tool } from './tool.ts';
import type { V2Status } from './v2-status.ts';

export const QUALITY_STATUSES = ['pass', 'fail', 'unknown'] as const;
export type QualityStatus = (typeof QUALITY_STATUSES)[number];

/** Probes in the 30-day window needed before uptime is judged. */
export const QUALITY_MIN_PROBES = 7;
/** The share of ok probes uptime passes at. */
export const QUALITY_UPTIME = 0.95;
/** Days of observation (and of the window) for contract stability. */
export const QUALITY_STABILITY_DAYS = 30;

export interface QualityRule {
  id: string;
  category: 'protocol' | 'auth' | 'hygiene' | 'errors' | 'liveness' | 'stability' | 'registry';
  /** What is checked, and on what observation. */
  checks: string;
  pass: string;
  fail: string;
  unknown: string;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

// Stryker disable StringLiteral: the rules' prose is documentation (rendered on /methodology/quality/,
// decides no status); a mutated id or category fails the tests through qualityChecks' lookup and the
// id-prefix test. docs/MUTATION.md lists this exclusion.
export const QUALITY_RULES: readonly QualityRule[] = [
  {
    id: 'protocol.modern',
    category: 'protocol',
    checks: 'The era the latest full methodology v2 probe could talk to the server in.',
    pass: `It answered server/discover: it speaks MCP ${MODERN_PROTOCOL_VERSION}.`,
    fail: 'It answered only the legacy initialize handshake, or only the deprecated HTTP+SSE transport.',
    unknown: 'No full v2 run has probed it, or the probe got no handshake answer (the era could not be told).',
  },
  {
    id: 'protocol.revision_published',
    category: 'protocol',
    checks: 'The protocol revision the handshake of the latest full v2 probe settled on.',
    pass: `A published revision: ${MODERN_PROTOCOL_VERSION}, or a legacy revision (2025-11-25 or earlier).`,
    fail: 'A string that is no MCP revision (a later date that is not 2026-07-28, or not a date).',
    unknown: 'No handshake completed in the latest full v2 run, or none has probed it.',
  },
  {
    id: 'auth.challenge_followable',
    category: 'auth',
    checks: 'Whether a client can follow the auth challenge the latest full v2 probe met (401, or 403 with a challenge).',
    pass: 'A Bearer challenge whose protected-resource metadata (RFC 9728) is valid.',
    fail: 'A challenge that is not Bearer, or whose metadata is missing or invalid.',
    unknown: 'No auth challenge was met (not applicable), or no full v2 run has probed it.',
  },
  {
    id: 'hygiene.strict_input_schemas',
    category: 'hygiene',
    checks: 'The tools of the latest successful tools/list answer: is every input schema strict (an object schema whose every property declares its type)?',
    pass: 'Every tool.',
    fail: 'At least one tool has a schema that is not strict (the detail says how many of how many).',
    unknown: 'No successful answer yet, it could not be read back, or it listed no tool.',
  },
  {
    id: 'hygiene.safety_annotations',
    category: 'hygiene',
    checks: 'The same tools: does every tool say whether it is read-only or destructive (a boolean readOnlyHint or destructiveHint annotation)?',
    pass: 'Every tool.',
    fail: 'At least one tool says neither.',
    unknown: 'No successful answer yet, it could not be read back, or it listed no tool.',
  },
  {
    id: 'hygiene.descriptions',
    category: 'hygiene',
    checks: 'The same tools: does every tool have a description (a string with a non-space character)?',
    pass: 'Every tool.',
    fail: 'At least one tool has none.',
    unknown: 'No successful answer yet, it could not be read back, or it listed no tool.',
  },
  {
    id: 'hygiene.output_schemas',
    category: 'hygiene',
    checks: 'The same tools: does every tool declare an output schema?',
    pass: 'Every tool.',
    fail: 'At least one tool declares none (output schemas are optional in MCP: this says what a caller can check, not that the server is wrong).',
    unknown: 'No successful answer yet, it could not be read back, or it listed no tool.',
  },
  {
    id: 'errors.in_channel',
    category: 'errors',
    checks: 'The latest full v2 probe called a tool that cannot exist, after a complete tools/list: did the error come back in JSON-RPC (an error, or a result with isError), whatever the HTTP status?',
    pass: 'It did.',
    fail: 'It did not (an HTTP error without a JSON-RPC error, or a result that is not an error).',
    unknown: 'The call was not sent (no complete tool list in that probe), or no full v2 run has probed it.',
  },
  {
    id: 'liveness.uptime_30d',
    category: 'liveness',
    checks: "The server's probes of the last 30 days, as its descriptor's health block counts them: the share that got a tool list.",
    pass: `At least ${pct(QUALITY_UPTIME)} of at least ${QUALITY_MIN_PROBES} probes.`,
    fail: `Less than ${pct(QUALITY_UPTIME)} of at least ${QUALITY_MIN_PROBES} probes.`,
    unknown: `Fewer than ${QUALITY_MIN_PROBES} probes in the window.`,
  },
  {
    id: 'stability.no_breaking_change_30d',
    category: 'stability',
    checks: `The contract changes of the last ${QUALITY_STABILITY_DAYS} days: did any change carry a finding that breaks callers (compatibility level ERR on the rules page)?`,
    pass: `None, over at least ${QUALITY_STABILITY_DAYS} days of observation.`,
    fail: 'At least one (the detail names the latest).',
    unknown: `None, but the archive has observed the server for less than ${QUALITY_STABILITY_DAYS} days.`,
  },
  {
    id: 'registry.entry_valid',
    category: 'registry',
    checks: "The server's latest registry entry against the server.json schema its $schema names (the official schema files).",
    pass: 'Valid.',
    fail: 'Invalid (the detail says how many errors; the contract block of the descriptor lists them).',
    unknown: 'It names no schema the archive holds, or no entry could be read back.',
  },
];
// Stryker restore StringLiteral

/** What a check was decided on: the observation (its series, run and time); the figure is in the detail. */
export interface QualityEvidence {
  /** `v2`: the row of the latest full v2 run; `v1`: the latest successful tools/list answer; `probes`: the daily probes and contract changes; `registry`: the registry entry; null: nothing observed. */
  source: 'v1' | 'v2' | 'probes' | 'registry' | null;
  run_id: string | null;
  observed_at: string | null;
}

export interface QualityCheck extends QualityEvidence {
  id: string;
  category: QualityRule['category'];
  status: QualityStatus;
  /** What was found, with the figure it was decided on (e.g. `3 of 5 tools have a description`). */
  detail: string;
}

export interface QualityInput {
  /** The archive's as-of day (YYYY-MM-DD): the end of both 30-day windows. */
  asOfDay: string;
  /** Whether the archive holds a full methodology v2 run at all. */
  v2Run: boolean;
  /** The server's row in the latest full v2 run; null when it is not in it. */
  v2: {
    run_id: string;
    observed_at: string;
    outcome: string;
    status: V2Status | null;
    era: Era;
    protocol_version: string | null;
    canary_sent: boolean;
    canary_in_channel: boolean | null;
  } | null;
  /** The tools of the latest successful answer; a string says why they cannot be read; null before one. */
  tools: { tools: readonly Tool[]; observed_at: string; run_id: string | null; source: 'v1' | 'v2' } | string | null;
  /** Probes in the last 30 days and the ok ones; null for an empty archive. */
  health: { probes: number; ok: number; fromDay: string; toDay: string } | null;
  /** Contract changes (any order): their day, id and whether a finding breaks callers. */
  changes: readonly { day: string; id: string; breaking: boolean }[];
  /** First day the archive observed the server. */
  firstObservedDay: string;
  /** The registry entry against the schema it names; null without an entry read back. */
  registry: { status: 'valid' | 'invalid' | 'unknown_schema'; errorsTotal: number; checkedAgainst: string | null; note: string | null } | null;
}

const none: QualityEvidence = { source: null, run_id: null, observed_at: null };
const DAY_MS = 86_400_000;
const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);

/** The checks of QUALITY_RULES, in that order, for one server. Never throws on any input shape it types. */
export function qualityChecks(input: QualityInput): QualityCheck[] {
  const out: QualityCheck[] = [];
  const add = (id: string, status: QualityStatus, detail: string, evidence: QualityEvidence) => {
    const rule = QUALITY_RULES.find((r) => r.id === id)!;
    out.push({ id, category: rule.category, status, detail, ...evidence });
  };
  const v2 = input.v2;
  const noV2 = !input.v2Run ? 'no full methodology v2 run yet' : 'not in the latest full v2 run';
  const probed = v2 !== null && (v2.outcome === 'ok' || v2.outcome === 'error');
  const v2Evidence: QualityEvidence = v2 ? { source: 'v2', run_id: v2.run_id, observed_at: v2.observed_at } : none;

  // protocol.modern
  if (!probed) add('protocol.modern', 'unknown', v2 === null ? noV2 : 'the latest full v2 run did not probe it', v2Evidence);
  else if (v2.era === 'modern') add('protocol.modern', 'pass', `era modern: answered server/discover`, v2Evidence);
  else if (v2.era === 'legacy') add('protocol.modern', 'fail', `era legacy: initialize only${v2.protocol_version ? ` (${v2.protocol_version})` : ''}`, v2Evidence);
  else if (v2.era === 'legacy_sse') add('protocol.modern', 'fail', 'era legacy_sse: only the deprecated HTTP+SSE transport', v2Evidence);
  else add('protocol.modern', 'unknown', `no handshake answer (status ${v2.status ?? 'none'})`, v2Evidence);

  // protocol.revision_published
  const revision = probed ? v2.protocol_version : null;
  if (!probed || revision === null) add('protocol.revision_published', 'unknown', !probed ? (v2 === null ? noV2 : 'the latest full v2 run did not probe it') : 'no handshake settled on a revision', v2Evidence);
  else if (revision === MODERN_PROTOCOL_VERSION || isLegacyRevision(revision)) add('protocol.revision_published', 'pass', `revision ${revision}`, v2Evidence);
  else add('protocol.revision_published', 'fail', `revision ${JSON.stringify(revision.slice(0, 64))} is no MCP revision`, v2Evidence);

  // auth.challenge_followable
  if (!probed) add('auth.challenge_followable', 'unknown', v2 === null ? noV2 : 'the latest full v2 run did not probe it', v2Evidence);
  else if (v2.status === 'auth_compliant') add('auth.challenge_followable', 'pass', 'status auth_compliant: a Bearer challenge with valid protected-resource metadata', v2Evidence);
  else if (v2.status === 'auth_noncompliant') add('auth.challenge_followable', 'fail', 'status auth_noncompliant: the challenge is not Bearer, or its protected-resource metadata is missing or invalid', v2Evidence);
  else add('auth.challenge_followable', 'unknown', 'not applicable: no auth challenge was met', v2Evidence);

  // hygiene.*: the latest successful tool list.
  const t = input.tools;
  const toolsEvidence: QualityEvidence = typeof t === 'object' && t !== null ? { source: t.source, run_id: t.run_id, observed_at: t.observed_at } : none;
  const hygiene: [string, (h: ReturnType<typeof toolHygiene>) => boolean, string][] = [
    ['hygiene.strict_input_schemas', (h) => h.strictInputSchema, 'a strict input schema'],
    ['hygiene.safety_annotations', (h) => h.readOnlyHint || h.destructiveHint, 'a readOnlyHint or destructiveHint'],
    ['hygiene.descriptions', (h) => h.description, 'a description'],
    ['hygiene.output_schemas', (h) => h.outputSchema, 'an output schema'],
  ];
  const per = typeof t === 'object' && t !== null ? t.tools.map(toolHygiene) : [];
  for (const [id, test, what] of hygiene) {
    if (t === null) add(id, 'unknown', 'no successful tools/list answer yet', none);
    else if (typeof t === 'string') add(id, 'unknown', `the latest answer could not be read: ${t}`, none);
    else if (per.length === 0) add(id, 'unknown', 'the latest answer listed no tool', toolsEvidence);
    else {
      const k = per.filter(test).length;
      add(id, k === per.length ? 'pass' : 'fail', `${k} of ${per.length} tools have ${what}`, toolsEvidence);
    }
  }

  // errors.in_channel
  if (!probed) add('errors.in_channel', 'unknown', v2 === null ? noV2 : 'the latest full v2 run did not probe it', v2Evidence);
  else if (!v2.canary_sent) add('errors.in_channel', 'unknown', 'the unknown-tool call was not sent (no complete tool list in that probe)', v2Evidence);
  else if (v2.canary_in_channel === true) add('errors.in_channel', 'pass', 'the error for an unknown tool came back in JSON-RPC', v2Evidence);
  else add('errors.in_channel', 'fail', 'the error for an unknown tool did not come back in JSON-RPC', v2Evidence);

  // liveness.uptime_30d
  const h = input.health;
  const probes: QualityEvidence = { source: 'probes', run_id: null, observed_at: null };
  if (h === null) add('liveness.uptime_30d', 'unknown', `0 probes in the window, fewer than ${QUALITY_MIN_PROBES}`, none);
  else if (h.probes < QUALITY_MIN_PROBES) add('liveness.uptime_30d', 'unknown', `${h.ok} of ${h.probes} probes ok, ${h.fromDay} to ${h.toDay}: fewer than ${QUALITY_MIN_PROBES} probes`, probes);
  else add('liveness.uptime_30d', h.ok / h.probes >= QUALITY_UPTIME ? 'pass' : 'fail', `${h.ok} of ${h.probes} probes ok (${pct(h.ok / h.probes)}), ${h.fromDay} to ${h.toDay}`, probes);

  // stability.no_breaking_change_30d: the window is the QUALITY_STABILITY_DAYS days ending on asOfDay.
  const start = dayMs(input.asOfDay) - (QUALITY_STABILITY_DAYS - 1) * DAY_MS;
  const breaking = input.changes.filter((c) => c.breaking && dayMs(c.day) >= start && dayMs(c.day) <= dayMs(input.asOfDay)).sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : 0));
  const observedDays = Math.floor((dayMs(input.asOfDay) - dayMs(input.firstObservedDay)) / DAY_MS) + 1;
  const windowText = `${new Date(start).toISOString().slice(0, 10)} to ${input.asOfDay}`;
  if (breaking.length > 0) add('stability.no_breaking_change_30d', 'fail', `${breaking.length} breaking change${breaking.length === 1 ? '' : 's'} ${windowText}, the latest on ${breaking[0]!.day} (${breaking[0]!.id})`, probes);
  else if (observedDays < QUALITY_STABILITY_DAYS) add('stability.no_breaking_change_30d', 'unknown', `no breaking change since ${input.firstObservedDay}, but observed for ${Math.max(0, observedDays)} days, fewer than ${QUALITY_STABILITY_DAYS}`, probes);
  else add('stability.no_breaking_change_30d', 'pass', `no breaking change ${windowText}`, probes);

  // registry.entry_valid
  const r = input.registry;
  const reg: QualityEvidence = { source: 'registry', run_id: null, observed_at: null };
  if (r === null) add('registry.entry_valid', 'unknown', 'no registry entry could be read back', none);
  else if (r.status === 'valid') add('registry.entry_valid', 'pass', `valid against ${r.checkedAgainst ?? 'the schema it names'}`, reg);
  else if (r.status === 'invalid') add('registry.entry_valid', 'fail', `${r.errorsTotal} error${r.errorsTotal === 1 ? '' : 's'} against ${r.checkedAgainst ?? 'the schema it names'}`, reg);
  else add('registry.entry_valid', 'unknown', r.note ?? 'it names no schema the archive holds', reg);
  return out;
}

/** How many checks have each status. */
export function qualitySummary(checks: readonly QualityCheck[]): Record<QualityStatus, number> {
  const out: Record<QualityStatus, number> = { pass: 0, fail: 0, unknown: 0 };
  for (const c of checks) out[c.status]++;
  return out;
}
