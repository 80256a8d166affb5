// The daily scrub finds a deleted key within its cycle: each shard's listing is recorded (with --record,
// after zero problems) as a content-addressed object in the store, and the shard's next scrub day must
// list every key it held again. Against a real S3-compatible server on 127.0.0.1 (test/helpers/s3-server.ts):
// keys are deleted and overwritten behind the store's back with the real S3 client, as a provider's
// console or a lifecycle rule would.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeListing, encodeListing, listingKey } from '../../../collector/ops/verify-listings.ts';
import { formatReport, readVerifyState, scrubSlice, SHARDS, verifyArchive, type VerifyReport } from '../../../collector/ops/verify.ts';
import { objectKey } from '../../../src/archive/layout.ts';
import { s3Client, S3ObjectStore } from '../../../src/archive/s3-store.ts';
import { collectArchive } from '../../helpers/archive.ts';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.ts';
import { scratchDirs } from '../../helpers/scratch.ts';

const temp = scratchDirs();
let server: S3TestServer;
let store: S3ObjectStore;
let client: S3Client;
let dir: string;

beforeAll(async () => {
  server = await startS3Server();
  store = new S3ObjectStore({ endpoint: server.endpoint, bucket: server.bucket, prefix: 'scrubbed', credentials: server.credentials });
  client = s3Client({ endpoint: server.endpoint, credentials: server.credentials });
  dir = await collectArchive({ seed: 'verify-listings', size: 12, days: 2, remote: store }, temp('mcps-listings-'));
}, 180_000);
afterAll(async () => {
  client?.destroy();
  store?.destroy();
  await server?.close();
});

const verify = (today: string, record = false) => verifyArchive(dir, { objects: store, mode: 'auto', today, record });
const stateBytes = () => readFileSync(join(dir, 'verify-state.json'));
const hex = (n: number) => n.toString(16).padStart(2, '0');

/**
 * The first day from 2026-02-01 whose slice (28-day cycle) does, or does not, hold `shard`. A day that
 * must not hold it must also hold none of `avoid` (the shards of pages that name the object: their
 * scrub would rightly find the object missing, which is not the near miss being tested).
 */
function dayFor(shard: string, holds: boolean, avoid: string[] = []): string {
  const n = parseInt(shard, 16);
  const avoided = avoid.map((a) => parseInt(a, 16));
  for (let i = 0; i < 28; i++) {
    const day = new Date(Date.UTC(2026, 1, 1 + i)).toISOString().slice(0, 10);
    const s = scrubSlice(day, 28);
    const has = (m: number) => s.first <= m && m <= s.last;
    if (holds ? has(n) : !has(n) && !avoided.some(has)) return day;
  }
  throw new Error('no such day');
}

/** The shards of the packed pages whose bytes name the object `key` (gzip or plain JSON). */
async function pageShardsNaming(key: string): Promise<string[]> {
  const sha = key.slice(key.lastIndexOf('/') + 1);
  const shards = new Set<string>();
  for (const page of await keysOf('pages/')) {
    const bytes = (await store.get(page))!;
    let text = bytes.toString('utf8');
    try {
      text = gunzipSync(bytes).toString('utf8');
    } catch {
      // not gzip: the bytes are the page
    }
    if (text.includes(sha)) shards.add(page.slice('pages/'.length, 'pages/'.length + 2));
  }
  return [...shards];
}

async function keysOf(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const k of store.list(prefix)) out.push(k);
  return out.sort();
}

