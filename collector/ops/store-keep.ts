// `npm run store -- keep|restore`: a day interrupted by the object store is resumed, not lost.
//
// When a collection stops because the bucket failed (exit 5, EXIT.store), everything it wrote so far
// is in the archive folder: the rows of the open day, its roster, the small append-only files, and the
// objects and page manifests in the folder's cache. On a CI runner the folder goes away with the
// machine, and a re-run with the same --now can only resume from what it finds. So:
//
//   keep --out <dir> [--now <iso>]   copy what a resumed run needs into <dir> (the workflow uploads it
//                                    as an artifact): runs.jsonl, chain.jsonl, stored.jsonl, every day
//                                    file and roster not already named by stored.jsonl with these bytes,
//                                    and every key of the folder's objects/ and pages/ the bucket is not
//                                    seen to have (all of them once it does not answer: on a runner the
//                                    cache starts empty, so these are this run's, among them any the
//                                    bucket never got). kept.json lists each file with its SHA-256 and
//                                    size, and the --now to resume with.
//   restore --from <dir>             put it back: each kept file is checked against kept.json first;
//                                    a file the folder lacks is written, one it holds with the same
//                                    bytes is left, an append-only file the folder holds a shorter
//                                    start of is replaced by the kept one (never the other way), and
//                                    anything else refuses the whole restore before a byte is written,
//                                    naming the file. Keys go through the folder's store (written
//                                    once; an objects/ key must hash to its name). With a bucket
//                                    configured, the kept keys the bucket lacks are then pushed.
//
// Why not commit-day.sh's bundle: the bundle is a commit of a finished day, and a day stopped by the
// store has no run row or chain manifest yet, and with a bucket git carries neither its rows, rosters
// nor objects (COMMIT_DAY_EXCLUDE). What must survive is files and keys, checked by hash: the store's job.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { writeAtomic } from '../../src/archive/atomic.ts';
import { rowSeriesFolders } from '../../src/archive/chain.ts';
import { defaultVerify } from '../../src/archive/cached-store.ts';
import { DAY_FILE, LAYOUT, ROSTER_FILE } from '../../src/archive/layout.ts';
import { FsObjectStore, STORE_KEY, type ObjectStore } from '../../src/archive/object-store.ts';
import { ROSTER_GZ } from '../../src/archive/rosters.ts';
import { readStoredIndex } from '../../src/archive/stored-files.ts';

export const KEPT_FORMAT = 'mcp-schema/kept-day@1';
export const KEPT_FILE = 'kept.json';

const KeptEntry = z.object({ path: z.string().max(300), sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int().min(0) }).strict();
export const Kept = z
  .object({
    format: z.literal(KEPT_FORMAT),
    /** The --now of the interrupted run (what a resumed run must be given), when the caller said. */
    now: z.string().datetime({ offset: true }).nullable(),
    files: z.array(KeptEntry),
  })
  .strict();
export type Kept = z.infer<typeof Kept>;

/** Files only ever appended to: a shorter start of the kept bytes in the folder is an older copy of the same file. */
const APPENDED = /^(?:runs\.jsonl|chain\.jsonl|stored\.jsonl|observations(?:-[\w.-]+)?\/\d{4}-\d{2}-\d{2}\.jsonl)$/;
/** What a kept folder may hold: the small files, day files, rosters, keys. Nothing else is restored (a hostile kept.json cannot name ../). */
const KEEPABLE = /^(?:runs\.jsonl|chain\.jsonl|stored\.jsonl|observations(?:-[\w.-]+)?\/\d{4}-\d{2}-\d{2}\.jsonl(?:\.gz)?|rosters\/[\w.-]+\.json(?:\.gz)?)$/;

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The archive-relative paths keep copies (keys excluded). */
function filesToKeep(dir: string): string[] {
  const index = readStoredIndex(dir);
  const out: string[] = [];
  const consider = (rel: string) => {
    const at = join(dir, rel);
    if (!existsSync(at) || !statSync(at).isFile()) return;
    const named = index.files.get(rel);
    if (named && named.bytes === statSync(at).size && named.sha256 === sha256(readFileSync(at))) return; // already in the store
    out.push(rel);
  };
  for (const small of [LAYOUT.runs, LAYOUT.chain, LAYOUT.stored]) consider(small);
  for (const folder of rowSeriesFolders(dir)) for (const name of readdirSync(join(dir, folder)).sort()) if (DAY_FILE.test(name)) consider(`${folder}/${name}`);
  const rosters = join(dir, LAYOUT.rosters);
  if (existsSync(rosters)) for (const name of readdirSync(rosters).sort()) if (ROSTER_FILE.test(name.endsWith(ROSTER_GZ) ? name.slice(0, -ROSTER_GZ.length) : name)) consider(`${LAYOUT.rosters}/${name}`);
  return out;
}

/**
 * Copy what a resumed run needs from `dir` into `out` (a new or empty folder). With `remote`, a cached
 * key the remote is seen to have is left out (an operator's folder may cache the whole archive); once
 * the remote fails to answer, every key is kept (a runner's cache holds the run's keys only).
 */
