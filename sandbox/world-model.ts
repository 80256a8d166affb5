// The world's vocabulary: its options, the World it returns, what a target is made of, what a probe
// should see, and the rates every draw uses (sandbox/README.md gives the reasons for the rates).
// Types and constants only; the steps that draw a world are in the other sandbox/world-*.ts modules.
import type { Behaviour, Era, RepeatedMember, ToolDef } from './mcp-host.ts';
import type { RegistryEntry } from './registry-server.ts';

export const SANDBOX_META = 'io.mcp-schema.sandbox/simulated';
export const DEFAULT_START_DATE = '2025-12-15';
export const GITHUB_NAME = 'io.github.github/github-mcp-server';
/** github-mcp-server's real release dates are replayed this many times faster. */
export const GITHUB_COMPRESSION = 4;
/** Drift and registry events are generated up to this day; later days repeat the last state. */
export const HORIZON_DAYS = 730;

export type Profile =
  | 'no_endpoint'
  | 'ok'
  | 'auth'
  | 'flapping'
  | 'dies'
  | 'redirect'
  | 'http_404'
  | 'http_405'
  | 'http_5xx'
  | 'html_200'
  | 'broken_json'
  | 'broken_tools'
  | 'tls'
  | 'hang'
  | 'sse_stall'
  | 'rate_limited'
  | 'modern_only'
  | 'session_lost'
  /** Carved out of auth walls (PAYMENT_REQUIRED_RATE): 402 on every request. */
  | 'payment_required'
  /** Carved out of `ok` endpoints (SSE_LEGACY_RATE): the deprecated HTTP+SSE transport only. */
  | 'sse_legacy';

/** Shares among endpoint targets that are not auth-walled (weights, normalised). */
export const PROFILE_WEIGHTS: ReadonlyArray<readonly [Profile, number]> = [
  ['ok', 67],
  ['flapping', 6],
  ['dies', 2],
  ['redirect', 2],
  ['http_404', 3],
  ['http_405', 2],
  ['http_5xx', 4],
  ['html_200', 2],
  ['broken_json', 2],
  ['broken_tools', 1],
  ['tls', 3],
  ['hang', 2],
  ['sse_stall', 1],
  ['rate_limited', 1.5],
  ['modern_only', 2],
  ['session_lost', 1.5],
];

/** Auth walls by header declaration of the first streamable-http remote (tuned to ~13% of all targets). */
export const AUTH_RATE = { required: 0.85, optional: 0.15, none: 0.05 } as const;

export type DriftClass = 'stable' | 'occasional' | 'volatile' | 'github';
export const DRIFT_RATE = { volatile: 0.08, occasional: 0.15 } as const;

/** Share of auth walls (profile `auth`) that answer 402 Payment Required instead (own draw: `paywall`). */
export const PAYMENT_REQUIRED_RATE = 0.08;
/** Share of `ok` endpoints that speak only the deprecated HTTP+SSE transport (own draw: `sse-legacy`). */
export const SSE_LEGACY_RATE = 0.04;

/**
 * Eras among endpoints that serve tools over streamable HTTP (ok, flapping, dies, redirect; never
 * github-mcp-server): the era on day 0, then migrations (own draw: `era`). `legacy` of legacy
 * endpoints migrate on a day in 1..window, to dual-era (or straight to modern-only: `direct`); `dual` of
 * dual-era endpoints (from day 0, or 7..60 days after migrating) drop the legacy leg; `withTools` of
 * migrations regenerate the tool list the same day (SDK v2 re-serialises zod schemas). The migration
 * rates are high on purpose: a 60-day demo of 400 targets must show every kind of migration.
 */
export const ERA_RATE = { modern: 0.03, dual: 0.1 } as const;
export const MIGRATION_RATE = { legacy: 0.1, direct: 0.2, dual: 0.4, withTools: 0.5, window: 90 } as const;
/** Share of serving endpoints with `instructions`, and of those that change them once (day 1..90). */
export const INSTRUCTIONS_RATE = { has: 0.25, change: 0.2 } as const;
/** Share of serving endpoints with 3+ tools that page tools/list (the v1 probe reads page 1 only). */
export const PAGINATION_RATE = 0.06;
/**
 * Security drift (own draws: `security`, applied with `mutate-extra`): `piggyback` of the ordinary
 * changes of a drifting target (describe, add_tool, remove_tool, add_required, narrow_enum,
 * destructive) carry one security change too, the same day; `standalone` of serving targets get one on
 * a day in 1..window. Kinds by SECURITY_WEIGHTS.
 */
export const SECURITY_RATE = { piggyback: 0.5, standalone: 0.06, window: 120 } as const;

/** A serving endpoint's era from `day` on; `tools`: the tool list is regenerated that day too. */
export interface EraStep {
  day: number;
  era: Era;
  tools: boolean;
}

