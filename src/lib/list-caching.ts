// What a 2026-07-28 server says about caching its answers (MCP 2026-07-28, Server › Utilities ›
// Caching, SEP-2549): `server/discover` results and list results (tools/list) carry `ttlMs` (how long,
// in milliseconds, the result may be reused) and `cacheScope` (`public`: the same for every caller;
// `private`: it may differ per caller — our anonymous probe then saw one caller's list). Results may also
// carry `resultType` and `_meta["io.modelcontextprotocol/serverInfo"]`. Read from one stored raw answer
// (the JSON-RPC message src/lib answerFromBody returns), never from a recorded row: no row changes.
// Hostile input: anything may be anything; nothing here throws, strings are clipped.
import { isObject } from './canonical.ts';
import { clip } from './clip.ts';
import { wilson, type WilsonInterval } from './wilson.ts';

export const CACHE_SCOPES = ['public', 'private'] as const;
export type CacheScope = (typeof CACHE_SCOPES)[number];
/** The `_meta` key a 2026-07-28 result names the server under. */
export const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';
/** The fields 2026-07-28 requires on a discover result and on a list result. */
export const CACHING_REQUIRED = ['ttlMs', 'cacheScope'] as const;
export type CachingField = (typeof CACHING_REQUIRED)[number];

export interface ResultCaching {
  /** A finite number ≥ 0; null when absent or not one. */
  ttlMs: number | null;
  /** `ttlMs` is present but not a finite number ≥ 0 (a string, negative, null, …). */
  ttlMsInvalid: boolean;
  cacheScope: CacheScope | null;
  /** `cacheScope` is present but not exactly `public` or `private`. */
  cacheScopeInvalid: boolean;
  /** `resultType` when a string (a longer one than CACHING_TEXT_MAX cut to it, `…` included). */
  resultType: string | null;
  /** `_meta["io.modelcontextprotocol/serverInfo"]` when its name and version are strings (cut to CACHING_TEXT_MAX likewise). */
  serverInfo: { name: string; version: string } | null;
  /** A modern answer: the required fields it lacks (absent or of a wrong type or value), in CACHING_REQUIRED order; null for a legacy answer (not applicable). */
  missing: CachingField[] | null;
}

const own = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * The longest resultType, serverInfo name and serverInfo version a row records (ObservationV2's bounds,
 * which read them from here). A longer one is cut so that, with its ellipsis, it is no longer than this (one
 * shorter when the cut would split a surrogate pair).
 */
export const CACHING_TEXT_MAX = { resultType: 64, serverInfoName: 512, serverInfoVersion: 256 } as const;

/** `text` when it fits in `max` code units; else cut one shorter than clip() would (clip keeps `max` and adds `…`). */
const within = (text: string, max: number) => (text.length <= max ? text : clip(text, max - 1));

/**
 * What one answer's `result` says about caching. `message` is the JSON-RPC message (a result, or an
 * error: then nothing is present); `modern` says whether the answer is a 2026-07-28 one (the row's era),
 * which alone decides whether missing fields are counted.
 */
export function resultCaching(message: unknown, opts: { modern: boolean }): ResultCaching {
  const out: ResultCaching = { ttlMs: null, ttlMsInvalid: false, cacheScope: null, cacheScopeInvalid: false, resultType: null, serverInfo: null, missing: null };
  try {
    const result = isObject(message) && own(message, 'result') && isObject(message.result) ? message.result : null;
    if (result) {
      if (own(result, 'ttlMs')) {
        const t = result.ttlMs;
        if (typeof t === 'number' && Number.isFinite(t) && t >= 0) out.ttlMs = t === 0 ? 0 : t;
        else out.ttlMsInvalid = true;
      }
      if (own(result, 'cacheScope')) {
        const s = result.cacheScope;
        if (s === 'public' || s === 'private') out.cacheScope = s;
        else out.cacheScopeInvalid = true;
      }
      if (typeof result.resultType === 'string' && own(result, 'resultType')) out.resultType = within(result.resultType, CACHING_TEXT_MAX.resultType);
      const meta = own(result, '_meta') && isObject(result._meta) ? result._meta : null;
      const info = meta && own(meta, SERVER_INFO_META) && isObject(meta[SERVER_INFO_META]) ? (meta[SERVER_INFO_META] as Record<string, unknown>) : null;
      if (info && typeof info.name === 'string' && typeof info.version === 'string') out.serverInfo = { name: within(info.name, CACHING_TEXT_MAX.serverInfoName), version: within(info.version, CACHING_TEXT_MAX.serverInfoVersion) };
    }
  } catch {
    // A hostile object (a throwing getter) says nothing; what was read before stays.
  }
  if (opts.modern) out.missing = CACHING_REQUIRED.filter((f) => (f === 'ttlMs' ? out.ttlMs === null : out.cacheScope === null));
  return out;
}

