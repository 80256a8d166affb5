// npm run months -- closed|write|verify|manifest … (issue 23): the whole archive as immutable monthly
// parts, uploaded once as release assets (deploy.yml), and a small manifest of them on the site. The
// pure rules (which months are closed, names, pieces, the descriptor and the manifest) are
// src/outputs/month-parts.ts; this file reads the archive and writes, joins, unpacks and checks files.
// The tar format is node-tar (`tar`, the npm CLI's own): portable headers with a fixed mtime, so the
// same month gives the same bytes, and an extractor that refuses paths leaving its folder.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import * as tar from 'tar';
import { archiveDigests, lineRunId, linesDigest, readChain, rowSeriesFolders, runsByRun } from '../src/archive/chain.ts';
import { listDays, readLines, splitLines } from '../src/archive/day-files.ts';
import { chainPath, LAYOUT, objectKey, pageKey, runsPath } from '../src/archive/layout.ts';
import { FsObjectStore, STORE_KEY, type ObjectStore } from '../src/archive/object-store.ts';
import { checkObjectIn } from '../src/archive/objects.ts';
import { readRosterBytes, rosterFileOnDisk } from '../src/archive/rosters.ts';
import { readValidations } from '../src/archive/validations.ts';
import { openObjectStore } from '../src/archive/store-config.ts';
import { chainHash, checkManifest, isDemoKey, manifestObjects, parseManifest, sha256Hex, type ChainManifest } from '../src/lib/index.ts';
import {
  descriptorJson,
  lastDayOf,
  manifestSums,
  MAX_PIECE_BYTES,
  MAX_RELEASE_ASSETS,
  monthStatuses,
  parseDescriptor,
  parseSums,
  PART_FORMAT,
  partNames,
  partsManifest,
  PartDescriptor,
  pieceNames,
  pieceRanges,
  releaseTag,
  rosterPageNames,
  rowObjectNames,
  sumsText,
  type DayEntry,
  type ListedPart,
  type MonthStatus,
} from '../src/outputs/month-parts.ts';
import { demoKeys, loadKeys, type TrustedKey } from '../collector/ops/verify-chain.ts';

const REPO_KEY = fileURLToPath(new URL('../keys/mcp-schema-ed25519.pub', import.meta.url));
const PART_JSON = 'part.json';
const SUMS = 'SHA256SUMS';

export const HELP = `usage: npm run months -- <command> [options]

The whole archive as one part per closed month: the month's record (day files of every series, its
runs' lines of runs.jsonl, their rosters, the hash chain up to the month, every raw object and page
manifest its rows and rosters name, the archive's keys/, the validation records scored in the
month) as <base>/ in <base>.tar.gz, with <base> = mcp-schema-<YYYY-MM> (-SIMULATED after it for
a simulated world). A part over --max-bytes is cut into <base>.tar.gz.001, .002, … (cat them in order). deploy.yml uploads each closed month once,
as the assets of the release data-<YYYY-MM>, and never replaces one.

commands:
  closed                  print the closed months (one per line): the last day is before --today
                          and every day file of the month is compacted; --all adds the others with why
  write --month M --out D write month M's part into the empty or new folder D: <base>.tar.gz (or its
                          pieces), <base>.json (what it holds, each published file's size and SHA-256)
                          and SHA256SUMS — exactly the release's assets. Refuses a month not closed.
  verify <path>...        check parts: a folder of a release's assets (SHA256SUMS, the descriptor,
                          each piece's size and hash, the joined file), a <base>.tar.gz, or an unpacked
                          part folder. Every file against the part's SHA256SUMS, every object and page
                          manifest against its name (a packed page joined), every validation record
                          against its name and part.json's list, every object the month's
                          rows and rosters name present, and the month's rows, run lines, rosters and
                          objects against the chain's manifests (src/archive/chain.ts digests,
                          src/lib checkManifest: links and signatures from the chain's start). Exit 1
                          on any problem.
  manifest --parts D --out O
                          write O/manifest.json and O/SHA256SUMS: every part whose descriptor is in D
                          or a folder under it (<base>.json), with the URL, size and SHA-256 of each
                          file to download (the site's /data/parts/)

options:
  --data <dir>            the archive (default: data/)
  --today <YYYY-MM-DD>    what "past" is measured against (default: today, UTC)
  --max-bytes <n>         largest published file (default ${MAX_PIECE_BYTES}: GitHub's assets must be < 2 GiB)
  --simulated             the archive is a simulated world (also MCP_SCHEMA_SIMULATED=1)
  --release-url <url>     manifest: an asset's URL, {tag} and {name} replaced
                          (e.g. https://github.com/OWNER/REPO/releases/download/{tag}/{name})
  --site-url <url>        manifest: where the months not in a part are meanwhile (the site's /data/)
  --key <file>            verify: an Ed25519 public key the chain may be signed with; repeatable
                          (default: keys/mcp-schema-ed25519.pub; DEMO keys from the part's keys/)
  --chain <path>          verify: also hold each part's chain against this one (an archive folder,
                          or a chain.jsonl such as the site's /data/chain.jsonl): the same manifests,
                          and no run of the month after the part's last
  --json                  print the result as JSON
  -h, --help              this text

environment: MCP_SCHEMA_STORE and its variables (src/archive/store-config.ts) when the archive's
objects live in a bucket; MCP_SCHEMA_SIMULATED.`;

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
interface MonthRecord {
  runIds: Set<string>;
  objectsByRun: Map<string, Set<string>>;
}