export type ChangeKind =
  | 'describe'
  | 'add_tool'
  | 'remove_tool'
  | 'add_required'
  | 'narrow_enum'
  | 'destructive'
  | 'hide'
  | 'unhide'
  | 'revert'
  | 'reorder'
  | 'release'
  // Security drift (WorldTarget.extraChanges): one per rule of src/lib/rules/content.ts, tool.ts and
  // repeated-member-name.ts, and the tool list an SDK v2 migration regenerates.
  | 'rename'
  | 'hidden_chars'
  | 'prose_link'
  | 'secret_mention'
  | 'repeat_member'
  | 'regenerate';

/** The security-drift kinds, by weight. */
export const SECURITY_WEIGHTS: ReadonlyArray<readonly [ChangeKind, number]> = [
  ['rename', 20],
  ['prose_link', 20],
  ['secret_mention', 20],
  ['hidden_chars', 20],
  ['repeat_member', 20],
];

export interface ChangeEvent {
  day: number;
  kind: ChangeKind;
  /** For `hide`: the day the tool returns. For `release`: the manifest file. */
  until?: number;
  file?: string;
}

export interface VersionEvent {
  day: number;
  version: string;
  at: string;
}

export interface WorldTarget {
  index: number;
  name: string;
  /** The real registry name this target is built from (itself unless synthetic). */
  realName: string;
  synthetic: boolean;
  profile: Profile;
  drift: DriftClass;
  /** Day the target first appears in the listing (0 for most). */
  joinDay: number;
  /** Day its entries become `deleted` (null: never within the horizon). */
  leaveDay: number | null;
  deprecateDay: number | null;
  /** For `dies`: first failing day. */
  dieDay: number | null;
  /** Listener (loopback host) serving its remotes. */
  listener: number;
  tls: boolean;
  stateful: boolean;
  json: boolean;
  /** Where its tool list comes from. */
  toolSource: string | null;
  changes: ChangeEvent[];
  /** Changes drawn apart from `changes` (own keys, own RNG): security drift and migrations' regenerated lists. */
  extraChanges: ChangeEvent[];
  /** Era plan of an endpoint serving tools over streamable HTTP (first step day 0); [] otherwise. */
  eras: EraStep[];
  /** `instructions` from `day` on (first step day 0); [] = never any. */
  instructions: Array<{ day: number; text: string }>;
  /** tools/list page size (null: one page). */
  pageSize: number | null;
  /** For auth walls: what the challenge and the protected-resource metadata look like. */
  auth: AuthPlan | null;
  versions: VersionEvent[];
  /** Rows of the base listing (renamed for synthetic targets), remote URLs as `{path}` templates. */
  baseRows: RegistryEntry[];
}

export interface WorldOptions {
  seed: string | number;
  size: number;
  /** ISO date of day 0 (default 2025-12-15, the first day after the newest real listing). */
  startDate?: string;
  /** Upper bound on loopback listeners (default 250). */
  maxListeners?: number;
}

export interface Expected {
  listed: boolean;
  /** What an anonymous probe of the latest entry should see, in v1 outcome terms. */
  outcome: 'ok' | 'error' | 'no_endpoint' | 'absent';
  errorClass: string | null;
  /** Tools on the first page (the v1 probe reads page 1 only). */
  toolsCount: number | null;
}

/** An auth wall (profile `auth`): the challenge and where valid metadata is, if anywhere. */
export interface AuthPlan {
  status: 401 | 403;
  /** `hint`: Bearer with resource_metadata; `plain`: bare `Bearer`; `scope`: 403 Bearer error="insufficient_scope". */
  challenge: 'hint' | 'plain' | 'scope';
  /**
   * Where the protected-resource metadata is: `hint` (valid at the resource_metadata URL, which is the
   * path-form well-known URL), `well-known` (valid at the path-form well-known URL only; a hint, if any,
   * points to a 404), `mismatch` (at the hint: shaped valid, but `resource` names another URL: valid as
   * methodology v2 counts validity, RFC 9728 §3.3 says do not use), `malformed` (at the hint or the well-known URL:
   * `malformedAs`), `none` (404 everywhere).
   */
  metadata: 'hint' | 'well-known' | 'mismatch' | 'malformed' | 'none';
  malformedAs: 'no-resource' | 'empty-authorization-servers' | 'not-json' | null;
}

/** Statuses of methodology v2, in precedence order. */
export type V2Status =
  | 'excluded'
  | 'unreachable'
  | 'auth_compliant'
  | 'auth_noncompliant'
  | 'ok'
  | 'handshake_only'
  | 'modern_rejected'
  | 'legacy_sse'
  | 'jsonrpc_error'
  | 'payment_required'
  | 'server_error'
  | 'not_mcp';

