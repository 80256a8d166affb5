// Pass 3 of the loader, per target: what each distinct raw body its ok rows point at says on its own —
// the interoperable set hash (src/lib servedSetHash) and the body rules' findings (src/lib
// classifyBody: a repeated member name) — read from the raw objects for every ok row, old rows
// included, never from re-serialised JSON. Cached like derived changes (changes.ts): by the target's
// body hashes, their content types and src/lib, so a daily rebuild reads only bodies it never saw.
import { createHash } from 'node:crypto';
import { readObject } from '../archive/objects.ts';
import { MAX_MESSAGE } from '../archive/problems.ts';
import { answerTextFromBody, classifyBody, servedListingSetHash, servedSetHash, type Finding } from '../lib/index.ts';
import type { BuildCache } from './cache.ts';

/** Bump when this derivation (not src/lib, which is fingerprinted) changes. */
export const BODIES_VERSION = 'bodies-2';

/** The pages of a listing read over several tools/list pages (methodology v2), by its first page's sha256. */
export type ListingPages = ReadonlyMap<string, { pages: readonly string[]; types: readonly (string | null)[] }>;

/** What one raw tools/list body says on its own. */
export interface BodyFacts {
  /** Tool definition hash, version 1 set hash; null when the body has none (`problem` says why). */
  setHash: string | null;
  problem: string | null;
  /** Findings of the body rules (today tools-repeated-member-name, security HIGH), [] for a clean body. */
  findings: Finding[];
}

/**
 * The facts of each of a target's distinct bodies (in the order given), from the build cache when the
 * bodies, their content types and src/lib are unchanged. Results that hit a missing object are not
 * cached (the object may come back).
 */
export async function cachedBodyFacts(
  cache: BuildCache,
  lib: string,
  bodies: readonly string[],
  contentTypes: ReadonlyMap<string, string | null>,
  dir: string,
  stats: { bodyHits: number; bodyMisses: number },
  listings: ListingPages = new Map(),
): Promise<BodyFacts[]> {
  if (bodies.length === 0) return [];
  const h = createHash('sha256').update(BODIES_VERSION).update('\0').update(lib);
  for (const b of bodies) {
    h.update('\0').update(b).update(':').update(contentTypes.get(b) ?? '');
    const l = listings.get(b);
    if (l) h.update('+').update(JSON.stringify([l.pages, l.types]));
  }
  const key = `${h.digest('hex')}.bodies`;
  const hit = cache.readChanges<BodyFacts[]>(key);
  if (hit && hit.length === bodies.length) {
    stats.bodyHits++;
    return hit;
  }
  stats.bodyMisses++;
  const facts: BodyFacts[] = [];
  let missing = false;
  for (const b of bodies) {
    const f = await bodyFacts(dir, b, contentTypes.get(b) ?? null, listings.get(b) ?? null);
    missing ||= f === null;
    facts.push(f ?? { setHash: null, problem: `raw body ${b.slice(0, 12)} missing or corrupt`, findings: [] });
  }
  if (!missing) cache.writeChanges(key, facts);
  return facts;
}

async function bodyFacts(dir: string, sha: string, contentType: string | null, listing: { pages: readonly string[]; types: readonly (string | null)[] } | null): Promise<BodyFacts | null> {
  const bytes = await readObject(dir, sha);
  if (!bytes) return null;
  // A listing read over several pages has the set hash of all of them (what its v2 row records), not
  // the "partial listing" of its first page.
  let hashes = servedSetHash(bytes, contentType);
  if (listing && listing.pages.length > 1 && listing.pages[0] === sha) {
    const pages: { body: Buffer; contentType: string | null }[] = [];
    for (let k = 0; k < listing.pages.length; k++) {
      const page = await readObject(dir, listing.pages[k]!);
      if (!page) return null;
      pages.push({ body: page, contentType: listing.types[k] ?? null });
    }
    hashes = servedListingSetHash(pages);
  }
  let findings: Finding[] = [];
  try {
    const found = classifyBody(answerTextFromBody(bytes, contentType));
    findings = [...found.compatibility, ...found.security];
  } catch (error) {
    // An ok row's body always held an answer when the collector wrote it; if it does not now, the
    // set hash's problem already says so.
    return { setHash: null, problem: (hashes.problem ?? (error instanceof Error ? error.message : 'unreadable body')).slice(0, MAX_MESSAGE), findings: [] };
  }
  return { setHash: hashes.setHash, problem: hashes.problem?.slice(0, MAX_MESSAGE) ?? null, findings };
}