export async function keepDay(dir: string, out: string, now: string | null, remote: ObjectStore | null = null): Promise<Kept & { remoteAnswered: boolean }> {
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`--out ${out} is not empty: keep writes into a new folder`);
  const files: Kept['files'] = [];
  const copy = (rel: string, bytes: Buffer) => {
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    writeFileSync(join(out, rel), bytes);
    files.push({ path: rel, sha256: sha256(bytes), bytes: bytes.length });
  };
  for (const rel of filesToKeep(dir)) copy(rel, readFileSync(join(dir, rel)));
  const local = new FsObjectStore(dir);
  let ask = remote;
  for (const prefix of ['objects/', 'pages/']) {
    for await (const key of local.list(prefix)) {
      if (ask) {
        try {
          if (await ask.has(key)) continue;
        } catch {
          ask = null; // the store is down: keep every key
        }
      }
      const bytes = await local.get(key);
      if (bytes && defaultVerify(key, bytes)) copy(key, bytes); // a corrupt cached copy is not worth keeping
    }
  }
  const kept: Kept = { format: KEPT_FORMAT, now, files };
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, KEPT_FILE), `${JSON.stringify(kept, null, 1)}\n`);
  return { ...kept, remoteAnswered: remote !== null && ask !== null };
}

export interface Restored {
  now: string | null;
  written: string[];
  extended: string[];
  same: number;
  /** The folder held more of an append-only file than was kept: its copy stays. */
  newer: string[];
  keys: string[];
}

/** Read and check a kept folder, then put it back into `dir` (see the header). Throws one line, before any write, on anything that does not fit. */
export async function restoreDay(dir: string, from: string): Promise<Restored> {
  const file = join(from, KEPT_FILE);
  if (!existsSync(file)) throw new Error(`${from} holds no ${KEPT_FILE}: not a folder npm run store -- keep wrote`);
  let kept: Kept;
  try {
    kept = Kept.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    throw new Error(`${file} is not a kept day (${(error as Error).message.split('\n')[0]!.slice(0, 160)})`);
  }
  const plan: { rel: string; bytes: Buffer; action: 'write' | 'extend' | 'same' | 'newer' | 'key' }[] = [];
  for (const entry of kept.files) {
    const isKey = STORE_KEY.test(entry.path);
    if (!isKey && !KEEPABLE.test(entry.path)) throw new Error(`${KEPT_FILE} names ${JSON.stringify(entry.path.slice(0, 120))}, which a kept day never holds`);
    const at = join(from, entry.path);
    if (!existsSync(at)) throw new Error(`${entry.path} is named by ${KEPT_FILE} but not in ${from}`);
    const bytes = readFileSync(at);
    if (bytes.length !== entry.bytes || sha256(bytes) !== entry.sha256) throw new Error(`${entry.path} in ${from} is not the file kept (its bytes do not hash to ${KEPT_FILE}'s ${entry.sha256.slice(0, 12)}…)`);
    if (isKey) {
      if (!defaultVerify(entry.path, bytes)) throw new Error(`${entry.path} in ${from} does not hash to its name`);
      plan.push({ rel: entry.path, bytes, action: 'key' });
      continue;
    }
    const target = join(dir, entry.path);
    if (!existsSync(target)) {
      plan.push({ rel: entry.path, bytes, action: 'write' });
      continue;
    }
    const here = readFileSync(target);
    if (here.equals(bytes)) plan.push({ rel: entry.path, bytes, action: 'same' });
    else if (APPENDED.test(entry.path) && here.length < bytes.length && bytes.subarray(0, here.length).equals(here)) plan.push({ rel: entry.path, bytes, action: 'extend' });
    else if (APPENDED.test(entry.path) && here.length > bytes.length && here.subarray(0, bytes.length).equals(bytes)) plan.push({ rel: entry.path, bytes, action: 'newer' });
    else throw new Error(`${entry.path}: the folder's copy and the kept one differ (neither is the start of the other): nothing restored; compare them by hand`);
  }
  const done: Restored = { now: kept.now, written: [], extended: [], same: 0, newer: [], keys: [] };
  const local = new FsObjectStore(dir);
  for (const step of plan) {
    if (step.action === 'key') {
      await local.put(step.rel, step.bytes);
      done.keys.push(step.rel);
    } else if (step.action === 'write' || step.action === 'extend') {
      writeAtomic(join(dir, step.rel), step.bytes, { durable: true });
      (step.action === 'write' ? done.written : done.extended).push(step.rel);
    } else if (step.action === 'same') done.same++;
    else done.newer.push(step.rel);
  }
  return done;
}

/** Put each of `keys` (in the folder) into `remote` (written once: a key it has is skipped). Returns how many were uploaded. */
export async function pushKeys(dir: string, keys: readonly string[], remote: ObjectStore): Promise<number> {
  const local = new FsObjectStore(dir);
  let uploaded = 0;
  for (const key of keys) {
    if (await remote.has(key)) continue;
    const bytes = await local.get(key);
    if (bytes === null) continue;
    await remote.put(key, bytes);
    uploaded++;
  }
  return uploaded;
}