/** The month's runs (by their run row's day), in runs.jsonl order, with their lines. */
function monthRuns(dataDir: string, month: string): { ids: string[]; lines: string[]; byRun: Map<string, { lines: string[]; day: string; roster: string | null }> } {
  const runs = runsByRun(dataDir);
  const byRun = new Map<string, { lines: string[]; day: string; roster: string | null }>();
  for (const [id, r] of runs) if (r.ref && r.ref.day.startsWith(`${month}-`)) byRun.set(id, { lines: r.lines, day: r.ref.day, roster: r.ref.roster_file });
  const lines = existsSync(runsPath(dataDir)) ? splitLines(readFileSync(runsPath(dataDir), 'utf8')).filter((l) => byRun.has(lineRunId(l) ?? '')) : [];
  return { ids: [...byRun.keys()], lines, byRun };
}

/** Rows of the given runs in an archive-shaped folder's day files: the objects each names. */
async function rowObjects(dir: string, dayFiles: readonly string[], record: MonthRecord): Promise<void> {
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

function rosterObjects(dir: string, rosterFile: string | null): string[] {
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
async function cutPieces(file: string, ranges: { start: number; end: number }[], targets: string[]): Promise<{ bytes: number; sha256: string }[]> {
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

async function hashFile(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Every file under `dir`, relative with '/', sorted. */
function walk(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

// ---------------------------------------------------------------------------------------------- verify

export interface VerifyOptions {
  keys: readonly TrustedKey[];
  /** A published chain to hold each part's against (`--chain`: an archive folder, or a folder or path of chain.jsonl). */
  chain?: { dir: string; name: string };
}

export interface VerifyReport {
  parts: { month: string; where: string; runs: number; objects: number; files: number }[];
  problems: string[];
  warnings: string[];
}

/** Check parts (see HELP): folders of assets, .tar.gz files, or unpacked part folders. */
export async function verifyParts(targets: readonly string[], opts: VerifyOptions): Promise<VerifyReport> {
  const report: VerifyReport = { parts: [], problems: [], warnings: [] };
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'mcp-schema-verify-part-'));
  try {
    for (const target of targets) {
      if (!existsSync(target)) {
        report.problems.push(`${target}: no such file or folder`);
        continue;
      }
      if (statSync(target).isFile()) await verifyPacked(target, null, scratch, opts, report);
      else if (existsSync(path.join(target, PART_JSON))) await verifyFolder(target, target, opts, report);
      else await verifyAssets(target, scratch, opts, report);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return report;
}

/** A folder of release assets: its SHA256SUMS, then each descriptor's pieces, joined, unpacked and checked. */
async function verifyAssets(dir: string, scratch: string, opts: VerifyOptions, report: VerifyReport): Promise<void> {
  const problem = (m: string) => report.problems.push(m);
  const sumsFile = path.join(dir, SUMS);
  if (existsSync(sumsFile)) {
    try {
      for (const [name, sha] of parseSums(readFileSync(sumsFile, 'utf8'), sumsFile)) {
        const f = path.join(dir, path.basename(name));
        if (!existsSync(f)) problem(`${sumsFile}: lists ${name}, which is not in ${dir}`);
        else if ((await hashFile(f)) !== sha) problem(`${f}: its SHA-256 is not the one ${SUMS} lists`);
      }
    } catch (error) {
      problem((error as Error).message);
    }
  } else report.warnings.push(`${dir}: no ${SUMS}; the pieces are checked against their descriptor only`);
  const descriptors = readdirSync(dir).filter((f) => /^mcp-schema-\d{4}-\d{2}(-SIMULATED)?\.json$/.test(f)).sort();
  if (descriptors.length === 0) problem(`${dir}: no part here (no ${PART_JSON}, no mcp-schema-<YYYY-MM>.json descriptor)`);
  for (const name of descriptors) {
    let d: PartDescriptor;
    try {
      d = parseDescriptor(readFileSync(path.join(dir, name), 'utf8'), path.join(dir, name));
    } catch (error) {
      problem((error as Error).message);
      continue;
    }
    if (!d.file || !d.pieces) {
      problem(`${name}: names no published file (a descriptor beside the pieces lists them)`);
      continue;
    }
    const joined = path.join(scratch, d.file.name);
    const w = createWriteStream(joined);
    const whole = createHash('sha256');
    let ok = true;
    for (const p of d.pieces) {
      const f = path.join(dir, p.name);
      if (!existsSync(f)) {
        problem(`${d.month}: piece ${p.name} is missing`);
        ok = false;
        continue;
      }
      const h = createHash('sha256');
      let size = 0;
      for await (const chunk of createReadStream(f, { highWaterMark: 1 << 20 })) {
        h.update(chunk as Buffer);
        whole.update(chunk as Buffer);
        size += (chunk as Buffer).length;
        if (!w.write(chunk)) await once(w, 'drain');
      }
      const sha = h.digest('hex');
      if (size !== p.bytes || sha !== p.sha256) {
        problem(`${d.month}: ${p.name} is ${size} bytes hashing to ${sha.slice(0, 12)}…, its descriptor says ${p.bytes} bytes, ${p.sha256.slice(0, 12)}…`);
        ok = false;
      }
    }
    w.end();
    await once(w, 'close');
    if (!ok) continue;
    if (whole.digest('hex') !== d.file.sha256) {
      problem(`${d.month}: the pieces joined do not hash to ${d.file.name}'s SHA-256`);
      continue;
    }
    await verifyPacked(joined, d, scratch, opts, report, path.join(dir, d.pieces.length > 1 ? `${d.file.name}.*` : d.file.name));
    rmSync(joined, { force: true });
  }
}

/** A part's .tar.gz: unpacked (files only, inside its folder), then checked; `outer` is the descriptor it was published with. */
async function verifyPacked(file: string, outer: PartDescriptor | null, scratch: string, opts: VerifyOptions, report: VerifyReport, label: string = file): Promise<void> {
  const into = mkdtempSync(path.join(scratch, 'unpacked-'));
  const refused: string[] = [];
  try {
    await tar.x({
      file,
      cwd: into,
      strict: true,
      filter: (p, entry) => {
        const type = (entry as { type?: string }).type;
        const safe = (type === 'File' || type === 'OldFile' || type === 'Directory') && /^[A-Za-z0-9._-]+\/([A-Za-z0-9._-]+\/)*[A-Za-z0-9._-]*$/.test(p) && !p.split('/').includes('..');
        if (!safe) refused.push(p);
        return safe;
      },
    });
  } catch (error) {
    report.problems.push(`${label}: not a readable .tar.gz (${(error as Error).message.slice(0, 200)})`);
    rmSync(into, { recursive: true, force: true });
    return;
  }
  for (const p of refused) report.problems.push(`${label}: holds ${JSON.stringify(p.slice(0, 200))}, which is not a part's file (refused)`);
  const tops = readdirSync(into);
  if (tops.length !== 1) report.problems.push(`${label}: holds ${tops.length} top-level folders, not one`);
  else {
    const folder = path.join(into, tops[0]!);
    const inner = await verifyFolder(folder, label, opts, report);
    if (inner && outer) {
      const { file: _f, pieces: _p, ...published } = outer;
      if (descriptorJson(published) !== descriptorJson(inner)) report.problems.push(`${label}: its ${PART_JSON} is not the descriptor it was published with`);
      if (tops[0] !== outer.folder) report.problems.push(`${label}: its folder is ${tops[0]}, the descriptor says ${outer.folder}`);
    }
  }
  rmSync(into, { recursive: true, force: true });
}

/** An unpacked part: every check that needs only its own files and the keys. Returns its part.json when it parses. */
async function verifyFolder(dir: string, where: string, opts: VerifyOptions, report: VerifyReport): Promise<PartDescriptor | null> {
  const problem = (m: string) => report.problems.push(`${where}: ${m}`);
  const warn = (m: string) => report.warnings.push(`${where}: ${m}`);
  const files = walk(dir);

  // 1. Every file but the objects against SHA256SUMS; nothing else in the folder.
  let listed = new Map<string, string>();
  try {
    listed = parseSums(readFileSync(path.join(dir, SUMS), 'utf8'), SUMS);
  } catch (error) {
    problem(existsSync(path.join(dir, SUMS)) ? (error as Error).message : `no ${SUMS}`);
  }
  for (const [name, sha] of listed) {
    if (!files.includes(name)) problem(`${SUMS} lists ${name}, which is not in the part`);
    else if (sha256Hex(readFileSync(path.join(dir, name))) !== sha) problem(`${name}: its SHA-256 is not the one ${SUMS} lists`);
  }
  for (const f of files) if (f !== SUMS && !listed.has(f) && !STORE_KEY.test(f)) problem(`${f}: not in ${SUMS} and not an object`);

  let d: PartDescriptor | null = null;
  try {
    d = parseDescriptor(readFileSync(path.join(dir, PART_JSON), 'utf8'), PART_JSON);
  } catch (error) {
    problem(existsSync(path.join(dir, PART_JSON)) ? (error as Error).message : `no ${PART_JSON}`);
  }

  // 2. Every object and page manifest against its name (a packed page joined from its entries).
  const store = new FsObjectStore(dir);
  let objects = 0;
  for (const prefix of [`${LAYOUT.objects}/`, `${LAYOUT.pages}/`]) {
    for await (const key of store.list(prefix)) {
      objects++;
      const name = path.basename(key).replace(/\.json$/, '');
      const got = await checkObjectIn(store, name);
      if (!got.ok) problem(`${key}: ${got.message}`);
    }
  }

  // 2b. The validation records it carries: each named by the SHA-256 of its bytes, a valid record, and
  //     the ones part.json lists (src/archive/validations.ts reads them as the site does).
  const vals = readValidations(dir);
  for (const p of vals.problems) problem(`${p.file}: ${p.message}`);
  if (d) {
    const held = vals.records.map((r) => r.file).sort();
    const named = [...(d.validations ?? [])].sort();
    if (held.join('\n') !== named.join('\n')) problem(`${PART_JSON} lists validation records ${JSON.stringify(named)}, the part holds ${JSON.stringify(held)}`);
  }

  // 3. The month's runs against the chain: links and signatures from its start, and for each of the
  //    month's runs what the part holds (src/archive/chain.ts archiveDigests) against its manifest.
  const runs = runsByRun(dir);
  const partRuns = new Set(runs.keys());
  const digests = await archiveDigests(dir);
  const chain = readChain(dir);
  for (const p of chain.problems) problem(`${p.file}:${p.line}: ${p.message}`);
  const keys = [...opts.keys, ...demoKeys(dir)];
  const keyFor = (keyId: string) => {
    const fp = keyId.slice(-16);
    const pool = isDemoKey(keyId) ? keys : opts.keys;
    return pool.find((k) => k.fingerprint === fp)?.key ?? null;
  };
  let prev: ChainManifest | null = null;
  let unsigned = 0;
  const demo = new Set<string>();
  const chained = new Map<string, ChainManifest>();
  // A run is the part's when runs.jsonl holds it, or when the chain says it ran in the part's month
  // (a run taken out of the part is still on the chain it carries).
  const month = d?.month ?? null;
  for (const { n, manifest: m } of chain.manifests) {
    const ours = m.run_id !== null && (partRuns.has(m.run_id) || (month !== null && m.day !== null && m.day.startsWith(`${month}-`)));
    for (const p of checkManifest(m, prev, ours ? (digests.get(m.run_id!) ?? null) : null, keyFor)) {
      if (p.kind === 'chain-digest' && !ours) continue; // a run of an earlier month: its rows are in its own part
      problem(`${LAYOUT.chain}:${n}: ${p.message}`);
    }
    if (!m.signature) unsigned++;
    else if (isDemoKey(m.signature.key_id)) demo.add(m.signature.key_id);
    if (m.run_id !== null) chained.set(m.run_id, m);
    prev = m;
  }
  if (opts.chain) {
    // The part's chain is the published chain's start: the same manifest at each place, and none of the month's runs after it.
    const theirs = readChain(opts.chain.dir).manifests.map((l) => l.manifest);
    const ourEnd = chain.manifests.length;
    chain.manifests.forEach(({ manifest: m }, i) => {
      if (!theirs[i] || chainHash(theirs[i]!) !== chainHash(m)) problem(`${LAYOUT.chain}: manifest ${m.seq} is not the one at that place in ${opts.chain!.name}`);
    });
    for (const m of theirs.slice(ourEnd)) if (month !== null && m.day?.startsWith(`${month}-`)) problem(`run ${m.run_id}: on ${opts.chain.name} in ${month}, but not in the part`);
  }
  for (const k of demo) warn(`signed with the demo key ${k}: it proves only that nothing changed since the demo wrote it`);
  if (unsigned > 0) warn(`${unsigned} of ${chain.manifests.length} manifests are unsigned: the chain shows the part is consistent, not who wrote it`);
  const unchained = chain.manifests[0]?.manifest.kind === 'genesis' ? (chain.manifests[0].manifest.unchained_runs ?? 0) : 0;
  for (const id of partRuns) {
    if (chained.has(id)) continue;
    if (chain.manifests.length === 0 || unchained > 0) warn(`run ${id}: not on the chain (recorded before it began), so nothing pins its rows`);
    else problem(`run ${id}: in runs.jsonl but has no manifest on the part's chain`);
  }

  // 4. Every object the month's rows and rosters name is in the part, and that set is the chain's.
  const record: MonthRecord = { runIds: partRuns, objectsByRun: new Map([...partRuns].map((id) => [id, new Set<string>()])) };
  const dayFiles = rowSeriesFolders(dir).flatMap((folder) => listDays(dir, folder).flatMap((x) => x.files));
  await rowObjects(dir, dayFiles, record);
  for (const [id, r] of runs) for (const page of rosterObjects(dir, r.ref?.roster_file ?? null)) record.objectsByRun.get(id)!.add(page);
  const absent = new Set<string>();
  for (const [id, set] of record.objectsByRun) {
    const names = [...set].sort();
    if (digests.get(id) && linesDigest(names).sha256 !== digests.get(id)!.objects.sha256) problem(`run ${id}: the objects its rows and roster name here are not the set the chain's digest counts`);
    for (const name of names) {
      if (absent.has(name)) continue;
      const got = await checkObjectIn(store, name);
      if (!got.ok && 'missing' in got && got.missing) {
        absent.add(name);
        problem(`run ${id}: names object ${name.slice(0, 12)}…, which the part does not hold`);
      }
    }
  }

  // 5. part.json says what the folder holds.
  if (d) {
    const ids = [...partRuns];
    if (JSON.stringify(d.runs.map((r) => r.run_id)) !== JSON.stringify(ids)) problem(`${PART_JSON} lists runs ${d.runs.map((r) => r.run_id).join(', ')}, runs.jsonl holds ${ids.join(', ')}`);
    for (const r of d.runs) {
      const m = chained.get(r.run_id);
      if ((r.manifest?.sha256 ?? null) !== (m ? chainHash(m) : null)) problem(`${PART_JSON}: run ${r.run_id}'s manifest is not the one on the chain`);
    }
    if (JSON.stringify(d.day_files) !== JSON.stringify(dayFiles)) problem(`${PART_JSON} lists day files ${d.day_files.join(', ')}, the part holds ${dayFiles.join(', ')}`);
    if (d.objects !== objects) problem(`${PART_JSON} counts ${d.objects} objects, the part holds ${objects}`);
    for (const f of dayFiles) if (!f.includes(`/${d.month}-`)) problem(`${f}: not a day of ${d.month}`);
    report.parts.push({ month: d.month, where, runs: partRuns.size, objects, files: files.length });
  }
  return d;
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

// ------------------------------------------------------------------------------------------------- CLI

/** A chain.jsonl given by its path (e.g. the site's /data/chain.jsonl), as the archive folder readChain reads. */
function chainFileAsArchive(file: string): { dir: string; name: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-schema-chain-'));
  copyFileSync(file, path.join(dir, LAYOUT.chain));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { dir, name: file };
}

/** The CLI's options (HELP names each; test/outputs/month-parts-cli.test.ts holds them to it). */
export const OPTIONS = {
  data: { type: 'string', default: 'data' },
  month: { type: 'string' },
  out: { type: 'string' },
  parts: { type: 'string' },
  today: { type: 'string' },
  all: { type: 'boolean', default: false },
  'max-bytes': { type: 'string' },
  simulated: { type: 'boolean', default: false },
  'release-url': { type: 'string' },
  'site-url': { type: 'string' },
  key: { type: 'string', multiple: true },
  chain: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

export const COMMANDS = ['closed', 'write', 'verify', 'manifest'] as const;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return values.help || command === 'help' ? 0 : 2;
  }
  const today = values.today ?? new Date().toISOString().slice(0, 10);
  const simulated = values.simulated || process.env.MCP_SCHEMA_SIMULATED === '1';
  const print = (value: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(value, null, 2)}\n` : text);

  if (command === 'closed') {
    const months = archiveMonths(values.data, today);
    const shown = values.all ? months : months.filter((m) => m.closed);
    print(shown, shown.map((m) => (values.all ? `${m.month}\t${m.closed ? 'closed' : `open: ${m.reason}`}\n` : `${m.month}\n`)).join(''));
    return 0;
  }
  if (command === 'write') {
    if (!values.month || !values.out) throw new Error('write needs --month YYYY-MM and --out <dir>');
    const maxPieceBytes = values['max-bytes'] === undefined ? MAX_PIECE_BYTES : Number(values['max-bytes']);
    if (!Number.isSafeInteger(maxPieceBytes) || maxPieceBytes < 1 || maxPieceBytes > MAX_PIECE_BYTES) throw new Error(`--max-bytes must be an integer from 1 to ${MAX_PIECE_BYTES}`);
    const d = await writeMonthPart(values.data, values.month, { out: values.out, store: openObjectStore(values.data, process.env), simulated, today, maxPieceBytes });
    print(d, `wrote ${d.tag}: ${d.file!.name} (${d.file!.bytes} bytes${d.pieces!.length > 1 ? `, in ${d.pieces!.length} pieces` : ''}), ${d.runs.length} runs, ${d.day_files.length} day files, ${d.objects} objects, into ${values.out}\n`);
    return 0;
  }
  if (command === 'verify') {
    if (rest.length === 0) throw new Error('verify needs a folder or a .tar.gz');
    const keys = loadKeys(values.key ?? (existsSync(REPO_KEY) ? [REPO_KEY] : []));
    const chain = values.chain === undefined ? undefined : statSync(values.chain).isDirectory() ? { dir: values.chain, name: path.join(values.chain, LAYOUT.chain) } : chainFileAsArchive(values.chain);
    const r = await verifyParts(rest, { keys, ...(chain ? { chain } : {}) });
    const text = [
      ...r.parts.map((p) => `ok ${p.month}: ${p.runs} runs, ${p.objects} objects, ${p.files} files (${p.where})\n`),
      ...r.warnings.map((w) => `warning: ${w}\n`),
      ...r.problems.map((p) => `PROBLEM: ${p}\n`),
      r.problems.length === 0 ? `verified ${r.parts.length} part${r.parts.length === 1 ? '' : 's'}\n` : `${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}\n`,
    ].join('');
    print(r, text);
    return r.problems.length === 0 && r.parts.length > 0 ? 0 : 1;
  }
  if (command === 'manifest') {
    if (!values.parts || !values.out || !values['release-url'] || !values['site-url']) throw new Error('manifest needs --parts <dir>, --out <dir>, --release-url <url> and --site-url <url>');
    const parts = readDescriptors(values.parts);
    const inParts = new Set(parts.map((p) => p.descriptor.month));
    const notInParts = existsSync(values.data) ? archiveMonths(values.data, today).map((m) => m.month).filter((m) => !inParts.has(m)) : [];
    const files = writePartsManifest(parts, values.out, { releaseUrl: values['release-url'], siteUrl: values['site-url'], notInParts, simulated });
    print({ parts: parts.length, ...files }, `wrote ${files.manifest} (${parts.length} part${parts.length === 1 ? '' : 's'}) and ${files.sums}\n`);
    return 0;
  }
  throw new Error(`unknown command ${JSON.stringify(command.slice(0, 40))} (closed, write, verify, manifest; --help)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`months: ${(e as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
