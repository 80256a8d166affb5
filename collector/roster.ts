// Stage 1: page through the official registry list API (methodology v1, "Roster").
// Quirks of the real service this code exists for (checked against it, see the sandbox registry):
//   - limit above 100 answers 422, so we ask for exactly 100;
//   - the cursor is "<name>:<version>" and versions contain '+': URLSearchParams encodes it (%2B);
//   - a full last page still carries nextCursor and the next call returns an empty page;
//   - about 180 requests/min per client, then 429, with or without Retry-After.
// Pages are fetched one after another (each cursor comes from the page before), paced under the
// published rate by `Pacer` (roster-chains.ts runs several such chains at once, sharing one `Pacer`): every attempt, retries included, takes a slot, so in steady state the
// registry never has to say 429. A 429 is still handled: Retry-After (delta-seconds or HTTP-date),
// or without one a doubling back-off; and the pace halves, then climbs back a quarter of the pace per
// quiet window, instead of hammering.
// The page and time bounds are not fixed numbers: `rosterBounds` derives them from the previous
// complete roster (its page count and how long it took) with headroom, and from a roster cut short
// since then (a lower bound of the listing, so a bound that cut one day grows the next); a first run
// gets bounds that fit a registry more than twice the 2026 size (1,150 pages) at the pace.
// Every raw page body goes into the object store before it is parsed. Anything that cuts paging
// short (a failed page, a repeated cursor, the page or time bound) leaves the roster incomplete,
// and an incomplete roster retires nobody.
import { isStoreError } from '../src/archive/object-store.ts';
import { request, type Dispatcher } from 'undici';
import { isObject, type RosterPage } from '../src/lib/index.ts';
import { oneLine } from './errors.ts';
import { MiB, readCapped } from './http.ts';
import { USER_AGENT } from './version.ts';

export interface RosterLimits {
  pageSize: number;
  /** Page and time bounds: `rosterBounds` derives them per run (these defaults are a first run's). */
  maxPages: number;
  maxWallMs: number;
  /** Attempts per page (429, 5xx, network) before the roster is cut short. */
  maxAttempts: number;
  /** Longest Retry-After we honour; a longer one is waited for this long. */
  maxRetryAfterMs: number;
  /** Backoff after a 5xx or network failure, times the attempt number. */
  backoffMs: number;
  /** Wait after a 429 without Retry-After, doubling per attempt (also capped by maxRetryAfterMs). */
  rateLimitBackoffMs: number;
  /** The pace: at most paceRequests requests (every attempt) per paceWindowMs, after a first paceBurst. */
  paceRequests: number;
  paceWindowMs: number;
  paceBurst: number;
  pageCap: number;
  timeoutMs: number;
  /**
   * Cursor chains paged at once under the one pace (roster-chains.ts): a count, or 'auto' (the default),
   * which `rosterLimitsFor` resolves from the previous roster (`rosterChains`).
   */
  chains: number | 'auto';
}

/**
 * The pace, 150 requests a minute with a burst of 20: the registry allows "about 180" a minute per
 * client and its window is its own (fixed windows start on its clock, not ours), so the pace keeps a
 * sixth in hand: at most 20 + 150 = 170 requests fall in any minute, retries included. The burst
 * lets a small listing (tests, local worlds, a registry under 2,000 rows) through unpaced. At 150 a
 * minute 1,150 pages take 7.5 min and 2,300 pages 15.2 min.
 * rateLimitBackoffMs 5 s: a 429 without Retry-After waits 5, 10, 20, 40 s, so before a page is given
 * up (5 attempts) it has waited 75 s, more than the registry's one-minute window.
 * maxPages, maxWallMs: a first run's bounds (no previous roster), what `rosterBounds` gives with no
 * history (3,000 pages at the pace × 1.5 + 2 min: 32 min; roster-bounds.test.ts checks they agree).
 */
