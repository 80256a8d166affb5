// The scrub's listings (verify.ts runs it after the scrub and the reference checks): a deletion found
// within the scrub's cycle, like a corruption. Objects are written once and never deleted, so a shard's
// set of keys only grows: when the scrub lists a shard, every key the listing recorded on that shard's
// previous scrub day must be listed again, with the same size where the store gives sizes. A key that
// is not is a problem naming it (one a row, roster or stored file of this verify refers to is looked
// up by name and reported where it is referenced: presence, references; not twice). The re-hash
// sees only what the store lists, and the presence check knows only the keys stored.jsonl names, so
// without this an object only an old row or roster references, deleted from the store, would wait for
// the weekly full verify.
//
// A listing is recorded (with --record, after a verify with zero problems) as a content-addressed
// object in the store, scrub/<shard>/<sha256>.txt.gz (SCRUB_KEY: never listed as an archive object,
// written once), and named in verify-state.json's scrub_listings with its key count and day. Its text:
//
//   mcp-schema/scrub-listing@1 <shard>\n
//   <key>\t<size or ->\n ...             (sorted by key; objects/<shard>/… and pages/<shard>/….json)
//
// A recorded listing that is missing from the store, does not hash to its name, or does not parse is
// itself a problem (never silently replaced by a new one: the verify fails, so nothing is recorded).
// The first scrub of a shard (no recorded listing) records without a comparison and the report says so.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { LAYOUT } from '../../src/archive/layout.ts';
import { oneLine } from '../errors.ts';
import type { Ctx, Scope, ScrubListingRef, VerifyState } from './verify-types.ts';

export const SCRUB_LISTING_FORMAT = 'mcp-schema/scrub-listing@1';

/** The store key of a recorded listing. */
export function listingKey(shard: string, sha256: string): string {
  return `${LAYOUT.scrub}/${shard}/${sha256}.txt.gz`;
}

/** A shard's keys (with sizes, null when unknown) as a listing object's bytes (gzipped text, sorted: the same keys make the same bytes). */
export function encodeListing(shard: string, keys: ReadonlyMap<string, number | null>): Buffer {
  const lines = [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, size]) => `${key}\t${size === null ? '-' : size}\n`);
  return gzipSync(Buffer.from(`${SCRUB_LISTING_FORMAT} ${shard}\n${lines.join('')}`), { level: 9 });
}

/** A listing object's bytes back as its keys; throws saying what is wrong with them. */
export function decodeListing(shard: string, bytes: Buffer): Map<string, number | null> {
  let text: string;
  try {
    text = gunzipSync(bytes).toString('utf8');
  } catch (e) {
    throw new Error(`not gzip (${oneLine((e as Error).message, 80)})`);
  }
  const lines = text.split('\n');
  if (lines.pop() !== '') throw new Error('its last line is torn');
  if (lines[0] !== `${SCRUB_LISTING_FORMAT} ${shard}`) throw new Error(`its first line is not "${SCRUB_LISTING_FORMAT} ${shard}"`);
  const keys = new Map<string, number | null>();
  const key = new RegExp(`^(objects/${shard}/[0-9a-f]{64}|pages/${shard}/[0-9a-f]{64}\\.json)\\t(-|0|[1-9]\\d{0,14})$`);
  for (let i = 1; i < lines.length; i++) {
    const m = key.exec(lines[i]!);
    if (!m) throw new Error(`line ${i + 1} is not a key of shard ${shard} and its size`);
    keys.set(m[1]!, m[2] === '-' ? null : Number(m[2]));
  }
  return keys;
}

/** A listing ready to record: its key in the store, bytes and reference for the state. */
export interface PendingListing {
  shard: string;
  key: string;
  bytes: Buffer;
  ref: ScrubListingRef;
}

/**
 * Compare each shard the scrub listed with its recorded listing, and return the listings to record
 * when `recordable` (every shard listed whole; the caller writes them only after zero problems).
 */
