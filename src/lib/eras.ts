// Protocol eras of MCP and what a `server/discover` answer says about a server (methodology v2,
// "Probe"). MCP 2026-07-28 `basic/versioning.mdx` §Terminology: *modern* revisions carry version,
// identity and capabilities in per-request `_meta` (2026-07-28 and later); *legacy* revisions open a
// session with `initialize` (2025-11-25 and earlier). The backward-compatibility rule is the spec's
// (Streamable HTTP §Backward Compatibility) as the pre-registered study corrected it (Deviation 2):
// only a DiscoverResult or a modern error identifies a modern server, and a 404/-32601 on
// `server/discover` — which every modern server MUST implement — identifies a legacy one.
//
// Renumbering trap (2026-07-28 changelog, minor change 12): in the drafts HeaderMismatch was -32001,
// MissingRequiredClientCapability -32003 and UnsupportedProtocolVersion -32004, and -32001 is also
// SDK v1's "Session not found". Only -32020, -32021 and -32022 are modern codes here.
import { isObject } from './canonical.ts';

/** The one modern revision the v2 probe speaks. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** Every published legacy revision (the `initialize` era). */
export const LEGACY_PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** What the legacy leg offers in `initialize`: the newest legacy revision, then once more the oldest Streamable HTTP one. */
export const LEGACY_OFFERS = ['2025-11-25', '2025-03-26'] as const;

/** How the v2 probe could talk to an endpoint: `none` when it could not tell (or never probed). */
export const ERAS = ['modern', 'legacy', 'legacy_sse', 'none'] as const;
export type Era = (typeof ERAS)[number];

/** The modern JSON-RPC error codes (2026-07-28 `basic/index.mdx` §Error Codes). */
export const MODERN_ERROR_CODES = { headerMismatch: -32020, missingRequiredClientCapability: -32021, unsupportedProtocolVersion: -32022 } as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LAST_LEGACY = '2025-11-25';

/**
 * A legacy revision: a published one, or any date-shaped revision up to 2025-11-25 (drafts such as
 * 2024-10-07, which SDK v1 still lists). Revision strings compare as dates because they are ISO dates.
 */
export function isLegacyRevision(v: string): boolean {
  return (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(v) || (DATE.test(v) && v <= LAST_LEGACY);
}

/**
 * Whether requests after `initialize` carry `MCP-Protocol-Version` for this negotiated legacy revision:
 * the header exists from 2025-06-18 on (2025-03-26 defines sessions but not the header).
 */
export function definesProtocolVersionHeader(negotiated: string): boolean {
  return DATE.test(negotiated) && negotiated >= '2025-06-18';
}

/** A modern server refusing our request: -32020/-32021, or -32022 whose `supported` names no legacy revision. */
export interface ModernError {
  code: number;
  /** -32022's `data.supported` (strings only, clipped); null for -32020/-32021. */
  supportedVersions: string[] | null;
}

/**
 * The modern error a JSON-RPC answer carries, or null. -32022 (UnsupportedProtocolVersion) counts only
 * when its `data.supported` is a list naming no legacy revision: a list with a legacy revision means
 * "use initialize" (a legacy revision is reachable only that way), and -32022 without a list says too
 * little to stop on (methodology v2, decision 2). `id` is our request's: an error answer may also carry
 * `id: null` (JSON-RPC 2.0 §5, when the server could not read the id).
 */
export function modernErrorOf(message: unknown, id: number): ModernError | null {
  const error = errorOf(message, id);
  if (!error) return null;
  if (error.code === MODERN_ERROR_CODES.headerMismatch || error.code === MODERN_ERROR_CODES.missingRequiredClientCapability) return { code: error.code, supportedVersions: null };
  if (error.code !== MODERN_ERROR_CODES.unsupportedProtocolVersion) return null;
  const supported = stringList(isObject(error.data) ? error.data.supported : undefined);
  if (supported === null || supported.length === 0 || supported.some(isLegacyRevision)) return null;
  return { code: error.code, supportedVersions: supported };
}

/** What a `server/discover` answer says: a modern server (result or refusal), or "fall back to initialize". */
export type DiscoverVerdict =
  | { kind: 'result'; supportedVersions: string[] }
  | { kind: 'rejected'; error: ModernError }
  | { kind: 'fallback'; reason: string };

/**
 * The verdict on the JSON-RPC message answering our `server/discover` (undefined when the body held
 * none): a DiscoverResult (a result object with a `supportedVersions` array) is modern; so is a modern
 * error (modernErrorOf); anything else — -32601, -32000, a -32022 naming a legacy revision, an empty
 * `result`, HTML — means fall back to `initialize`. The HTTP status does not enter: the body decides.
 */
export function discoverVerdict(message: unknown, id: number): DiscoverVerdict {
  if (isObject(message) && message.id === id && isObject(message.result) && Array.isArray(message.result.supportedVersions)) {
    return { kind: 'result', supportedVersions: stringList(message.result.supportedVersions) ?? [] };
  }
  const modern = modernErrorOf(message, id);
  if (modern) return { kind: 'rejected', error: modern };
  const error = errorOf(message, id);
  if (error) return { kind: 'fallback', reason: `json-rpc error ${error.code ?? 'without a code'}` };
  return { kind: 'fallback', reason: isObject(message) ? 'json that is not a discover result' : 'no json-rpc answer' };
}

/** Dual-era as the study reports it: a modern server whose advertised `supportedVersions` list a legacy revision (a lower bound: SDK v2 dual-era servers advertise only 2026-07-28). */
export function advertisesLegacy(era: Era, supportedVersions: readonly string[] | null): boolean {
  return era === 'modern' && (supportedVersions ?? []).some(isLegacyRevision);
}

/** The error object of a JSON-RPC answer to `id` (or to an unreadable id: null/absent). */
function errorOf(message: unknown, id: number): { code: number | null; data: unknown } | null {
  if (!isObject(message) || !isObject(message.error)) return null;
  if (message.id !== id && message.id !== null && message.id !== undefined) return null;
  const code = message.error.code;
  return { code: typeof code === 'number' && Number.isInteger(code) ? code : null, data: message.error.data };
}

/** The strings of a hostile list, each cut to 64 characters, at most 32 of them; null when not an array. */
function stringList(v: unknown): string[] | null {
  if (!Array.isArray(v)) return null;
  return v.filter((x): x is string => typeof x === 'string').slice(0, 32).map((s) => s.slice(0, 64));
}