export const DEFAULT_ROSTER_LIMITS: Omit<RosterLimits, 'timeoutMs'> = {
  pageSize: 100,
  maxPages: 3_000,
  maxWallMs: 32 * 60_000,
  maxAttempts: 5,
  maxRetryAfterMs: 60_000,
  backoffMs: 1_000,
  rateLimitBackoffMs: 5_000,
  paceRequests: 150,
  paceWindowMs: 60_000,
  paceBurst: 20,
  pageCap: 4 * MiB,
  chains: 'auto',
};

/** What a run's roster bounds are derived from (`rosterHistory` in todays-roster.ts reads it from the archive). */
export interface RosterHistory {
  /** The previous complete roster: its pages, how long fetching it took (null: unknown), and over how many cursor chains (absent: one). */
  complete: { pages: number; ms: number | null; chains?: number } | null;
  /** The newest roster since then when it was cut short (a bound, a failed page): today's listing is at least this. */
  cut: { pages: number; ms: number | null } | null;
}

/**
 * Headroom of the derived bounds. Pages: yesterday's × 1.5 + 100 (a registry does not grow by half in
 * a day; the constant covers small worlds). Time: the page bound at yesterday's speed per page (never
 * faster than the pace) × 1.5 + 2 min, so a day twice as slow as yesterday still completes. A roster
 * cut short since the last complete one doubles its pages and time into the bounds: a bound that cuts
 * the listing grows the next day instead of cutting it every day, since the last complete roster (what
 * the bounds start from) would otherwise never change. Ceilings keep a registry that pages forever from
 * taking the whole plan job (GitHub's 6 h): 60,000 pages (6 million rows: 4× the listing at year 5 of
 * the measured growth, 2× at the higher rate bench:pipeline also projects) and 4.5 h (the plan job's
 * 330 minutes less the delay and the plan itself). Derived from the day before, the bounds grow with the
 * registry; the ceilings only stop a listing that runs away.
 */
export const ROSTER_BOUNDS = {
  pageHeadroom: 1.5,
  extraPages: 100,
  timeHeadroom: 1.5,
  slackMs: 2 * 60_000,
  cutGrowth: 2,
  firstRunPages: 3_000,
  ceilingPages: 60_000,
  ceilingMs: 4.5 * 3600_000,
} as const;

/**
 * The page and time bounds of today's roster from the rosters before it (pure). Yesterday's time a page
 * is taken back to one chain's (× the chains it ran on) and shared by today's `chains`: a day on fewer
 * chains than the one before gets the time it needs.
 */
