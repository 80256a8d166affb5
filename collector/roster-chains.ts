// The roster over parallel cursor chains: one listing, one pace, several cursors in flight.
// The registry lists by key (name, then version, as byte strings) and a cursor "<name>:<version>" asks
// for the items after that key, whether or not an item with that key still exists (keyset paging). So
// the key space can be split at keys taken from the previous complete roster (the cursors its pages
// were asked with: keys of items the registry itself named, at equal quantiles of the listing). Chain k
// pages from boundary k; chain k − 1 keeps its items up to the first item chain k listed (so the
// boundary item, and anything added after it since chain k asked, is chain k − 1's) and stops at the
// page that reaches it. Every item belongs to exactly one chain, and the chains' kept items, in chain
// order, are the listing a single chain reads. All chains take their slots from the one `Pacer`: the
// registry sees the same requests a minute as from one chain; only the latency of a page is overlapped.
//
// Nothing is taken on trust (the bodies and the cursors in them are hostile):
//   - every chain's items must be in strictly increasing key order, the first after its start cursor:
//     a cursor the registry did not honour, or an order that is not ours, is a loud failure;
//   - coverage holds by construction: chain k − 1 reads until it reaches chain k's first item (or one
//     past it) or the listing's end, after which chain k must have listed nothing; a page ending right
//     at the boundary is followed by one more, which the next chain asked for too (one request more a
//     boundary), so what was added behind the boundary since is not lost. A cursor that skips entries costs chain k − 1 more pages, never
//     an entry. A chain that fails a page, or a bound, cuts the roster exactly as a failed page cuts a
//     single chain: incomplete, reason "page N failed: ...".
// Recorded: the roster's pages in chain order (the run's pages, as a single chain records them), each
// with `chain` (its chain's number) and, on a page only partly the roster's, `listed` (how many of its
// first servers[] entries are). A roster on one chain is written exactly as before, with neither field.
import { isObject, type Roster, type RosterPage } from '../src/lib/index.ts';
import { oneLine } from './errors.ts';
import { fetchPage, Pacer, type FetchedPage, type FetchedRoster, type RosterHistory, type RosterLimits } from './roster.ts';
import type { Dispatcher } from 'undici';

/** A listing key: name, then version. */
export type Key = readonly [name: string, version: string];

/**
 * auto: one chain while one chain's listing (the previous roster's pages at its time a page, taken back
 * to one chain) fits `wallBudgetMs`, half the roster's 2 h time ceiling; beyond it as many chains as
 * bring it under the budget, no more than the pace can use (beyond latency ÷ the pace's interval a
 * chain only waits for the pacer) and at most `max`. The 2026 listing (≈ 1,150 pages at ≈ 0.55 s) takes
 * ≈ 11 min on one chain: auto is one chain, and the roster is fetched and written as it always was.
 */
export const ROSTER_CHAINS = { wallBudgetMs: 3600_000, max: 8 } as const;

/** The chains `auto` gives today, from the previous complete roster (pure). */
export function rosterChains(h: RosterHistory, pace: Pick<RosterLimits, 'paceRequests' | 'paceWindowMs'>): number {
  const prev = h.complete;
  if (!prev || prev.ms === null || !(prev.ms > 0) || prev.pages <= 1) return 1;
  const oneChainMs = prev.ms * Math.max(1, prev.chains ?? 1);
  if (oneChainMs <= ROSTER_CHAINS.wallBudgetMs) return 1;
  const atPace = pace.paceWindowMs / pace.paceRequests;
  const useful = Math.max(1, Math.ceil(oneChainMs / prev.pages / atPace));
  return Math.min(Math.ceil(oneChainMs / ROSTER_CHAINS.wallBudgetMs), useful, ROSTER_CHAINS.max);
}

