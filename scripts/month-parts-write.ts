// The monthly parts' writer (npm run months -- closed|write|manifest; scripts/month-parts.ts is the
// command): which months are closed, a month's part as the release's assets, and the site's manifest
// of the parts. The pure rules are src/outputs/month-parts.ts.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

import path from 'node:path';

import { fileURLToPath } from 'node:url';
import * as tar from 'tar';
import { lineRunId, readChain, rowSeriesFolders, runsByRun } from '../src/archive/chain.ts';
import { listDays, readLines, splitLines } from '../src/archive/day-files.ts';
import { chainPath, LAYOUT, objectKey, pageKey, runsPath } from '../src/archive/layout.ts';
import { FsObjectStore, STORE_KEY, type ObjectStore } from '../src/archive/object-store.ts';

import { readRosterBytes, rosterFileOnDisk } from '../src/archive/rosters.ts';
import { chainHash, manifestObjects, parseManifest, sha256Hex } from '../src/lib/index.ts';
import { descriptorJson, lastDayOf, manifestSums, MAX_PIECE_BYTES, MAX_RELEASE_ASSETS, monthStatuses, parseDescriptor, PART_FORMAT, partNames, partsManifest, PartDescriptor, pieceNames, pieceRanges, releaseTag, rosterPageNames, rowObjectNames, sumsText, type DayEntry, type ListedPart, type MonthStatus } from '../src/outputs/month-parts.ts';


export const REPO_KEY = fileURLToPath(new URL('../keys/mcp-schema-ed25519.pub', import.meta.url));
export const PART_JSON = 'part.json';
export const SUMS = 'SHA256SUMS';


// ---------------------------------------------------------------------------------------------- closed

/** Every month of the archive with whether it is closed (src/outputs/month-parts.ts monthStatuses). */
export function archiveMonths(dataDir: string, today: string): MonthStatus[] {
  const days: DayEntry[] = rowSeriesFolders(dataDir).flatMap((folder) => listDays(dataDir, folder).map((d) => ({ folder, day: d.day, files: d.files })));
  const runDays = [...runsByRun(dataDir).values()].map((r) => r.ref?.day).filter((d): d is string => typeof d === 'string');
  return monthStatuses(days, runDays, today);
}

// ----------------------------------------------------------------------------------------------- write

export interface WriteOptions {
  /** The folder the assets are written to: must not exist, or be empty. */
  out: string;
  /** Where the archive's objects are (default: the archive folder). */
  store?: ObjectStore;
  simulated: boolean;
  today: string;
  maxPieceBytes?: number;
}

/** What a month's runs name: each run's object set (rows' OBJECT_FIELDS and its roster's pages). */
export interface MonthRecord {
  runIds: Set<string>;
  objectsByRun: Map<string, Set<string>>;
}

/** The month's runs (by their run row's day), in runs.jsonl order, with their lines. */
export function monthRuns(dataDir: string, month: string): { ids: string[]; lines: string[]; byRun: Map<string, { lines: string[]; day: string; roster: string | null }> } {
  const runs = runsByRun(dataDir);
  const byRun = new Map<string, { lines: string[]; day: string; roster: string | null }>();
  for (const [id, r] of runs) if (r.ref && r.ref.day.startsWith(`${month}-`)) byRun.set(id, { lines: r.lines, day: r.ref.day, roster: r.ref.roster_file });
  const lines = existsSync(runsPath(dataDir)) ? splitLines(readFileSync(runsPath(dataDir), 'utf8')).filter((l) => byRun.has(lineRunId(l) ?? '')) : [];
  return { ids: [...byRun.keys()], lines, byRun };
}

/** Rows of the given runs in an archive-shaped folder's day files: the objects each names. */
export async function rowObjects(dir: string, dayFiles: readonly string[], record: MonthRecord): Promise<void> {
  for (const file of dayFiles) {
    for await (const line of readLines(path.join(dir, file))) {
      const id = lineRunId(line);
      if (id === null || !record.runIds.has(id)) continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        continue;
      }
      const set = record.objectsByRun.get(id)!;
      for (const name of rowObjectNames(row)) set.add(name);
    }
  }
}