export async function checkListings(ctx: Ctx, scope: Scope, state: VerifyState | null, today: string, recordable: boolean): Promise<PendingListing[]> {
  const recorded = state?.scrub_listings ?? {};
  const pending: PendingListing[] = [];
  for (let n = scope.shards.first; n <= scope.shards.last; n++) {
    const shard = n.toString(16).padStart(2, '0');
    if (ctx.listFailed.has(shard)) continue;
    const now = ctx.listed.get(shard) ?? new Map<string, number | null>();
    const was = recorded[shard];
    if (!was && !recordable) continue; // nothing to compare with, nothing to record (ctx.keepListing kept none)
    if (!was) ctx.report.listings.first++;
    else {
      const before = await readListing(ctx, shard, was);
      if (before === null) continue;
      ctx.report.listings.compared++;
      for (const [key, size] of before) {
        const name = key.slice(key.lastIndexOf('/') + 1).replace(/\.json$/, '');
        const sizeNow = now.get(key);
        if (sizeNow === undefined) {
          // Looked up by name by another check (stored.jsonl's presence, a row's or roster's reference):
          // that check has reported it where it is referenced. Otherwise nothing this verify read refers to it.
          // (A name the scrub listed in its other form, object or page, was checked by that listing: not this key.)
          if (ctx.checked.has(name) && !now.has(`objects/${shard}/${name}`) && !now.has(`pages/${shard}/${name}.json`)) continue;
          ctx.problem('object-deleted', key, `listed in shard ${shard} on ${was.day}, not listed now: deleted from ${ctx.store.description} (no row, roster or stored file this verify read refers to it; a full verify names those that do)`);
        } else if (size !== null && sizeNow !== null && size !== sizeNow) {
          ctx.problem('object-resized', key, `${size} bytes when shard ${shard} was listed on ${was.day}, ${sizeNow} bytes now: an object is written once`);
        }
      }
    }
    if (!recordable) continue;
    const bytes = encodeListing(shard, now);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    pending.push({ shard, key: listingKey(shard, sha256), bytes, ref: { sha256, keys: now.size, day: today } });
  }
  return pending;
}

/** The recorded listing of a shard, or null when it is missing or unsound (a problem, reported here). */
async function readListing(ctx: Ctx, shard: string, ref: ScrubListingRef): Promise<Map<string, number | null> | null> {
  const key = listingKey(shard, ref.sha256);
  const recordedOn = `recorded on ${ref.day} in verify-state.json's scrub_listings`;
  let bytes: Buffer | null;
  try {
    bytes = await ctx.store.get(key);
  } catch (e) {
    ctx.problem('scrub-listing', key, `the listing of shard ${shard} ${recordedOn} could not be read: ${oneLine((e as Error).message, 200)}`);
    return null;
  }
  if (bytes === null) {
    ctx.problem('scrub-listing', key, `the listing of shard ${shard} ${recordedOn} is missing from ${ctx.store.description}: its keys cannot be checked (docs/OPERATIONS.md "Integrity" says what to do)`);
    return null;
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== ref.sha256) {
    ctx.problem('scrub-listing', key, `the listing of shard ${shard} ${recordedOn} is corrupt: its bytes hash to ${sha.slice(0, 12)}…`);
    return null;
  }
  let keys: Map<string, number | null>;
  try {
    keys = decodeListing(shard, bytes);
  } catch (e) {
    ctx.problem('scrub-listing', key, `the listing of shard ${shard} ${recordedOn} is not a listing: ${(e as Error).message}`);
    return null;
  }
  if (keys.size !== ref.keys) {
    ctx.problem('scrub-listing', key, `the listing of shard ${shard} ${recordedOn} holds ${keys.size} keys, not the ${ref.keys} recorded`);
    return null;
  }
  return keys;
}

/** Write the listings to record (once each: the same listing is the same key). Returns false after a failure (a problem). */
export async function putListings(ctx: Ctx, pending: readonly PendingListing[]): Promise<boolean> {
  for (const p of pending) {
    try {
      await ctx.store.put(p.key, p.bytes);
    } catch (e) {
      ctx.problem('scrub-listing', p.key, `the listing of shard ${p.shard} could not be written to ${ctx.store.description}: ${oneLine((e as Error).message, 200)}`);
      return false;
    }
  }
  ctx.report.listings.recorded = pending.length;
  return true;
}
