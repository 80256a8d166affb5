// The monthly parts' checker (npm run months -- verify; scripts/month-parts.ts is the command): a
// folder of a release's assets, a .tar.gz or an unpacked part, each against its sums, its descriptor
// and the hash chain.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { archiveDigests, linesDigest, readChain, rowSeriesFolders, runsByRun } from '../src/archive/chain.ts';
import { listDays } from '../src/archive/day-files.ts';
import { LAYOUT } from '../src/archive/layout.ts';
import { FsObjectStore, STORE_KEY } from '../src/archive/object-store.ts';
import { checkObjectIn } from '../src/archive/objects.ts';

import { readValidations } from '../src/archive/validations.ts';

import { chainHash, checkManifest, isDemoKey, sha256Hex, type ChainManifest } from '../src/lib/index.ts';
import { descriptorJson, parseDescriptor, parseSums, PartDescriptor } from '../src/outputs/month-parts.ts';
import { demoKeys, type TrustedKey } from '../collector/ops/verify-chain.ts';
import { hashFile, PART_JSON, rosterObjects, rowObjects, SUMS, walk, type MonthRecord } from './month-parts-write.ts';

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