async function put(key: string, bytes: Buffer): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${store.prefix}${key}`, Body: bytes }));
}
async function remove(key: string): Promise<void> {
  await client.send(new DeleteObjectCommand({ Bucket: server.bucket, Key: `${store.prefix}${key}` }));
}

const problems = (r: VerifyReport) => r.problems.map((p) => ({ kind: p.kind, where: p.where }));

describe('the scrub compares each shard with the listing its last scrub recorded', () => {
  let shard: string;
  let victim: string;
  let victimBytes: Buffer;

  it('the first verify records every shard it lists, without a comparison, and says so', async () => {
    const first = await verifyArchive(dir, { objects: store, mode: 'full', today: '2026-01-01', record: true });
    expect(first.problems).toEqual([]);
    expect(first.recorded).toBe(true);
    expect(first.listings).toEqual({ compared: 0, first: SHARDS, recorded: SHARDS });
    expect(formatReport(first)).toContain(`${SHARDS} shards listed for the first time (nothing to compare with); ${SHARDS} listings recorded`);
    const listings = readVerifyState(dir).state!.scrub_listings!;
    expect(Object.keys(listings)).toHaveLength(SHARDS);
    // Each listing is in the store under its hash and holds what the store listed for its shard.
    const objects = await keysOf('objects/');
    victim = objects[0]!;
    shard = victim.slice('objects/'.length, 'objects/'.length + 2);
    const ref = listings[shard]!;
    expect(ref.day).toBe('2026-01-01');
    const bytes = (await store.get(listingKey(shard, ref.sha256)))!;
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(ref.sha256);
    const held = decodeListing(shard, bytes);
    expect([...held.keys()]).toEqual([...(await keysOf(`objects/${shard}/`)), ...(await keysOf(`pages/${shard}/`))].sort());
    expect(held.size).toBe(ref.keys);
    expect(held.get(victim)).toBeGreaterThan(0);
    victimBytes = (await store.get(victim))!;
    // Not an archive object: no listing of objects/ or pages/ holds it, so the scrub never counts it.
    expect(first.scrub.keys).toBe(objects.length + (await keysOf('pages/')).length);
  });

  it("a key added since is not a problem, and the shard's new listing replaces the old one", async () => {
    const day = dayFor(shard, true);
    const before = readVerifyState(dir).state!.scrub_listings![shard]!;
    let added = randomBytes(64);
    while (createHash('sha256').update(added).digest('hex').slice(0, 2) !== shard) added = randomBytes(64);
    await store.put(objectKey(createHash('sha256').update(added).digest('hex')), added);
    const r = await verify(day, true);
    expect(r.mode).toBe('incremental');
    expect(r.problems).toEqual([]);
    expect(r.listings.compared).toBe(r.scrub.last - r.scrub.first + 1);
    expect(r.listings.first).toBe(0);
    expect(r.recorded).toBe(true);
    const after = readVerifyState(dir).state!.scrub_listings![shard]!;
    expect(after).toMatchObject({ keys: before.keys + 1, day });
    expect(after.sha256).not.toBe(before.sha256);
  });

  it("a deleted key is named on its shard's next scrub day, passes on a day whose slice is not its shard (near miss), and the failure records nothing", async () => {
    const day = dayFor(shard, true);
    await remove(victim);
    const state = stateBytes();
    const r = await verify(day, true);
    expect(problems(r)).toEqual([{ kind: 'object-deleted', where: victim }]);
    expect(r.problems[0]!.message).toMatch(new RegExp(`^listed in shard ${shard} on ${day}, not listed now: deleted from s3://`));
    expect(r.recorded).toBe(false);
    expect(stateBytes().equals(state)).toBe(true);
    expect(formatReport(r)).toContain(`problem: object-deleted at ${victim}`);
    // Still named the next time: the failed verify did not replace the listing that holds it.
    expect(problems(await verify(day))).toEqual([{ kind: 'object-deleted', where: victim }]);
    // A verify told not to compare listings (--against a copy, which holds none) neither compares nor records.
    const against = await verifyArchive(dir, { objects: store, mode: 'auto', today: day, scrubListings: false });
    expect(against.problems).toEqual([]);
    expect(against.listings).toEqual({ compared: 0, first: 0, recorded: 0 });

    const naming = await pageShardsNaming(victim);
    const other = await verify(dayFor(shard, false, naming), true);
    expect(other.problems).toEqual([]);
    expect(other.listings.compared).toBeGreaterThan(0);
    expect(readVerifyState(dir).state!.scrub_listings![shard]).toEqual(JSON.parse(state.toString('utf8')).scrub_listings[shard]);
    await put(victim, victimBytes);
    expect((await verify(day)).problems).toEqual([]);
  });

  it('a recorded listing missing from the store, or corrupt, is reported and not silently re-recorded', async () => {
    const listings = readVerifyState(dir).state!.scrub_listings!;
    // Two shards on days whose slices hold neither the other nor the shard above.
    const day = dayFor(hex((parseInt(shard, 16) + 128) % SHARDS), true);
    const slice = scrubSlice(day, 28);
    const gone = hex(slice.first);
    const bad = hex(slice.last);
    const goneKey = listingKey(gone, listings[gone]!.sha256);
    const badKey = listingKey(bad, listings[bad]!.sha256);
    const goneBytes = (await store.get(goneKey))!;
    const badBytes = (await store.get(badKey))!;
    await remove(goneKey);
    // A sound listing that claims a key the shard never held, under the old name: only the hash can tell.
    const held = decodeListing(bad, badBytes);
    held.set(`objects/${bad}/${bad.repeat(32)}`, 1);
    await put(badKey, encodeListing(bad, held));

    const state = stateBytes();
    const r = await verify(day, true);
    expect(problems(r)).toEqual([
      { kind: 'scrub-listing', where: goneKey },
      { kind: 'scrub-listing', where: badKey },
    ]);
    expect(r.problems[0]!.message).toMatch(/is missing from s3:/);
    expect(r.problems[1]!.message).toMatch(/is corrupt: its bytes hash to/);
    expect(r.recorded).toBe(false);
    expect(stateBytes().equals(state)).toBe(true);
    expect(problems(await verify(day, true))).toHaveLength(2);

    // The near miss: the same listings restored pass.
    await put(goneKey, goneBytes);
    await put(badKey, badBytes);
    expect((await verify(day, true)).problems).toEqual([]);
  });

  it("a shard whose entry an operator removed is listed afresh on its day: recorded without a comparison", async () => {
    const day = dayFor(shard, true);
    const value = JSON.parse(stateBytes().toString('utf8'));
    delete value.scrub_listings[shard];
    writeFileSync(join(dir, 'verify-state.json'), `${JSON.stringify(value, null, 2)}\n`);
    const r = await verify(day, true);
    expect(r.problems).toEqual([]);
    expect(r.listings.first).toBe(1);
    expect(r.listings.compared).toBe(r.scrub.last - r.scrub.first);
    expect(formatReport(r)).toContain('1 shard listed for the first time (nothing to compare with)');
    expect(readVerifyState(dir).state!.scrub_listings![shard]!.day).toBe(day);
  });
});

describe('a listing object', () => {
  it('round-trips, and one that names a key of another shard, or a torn line, is refused', () => {
    const keys = new Map<string, number | null>([[`objects/ab/${'a'.repeat(64)}`, 12], [`pages/ab/${'b'.repeat(64)}.json`, null]]);
    expect(decodeListing('ab', encodeListing('ab', keys))).toEqual(keys);
    expect(encodeListing('ab', new Map([...keys].reverse())).equals(encodeListing('ab', keys))).toBe(true);
    expect(() => decodeListing('ac', encodeListing('ab', keys))).toThrow(/first line/);
    expect(() => decodeListing('ab', gzipSync(Buffer.from(`mcp-schema/scrub-listing@1 ab\nobjects/ac/${'c'.repeat(64)}\t1\n`)))).toThrow(/line 2 is not a key of shard ab/);
    expect(() => decodeListing('ab', gzipSync(Buffer.from(`mcp-schema/scrub-listing@1 ab\nobjects/ab/${'a'.repeat(64)}\t1`)))).toThrow(/torn/);
    expect(() => decodeListing('ab', Buffer.from('not gzip'))).toThrow(/not gzip/);
  });
});