/**
 * What a methodology-v2 probe (server/discover first, then initialize; all pages; canary; metadata)
 * should record for a target on a day: the world's intent, for tests that compare v2 rows with what the
 * world serves. Written from methodology v2's procedure and the captured answers of
 * the real SDKs; where a decision leaves room, the comment says which reading this takes.
 */
export interface ExpectedV2 {
  listed: boolean;
  /** null when not probed (not listed, no endpoint). */
  status: V2Status | null;
  /** As the probe can tell: `modern` (discover result or a modern error), `legacy` (initialize result), `legacy_sse`, `none`. */
  era: 'modern' | 'legacy' | 'legacy_sse' | 'none';
  /** What really serves it: a dual-era SDK v2 server advertises only 2026-07-28, so the probe sees `modern`. */
  serverEra: Era | null;
  /** The negotiated or only revision: 2026-07-28 (modern), 2025-11-25 (SDK v1 to the probe's 2025-11-25), … */
  protocolVersion: string | null;
  /** DiscoverResult.supportedVersions, or the -32022 `supported` list. */
  supportedVersions: readonly string[] | null;
  instructions: string | null;
  /** Every page concatenated, as the probe's era is served (modern leg: `execution` stripped by SDK v2). */
  tools: ToolDef[] | null;
  toolsCount: number | null;
  pages: number | null;
  /** A tools/list page repeats a member name in one tool object (tools-repeated-member-name). */
  repeatedMember: boolean;
  auth: AuthPlan | null;
  /** Where the first valid metadata document is (candidates: hint, path-form well-known, root); null: none. */
  authMetadataSource: 'hint' | 'well-known-path' | null;
  /** RFC 9728 §3.3: the valid document's `resource` is the endpoint URL (null: no valid document). */
  authResourceMatches: boolean | null;
  /** The unknown-tool canary: in-channel always; HTTP status and JSON-RPC code as the SDK answers. */
  canary: { httpStatus: number; inChannel: boolean; jsonrpcCode: number | null } | null;
}

export interface World {
  readonly seed: string;
  readonly size: number;
  readonly startDate: string;
  readonly targets: readonly WorldTarget[];
  /** Number of loopback listeners the fleet must open (address i is listenerAddress(i)). */
  readonly listeners: number;
  listenerAddress(i: number): string;
  /** ISO date (YYYY-MM-DD) of a simulated day. */
  date(day: number): string;
  /** The registry listing on `day`, every version and status; `hostports[i]` is listener i's `host:port`. */
  registryEntries(day: number, hostports?: readonly string[]): RegistryEntry[];
  /** What target `index` does on `day` when remote `remote` is requested. */
  behaviour(index: number, day: number, remote?: number): Behaviour;
  /** Route a request path (`/<target>/<remote>/...`) to a behaviour. */
  resolve(path: string, day: number): Behaviour | undefined;
  /** The tool list the target serves on `day` (null when it never serves one). */
  toolsAt(index: number, day: number): ToolDef[] | null;
  /** The expected outcome of probing the target on `day` (for population tests). */
  expected(index: number, day: number): Expected;
  /** What a methodology-v2 probe should record for the target on `day` (see ExpectedV2). */
  expectedV2(index: number, day: number): ExpectedV2;
  /** Index of the target with this name, or -1. */
  indexOf(name: string): number;
  /** Era of a serving endpoint on `day` (null: it serves no MCP over streamable HTTP). */
  eraAt(index: number, day: number): Era | null;
  /** The `instructions` it serves on `day` (null: none). */
  instructionsAt(index: number, day: number): string | null;
  /** The member served twice in its tools/list answer on `day` (legacy era only), or null. */
  repeatAt(index: number, day: number): RepeatedMember | null;
  /** The JSON text of the full tools array the legacy leg serves on `day` (what the raw body holds), or null. */
  toolsTextAt(index: number, day: number): string | null;
  /** The registry's own trouble on `day` (429s, a 5xx, an outage cutting the listing short). */
  registryWeather(day: number): RegistryWeather;
}

export interface RegistryWeather {
  /** The first `throttle` list requests of the day answer 429 with this Retry-After. */
  throttle: number;
  retryAfter: string;
  /** The first `fail` list requests (after any throttling) answer `failStatus`. */
  fail: number;
  failStatus: number;
  /** Every page whose cursor sorts at or after this name answers 503 all day: the roster is cut short. */
  outageFrom: string | null;
}

/** Shares of days with registry trouble (never day 0). */
export const WEATHER_RATE = { throttle: 0.06, fail: 0.04, outage: 0.02 } as const;

/** What every step of buildWorld shares: the checked options and the maker of draw keys. */
export interface WorldSetup {
  seed: string;
  size: number;
  startDate: string;
  /** Midnight UTC of day 0. */
  startMs: number;
  maxListeners: number;
  /** The key of a draw: the seed and the parts joined by `|`; each key is a random stream of its own. */
  key: (...parts: Array<string | number>) => string;
}