export function rosterBounds(h: RosterHistory, pace: Pick<RosterLimits, 'paceRequests' | 'paceWindowMs'>, chains = 1): { maxPages: number; maxWallMs: number } {
  const B = ROSTER_BOUNDS;
  const atPace = pace.paceWindowMs / pace.paceRequests;
  const prev = h.complete;
  let pages = prev ? Math.ceil(Math.max(1, prev.pages) * B.pageHeadroom) + B.extraPages : B.firstRunPages;
  if (h.cut) pages = Math.max(pages, Math.ceil(h.cut.pages * B.cutGrowth));
  const oneChain = prev && prev.ms !== null && prev.ms > 0 ? (prev.ms * Math.max(1, prev.chains ?? 1)) / Math.max(1, prev.pages) : 0;
  const perPage = Math.max(atPace, oneChain / Math.max(1, chains));
  let wall = Math.ceil(pages * perPage * B.timeHeadroom) + B.slackMs;
  if (h.cut?.ms) wall = Math.max(wall, Math.ceil(h.cut.ms * B.cutGrowth));
  return { maxPages: Math.min(pages, B.ceilingPages), maxWallMs: Math.min(wall, B.ceilingMs) };
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: Clock = { now: () => performance.now(), sleep };

/**
 * Start-to-start pacing of one client's requests: a token bucket of `burst` filling at
 * requests/windowMs, so any window holds at most burst + requests of them. After a 429 (`throttled`)
 * the rate halves (down to an eighth of the pace) and the bucket empties and holds one slot; each
 * window without a 429 adds a quarter of the pace back, up to the pace (and the burst) again.
 */
export class Pacer {
  readonly pace: { requests: number; windowMs: number; burst: number };
  readonly clock: Clock;
  readonly #full: number;
  #rate: number;
  #tokens: number;
  #at: number;
  #quietSince: number;

  constructor(pace: { requests: number; windowMs: number; burst: number }, clock: Clock = realClock) {
    if (!(pace.requests > 0 && pace.windowMs > 0)) throw new Error(`pace must be positive, got ${pace.requests} per ${pace.windowMs} ms`);
    this.pace = pace;
    this.clock = clock;
    this.#full = pace.requests / pace.windowMs;
    this.#rate = this.#full;
    this.#tokens = Math.max(1, pace.burst);
    this.#at = clock.now();
    this.#quietSince = this.#at;
  }

  /** Requests per window now. */
  get requestsPerWindow(): number {
    return this.#rate * this.pace.windowMs;
  }

  /** Waits until the next request may start, and takes its slot. */
  async take(): Promise<void> {
    for (;;) {
      this.#update(this.clock.now());
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.max(1, Math.ceil((1 - this.#tokens) / this.#rate)));
    }
  }

  /** The registry answered 429. */
  throttled(): void {
    const t = this.clock.now();
    this.#update(t);
    this.#rate = Math.max(this.#full / 8, this.#rate / 2);
    this.#tokens = 0;
    this.#quietSince = t;
  }

  #update(t: number): void {
    const cap = this.#rate >= this.#full ? Math.max(1, this.pace.burst) : 1;
    this.#tokens = Math.min(cap, this.#tokens + (t - this.#at) * this.#rate);
    this.#at = t;
    while (this.#rate < this.#full && t - this.#quietSince >= this.pace.windowMs) {
      this.#rate = Math.min(this.#full, this.#rate + this.#full / 4);
      this.#quietSince += this.pace.windowMs;
    }
  }
}

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
  const pacer = new Pacer({ requests: limits.paceRequests, windowMs: limits.paceWindowMs, burst: limits.paceBurst });

  for (;;) {
    if (pages.length >= limits.maxPages) return cut(`page bound reached (${limits.maxPages} pages)`);
    if (Date.now() - started > limits.maxWallMs) return cut(`time bound reached (${Math.round(limits.maxWallMs / 1000)} s)`);
    const url = new URL(registry);
    url.searchParams.set('limit', String(limits.pageSize));
    if (cursor !== null) url.searchParams.set('cursor', cursor);
    const page = await fetchPage(url, cursor, deps, limits, pacer);
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

/** One page, retried within `limits` under `pacer` (a chain of roster-chains.ts shares the run's pacer). */
export async function fetchPage(
  url: URL,
  cursor: string | null,
  deps: { dispatcher: Dispatcher; putObject: (b: Uint8Array) => Promise<string> },
  limits: RosterLimits,
  pacer: Pacer,
): Promise<{ record: RosterPage; servers: unknown[] | null }> {
  let last: { status: number | null; error: string } = { status: null, error: 'not attempted' };
  let attempts = 0;
  for (let attempt = 1; attempt <= limits.maxAttempts; attempt++) {
    attempts = attempt;
    let wait = limits.backoffMs * attempt;
    await pacer.take();
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
          pacer.throttled();
          wait = Math.min(retryAfterMs(res.headers['retry-after']) ?? limits.rateLimitBackoffMs * 2 ** (attempt - 1), limits.maxRetryAfterMs);
        } else if (res.statusCode < 500) {
          break; // 4xx other than 429 (e.g. 422 for a bad limit) will not change on retry
        }
      }
    } catch (e) {
      // The store failed keeping the page: the registry did answer, and asking it again would not
      // help (nor should a bucket that is down be recorded as a registry that is down).
      if (isStoreError(e)) throw e;
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