/** Byte-wise (UTF-8) order, as the registry's C-collation ORDER BY. */
function cmp(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function compareKeys(a: Key, b: Key): number {
  return cmp(a[0], b[0]) || cmp(a[1], b[1]);
}

/** A cursor's key: the registry splits it at the first ':' (names never hold one; versions may). Null: not name:version. */
export function cursorKey(cursor: string): Key | null {
  const i = cursor.indexOf(':');
  if (i <= 0 || cursor.length > 2048) return null;
  return [cursor.slice(0, i), cursor.slice(i + 1)];
}

/** A listed entry's key, or null when it has no string name and version (hostile or malformed). */
export function entryKey(entry: unknown): Key | null {
  if (!isObject(entry) || !isObject(entry.server)) return null;
  const { name, version } = entry.server;
  return typeof name === 'string' && name.length > 0 && typeof version === 'string' ? [name, version] : null;
}

/**
 * The n − 1 boundaries of n chains (pure): from the cursors the previous complete roster's pages were
 * asked with — each the key of the last item of the page before, as the registry named it (a chain's
 * first page, asked with a boundary of its own day, is left out) — sorted, at equal quantiles of its
 * pages. Fewer (none: one chain) when there is no previous roster or it has too few pages.
 */
export function chainBoundaries(previous: Pick<Roster, 'complete' | 'pages'> | null, chains: number): string[] {
  if (!previous || !previous.complete || chains <= 1) return [];
  const seen = new Set<number>();
  const cursors: { cursor: string; key: Key }[] = [];
  previous.pages.forEach((p, i) => {
    const chainStart = p.chain !== undefined && (i === 0 || previous.pages[i - 1]!.chain !== p.chain);
    if (p.cursor === null || p.sha256 === null || p.error !== null || chainStart) return;
    const key = cursorKey(p.cursor);
    if (key) cursors.push({ cursor: p.cursor, key });
  });
  cursors.sort((a, b) => compareKeys(a.key, b.key));
  const m = cursors.length;
  const out: string[] = [];
  for (let k = 1; k < chains; k++) {
    // Page i + 2 was asked with cursors[i]: the item at the end of page i + 1 of m + 1.
    const i = Math.min(m - 1, Math.max(0, Math.round((k * (m + 1)) / chains) - 1));
    if (m === 0 || seen.has(i)) continue;
    seen.add(i);
    out.push(cursors[i]!.cursor);
  }
  return out.filter((c, j) => j === 0 || compareKeys(cursorKey(out[j - 1]!)!, cursorKey(c)!) < 0);
}

interface Chain {
  pages: RosterPage[];
  bodies: FetchedPage[];
  /** The first key the chain listed (null: none). */
  first: Key | null;
  /** How it ended: where the next chain starts, the listing's end, a failure of its own, or stopped because another failed. */
  end: 'next' | 'listing' | 'failed' | 'stopped';
  /** A failure: the page (its index in the chain) and what happened. */
  failure: { page: number | null; reason: string } | null;
}

/** What a chain's first page says about where it starts: its first keyed entry, nothing (the listing ended), or no usable answer. */
type Head = { key: Key } | { key: null; why: 'empty' | 'failed' | 'unkeyed' };

/** Paging `boundaries.length + 1` chains at once under one pacer; the same result a single chain gives. */
export async function fetchRosterChains(
  registry: string,
  deps: { dispatcher: Dispatcher; putObject: (b: Uint8Array) => Promise<string> },
  limits: RosterLimits,
  boundaries: readonly string[],
): Promise<FetchedRoster> {
  const started = Date.now();
  const keys = boundaries.map((b) => {
    const k = cursorKey(b);
    if (!k) throw new Error(`roster chain boundary is not a name:version cursor: ${oneLine(b, 120)}`);
    return k;
  });
  const n = boundaries.length + 1;
  const pacer = new Pacer({ requests: limits.paceRequests, windowMs: limits.paceWindowMs, burst: limits.paceBurst });
  let fetched = 0;
  let stop = false;
  // Each chain's first page, as the chain before it needs it: that chain keeps what sorts before it.
  const heads = Array.from({ length: n }, () => {
    let resolve!: (h: Head) => void;
    const promise = new Promise<Head>((r) => (resolve = r));
    return { promise, resolve };
  });

  const runChain = async (k: number): Promise<Chain> => {
    const c: Chain = { pages: [], bodies: [], first: null, end: 'stopped', failure: null };
    const start = k === 0 ? null : boundaries[k - 1]!;
    const endCursor = k === n - 1 ? null : boundaries[k]!; // for messages
    /** Entries from this key on are the next chain's (null: none are, the listing's end is this chain's); undefined until its first page. */
    let endKey: Key | null | undefined = k === n - 1 ? null : undefined;
    let last: Key | null = k === 0 ? null : keys[k - 1]!;
    let cursor = start;
    const seen = new Set<string>();
    const fail = (page: number | null, reason: string): Chain => {
      stop = true;
      c.end = 'failed';
      c.failure = { page, reason: oneLine(reason) };
      return c;
    };
    for (;;) {
      if (stop) return c;
      if (fetched >= limits.maxPages) return fail(null, `page bound reached (${limits.maxPages} pages)`);
      if (Date.now() - started > limits.maxWallMs) return fail(null, `time bound reached (${Math.round(limits.maxWallMs / 1000)} s)`);
      fetched++;
      const url = new URL(registry);
      url.searchParams.set('limit', String(limits.pageSize));
      if (cursor !== null) url.searchParams.set('cursor', cursor);
      const page = await fetchPage(url, cursor, deps, limits, pacer);
      const record: RosterPage = { ...page.record, chain: k };
      c.pages.push(record);
      const at = c.pages.length - 1;
      if (!page.servers || record.sha256 === null) return fail(at, record.error ?? 'no body');
      // Order: every keyed entry strictly after the one before it, the first after the start cursor.
      for (const entry of page.servers) {
        const key = entryKey(entry);
        if (key === null) continue;
        if (last !== null && compareKeys(last, key) >= 0) {
          return fail(null, c.first === null && start !== null ? `chain ${k + 1} of ${n}: the registry answered ${keyText(key)}, not after its start cursor ${start}` : `chain ${k + 1} of ${n}: ${keyText(key)} listed after ${keyText(last)}, out of key order`);
        }
        c.first ??= key;
        last = key;
      }
      if (at === 0) heads[k]!.resolve(c.first !== null ? { key: c.first } : { key: null, why: page.servers.length === 0 ? 'empty' : 'unkeyed' });
      if (endKey === undefined) {
        const head = await heads[k + 1]!.promise;
        if (head.key === null && head.why === 'failed') return c; // that chain's failure is the roster's
        if (head.key === null && head.why === 'unkeyed') return fail(null, `chain ${k + 2} of ${n}: its first page lists no entry with a name and version after ${endCursor}`);
        endKey = head.key;
      }
      // The cut: entries from the next chain's first one on are that chain's.
      const cutAt = endKey === null ? -1 : page.servers.findIndex((e) => {
        const key = entryKey(e);
        return key !== null && compareKeys(key, endKey as Key) >= 0;
      });
      const listed = cutAt < 0 ? page.servers.length : cutAt;
      if (listed < page.servers.length) record.listed = listed;
      c.bodies.push({ sha256: record.sha256, servers: page.servers.slice(0, listed) });
      const next = record.next_cursor;
      // Reached: the next chain's first entry, or one past it (deleted since). A next cursor equal to the
      // boundary is asked again: what was added behind it since the next chain asked is this chain's.
      if (cutAt >= 0) return ((c.end = 'next'), c);
      if (page.servers.length === 0 || next === null) return ((c.end = 'listing'), c);
      if (seen.has(next)) return fail(null, `repeated cursor ${next}`);
      seen.add(next);
      cursor = next;
    }
  };

  const chains = await Promise.all(
    Array.from({ length: n }, (_, k) =>
      runChain(k).finally(() => heads[k]!.resolve({ key: null, why: 'failed' })), // a chain that ended before its first page answered
    ),
  );
  const pages = chains.flatMap((c) => c.pages);
  const bodies = chains.flatMap((c) => c.bodies);
  const cut = (reason: string): FetchedRoster => ({ pages, bodies, complete: false, incompleteReason: oneLine(reason) });
  let offset = 0;
  for (let k = 0; k < n; k++) {
    const c = chains[k]!;
    if (c.failure) return cut(c.failure.page === null ? c.failure.reason : `page ${offset + c.failure.page + 1} failed: ${c.failure.reason}`);
    offset += c.pages.length;
  }
  // Every chain ended on its own (a stopped one was stopped by a failure reported above). Coverage:
  // each chain read up to where the next one starts, or to the listing's end; after that end nothing.
  for (let k = 0; k + 1 < n; k++) {
    if (chains[k]!.end === 'listing' && chains[k + 1]!.first !== null) {
      return cut(`chain ${k + 2} of ${n} listed ${keyText(chains[k + 1]!.first!)} after the listing's end chain ${k + 1} reached`);
    }
  }
  return { pages, bodies, complete: true, incompleteReason: null };
}

const keyText = (k: Key): string => oneLine(`${k[0]}:${k[1]}`, 200);
