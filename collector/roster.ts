// Stage 1: page through the official registry list API (methodology v1, "Roster").
// Quirks of the real service this code exists for (checked against it, see the sandbox registry):
//   - limit above 100 answers 422, so we ask for exactly 100;
//   - the cursor is "<name>:<version>" and versions contain '+': URLSearchParams encodes it (%2B);
//   - a full last page still carries nextCursor and the next call returns an empty page;
//   - about 180 requests/min per client, then 429 with Retry-After.
// Every raw page body goes into the object store before it is parsed. Anything that cuts paging
// short (a failed page, a repeated cursor, the page or time bound) leaves the roster incomplete,
// and an incomplete roster retires nobody.
import { request, type Dispatcher } from 'undici';
import { isObject, type RosterPage } from '../src/lib/index.ts';
import { oneLine } from './errors.ts';
import { MiB, readCapped } from './http.ts';
import { USER_AGENT } from './version.ts';

export interface RosterLimits {
  pageSize: number;
  maxPages: number;
  maxWallMs: number;
  /** Attempts per page (429, 5xx, network) before the roster is cut short. */
  maxAttempts: number;
  /** Longest Retry-After we honour; a longer one is waited for this long. */
  maxRetryAfterMs: number;
  /** Backoff after a 5xx or network failure, times the attempt number. */
  backoffMs: number;
  pageCap: number;
  timeoutMs: number;
}

export const DEFAULT_ROSTER_LIMITS: Omit<RosterLimits, 'timeoutMs'> = {
  pageSize: 100,
  maxPages: 2_000,
  maxWallMs: 15 * 60_000,
  maxAttempts: 5,
  maxRetryAfterMs: 60_000,
  backoffMs: 1_000,
  pageCap: 4 * MiB,
};

export interface FetchedPage {
  sha256: string;
  servers: unknown[];
}

export interface FetchedRoster {
  pages: RosterPage[];
  /** Parsed pages in order (only those that answered a list body). */
  bodies: FetchedPage[];
  complete: boolean;
  incompleteReason: string | null;
}

export async function fetchRoster(
  registry: string,
  deps: { dispatcher: Dispatcher; putObject: (b: Uint8Array) => Promise<string> },
  limits: RosterLimits,
): Promise<FetchedRoster> {
  const started = Date.now();
  const pages: RosterPage[] = [];
  const bodies: FetchedPage[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  const cut = (reason: string): FetchedRoster => ({ pages, bodies, complete: false, incompleteReason: oneLine(reason) });

  for (;;) {
    if (pages.length >= limits.maxPages) return cut(`page bound reached (${limits.maxPages} pages)`);
    if (Date.now() - started > limits.maxWallMs) return cut(`time bound reached (${Math.round(limits.maxWallMs / 1000)} s)`);
    const url = new URL(registry);
    url.searchParams.set('limit', String(limits.pageSize));
    if (cursor !== null) url.searchParams.set('cursor', cursor);
    const page = await fetchPage(url, cursor, deps, limits);
    pages.push(page.record);
    if (!page.servers || page.record.sha256 === null) return cut(`page ${pages.length} failed: ${page.record.error ?? 'no body'}`);
    bodies.push({ sha256: page.record.sha256, servers: page.servers });
    const next = page.record.next_cursor;
    if (page.servers.length === 0 || next === null) return { pages, bodies, complete: true, incompleteReason: null };
    if (seen.has(next)) return cut(`repeated cursor ${next}`);
    seen.add(next);
    cursor = next;
  }
}

async function fetchPage(
  url: URL,
  cursor: string | null,
  deps: { dispatcher: Dispatcher; putObject: (b: Uint8Array) => Promise<string> },
  limits: RosterLimits,
): Promise<{ record: RosterPage; servers: unknown[] | null }> {
  let last: { status: number | null; error: string } = { status: null, error: 'not attempted' };
  let attempts = 0;
  for (let attempt = 1; attempt <= limits.maxAttempts; attempt++) {
    attempts = attempt;
    let wait = limits.backoffMs * attempt;
    try {
      const res = await request(url, {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': USER_AGENT },
        dispatcher: deps.dispatcher,
        signal: AbortSignal.timeout(limits.timeoutMs),
      });
      if (res.statusCode === 200) {
        const raw = await readCapped(res.body, limits.pageCap, 'roster page');
        const sha = await deps.putObject(raw);
        const parsed = parseListBody(raw);
        const base = { cursor, url: url.href, http_status: 200, sha256: sha, attempts: attempt };
        if (typeof parsed === 'string') {
          last = { status: 200, error: parsed };
          // A 200 that is not a list body will not improve on retry often, but the bound is small.
          if (attempt === limits.maxAttempts) return { record: { ...base, count: null, next_cursor: null, error: parsed }, servers: null };
        } else {
          return { record: { ...base, count: parsed.servers.length, next_cursor: parsed.nextCursor, error: null }, servers: parsed.servers };
        }
      } else {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
        last = { status: res.statusCode, error: `http ${res.statusCode}` };
        if (res.statusCode === 429) {
          wait = Math.min(retryAfterMs(res.headers['retry-after']) ?? limits.backoffMs, limits.maxRetryAfterMs);
        } else if (res.statusCode < 500) {
          break; // 4xx other than 429 (e.g. 422 for a bad limit) will not change on retry
        }
      }
    } catch (e) {
      last = { status: null, error: oneLine(`${(e as Error).name}: ${(e as Error).message}`) };
    }
    if (attempt < limits.maxAttempts) await sleep(wait);
  }
  return {
    record: { cursor, url: url.href, http_status: last.status, sha256: null, count: null, next_cursor: null, attempts, error: oneLine(last.error) },
    servers: null,
  };
}

function parseListBody(raw: Buffer): { servers: unknown[]; nextCursor: string | null } | string {
  let j: unknown;
  try {
    j = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'page body is not json';
  }
  if (!isObject(j) || !Array.isArray(j.servers)) return 'page body has no servers array';
  const meta = isObject(j.metadata) ? j.metadata : {};
  const next = typeof meta.nextCursor === 'string' && meta.nextCursor.length > 0 ? meta.nextCursor : null;
  if (next !== null && next.length > 2048) return 'nextCursor over 2048 characters';
  return { servers: j.servers, nextCursor: next };
}

/** Retry-After is delta-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | string[] | undefined): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
