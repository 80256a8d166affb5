// The object store's part of `npm run verify` (verify.ts runs it): the scrub (the scope's shards listed
// and every key re-hashed, and every key the index names in those shards present), the objects rows
// and rosters reference, and the closed files stored.jsonl names (brought into the folder to be read).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { isObjectName, LAYOUT } from '../../src/archive/layout.ts';
import { FsObjectStore, type ObjectStore } from '../../src/archive/object-store.ts';
import { checkObjectIn } from '../../src/archive/objects.ts';
import { S3ObjectStore } from '../../src/archive/s3-store.ts';
import { isLocal, materialize, readStoredIndex, storedDay } from '../../src/archive/stored-files.ts';
import { oneLine } from '../errors.ts';
import { SHARDS, type Ctx, type Scope } from './verify-types.ts';

/**
 * 1. Objects and packed listing pages of the scope's shards: each stored file is named by the SHA-256
 * of its bytes (a page manifest by the page it joins to, and joins to it exactly), listed through the
 * store; the local folders that exist are also read for strays and temp files a crash left.
 */
export async function checkObjectFolders(ctx: Ctx, scope: Scope): Promise<void> {
  const { first, last } = scope.shards;
  const shards = Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => (first + i).toString(16).padStart(2, '0'));
  for (const folder of [LAYOUT.objects, LAYOUT.pages] as const) {
    checkLocalShards(ctx, folder, new Set(shards));
    // The whole store is one listing; a slice is one listing per shard (a bucket lists by prefix).
    const prefixes = shards.length === SHARDS ? [`${folder}/`] : shards.map((s) => `${folder}/${s}/`);
    for (const prefix of prefixes) {
      try {
        await inOrder(
          listSized(ctx.store, prefix),
          ctx.concurrency,
          ({ key, size }) => {
            const name = key.slice(key.lastIndexOf('/') + 1).replace(/\.json$/, '');
            ctx.report.scrub.keys++;
            // Kept by shard for the comparison with the listing the shard's last scrub recorded (verify-listings.ts).
            const shard = name.slice(0, 2);
            if (ctx.keepListing(shard)) {
              let keys = ctx.listed.get(shard);
              if (!keys) ctx.listed.set(shard, (keys = new Map()));
              keys.set(key, size);
            }
            // A page also stored whole: that copy was hashed in objects/ (same shard).
            return (ctx.checked.has(name) ? null : firstCheck(ctx, name)) ?? Promise.resolve(null);
          },
          ({ key }, check) => reportCheck(ctx, check, key, null),
        );
      } catch (e) {
        ctx.problem('object-store', prefix, `listing ${prefix} in ${ctx.store.description} failed: ${oneLine((e as Error).message, 200)}`);
        for (const s of prefix === `${folder}/` ? shards : [prefix.slice(folder.length + 1, folder.length + 3)]) ctx.listFailed.add(s);
      }
    }
  }
  await checkPresence(ctx, new Set(shards));
}

/**
 * A store's keys under `prefix` with their sizes where the store gives them cheaply: a bucket's listing
 * carries them, a folder's files are stat-ed; another store's keys come without (null).
 */
async function* listSized(store: ObjectStore, prefix: string): AsyncIterable<{ key: string; size: number | null }> {
  if (store instanceof S3ObjectStore) yield* store.sizes(prefix);
  else if (store instanceof FsObjectStore) {
    for await (const key of store.list(prefix)) yield { key, size: await stat(join(store.dir, key)).then((s) => s.size, () => null) };
  } else for await (const key of store.list(prefix)) yield { key, size: null };
}

/**
 * 1b. Presence: the re-hash above sees only what the store lists, so a key deleted from the store
 * would pass it. Every object stored.jsonl names (the closed day files and rosters kept in the store)
 * whose shard is in the slice must have been listed; one that was not is checked now by name, and
 * reported missing (or corrupt, when a listing failed and the key is there after all) at its line.
 * So a deleted stored file is found on its shard's day of the cycle, like a corrupted one.
 */
async function checkPresence(ctx: Ctx, shards: ReadonlySet<string>): Promise<void> {
  const expected = [...readStoredIndex(ctx.dir).files.values()].filter((line) => shards.has(line.sha256.slice(0, 2)));
  ctx.report.scrub.named += expected.length;
  await inOrder(
    expected.filter((line) => !ctx.checked.has(line.sha256)),
    ctx.concurrency,
    (line) => firstCheck(ctx, line.sha256) ?? Promise.resolve(null),
    (line, check) => reportCheck(ctx, check, `${LAYOUT.stored}: ${line.path}`, line.sha256),
  );
}

