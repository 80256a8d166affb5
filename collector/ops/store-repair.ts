// `npm run store -- repair <key|path>…`: put a bad or missing key of the store back from a good copy.
//
// A name is a store key (objects/<aa>/<sha256>, pages/<aa>/<sha256>.json) or a closed file named by
// stored.jsonl (observations/2026-12-01.jsonl.gz, rosters/2026-12-01.json.gz: its object, whose bytes
// must also have the size and SHA-256 the index gives). For each name:
//
//   1. the store's bytes are checked: an objects/ key must hash to its name (and, for a stored file,
//      have its size), a page manifest must join to the page it is named by (src/archive/objects.ts
//      checkObjectIn). A good key is left as it is: repair of a good key says so and writes nothing,
//      so the written-once rule holds for every key that is good.
//   2. otherwise the sources are asked in order (the archive folder's own copy, the second copy, any
//      --source folder such as an unpacked month part) and the first whose bytes pass the same check
//      replaces the store's (the store's replace(): the one write that is not written-once; the
//      folder moves the bad bytes to quarantine/ first, a bucket overwrites).
//   3. what was replaced is appended to the repair log (data/repairs.jsonl, committed with the day:
//      docs/ARCHIVE.md gives its format), one line per key, after the store has the good bytes.
//   4. no source with good bytes: nothing is written, the name is reported, and the command exits 1.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT, objectKey } from '../../src/archive/layout.ts';
import { checkObjectIn } from '../../src/archive/objects.ts';
import { STORE_KEY, type ObjectStore } from '../../src/archive/object-store.ts';
import { readStoredIndex, STORED_PATH } from '../../src/archive/stored-files.ts';
import { sha256Hex } from '../../src/lib/index.ts';

/** The repair log, beside runs.jsonl: one JSON line per replaced key. */
export const REPAIRS_FILE = 'repairs.jsonl';

export interface RepairLine {
  /** When the good bytes were written (ISO). */
  at: string;
  key: string;
  /** The stored file the key holds (stored.jsonl's path), or null for a plain object or page manifest. */
  path: string | null;
  store: string;
  was: 'missing' | 'corrupt';
  /** What the store held before (corrupt only): its SHA-256 and size. */
  was_sha256: string | null;
  was_bytes: number | null;
  source: string;
  sha256: string;
  bytes: number;
}

export interface RepairResult {
  name: string;
  key: string | null;
  outcome: 'good' | 'replaced' | 'no-good-copy' | 'not-a-key';
  message: string;
  line: RepairLine | null;
}

interface Want {
  key: string;
  path: string | null;
  /** The SHA-256 and size the bytes must have (objects/), or null for a page manifest (joined instead). */
  sha256: string | null;
  bytes: number | null;
}

/** A name as the key it stands for, or why it is none. */
function resolve(dir: string, name: string): Want | string {
  if (STORE_KEY.test(name)) {
    const base = name.slice(name.lastIndexOf('/') + 1);
    return name.startsWith(`${LAYOUT.objects}/`) ? { key: name, path: null, sha256: base, bytes: null } : { key: name, path: null, sha256: null, bytes: null };
  }
  if (STORED_PATH.test(name)) {
    const line = readStoredIndex(dir).files.get(name);
    if (!line) return `${name} is not named by ${LAYOUT.stored}`;
    return { key: objectKey(line.sha256), path: name, sha256: line.sha256, bytes: line.bytes };
  }
  return `${JSON.stringify(name.slice(0, 120))} is neither a store key (objects/<aa>/<sha256>, pages/<aa>/<sha256>.json) nor a file ${LAYOUT.stored} names`;
}

