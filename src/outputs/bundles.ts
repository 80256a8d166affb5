// The /data/ downloads, written after the pages (see the integration in astro.config.mjs). Nothing is
// assembled in memory whole, and a year is not recompressed every day:
//   - a gzip file may hold several members back to back (RFC 1952 §2.2; gunzip, zcat, Python, R and
//     Node read them as one stream), so each month's observations.jsonl.gz is its days' members
//     concatenated: a closed, clean day is its compacted <day>.jsonl.gz copied byte for byte; an open
//     day or one with invalid lines is re-gzipped from its valid lines (verbatim), and that member is
//     cached by the day's content hash; the CSV member of every day is cached the same way (with a
//     file host, the deploy's build, members and fetched days are scratch, removed once copied); the
//     whole-archive files are the months' members concatenated again;
//   - with a file host, closed months already there are not written again (sealed-months.ts);
//   - SHA-256 is computed on the bytes as they are written, never by reading a file back — except the
//     Parquet files (parquet.ts), which DuckDB writes and which are hashed once after.
// Where each file goes (the site or a release folder) is decided in catalogue.ts. Days are read through
// src/archive's observation reader; the bundles are a function of the loaded archive, the output
// folders, the cache folder and the Publication: no environment.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { observationLines, observationV2Lines } from '../archive/observations.ts';
import type { Archive, DayInfo } from '../loader/views.ts';
import type { V2DayInfo } from '../loader/v2-summary.ts';
import { bundledAsIs, csvLine, csvOf, csvOfV2, dayMembers, memberPaths, rosterMemberPath, SERIES_COLUMNS, writeRosterMember } from './members.ts';
import { chainPath } from '../archive/layout.ts';
import { storeFor } from '../archive/objects.ts';
import { rosterFileOnDisk } from '../archive/rosters.ts';
import { isLocal, materialize, readStoredIndex, storedRosterPath, type StoredIndex } from '../archive/stored-files.ts';
import { INTERVAL_FIELDS, ROW_SERIES, v2Months, type RowSeries, chainHeadJson, datapackage, changeRecord, citationCff, licenceData, LICENCE_CODE, plannedBundles, bundleUrl, bundledArchive, type BundleFile } from './catalogue.ts';
import { HashedFile } from './hashed-file.ts';
import { writeParquetBundles } from './parquet.ts';
import { SIMULATED_NOTE, simulatedName, type Publication } from './publication.ts';
import { survivalCsv } from './survival-csv.ts';
import { FAMILY_FIELDS, familyRecords } from './families-download.ts';
import { familiesOf } from '../loader/families.ts';
import { fileHostUrl } from './file-host.ts';
import type { SealedBundles } from '../lib/index.ts';
import { reusedEntry, sealableMonth, sealPlan, writeSealRecord } from './sealed-months.ts';

export interface WrittenBundles {
  /** Files under <site>/data/, listed in its SHA256SUMS and datapackage.json. */
  site: BundleFile[];
  /** Files in the release folder (Publication.releaseDir), with their own SHA256SUMS; [] without one. */
  release: BundleFile[];
}

/**
 * Write /data/ under `outDir` (and the release folder), caching members under `cacheDir`. `written`
 * are files other outputs already wrote (the bulk descriptors, server-files.ts): described in
 * datapackage.json, and listed in the SHA256SUMS of the folder they are in (/data/ or the release).
 */
