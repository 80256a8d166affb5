// Monthly editions (methodology v1, "Editions"): a frozen, citable copy of what the site
// showed as of the first full run of a month — tiles, the survival chart (SVG, PNG, CSV, zip), the
// error-class table, citations, a README and a page — with the data as of that run, a SHA256SUMS, a
// signature when a key is given, and the chain manifest of its run.
//
// Immutability is by storage, not by recomputation: newer site code would not draw the same bytes, so
// an edition is CUT once into the archive (editions/<id>/, small files, committed with the data) and
// the site copies it verbatim (src/outputs/editions.ts). Cutting is idempotent: nothing happens when
// the month's edition exists or its first full run has not happened yet. A restatement publishes a
// revision beside it (`<month>-r<n>`, with a note); the original is never touched.
//
// The data as of the run are read from a view of the archive cut at that run (cut-view.ts: every
// file of an earlier day as it is, the run's own day filtered to the runs up to it), loaded by the
// same loader the site uses. The bundles (docs/DESIGN.md, "Editions"): each month's observations are
// published once, as a whole month, by the first edition cut after the month closed; an edition
// carries its own month up to its run, the runs, the changes and the contract intervals as of its
// run, and names the earlier months by the files, SHA-256 and permanent URLs of the editions that
// published them. Without a release folder (the demo, tests) the files live in the edition's
// bundles/ folder and are published with it; with one (the real archive), they are written there to
// be uploaded as assets of the release `edition-<id>` and only their manifest stays in the archive.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chainHash, Edition, headlineMethodology, signBytes, type AnyRun, type ChainSigner, type EditionBundle } from '../lib/index.ts';
import { readChain } from '../archive/chain.ts';
import { listDays, readDayLines, type DayFiles } from '../archive/day-files.ts';
import { readEditions } from '../archive/editions.ts';
import { EDITION_ID, editionDir, LAYOUT, SERIES_FOLDER } from '../archive/layout.ts';
import { readRuns, runsOf } from '../archive/runs.ts';
import { tempName } from '../archive/atomic.ts';
import { loadArchive, forgetArchive, type Archive } from '../loader/load-archive.ts';
import { changeRecord, INTERVAL_FIELDS } from '../outputs/catalogue.ts';
import { csvLine } from '../outputs/members.ts';
import { cffDoiLines, simulatedName, SIMULATED_NOTE, type Publication } from '../outputs/publication.ts';
import { survivalCitation, type ChartContext } from '../outputs/survival-export.ts';
import { survivalFiles, survivalZip } from '../outputs/survival-files.ts';
import { archiveCutAt } from './cut-view.ts';
import { editionPage, editionReadme, errorClassCsv, tilesJson } from './edition-files.ts';

export interface CutOptions {
  /** The month to cut (YYYY-MM). */
  month: string;
  /** Revise this edition (`<month>` or `<month>-r<n>`) instead, with a note; the original stays. */
  revise?: { note: string } | null;
  /** Permanent URLs (the site's) and whether the archive is simulated. */
  pub: Pick<Publication, 'permalink' | 'simulated' | 'conceptDoi'>;
  signer: ChainSigner | null;
  /** The loader's build cache (shared with the site's), and the source root its day-summary workers import from. */
  cache: { dir: string; sourceRoot: string } | null;
  /** Where the bundles go to be uploaded as release assets, and their public base URL (with `{edition}`); null: into the edition. */
  release: { dir: string; url: string } | null;
  /** When the cut happens (edition.json cut_at). */
  now: Date;
  /** The bridge's length the headline waits for (the site's MCP_SCHEMA_BRIDGE_DAYS); default BRIDGE_DAYS. */
  bridgeDays?: number;
}

export type CutResult = { status: 'cut'; id: string; dir: string; files: string[] } | { status: 'exists'; id: string } | { status: 'no-full-run'; month: string };

/** What an edition reads of its run (a v1 run row, or a v2 one once v1 has stopped). */
export type EditionRun = Pick<AnyRun, 'run_id' | 'day' | 'finished_at' | 'partial' | 'status' | 'methodology_version'>;