/** Whether `bytes` are what `want` must hold; a page manifest is joined with its entries from `entries`. */
async function good(want: Want, bytes: Buffer, entries: ObjectStore): Promise<boolean> {
  if (want.sha256 !== null) return sha256Hex(bytes) === want.sha256 && (want.bytes === null || bytes.length === want.bytes);
  const name = want.key.slice(want.key.lastIndexOf('/') + 1, -'.json'.length);
  // The manifest under test, with its entries from the store (a page is not also stored whole here).
  const overlay: ObjectStore = {
    description: entries.description,
    put: () => Promise.reject(new Error('read only')),
    has: (k) => (k === want.key ? Promise.resolve(true) : entries.has(k)),
    list: (p) => entries.list(p),
    get: (k) => (k === want.key ? Promise.resolve(bytes) : k === objectKey(name) ? Promise.resolve(null) : entries.get(k)),
  };
  return (await checkObjectIn(overlay, name)).ok;
}

/** A source's bytes for a key, or null (absent, or the source did not answer: the next one is asked). */
async function bytesFrom(source: ObjectStore, key: string): Promise<Buffer | null> {
  try {
    return await source.get(key);
  } catch {
    return null;
  }
}

/**
 * Repair each name in `target` from the first of `sources` with good bytes; append each replacement
 * to <dir>/repairs.jsonl. `file`: a closed file's own bytes in the folder are a source too.
 */
export async function repairKeys(dir: string, target: ObjectStore, sources: readonly ObjectStore[], names: readonly string[], now: () => Date): Promise<RepairResult[]> {
  if (!target.replace) throw new Error(`${target.description} cannot be repaired (it has no replace)`);
  const results: RepairResult[] = [];
  for (const name of names) {
    const want = resolve(dir, name);
    if (typeof want === 'string') {
      results.push({ name, key: null, outcome: 'not-a-key', message: want, line: null });
      continue;
    }
    const held = await target.get(want.key);
    if (held !== null && (await good(want, held, target))) {
      results.push({ name, key: want.key, outcome: 'good', message: `${want.key} is good in ${target.description}: left as it is`, line: null });
      continue;
    }
    // The closed file's own bytes in the folder, when it is there, are the first source.
    const fileSource: ObjectStore[] = want.path && existsSync(join(dir, want.path)) ? [fileAsSource(dir, want.path, want.key)] : [];
    let fixed: { source: ObjectStore; bytes: Buffer } | null = null;
    for (const source of [...fileSource, ...sources]) {
      const bytes = await bytesFrom(source, want.key);
      if (bytes !== null && (await good(want, bytes, target))) {
        fixed = { source, bytes };
        break;
      }
    }
    const was = held === null ? 'missing' : 'corrupt';
    if (!fixed) {
      const asked = [...fileSource, ...sources].map((s) => s.description).join('; ') || 'no source configured';
      results.push({ name, key: want.key, outcome: 'no-good-copy', message: `${want.key} is ${was} in ${target.description} and no good copy was found (asked: ${asked}): nothing replaced`, line: null });
      continue;
    }
    await target.replace(want.key, fixed.bytes);
    const after = await target.get(want.key);
    if (after === null || !after.equals(fixed.bytes)) throw new Error(`${want.key}: ${target.description} does not hold the bytes just written`);
    const line: RepairLine = {
      at: now().toISOString(),
      key: want.key,
      path: want.path,
      store: target.description,
      was,
      was_sha256: held === null ? null : sha256Hex(held),
      was_bytes: held === null ? null : held.length,
      source: fixed.source.description,
      sha256: sha256Hex(fixed.bytes),
      bytes: fixed.bytes.length,
    };
    appendLine(join(dir, REPAIRS_FILE), JSON.stringify(line));
    results.push({ name, key: want.key, outcome: 'replaced', message: `${want.key} was ${was} in ${target.description}: replaced from ${fixed.source.description}`, line });
  }
  return results;
}

/** A closed file in the folder as a read-only source of the one key that holds it. */
function fileAsSource(dir: string, path: string, key: string): ObjectStore {
  return {
    description: `the folder's ${path}`,
    put: () => Promise.reject(new Error('read only')),
    has: (k) => Promise.resolve(k === key),
    list: async function* () {},
    get: (k) => Promise.resolve(k === key ? readFileSync(join(dir, path)) : null),
  };
}

function appendLine(file: string, text: string): void {
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, `${text}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