/** Strays and temp files in the local objects/ or pages/ folder (when it exists): its top level, and the given shards. */
function checkLocalShards(ctx: Ctx, folder: 'objects' | 'pages', shards: Set<string>): void {
  const root = join(ctx.dir, folder);
  if (!existsSync(root)) return;
  for (const shard of readdirSync(root).sort()) {
    const shardPath = join(root, shard);
    if (!statSync(shardPath).isDirectory()) {
      ctx.problem('orphan', rel(ctx.dir, shardPath), `stray file in ${folder}/`);
      continue;
    }
    if (!/^[0-9a-f]{2}$/.test(shard)) {
      ctx.problem('orphan', rel(ctx.dir, shardPath), `not a shard folder of ${folder}/`);
      continue;
    }
    if (!shards.has(shard)) continue;
    for (const file of readdirSync(shardPath).sort()) {
      const name = folder === LAYOUT.pages ? file.replace(/\.json$/, '') : file;
      const ok = isObjectName(name) && name.startsWith(shard) && (folder === LAYOUT.objects || file.endsWith('.json'));
      if (!ok) ctx.problem('orphan', rel(ctx.dir, join(shardPath, file)), folder === LAYOUT.pages ? 'not a page manifest (temp file left by a crash?)' : 'not a content-addressed object (temp file left by a crash?)');
    }
  }
}

type ObjectCheck = Awaited<ReturnType<typeof checkObjectIn>> | { ok: false; missing: false; unreadable: true; message: string };

/** Check an object (or packed page) not checked yet; null when it was, or is being, checked (that check reports it). */
function firstCheck(ctx: Ctx, sha: string): Promise<ObjectCheck> | null {
  if (ctx.checked.has(sha)) return null;
  ctx.checked.add(sha);
  return checkObjectIn(ctx.store, sha, ctx.entries).catch((e: unknown) => ({ ok: false as const, missing: false as const, unreadable: true as const, message: `${ctx.store.description} did not answer: ${oneLine((e as Error).message, 200)}` }));
}

/** A check's finding, reported at the object's key (scrub) or at the place that refers to it. */
function reportCheck(ctx: Ctx, check: ObjectCheck | null, where: string, refName: string | null): void {
  if (check === null) return;
  if (check.ok || !check.missing) ctx.report.objects++;
  if (check.ok) return;
  const what = refName ? `object ${refName.slice(0, 12)}…: ` : '';
  if ('unreadable' in check) ctx.problem('object-unreadable', where, `${what}${check.message}`);
  else if (check.missing) ctx.problem('object-missing', where, refName ? `object ${refName.slice(0, 12)}… is missing` : check.message);
  else ctx.problem('object-corrupt', where, `${what}${check.message}`);
}

export function refer(ctx: Ctx, sha: string | null, where: string): void {
  if (sha && !ctx.referenced.has(sha)) ctx.referenced.set(sha, where);
}

/**
 * 0. The stored files of the scope (every one in a full verify; the scope's days and rosters in an
 * incremental one): the index must parse, each file's object must exist and hash to its line (a
 * referenced object, checked in step 5), and a file the folder lacks is brought from the store so
 * steps 2–4 and the chain read it as they read any other. Returns what was brought (removed afterwards).
 */
export async function bringStored(ctx: Ctx, scope: Scope): Promise<string[]> {
  const index = readStoredIndex(ctx.dir);
  for (const p of index.problems) ctx.problem('stored-invalid', `${p.file}:${p.line}`, p.message);
  const brought: string[] = [];
  for (const line of index.files.values()) {
    const day = storedDay(line.path);
    const roster = line.path.startsWith(`${LAYOUT.rosters}/`) ? line.path.slice(LAYOUT.rosters.length + 1, -'.gz'.length) : null;
    const inScope = roster !== null ? scope.rosters === null || scope.rosters.has(roster) : scope.days === null || scope.days.has(day);
    if (!inScope) continue;
    ctx.report.stored.named++;
    refer(ctx, line.sha256, `${LAYOUT.stored}: ${line.path}`);
    if (isLocal(ctx.dir, line.path)) continue;
    try {
      await materialize(ctx.dir, line.path, index, ctx.store);
      brought.push(line.path);
    } catch (error) {
      ctx.problem('stored-missing', line.path, (error as Error).message);
    }
  }
  return brought;
}

/** 5. Every object the rows and rosters read refer to exists and is sound (hashed now unless the scrub just did). */
export async function checkReferences(ctx: Ctx): Promise<void> {
  ctx.report.referenced = ctx.referenced.size;
  await inOrder(
    ctx.referenced,
    ctx.concurrency,
    ([sha]) => firstCheck(ctx, sha) ?? Promise.resolve(null),
    ([sha, where], check) => reportCheck(ctx, check, where, sha),
  );
}

/**
 * work(item) for each item, at most `limit` at once; done(item, result) in the items' order (so the
 * report reads the same however fast the store answers). `work` must not reject.
 */
export async function inOrder<T, R>(items: Iterable<T> | AsyncIterable<T>, limit: number, work: (item: T) => Promise<R>, done: (item: T, result: R) => void): Promise<void> {
  const window: { item: T; result: Promise<R> }[] = [];
  for await (const item of items) {
    window.push({ item, result: work(item) });
    if (window.length >= limit) {
      const head = window.shift()!;
      done(head.item, await head.result);
    }
  }
  for (const { item, result } of window) done(item, await result);
}

function rel(dir: string, path: string): string {
  return relative(dir, path);
}