/** The first full run of a month: finished, not partial, in the order given (runs.jsonl order). */
export function firstFullRun<R extends EditionRun>(runs: readonly R[], month: string): R | null {
  return runs.find((r) => r.day.startsWith(month) && !r.partial && r.status === 'finished') ?? null;
}

/**
 * The runs an edition may be cut from: the headline's. Every v1 run (during the bridge each run has a
 * v1 row, and v1 is what the headline shows until the bridge is complete), then — once the collector
 * records v2 alone after the bridge — the v2 runs no v1 row shares a run_id with. Without these, no
 * edition could be cut after the bridge.
 */
export function editionRuns(all: readonly AnyRun[]): EditionRun[] {
  const v1 = runsOf(all, 'v1');
  const v1Ids = new Set(v1.map((r) => r.run_id));
  const v2Only = runsOf(all, 'v2').filter((r) => !v1Ids.has(r.run_id));
  return [...v1, ...v2Only];
}

export async function cutEdition(dir: string, o: CutOptions): Promise<CutResult> {
  if (!/^\d{4}-\d{2}$/.test(o.month)) throw new Error(`not a month: ${JSON.stringify(o.month)}`);
  const { editions } = readEditions(dir);
  const revisions = editions.filter((e) => e.edition.month === o.month);
  const id = o.revise ? `${o.month}-r${Math.max(0, ...revisions.map((e) => e.edition.revision)) + 1}` : o.month;
  if (!EDITION_ID.test(id)) throw new Error(`bad edition id ${id}`);
  if (!o.revise && existsSync(editionDir(dir, id))) return { status: 'exists', id };
  if (o.revise && revisions.length === 0) throw new Error(`no edition ${o.month} to revise`);
  // The headline's runs: v1's, then v2's once v1 has stopped (DESIGN "The headline series").
  const runs = editionRuns(readRuns(dir).runs);
  const run = o.revise ? runs.find((r) => r.run_id === revisions[0]!.edition.cut_from_run) ?? null : firstFullRun(runs, o.month);
  if (!run) return { status: 'no-full-run', month: o.month };

  const url = o.pub.permalink(`/editions/${id}/`);
  const view = await archiveCutAt(dir, run.run_id, o.cache?.dir ?? null);
  try {
    forgetArchive(view.dir);
    const a = await loadArchive(view.dir, { ...(o.cache ? { cache: o.cache } : {}), ...(o.bridgeDays !== undefined ? { bridgeDays: o.bridgeDays } : {}) });
    // What the figures rest on, from the headline's own decision on the archive as of the run (not the
    // run row's series: after the bridge the figures are v2 stitched onto v1, whichever row it was cut from).
    const methodology = headlineMethodology(a.headline);
    // Written into a hidden temp folder and renamed into place whole: a reader never sees half an edition,
    // and a cut that fails leaves nothing behind (readEditions skips hidden folders meanwhile).
    const stage = path.join(dir, LAYOUT.editions, `.${path.basename(tempName(id))}`);
    mkdirSync(stage, { recursive: true });
    try {
      const files = new Map<string, Buffer>();
      const put = (name: string, bytes: Buffer | string) => files.set(name, typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);

      // The chart and the tables, with the edition's context.
      const ctx: ChartContext = { url, edition: id, asOfDay: run.day, methodology, simulated: o.pub.simulated, doi: o.pub.conceptDoi ?? null };
      const chart = await survivalFiles(a, ctx);
      put('schema-survival.svg', chart.svg);
      put('schema-survival.png', chart.png);
      put('schema-survival.csv', chart.csv);
      put(simulatedName('schema-survival.zip', o.pub), survivalZip(chart));
      put('tiles.json', tilesJson(a, ctx));
      put('error-classes.csv', errorClassCsv(a, o.pub.simulated));
      const cite = survivalCitation(ctx);
      put('citation.txt', `${cite.plain}\n`);
      put('citation.bib', `${cite.bibtex}\n`);
      put('CITATION.cff', citationCff(id, url, run.day, methodology, o.pub));

      // The data as of the run.
      const bundles = await editionBundles(dir, a, view.dir, { id, run, month: o.month, url, pub: o.pub, release: o.release, stage, earlier: editions.filter((e) => e.id !== id).map((e) => e.edition) });

      const chain = readChain(dir).manifests.map((m) => m.manifest).find((m) => m.run_id === run.run_id) ?? null;
      const edition = Edition.parse({
        edition: id,
        month: o.month,
        revision: o.revise ? Number(id.split('-r')[1]) : 0,
        revises: o.revise ? (revisions.at(-1)?.id ?? o.month) : null,
        note: o.revise ? o.revise.note : null,
        cut_from_run: run.run_id,
        data_as_of: run.finished_at,
        data_as_of_day: run.day,
        cut_at: o.now.toISOString(),
        url,
        methodology,
        simulated: o.pub.simulated,
        signed_by: o.signer?.keyId ?? null,
        chain_head: chain ? { seq: chain.seq, sha256: chainHash(chain), run_id: run.run_id, key_id: chain.signature?.key_id ?? null } : null,
        bundles,
        ...(o.pub.conceptDoi ? { concept_doi: o.pub.conceptDoi } : {}),
      } satisfies Edition);
      put('edition.json', `${JSON.stringify(edition, null, 2)}\n`);
      put('README.md', editionReadme(edition, a, cite));
      put('index.html', editionPage(edition, a, cite, chart.svg));
      for (const [name, bytes] of files) writeFileSync(path.join(stage, name), bytes);

      // SHA256SUMS over every file of the edition (its bundles/ too), then its signature.
      const listed = [...files.keys(), ...bundles.filter((b) => b.edition === id && !o.release).map((b) => `bundles/${b.name}`)].sort();
      const sums = listed.map((name) => `${sha256(readFileSync(path.join(stage, name)))}  ${name}\n`).join('');
      writeFileSync(path.join(stage, 'SHA256SUMS'), sums);
      if (o.signer) writeFileSync(path.join(stage, 'SHA256SUMS.sig'), signBytes(Buffer.from(sums, 'utf8'), o.signer));
      const target = editionDir(dir, id);
      if (existsSync(target)) throw new Error(`edition ${id} appeared while it was being cut`);
      renameSync(stage, target);
      return { status: 'cut', id, dir: target, files: [...listed, 'SHA256SUMS', ...(o.signer ? ['SHA256SUMS.sig'] : [])] };
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  } finally {
    forgetArchive(view.dir);
    view.remove();
  }
}

/** The edition's bundles: the months it publishes, its own month up to the run, runs, changes, intervals; earlier months by reference. */
async function editionBundles(
  dir: string,
  a: Archive,
  viewDir: string,
  o: { id: string; run: EditionRun; month: string; url: string; pub: Pick<Publication, 'simulated'>; release: CutOptions['release']; stage: string; earlier: Edition[] },
): Promise<EditionBundle[]> {
  const out: EditionBundle[] = [];
  const folder = o.release ? path.join(o.release.dir, `edition-${o.id}`) : path.join(o.stage, 'bundles');
  mkdirSync(folder, { recursive: true });
  const urlOf = (name: string) => (o.release ? `${o.release.url.replace('{edition}', o.id).replace(/\/*$/, '/')}${encodeURIComponent(name)}` : `${o.url}bundles/${encodeURIComponent(name)}`);
  const publish = (base: string, resource: string, covers: string, rows: number, bytes: Buffer) => {
    const name = simulatedName(base, o.pub);
    writeFileSync(path.join(folder, name), bytes);
    out.push({ name, resource, covers, rows, bytes: bytes.length, sha256: sha256(bytes), url: urlOf(name), edition: o.id });
  };
  // Earlier months: by reference when an earlier edition published them whole, else published here.
  const published = new Map<string, EditionBundle>();
  for (const e of o.earlier) for (const b of e.bundles) if (b.resource === 'observations' && b.covers.startsWith('month ') && b.edition === e.edition) published.set(b.covers.slice(6), b);
  for (const m of a.months.filter((m) => m < o.month)) {
    const known = published.get(m);
    if (known) out.push(known);
    else {
      const { bytes, rows } = await monthLines(viewDir, a.dayFiles, m);
      publish(`observations-${m}.jsonl.gz`, 'observations', `month ${m}`, rows, bytes);
    }
  }
  const own = await monthLines(viewDir, a.dayFiles, o.month);
  publish(`observations-${o.month}-to-${o.run.day}.jsonl.gz`, 'observations', `${o.month} up to run ${o.run.run_id}`, own.rows, own.bytes);
  // Methodology v2's rows, the same way (earlier months by reference once an edition published them).
  const v2Days = listDays(viewDir, SERIES_FOLDER.v2);
  if (v2Days.length > 0) {
    const publishedV2 = new Map<string, EditionBundle>();
    for (const e of o.earlier) for (const b of e.bundles) if (b.resource === 'observations-v2' && b.covers.startsWith('month ') && b.edition === e.edition) publishedV2.set(b.covers.slice(6), b);
    for (const m of [...new Set(v2Days.map((d) => d.day.slice(0, 7)))].filter((m) => m < o.month).sort()) {
      const known = publishedV2.get(m);
      if (known) out.push(known);
      else {
        const { bytes, rows } = await monthLines(viewDir, v2Days, m);
        publish(`observations-v2-${m}.jsonl.gz`, 'observations-v2', `month ${m}`, rows, bytes);
      }
    }
    const ownV2 = await monthLines(viewDir, v2Days, o.month);
    if (ownV2.rows > 0) publish(`observations-v2-${o.month}-to-${o.run.day}.jsonl.gz`, 'observations-v2', `${o.month} up to run ${o.run.run_id}`, ownV2.rows, ownV2.bytes);
  }
  publish('runs.jsonl', 'runs', `runs up to ${o.run.run_id}`, a.runs.length, Buffer.from(a.runs.map((r) => `${JSON.stringify(r)}\n`).join('')));
  const changes = [...a.changes].reverse().map((c) => `${JSON.stringify(changeRecord(c))}\n`);
  publish('changes.jsonl.gz', 'changes', `changes up to ${o.run.run_id}`, changes.length, gzipSync(changes.join('')));
  const intervals = [csvLine(INTERVAL_FIELDS.map((f) => f.name)), ...a.intervals.map((i) => csvLine(INTERVAL_FIELDS.map((f) => i[f.name as keyof typeof i])))].join('');
  publish('contract-intervals.csv', 'contract-intervals', `as of ${o.run.run_id}`, a.intervals.length, Buffer.from(intervals));
  if (!o.release) return out;
  writeFileSync(path.join(folder, 'SHA256SUMS'), out.filter((b) => b.edition === o.id).map((b) => `${b.sha256}  ${b.name}\n`).join(''));
  return out;
}

/** A month's observation lines of one series in the cut view, verbatim (gz days read through gunzip), one gzip member per day. */
async function monthLines(viewDir: string, dayFiles: readonly DayFiles[], month: string): Promise<{ bytes: Buffer; rows: number }> {
  const members: Buffer[] = [];
  let rows = 0;
  for (const day of dayFiles.filter((d) => d.day.startsWith(month))) {
    const parts: string[] = [];
    for await (const { line } of readDayLines(viewDir, { day: day.day, files: day.files })) {
      if (line.trim() === '') continue;
      parts.push(`${line}\n`);
      rows++;
    }
    members.push(gzipSync(parts.join('')));
  }
  return { bytes: Buffer.concat(members.length ? members : [gzipSync('')]), rows };
}

function citationCff(id: string, url: string, day: string, methodology: string, pub: Pick<Publication, 'simulated' | 'conceptDoi'>): string {
  const q = (s: string) => JSON.stringify(s);
  const simulated = pub.simulated;
  return [
    'cff-version: 1.2.0',
    `message: ${q(`${simulated ? `${SIMULATED_NOTE} ` : ''}If you use this edition, please cite it as below.`)}`,
    'type: dataset',
    `title: ${q(`${simulated ? 'SIMULATED DATA — ' : ''}mcp-schema: observations of remote MCP servers' tool contracts, edition ${id}`)}`,
    `abstract: ${q(`Daily tools/list observations of remote MCP servers, data as of ${day}. Methodology ${methodology}.`)}`,
    'authors:',
    `  - name: ${q('mcp-schema contributors')}`,
    `version: ${q(id)}`,
    `date-released: ${q(day)}`,
    `url: ${q(url)}`,
    ...cffDoiLines(pub),
    'license: CC-BY-4.0',
    'keywords: ["Model Context Protocol", "MCP", "API drift", "survival analysis"]',
    '',
  ].join('\n');
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