export async function writeBundles(
  archive: Archive,
  outDir: string,
  opts: {
    pub: Publication;
    cacheDir: string;
    written?: readonly { file: BundleFile; where: 'data' | 'release' | 'api' }[];
    onStage?: (stage: string, ms: number, extra?: Record<string, unknown>) => void;
    /** The sealed-months record the last upload kept (sealed-months.ts; null or absent: none). */
    sealed?: SealedBundles | null;
    /**
     * The bundles step's build (src/site/bundles-step.ts, with a file host and the recent months only):
     * write the months' raw files the record lacks, open month included, and the record; nothing else.
     * `archive` may then be a month view (src/loader/month-view.ts): only its months and days are read.
     */
    monthsOnly?: boolean;
  },
): Promise<WrittenBundles> {
  const { pub } = opts;
  const monthsOnly = opts.monthsOnly ?? false;
  if (monthsOnly && !(pub.fileHost && pub.partsOnly)) throw new Error('the month bundles alone are written for a file host with the recent months only (MCP_SCHEMA_FILES_DIR and MCP_SCHEMA_RELEASE=parts)');
  // With partsOnly, the recent months alone: no whole-archive file, no day read outside them.
  const a = bundledArchive(archive, pub);
  const wholeFiles = !pub.partsOnly;
  const t0 = performance.now();
  const siteDir = path.join(outDir, 'data');
  const relDir = pub.releaseDir;
  await mkdir(siteDir, { recursive: true });
  if (relDir) await mkdir(relDir, { recursive: true });
  // The month bundles alone are all the site's (the recent months): no plan of the rest is needed.
  const where = new Map(monthsOnly ? [] : plannedBundles(a, pub).map((b) => [b.name, b.where]));
  const dirOf = (name: string) => (where.get(name) === 'release' && relDir ? relDir : siteDir);
  const site: BundleFile[] = [];
  const release: BundleFile[] = [];
  // A /data/ file the file host serves (file-host.ts) is described by its URL there.
  const siteFile = (f: BundleFile): BundleFile => {
    const url = fileHostUrl(pub, `/data/${f.name}`);
    return url ? { ...f, url } : f;
  };
  const record = (f: BundleFile) => (dirOf(f.name) === siteDir ? site.push(siteFile(f)) : release.push({ ...f, url: bundleUrl(f.name, 'release', pub) }));
  // A simulated build's data files carry -SIMULATED in their names (publication.ts simulatedName).
  const nm = (name: string) => simulatedName(name, pub);
  // Closed months already on the file host are taken from the record, not written (sealed-months.ts).
  const seal = sealPlan(a, pub, opts.sealed ?? null, { all: monthsOnly });
  const reused = (month: string) => seal?.reuse.has(month) ?? false;
  // With a file host the build is the deploy's, whose carried cache leaves members out (deploy.yml):
  // a day's members and the day files fetched for them are scratch, removed once copied into the
  // month's parts, so the disk holds a day of them, not a month.
  const members = new Members(a, opts.cacheDir, seal !== null);
  // Each month's JSON Lines part, by series: Parquet reads its rows from it (one file, every day's
  // member in order: the same rows as the day files), so no day is needed once its part is written.
  const partFiles = new Map<string, string>();

  // Each row series (catalogue.ts ROW_SERIES), per month (the days' members) and whole (the months'
  // members), JSON Lines and CSV, one writer for both series; Parquet below, from the months' parts.
  const seriesFiles = async (series: RowSeries, months: readonly string[], days: readonly { day: string; rows: number; files: string[] }[], member: (i: number) => Promise<{ jsonl: string; csv: string }>, opts2: { emptyWhole: boolean }) => {
    const base = ROW_SERIES[series].base;
    const header = gzipSync(csvLine(SERIES_COLUMNS[series]));
    const wholeNames = { jsonl: nm(`${base}.jsonl.gz`), csv: nm(`${base}.csv.gz`) };
    // Without whole files (partsOnly) the copies go nowhere: a HashedFile(null) only hashes.
    const whole = { jsonl: new HashedFile(wholeFiles ? path.join(dirOf(wholeNames.jsonl), wholeNames.jsonl) : null), csv: new HashedFile(wholeFiles ? path.join(dirOf(wholeNames.csv), wholeNames.csv) : null) };
    await whole.csv.write(header);
    if (opts2.emptyWhole) await whole.jsonl.write(gzipSync('')); // an empty archive still downloads as valid gzip
    let wholeRows = 0;
    for (const month of months) {
      const names = { jsonl: nm(`${base}-${month}.jsonl.gz`), csv: nm(`${base}-${month}.csv.gz`) };
      if (reused(month)) {
        for (const name of [names.jsonl, names.csv]) site.push(reusedEntry(seal!, month, name));
        continue;
      }
      const part = { jsonl: new HashedFile(path.join(dirOf(names.jsonl), names.jsonl)), csv: new HashedFile(path.join(dirOf(names.csv), names.csv)) };
      await part.csv.write(header);
      let monthRows = 0;
      for (let i = 0; i < days.length; i++) {
        const day = days[i]!;
        if (!day.day.startsWith(month)) continue;
        const m = await member(i);
        await part.jsonl.copy(m.jsonl);
        await whole.jsonl.copy(m.jsonl);
        await part.csv.copy(m.csv);
        await whole.csv.copy(m.csv);
        members.done(day, m);
        monthRows += day.rows;
      }
      partFiles.set(`${series}:${month}`, path.join(dirOf(names.jsonl), names.jsonl));
      record({ name: names.jsonl, resource: series, rows: monthRows, ...(await part.jsonl.end()) });
      record({ name: names.csv, resource: series, rows: monthRows, ...(await part.csv.end()) });
      wholeRows += monthRows;
    }
    if (wholeFiles) {
      record({ name: wholeNames.jsonl, resource: series, rows: wholeRows, ...(await whole.jsonl.end()) });
      record({ name: wholeNames.csv, resource: series, rows: wholeRows, ...(await whole.csv.end()) });
    }
  };
  await seriesFiles('observations', a.months, a.dayFiles, (i) => members.of(a.dayFiles[i]!), { emptyWhole: true });

  const small = async (name: string, resource: BundleFile['resource'], rows: number | null, bytes: string | Buffer) => {
    const file = new HashedFile(path.join(dirOf(name), name));
    await file.write(typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
    record({ name, resource, rows, ...(await file.end()) });
  };

  if (!monthsOnly) await small(nm('runs.jsonl'), 'runs', a.runs.length, a.runs.map((r) => JSON.stringify(r) + '\n').join(''));

  // Methodology v2 (observations-v2/), when the archive holds it: JSON Lines and CSV per month and
  // whole, the days' members built as v1's are (verbatim lines; a closed clean day copied as it stands;
  // CSV with each list as its JSON text), and its run rows.
  const v2 = a.v2;
  if (v2 && v2.dayFiles.length > 0) {
    await seriesFiles('observations-v2', v2Months(a), v2.dayFiles, (i) => members.ofV2(v2.dayFiles[i]!), { emptyWhole: false });
    if (!monthsOnly) await small(nm('runs-v2.jsonl'), 'runs-v2', v2.runs.length, v2.runs.map((r) => JSON.stringify(r) + '\n').join(''));
  }
  if (!monthsOnly) await siteWideFiles();

  // Parquet (parquet.ts): from the months' parts and roster members, written by DuckDB, then hashed.
  const t1 = performance.now();
  opts.onStage?.('bundles-jsonl', t1 - t0);
  const parquet = await writeParquetBundles(a, {
    pub,
    cacheDir: opts.cacheDir,
    target: (name) => path.join(dirOf(nm(name)), nm(name)),
    skip: (name) => {
      const month = sealableMonth(name);
      return month === null ? monthsOnly : reused(month);
    },
    prune: seal !== null,
    sources: {
      dayMembers: async (month) => [partFiles.get(`observations:${month}`)!],
      v2DayMembers: async (month) => [partFiles.get(`observations-v2:${month}`)!],
      rosterMembers: async (month) => {
        const files: string[] = [];
        for (const file of a.rosterFiles.filter((f) => f.startsWith(month))) {
          const m = await members.roster(file);
          if (m) files.push(m);
        }
        return files;
      },
    },
  });
  for (const p of parquet) {
    if (p.file === null) {
      // Skipped: a reused month's file (its recorded entry), or with monthsOnly a site-wide one (none).
      if (sealableMonth(p.name) !== null) site.push(reusedEntry(seal!, sealableMonth(p.name)!, nm(p.name)));
      continue;
    }
    const hashed = new HashedFile(null);
    await hashed.copy(p.file);
    record({ name: nm(p.name), resource: p.resource, rows: p.rows, ...(await hashed.end()) });
  }
  opts.onStage?.('parquet', performance.now() - t1, { files: parquet.length, rows: parquet.reduce((n, p) => n + (p.resource === 'observations' ? p.rows : 0), 0) });
  members.finish();
  if (monthsOnly) {
    await writeSealRecord(seal!, pub.fileHost!.dir, site, nm);
    members.prune();
    return { site, release };
  }

  // Files besides the rows: the site build's (siteWideFiles, above; the chain, licences, the datapackage and SHA256SUMS, below).
  async function siteWideFiles(): Promise<void> {
    // Drift events with their findings (oldest first, as an append-only log reads), streamed through gzip.
    const changesName = nm('changes.jsonl.gz');
    const changes = new HashedFile(path.join(dirOf(changesName), changesName));
    await changes.gzipLines(
      (function* () {
        for (let i = a.changes.length - 1; i >= 0; i--) {
          yield JSON.stringify(changeRecord(a.changes[i]!)) + '\n';
        }
      })(),
    );
    record({ name: changesName, resource: 'changes', rows: a.changes.length, ...(await changes.end()) });

    // Contract intervals: enough to redo the survival estimate elsewhere.
    const intervals = [csvLine(INTERVAL_FIELDS.map((f) => f.name)), ...a.intervals.map((i) => csvLine(INTERVAL_FIELDS.map((f) => i[f.name as keyof typeof i])))].join('');
    await small(nm('contract-intervals.csv'), 'contract-intervals', a.intervals.length, intervals);
    await small(nm('survival.csv'), 'survival', a.km.length, survivalCsv(a, pub.simulated));
    // Contract families (families-download.ts): one row per stretch of membership, JSON Lines and CSV.
    const families = familyRecords(await familiesOf(archive));
    await small(nm('families.jsonl'), 'families', families.length, families.map((r) => JSON.stringify(r) + '\n').join(''));
    await small(nm('families.csv'), 'families', families.length, [csvLine(FAMILY_FIELDS.map((f) => f.name)), ...families.map((r) => csvLine(FAMILY_FIELDS.map((f) => r[f.name])))].join(''));

    // Roster snapshots: one validated roster per line, each file's member cached by its content.
    const rostersName = nm('rosters.jsonl.gz');
    if (wholeFiles) {
      const rosters = new HashedFile(path.join(dirOf(rostersName), rostersName));
      let rosterCount = 0;
      for (const file of a.rosterFiles) {
        const m = await members.roster(file);
        if (m) {
          await rosters.copy(m);
          rosterCount++;
        }
      }
      record({ name: rostersName, resource: 'rosters', rows: rosterCount, ...(await rosters.end()) });
    }
  }

  // The hash chain and its head (src/archive/chain.ts): SHA256SUMS lists them, so it carries the head.
  if (a.chain.head) {
    await small(simulatedName('chain.jsonl', pub), 'chain', a.chain.manifests, readFileSync(chainPath(a.dir)));
    await small(simulatedName('chain-head.json', pub), null, null, chainHeadJson(a, pub));
  }

  // Files other outputs wrote: under /data/ (this SHA256SUMS), in the release folder (its SHA256SUMS),
  // or elsewhere on the site (datapackage.json only, by URL).
  const elsewhere: BundleFile[] = [];
  for (const { file, where } of opts.written ?? []) (where === 'data' ? site : where === 'release' ? release : elsewhere).push(file);

  await small('LICENSE-DATA.txt', null, null, licenceData(pub));
  await small('LICENSE-CODE.txt', null, null, `${pub.simulated ? `${SIMULATED_NOTE}\n\n` : ''}${LICENCE_CODE}`);
  await small('CITATION.cff', null, null, citationCff(a, pub));
  // The datapackage describes every published file: the site's. The release folder is not published
  // (closed months are immutable parts of their own, /data/parts/manifest.json), so no
  // resource may point into it.
  const described = [...site, ...elsewhere];
  await small('datapackage.json', null, null, JSON.stringify(datapackage(a, described, pub), null, 2) + '\n');

  await writeFile(path.join(siteDir, 'SHA256SUMS'), site.map((f) => `${f.sha256}  ${f.name}\n`).join(''));
  if (seal) await writeSealRecord(seal, pub.fileHost!.dir, site, nm);
  // With the file host, members no month of this build used (written by the loader's workers, or left by an earlier build) go.
  members.prune();
  if (relDir) await writeFile(path.join(relDir, 'SHA256SUMS'), release.map((f) => `${f.sha256}  ${f.name}\n`).join(''));
  return { site, release };
}

/** A day's gzip members (JSONL verbatim, CSV without header), from the archive or the build cache. */
class Members {
  constructor(
    private readonly a: Archive,
    private readonly cacheDir: string,
    /** Members and fetched day files are removed once copied (`done`), not kept for the next build. */
    private readonly scratch: boolean,
  ) {}

  private index: StoredIndex | null = null;
  /** Day files this build fetched from the object store (never a file that was in the folder). */
  private readonly fetched = new Set<string>();
  /** Member files this build used: the rest of members/ is pruned at the end. */
  private readonly used = new Set<string>();
  /** Bring files kept only in the object store (stored.jsonl) into the archive folder before they are read. */
  private async bring(files: readonly string[]): Promise<void> {
    for (const f of files) if (!isLocal(this.a.dir, f) && (await materialize(this.a.dir, f, (this.index ??= readStoredIndex(this.a.dir)), storeFor(this.a.dir))) === 'fetched') this.fetched.add(f);
  }

  /** A day's members are in its month's parts: with `scratch`, remove them and the day files this build fetched. */
  done(day: { files: string[] }, m: { jsonl: string; csv: string }): void {
    if (!this.scratch) return;
    this.release(day.files);
    for (const file of [m.jsonl, m.csv]) {
      if (!file.startsWith(this.cacheDir + path.sep)) continue; // the day file itself, not a member
      rmSync(file, { force: true });
      this.used.delete(file);
    }
  }

  /** With `scratch`, remove every member file this build did not use (another build may share a cache that is not scratch). */
  prune(): void {
    const dir = path.join(this.cacheDir, 'members');
    if (!this.scratch || !existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (!this.used.has(file) && !name.includes('.tmp')) rmSync(file, { force: true });
    }
  }

  /** A v1 day's members: JSON Lines (its valid lines verbatim, or the day's own file when closed and clean) and CSV. */
  of(day: DayInfo): Promise<{ jsonl: string; csv: string }> {
    return this.members(day, memberPaths(this.cacheDir, day.key), (files, trusted) => observationLines(this.a.dir, files, { trusted }), csvOf);
  }

  /** The same for a v2 day (observations-v2/). */
  ofV2(day: V2DayInfo): Promise<{ jsonl: string; csv: string }> {
    return this.members(day, memberPaths(this.cacheDir, day.key, 'observations-v2'), (files, trusted) => observationV2Lines(this.a.dir, files, { trusted }), csvOfV2);
  }

  private async members<R>(
    day: { day: string; files: string[]; problems: number },
    m: { jsonl: string; csv: string },
    lines: (files: { day: string; files: string[] }, trusted: boolean) => AsyncIterable<{ text: string; row: { ok: true; value: R } | { ok: false } | null }>,
    csv: (row: R) => string,
  ): Promise<{ jsonl: string; csv: string }> {
    const files = { day: day.day, files: day.files };
    const direct = bundledAsIs(files, day.problems) ? path.join(this.a.dir, day.files[0]!) : null;
    if (!direct) this.used.add(m.jsonl);
    this.used.add(m.csv);
    if (direct || !existsSync(m.jsonl) || !existsSync(m.csv)) await this.bring(day.files);
    if ((direct || existsSync(m.jsonl)) && existsSync(m.csv)) return { jsonl: direct ?? m.jsonl, csv: m.csv };
    // The loader validated every line of this day (its digest has the same key): a day without
    // problems needs no second validation; one with problems is filtered line by line again.
    const kept: string[] = [];
    const rows: string[] = [];
    for await (const { text, row } of lines(files, day.problems === 0)) {
      if (!row?.ok) continue;
      kept.push(text + '\n');
      rows.push(csv(row.value));
    }
    dayMembers(files, kept, rows, day.problems, m);
    return { jsonl: direct ?? m.jsonl, csv: m.csv };
  }

  /** One roster file as a gzip member holding its validated JSON on one line, or null when invalid. */
  async roster(file: string): Promise<string | null> {
    const stored = storedRosterPath(file);
    if (stored && rosterFileOnDisk(this.a.dir, file) === null && (this.index ??= readStoredIndex(this.a.dir)).files.has(stored)) await this.bring([stored]);
    const member = await rosterMemberPath(this.a.dir, file, this.cacheDir);
    if (!member) return null;
    this.used.add(member);
    const out = existsSync(member) ? member : writeRosterMember({ archive: this.a.dir, file, member });
    // The member holds what Parquet reads of the roster: a fetched roster file can go now.
    if (this.scratch && stored) this.release([stored]);
    return out;
  }

  /** After the last reader (Parquet): with `scratch`, the roster members go too. */
  finish(): void {
    if (!this.scratch) return;
    for (const file of this.used) {
      if (!file.endsWith('.roster.gz')) continue;
      rmSync(file, { force: true });
      this.used.delete(file);
    }
  }

  /** Remove the files among `files` this build fetched. */
  private release(files: readonly string[]): void {
    for (const f of files) if (this.fetched.delete(f)) rmSync(path.join(this.a.dir, f), { force: true });
  }
}