export function rosterObjects(dir: string, rosterFile: string | null): string[] {
  if (rosterFile === null) return [];
  const bytes = readRosterBytes(dir, rosterFile);
  if (bytes === null) return [];
  try {
    return rosterPageNames(JSON.parse(bytes.toString('utf8')));
  } catch {
    return [];
  }
}

/** Write month `month`'s part (the release's assets) into `opts.out`; returns its descriptor. */
export async function writeMonthPart(dataDir: string, month: string, opts: WriteOptions): Promise<PartDescriptor> {
  const status = archiveMonths(dataDir, opts.today).find((m) => m.month === month);
  if (!status) throw new Error(`${month}: the archive has no day and no run in it`);
  if (!status.closed) throw new Error(`${month} is not closed: ${status.reason}`);
  if (existsSync(opts.out) && readdirSync(opts.out).length > 0) throw new Error(`${opts.out} is not empty: a part is written into a new folder (what is there is uploaded as it is)`);
  mkdirSync(opts.out, { recursive: true });
  const store = opts.store ?? new FsObjectStore(dataDir);
  const names = partNames(month, opts.simulated);
  const work = mkdtempSync(path.join(path.dirname(path.resolve(opts.out)), '.month-part-'));
  try {
    const stage = path.join(work, names.base);
    const put = (rel: string, bytes: Uint8Array | string) => {
      const to = path.join(stage, rel);
      mkdirSync(path.dirname(to), { recursive: true });
      writeFileSync(to, bytes);
    };
    const copy = (from: string, rel: string) => {
      const to = path.join(stage, rel);
      mkdirSync(path.dirname(to), { recursive: true });
      copyFileSync(from, to);
    };

    // Runs and their lines of runs.jsonl, in file order.
    const runs = monthRuns(dataDir, month);
    if (runs.ids.length === 0) throw new Error(`${month}: no run row in runs.jsonl`);
    put(LAYOUT.runs, runs.lines.map((l) => `${l}\n`).join(''));
    const record: MonthRecord = { runIds: new Set(runs.ids), objectsByRun: new Map(runs.ids.map((id) => [id, new Set<string>()])) };

    // Day files of every series, byte for byte.
    const dayFiles = rowSeriesFolders(dataDir).flatMap((folder) => listDays(dataDir, folder).filter((d) => d.day.startsWith(`${month}-`)).flatMap((d) => d.files));
    for (const f of dayFiles) copy(path.join(dataDir, f), f);
    await rowObjects(dataDir, dayFiles, record);

    // Rosters as they are on disk (plain or gzipped), and the pages they name.
    const rosters: string[] = [];
    for (const id of runs.ids) {
      const file = runs.byRun.get(id)!.roster;
      for (const page of rosterObjects(dataDir, file)) record.objectsByRun.get(id)!.add(page);
      const at = file ? rosterFileOnDisk(dataDir, file) : null;
      if (file && !at) throw new Error(`run ${id}: its roster ${file} is missing (run npm run verify)`);
      const rel = at ? path.relative(dataDir, at.path).split(path.sep).join('/') : null;
      if (rel && !rosters.includes(rel)) {
        copy(at!.path, rel);
        rosters.push(rel);
      }
    }

    // Objects and page manifests (with a packed page's entries), read through the store and checked on the way.
    const keys = new Set<string>();
    const missing: string[] = [];
    const take = async (key: string, name: string): Promise<Buffer | null> => {
      const bytes = await store.get(key);
      if (bytes === null) return null;
      if (key.startsWith(`${LAYOUT.objects}/`) && sha256Hex(bytes) !== name) throw new Error(`${key}: its bytes do not hash to its name (run npm run verify)`);
      if (!keys.has(key)) {
        put(key, bytes);
        keys.add(key);
      }
      return bytes;
    };
    for (const name of [...new Set([...record.objectsByRun.values()].flatMap((s) => [...s]))].sort()) {
      if ((await take(objectKey(name), name)) !== null) continue;
      const manifest = await take(pageKey(name), name);
      if (manifest === null) {
        missing.push(name);
        continue;
      }
      const parsed = parseManifest(manifest);
      if (parsed === null || parsed.sha256 !== name) throw new Error(`${pageKey(name)}: not a manifest of that page (run npm run verify)`);
      for (const entry of manifestObjects(parsed)) if ((await take(objectKey(entry), entry)) === null) missing.push(entry);
    }
    if (missing.length > 0) throw new Error(`${month}: ${missing.length} object${missing.length === 1 ? '' : 's'} the month's runs name ${missing.length === 1 ? 'is' : 'are'} not in ${store.description} (first: ${missing[0]})`);

    // The chain from its start to the month's last manifest, line for line.
    const chain = readChain(dataDir);
    const covering = chain.manifests.filter((l) => l.manifest.run_id !== null && record.runIds.has(l.manifest.run_id));
    const upTo = covering.length > 0 ? Math.max(...covering.map((l) => l.n)) : 0;
    const bad = chain.problems.find((p) => p.line !== null && p.line <= upTo);
    if (bad) throw new Error(`${LAYOUT.chain}:${bad.line}: ${bad.message} (run npm run verify)`);
    if (upTo > 0) put(LAYOUT.chain, splitLines(readFileSync(chainPath(dataDir), 'utf8')).slice(0, upTo).filter((l) => l.trim() !== '').map((l) => `${l}\n`).join(''));
    const prefix = chain.manifests.filter((l) => l.n <= upTo);
    const head = prefix.at(-1)?.manifest ?? null;

    // The archive's public keys (a demo's DEMO key; the real key is in the repository).
    const keyDir = path.join(dataDir, LAYOUT.keys);
    if (existsSync(keyDir)) for (const f of readdirSync(keyDir).filter((f) => f.endsWith('.pub')).sort()) copy(path.join(keyDir, f), `${LAYOUT.keys}/${f}`);

    // The validation gate records scored in the month (validations/<day>-<sha256>.json: dated, named by
    // their bytes), so the parts together hold the whole record. Listed only when there are some: a
    // month without one makes the same part as before records existed.
    const valDir = path.join(dataDir, LAYOUT.validations);
    const validations = existsSync(valDir) ? readdirSync(valDir).filter((f) => f.startsWith(`${month}-`) && f.endsWith('.json')).sort() : [];
    for (const f of validations) copy(path.join(valDir, f), `${LAYOUT.validations}/${f}`);

    const inner: PartDescriptor = {
      format: PART_FORMAT,
      month,
      tag: releaseTag(month),
      simulated: opts.simulated,
      folder: names.base,
      day_files: dayFiles,
      runs: runs.ids.map((id) => {
        const m = covering.find((l) => l.manifest.run_id === id)?.manifest;
        return { run_id: id, day: runs.byRun.get(id)!.day, lines: runs.byRun.get(id)!.lines.length, manifest: m ? { seq: m.seq, sha256: chainHash(m) } : null };
      }),
      rosters,
      objects: keys.size,
      chain: { manifests: prefix.length, head: head ? { seq: head.seq, sha256: chainHash(head) } : null },
      ...(validations.length > 0 ? { validations: validations.map((f) => `${LAYOUT.validations}/${f}`) } : {}),
    };
    put(PART_JSON, descriptorJson(inner));
    const files = walk(stage);
    put(SUMS, sumsText(files.filter((f) => !STORE_KEY.test(f)).map((f) => ({ name: f, sha256: sha256Hex(readFileSync(path.join(stage, f))) }))));

    // One .tar.gz, then as many pieces as its size needs.
    const packed = path.join(work, names.tar);
    await tar.c({ gzip: true, cwd: work, file: packed, portable: true, noDirRecurse: true, mtime: new Date(`${lastDayOf(month)}T00:00:00Z`) }, walk(stage).map((f) => `${names.base}/${f}`));
    const bytes = statSync(packed).size;
    const ranges = pieceRanges(bytes, opts.maxPieceBytes ?? MAX_PIECE_BYTES);
    if (ranges.length + 2 > MAX_RELEASE_ASSETS) throw new Error(`${month}: ${ranges.length} pieces do not fit in one release (${MAX_RELEASE_ASSETS} assets)`);
    const pieceFiles = pieceNames(names.tar, ranges.length);
    const pieces = await cutPieces(packed, ranges, pieceFiles.map((n) => path.join(opts.out, n)));
    const whole = { name: names.tar, bytes, sha256: await hashFile(packed) };
    const descriptor: PartDescriptor = { ...inner, file: whole, pieces: pieces.map((p, i) => ({ name: pieceFiles[i]!, ...p })) };
    const text = descriptorJson(descriptor);
    writeFileSync(path.join(opts.out, names.descriptor), text);
    writeFileSync(path.join(opts.out, names.sums), sumsText([...descriptor.pieces!, { name: names.descriptor, sha256: sha256Hex(text) }]));
    return descriptor;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Copy byte ranges of `file` into `targets`, hashing each piece as it is written. */
export async function cutPieces(file: string, ranges: { start: number; end: number }[], targets: string[]): Promise<{ bytes: number; sha256: string }[]> {
  const out: { bytes: number; sha256: string }[] = [];
  for (const [i, r] of ranges.entries()) {
    const h = createHash('sha256');
    const w = createWriteStream(targets[i]!);
    if (r.end > r.start) {
      for await (const chunk of createReadStream(file, { start: r.start, end: r.end - 1, highWaterMark: 1 << 20 })) {
        h.update(chunk as Buffer);
        if (!w.write(chunk)) await once(w, 'drain');
      }
    }
    w.end();
    await once(w, 'close');
    out.push({ bytes: r.end - r.start, sha256: h.digest('hex') });
  }
  return out;
}

export async function hashFile(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Every file under `dir`, relative with '/', sorted. */
export function walk(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}
// -------------------------------------------------------------------------------------------- manifest

/** Every part descriptor (`mcp-schema-<YYYY-MM>.json`) in `dir` or one folder below it, with its file's size and hash. */
export function readDescriptors(dir: string): ListedPart[] {
  const found: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile()) found.push(path.join(dir, e.name));
    else if (e.isDirectory()) for (const f of readdirSync(path.join(dir, e.name))) found.push(path.join(dir, e.name, f));
  }
  return found
    .filter((f) => /^mcp-schema-\d{4}-\d{2}(-SIMULATED)?\.json$/.test(path.basename(f)))
    .sort()
    .map((f) => {
      const bytes = readFileSync(f);
      const descriptor = parseDescriptor(bytes.toString('utf8'), f);
      if (!descriptor.file || !descriptor.pieces) throw new Error(`${f}: names no published file`);
      return { descriptor, descriptorFile: { bytes: bytes.length, sha256: sha256Hex(bytes) } };
    });
}

/** Write the site's manifest of parts and its SHA256SUMS into `out`. */
export function writePartsManifest(parts: readonly ListedPart[], out: string, opts: { releaseUrl: string; siteUrl: string; notInParts: string[]; simulated: boolean }): { manifest: string; sums: string } {
  if (!opts.releaseUrl.includes('{tag}') || !opts.releaseUrl.includes('{name}')) throw new Error('--release-url must hold {tag} and {name}');
  const manifest = partsManifest(parts, {
    assetUrl: (tag, name) => opts.releaseUrl.replaceAll('{tag}', encodeURIComponent(tag)).replaceAll('{name}', encodeURIComponent(name)),
    notInParts: { months: opts.notInParts, url: opts.siteUrl },
    simulated: opts.simulated,
  });
  mkdirSync(out, { recursive: true });
  const files = { manifest: path.join(out, 'manifest.json'), sums: path.join(out, SUMS) };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  writeFileSync(files.manifest, text);
  writeFileSync(files.sums, `${manifestSums(parts)}${sumsText([{ name: 'manifest.json', sha256: sha256Hex(text) }])}`);
  return files;
}