/** A modern ok answer's caching: its list's (the first tools/list page) and the required fields lacking anywhere. */
export interface AnswerCaching {
  /** The discover result's fields. */
  discover: ResultCaching;
  /** The list's fields: its first tools/list page's (an empty reading when there is no page). */
  list: ResultCaching;
  /** Required fields lacking, as `discover.<field>` or `tools/list.<field>` (any page, each once), in that order. */
  missing: CachingMissing[];
}

/** A required field lacking, and where: on the discover result, or on a tools/list page. */
export type CachingMissing = `${'discover' | 'tools/list'}.${CachingField}`;

/**
 * The one reading of a modern ok answer's caching (the v2 row's list_* fields at probe time, restate's
 * check of them, and the statistics' counts): `discover` and `pages` are the JSON-RPC messages of the
 * stored discover answer and of every tools/list page, in order.
 */
export function answerCaching(discover: unknown, pages: readonly unknown[]): AnswerCaching {
  return combineCaching(
    resultCaching(discover, { modern: true }),
    pages.map((p) => resultCaching(p, { modern: true })),
  );
}

/** answerCaching from the answers' readings (resultCaching of each, modern): what a reader that keeps readings, not messages, calls. */
export function combineCaching(d: ResultCaching, ps: readonly ResultCaching[]): AnswerCaching {
  const list = ps[0] ?? resultCaching(null, { modern: true });
  const missing: CachingMissing[] = [...(d.missing ?? []).map((f) => `discover.${f}` as const), ...[...new Set(ps.flatMap((p) => p.missing ?? []))].map((f) => `tools/list.${f}` as const)];
  return { discover: d, list, missing };
}

/** What a v2 row records of an answer's caching (ObservationV2's list_* fields, from 2026-12-02 on). */
export function cachingRowFields(c: AnswerCaching): {
  list_cache_scope: 'public' | 'private' | 'absent' | 'invalid';
  list_ttl_ms: number | null;
  list_result_type: string | null;
  server_info_name: string | null;
  server_info_version: string | null;
  caching_missing: CachingMissing[];
} {
  const info = c.discover.serverInfo ?? c.list.serverInfo;
  return {
    list_cache_scope: c.list.cacheScope ?? (c.list.cacheScopeInvalid ? 'invalid' : 'absent'),
    list_ttl_ms: c.list.ttlMs,
    list_result_type: c.list.resultType,
    server_info_name: info?.name ?? null,
    server_info_version: info?.version ?? null,
    caching_missing: c.missing,
  };
}

export interface CachingCount {
  count: number;
  n: number;
  share: WilsonInterval;
}

export interface ListCachingCounts {
  /** Modern ok answers whose list could be read back: the denominator. */
  n: number;
  public: CachingCount;
  private: CachingCount;
  /** No `cacheScope` at all. */
  absent: CachingCount;
  /** `cacheScope` present but not `public` or `private`. */
  invalid: CachingCount;
  /** Answers lacking at least one required field (ttlMs, cacheScope) on the discover result or any tools/list page. */
  missingRequired: CachingCount;
  /** Answers lacking each field, by where: `discover.ttlMs`, `tools/list.cacheScope`, … */
  missingByField: Record<string, number>;
}

/**
 * The counts over a run's modern ok answers: `list` is the list's caching (its first tools/list
 * page), `missing` the required fields lacking anywhere, as `discover.<field>` or `tools/list.<field>`.
 */
export function listCachingCounts(answers: readonly { list: Pick<ResultCaching, 'cacheScope' | 'cacheScopeInvalid'>; missing: readonly string[] }[]): ListCachingCounts {
  const n = answers.length;
  const of = (count: number): CachingCount => ({ count, n, share: wilson(count, n) });
  const missingByField: Record<string, number> = {};
  for (const a of answers) for (const f of new Set(a.missing)) missingByField[f] = (missingByField[f] ?? 0) + 1;
  return {
    n,
    public: of(answers.filter((a) => a.list.cacheScope === 'public').length),
    private: of(answers.filter((a) => a.list.cacheScope === 'private').length),
    absent: of(answers.filter((a) => a.list.cacheScope === null && !a.list.cacheScopeInvalid).length),
    invalid: of(answers.filter((a) => a.list.cacheScope === null && a.list.cacheScopeInvalid).length),
    missingRequired: of(answers.filter((a) => a.missing.length > 0).length),
    missingByField: Object.fromEntries(Object.entries(missingByField).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))),
  };
}
