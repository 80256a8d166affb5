// Pass 3 of the loader: the derived state pages show, built once per build from the fold (fold.ts).
// Every statistic and every diff is a src/lib call: detectDrift and contractIntervals on each target's
// lean rows, its changes through their bodies (changes.ts), what each of its bodies says on its own
// (bodies.ts: set hashes, body findings), its health (serverHealth), then the population — kaplanMeier,
// halfLife, errorClassShares over the full rows of the latest full run, read back from its day
// (rows.ts) with the few other rows pages show whole. Raw objects are read on demand.
import type { DayFiles } from '../archive/day-files.ts';
import { readObject } from '../archive/objects.ts';
import {
  byCodeUnits, censorAtMigrations, contractIntervals, detectDrift, errorClassShares, everChangedShare, firstChangeIntervals, firstChangeOf, halfLife, kaplanMeier, protocolMigration, servedListingToolHashes, servedToolHashes, serverHealth,
  REPEAT_MOVER_CHANGES, serverInstructionsChanged, stitchedChanges, stitchedIntervals, stitchSeries, volatility,
  type AnyRun, type Change, type Drift, type FirstChangeInterval, type HealthProbe, type Interval, type MigrationRow, type Observation, type Run, type SeriesSeam, type ServedToolHashes,
} from '../lib/index.ts';
import { slugFor } from '../lib/slug.ts';
import { cachedBodyFacts, type BodyFacts } from './bodies.ts';
import { cachedChanges, ToolsCache } from './changes.ts';
import { ATTEMPT, CODES, OK } from './digest.ts';
import { bridgeV1Rows, eraOf, leanRows, runIso, SEG, type Fold, type RowRef, type TargetState } from './fold.ts';
import { cachedRowsAt } from './rows.ts';
import { timelines } from './timelines.ts';
import type { Archive, BodyFindingView, ChangeView, InstructionsChangeView, CurrentBodyView, RawArchive, ServerView, SetView, StripSegment, Tiles, VersionView } from './views.ts';

export async function deriveArchive(raw: RawArchive): Promise<Archive> {
  const t0 = performance.now();
  const { fold } = raw;
  const contentTypes = new Map<string, string | null>();
  for (const [id, type] of fold.bodyType) contentTypes.set(fold.hashes[id]!, type);
  // The headline series' runs: v1's, or v2's once the headline is stitched (load-archive.ts).
  const latestRun = findLast(raw.headlineRuns, (r) => r.status === 'finished') ?? raw.headlineRuns.at(-1) ?? null;
  const latestFullRun = findLast(raw.headlineRuns, (r) => r.status === 'finished' && !r.partial) ?? null;

  // Full rows pages show whole: each target's latest and its last with a registry page, and every
  // row of the latest full run (for errorClassShares), read back from their day files.
  const t1 = performance.now();
  const wanted = new Map<number, Set<number>>();
  const want = (ref: RowRef | null) => {
    if (!ref) return;
    let set = wanted.get(ref.d);
    if (!set) wanted.set(ref.d, (set = new Set()));
    set.add(ref.line);
  };
  for (const s of fold.targets.values()) {
    want(s.latest);
    want(s.pageRef);
    want(s.endpointRef);
  }
  const fullDay = latestFullRun ? raw.foldDays.findIndex((d) => d.day === latestFullRun.day) : -1;
  const full = new Map<number, Map<number, Observation>>();
  let fullRows: Observation[] = [];
  const daysToRead = new Set([...wanted.keys(), ...(fullDay >= 0 ? [fullDay] : [])]);
  for (const d of [...daysToRead].sort((a, b) => a - b)) {
    const info = raw.foldDays[d]!;
    const got = await cachedRowsAt(raw.cache, raw.dir, { day: info.day, files: info.files } as DayFiles, info.key, wanted.get(d) ?? new Set(), d === fullDay ? latestFullRun!.run_id : undefined, info.series ?? 'v1');
    full.set(d, got.byLine);
    if (d === fullDay) fullRows = got.ofRun;
  }
  const rowAt = (ref: RowRef | null) => (ref ? (full.get(ref.d)?.get(ref.line) ?? null) : null);
  const rowsMs = performance.now() - t1;
  raw.timings.mark('rows', rowsMs, { days_read: daysToRead.size });

  const servers: ServerView[] = [];
  const intervals: Interval[] = [];
  // The server-level curve beside the contract curve (issue 16): one first-change lifetime per target.
  const serverIntervals: FirstChangeInterval[] = [];
  // What volatility reads of each drift: its changes' days and its versions' day span (O(targets + changes)).
  const drifts: Drift[] = [];
  const changes: ChangeView[] = [];
  const bodyFindings: BodyFindingView[] = [];
  const sets = new Map<string, SetView>();
  const names = [...fold.targets.keys()].sort(byCodeUnits);
  const lib = raw.cache.libPrint();
  const stats = { changeHits: 0, changeMisses: 0, bodyHits: 0, bodyMisses: 0 };
  const asOfDay = latestRun?.day ?? raw.days.at(-1) ?? null;
  const contractPages = new Map([...fold.contractPages].map(([id, p]) => [fold.hashes[id]!, p]));
  // The same listings by their first page (a v2 row's body_sha256), for the tool definition hashes.
  const listingByFirstPage = new Map([...fold.contractPages.values()].map((p) => [p.pages[0]!, p]));
  const seams: SeriesSeam[] = [];
  const migrations: Change[] = [];
  const instructionChanges: InstructionsChangeView[] = [];
  for (const name of names) {
    const s = fold.targets.get(name)!;
    const lean = leanRows(fold, s);
    const timeline = targetTimeline(raw, s, name, lean);
    const { drift } = timeline;
    intervals.push(...timeline.intervals);
    serverIntervals.push(...timeline.firstChange);
    if (timeline.seam) seams.push(timeline.seam);
    drifts.push(drift);
    const slug = slugFor(name);
    const v2Rows = migrationRows(fold, s);
    const serverChanges = (await cachedChanges(raw.cache, lib, drift, slug, contentTypes, raw.dir, stats, contractPages)).map((c, i) => ({ ...c, protocolMigration: v2Rows.length > 0 && protocolMigration(drift.changes[i]!, v2Rows) }));
    drift.changes.forEach((c, i) => serverChanges[i]!.protocolMigration && migrations.push(c));
    const serverInstructions = instructionsDrift(fold, s, slug, serverChanges);
    instructionChanges.push(...serverInstructions);
    changes.push(...serverChanges);
    const bodies = await bodiesOf(raw, s, slug, contentTypes, lib, stats, sets, bodyFindings);
    const latest = rowAt(s.latest);
    if (!latest) continue; // its day file changed under us: the row is counted in problems on the next build
    servers.push({ ...serverView(fold, s, slug, latest, rowAt(s.pageRef), rowAt(s.endpointRef), drift, serverChanges), instructionChanges: [...serverInstructions].reverse(), ...probes(s, asOfDay), current: bodies });
  }
  bodyFindings.sort((a, b) => Date.parse(b.observedAt) - Date.parse(a.observedAt) || byCodeUnits(a.target, b.target));
  changes.sort((a, b) => Date.parse(b.observedAt) - Date.parse(a.observedAt) || byCodeUnits(a.target, b.target));
  instructionChanges.sort((a, b) => Date.parse(b.observedAt) - Date.parse(a.observedAt) || byCodeUnits(a.target, b.target));

  const km = kaplanMeier(
    intervals.map((i) => i.duration),
    intervals.map((i) => i.event),
  );
  const median = halfLife(km);
  const serverKm = kaplanMeier(
    serverIntervals.map((i) => i.duration),
    serverIntervals.map((i) => i.event),
  );
  const asOf = latestRun?.finished_at ?? servers.map((s) => s.lastObserved).sort().at(-1) ?? null;
  // The sensitivity series v2-without-migrations: the same intervals, censored at protocol migrations.
  let migrationSensitivity: Archive['migrationSensitivity'] = null;
  if (raw.headline.series === 'stitched') {
    const censored = censorAtMigrations(intervals, migrations);
    const sKm = kaplanMeier(
      censored.map((i) => i.duration),
      censored.map((i) => i.event),
    );
    migrationSensitivity = { series: 'v2-without-migrations', migrations: migrations.length, intervals: censored, km: sKm, halfLife: halfLife(sKm) };
  }
  const bySlug = new Map(servers.map((s) => [s.slug, s]));
  const pages = new PageCache(raw.dir);
  raw.timings.mark('derive', performance.now() - t0 - rowsMs, {
    servers: servers.length, changes: changes.length, intervals: intervals.length, sets: sets.size,
    change_cache_hits: stats.changeHits, change_cache_misses: stats.changeMisses, body_cache_hits: stats.bodyHits, body_cache_misses: stats.bodyMisses,
  });
  return {
    dir: raw.dir,
    empty: raw.rowCount === 0,
    asOf,
    asOfDay,
    runs: raw.runs,
    headline: raw.headline,
    latestRun,
    latestFullRun,
    seams,
    migrationSensitivity,
    servers,
    bySlug,
    changes,
    bodyFindings,
    instructionChanges,
    sets: [...sets.values()].sort((a, b) => byCodeUnits(a.setHash, b.setHash)),
    intervals,
    km,
    halfLife: median,
    serverIntervals,
    serverKm,
    serverHalfLife: halfLife(serverKm),
    everChanged: everChangedShare(serverIntervals),
    volatility: volatility(drifts),
    // Over the headline's days and runs: on a stitched headline v1's before the seam, v2's from it on.
    timelines: timelines({ runs: timelineRuns(raw), days: raw.foldDays.map((d) => d.day), fold: raw.fold }, changes),
    // A v2 run's rows carry v1's error class (methodology v2), so the table reads the same on either series.
    errorShares: latestFullRun && fullRows.length > 0 ? errorClassShares(fullRows, { run: latestFullRun as Run }) : null,
    tiles: tiles(latestRun, latestFullRun, changes, asOfDay),
    days: raw.days,
    dayFiles: raw.dayFiles,
    months: [...new Set(raw.days.map((d) => d.slice(0, 7)))],
    rowCount: raw.rowCount,
    rosterFiles: raw.rosterFiles,
    problems: raw.problems,
    proberVersions: [...new Set(raw.runs.map((r) => r.prober_version))],
    // v1's runs, then the headline's once it is stitched (v1, v2).
    methodologyVersions: [...new Set([...raw.runs, ...(raw.headline.series === 'stitched' ? raw.headlineRuns : [])].map((r) => r.methodology_version))],
    restatements: raw.restatements,
    editions: raw.editions,
    chain: raw.chain,
    cacheStats: { ...raw.cacheStats, ...stats },
    contentType: (bodySha256) => contentTypes.get(bodySha256) ?? null,
    tools: (bodySha256, toolsSha256) => (toolsSha256 === undefined ? new ToolsCache(raw.dir, contentTypes).get(bodySha256) : new ToolsCache(raw.dir, contentTypes, contractPages).contract(toolsSha256, bodySha256)),
    toolHashes: (bodySha256) => toolHashesOf(raw.dir, bodySha256, contentTypes.get(bodySha256) ?? null, listingByFirstPage.get(bodySha256) ?? null),
    registryEntry: (row) => pages.entry(row),
  };
}

/**
 * One target's contract timeline on the headline: on a v1 headline its drift, lifetimes and first
 * change from its rows; on a stitched headline through src/lib stitchSeries (v1 rows before the seam
 * with its v1 ok rows of the bridge, v2 rows from the seam on): changes never cross a series seam
 * (stitchedChanges), lifetimes are censored at it (stitchedIntervals), and the versions list both
 * sides' hashes.
 */
function targetTimeline(raw: RawArchive, s: TargetState, name: string, lean: ReturnType<typeof leanRows>): { drift: Drift; intervals: Interval[]; firstChange: FirstChangeInterval[]; seam: SeriesSeam | null } {
  const seamDay = raw.headline.seamDay;
  if (seamDay === null) {
    const drift: Drift = lean.length > 0 ? detectDrift(lean) : { target: name, head: null, versions: [], changes: [], repeatMover: false };
    return { drift, intervals: contractIntervals(lean), firstChange: firstChangeIntervals(lean), seam: null };
  }
  const v1 = [...lean.filter((r) => r.day < seamDay), ...bridgeV1Rows(raw.fold, name)];
  const v2 = lean.filter((r) => r.day >= seamDay);
  if (v1.length + v2.length === 0) return { drift: { target: name, head: null, versions: [], changes: [], repeatMover: false }, intervals: [], firstChange: [], seam: null };
  const h = stitchSeries(v1, v2, seamDay);
  const changes = stitchedChanges(h);
  const whole = lean.length > 0 ? detectDrift(lean) : { target: name, head: null, versions: [], changes: [], repeatMover: false };
  const intervals = stitchedIntervals(h);
  return { drift: { ...whole, changes, repeatMover: changes.length >= REPEAT_MOVER_CHANGES }, intervals, firstChange: firstChangeOf(intervals), seam: h.seam };
}

/**
 * Instructions drift (methodology v2, src/lib serverInstructionsChanged) between a target's successive v2
 * ok rows: on the change whose answer it is when the contract changed too (its findings and security
 * level), else an "instructions changed" entry of its own (returned, oldest first). `changes` are the
 * target's, oldest first, and are updated in place.
 */
function instructionsDrift(fold: Fold, s: TargetState, slug: string, changes: ChangeView[]): InstructionsChangeView[] {
  const out: InstructionsChangeView[] = [];
  const hash = (id: number) => (id >= 0 ? fold.hashes[id]! : null);
  // Between successive v2 ok rows: runs split where the instructions move, so compare each v2 run with the one before.
  let before: number | null = null;
  for (const r of s.ok) {
    if (r.era < 0) continue;
    const prior = before;
    before = r.instr;
    if (prior === null || prior === r.instr) continue;
    const findings = serverInstructionsChanged.checkInstructions(hash(prior), hash(r.instr));
    const runId = fold.runIds[r.firstRun]!;
    const change = changes.find((c) => c.runId === runId);
    if (change) {
      change.findings = [...change.findings, ...findings];
      if (change.security === null) change.security = 'WARN';
      continue;
    }
    const day = fold.dayIds[r.firstDay]!;
    out.push({ id: `${day}-instructions-${hash(r.instr)?.slice(0, 12) ?? 'none'}`, target: s.name, slug, day, observedAt: runIso(r, 'first'), runId, before: hash(prior), after: hash(r.instr), findings });
  }
  return out;
}

/** The runs of the headline's timeline: v1's, or v1's before the seam and the headline's (v2) from it on. */
function timelineRuns(raw: RawArchive): AnyRun[] {
  const seam = raw.headline.seamDay;
  if (seam === null) return raw.runs;
  return [...raw.runs.filter((r) => r.day < seam), ...raw.headlineRuns.filter((r) => r.day >= seam)];
}

/** A target's v2 ok rows as src/lib protocolMigration reads them (none on a v1 headline): each v2 run's first and last row. */
function migrationRows(fold: Fold, s: TargetState): MigrationRow[] {
  const out: MigrationRow[] = [];
  for (const r of s.ok) {
    const v = eraOf(fold, r);
    if (!v) continue;
    const row = (run: number): MigrationRow => ({ run_id: fold.runIds[run]!, target: s.name, outcome: 'ok', era: v.era as MigrationRow['era'], protocol_version: v.protocolVersion, methodology_version: 'v2' });
    out.push(row(r.firstRun));
    if (r.n > 1) out.push(row(r.lastRun));
  }
  return out;
}

/**
 * A target's distinct bodies through bodies.ts, folded in ok-row order into the archive's set index
 * (who served each set hash, first and last seen) and its body findings (each the first time the
 * target served it); returns its latest successful answer's view.
 */
async function bodiesOf(
  raw: RawArchive,
  s: TargetState,
  slug: string,
  contentTypes: ReadonlyMap<string, string | null>,
  lib: string,
  stats: { bodyHits: number; bodyMisses: number },
  sets: Map<string, SetView>,
  bodyFindings: BodyFindingView[],
): Promise<CurrentBodyView | null> {
  const { fold } = raw;
  if (s.ok.length === 0) return null;
  const ids = [...new Set(s.ok.map((r) => r.body))];
  // Bodies that are the first page of a listing v2 read over several pages: their set hash is of all pages.
  const listings = new Map<string, { pages: string[]; types: (string | null)[] }>();
  for (const r of s.ok) {
    const l = fold.contractPages.get(r.tools);
    if (l && l.pages[0] === fold.hashes[r.body]) listings.set(l.pages[0]!, l);
  }
  const facts = await cachedBodyFacts(raw.cache, lib, ids.map((id) => fold.hashes[id]!), contentTypes, raw.dir, stats, listings);
  const factOf = new Map<number, BodyFacts>(ids.map((id, k) => [id, facts[k]!]));
  const mine = new Map<string, SetView['servers'][number]>();
  let before = new Set<string>();
  // Runs in row order; a run's rows share one body, so what a row would add is its run's first row's, n times.
  for (const r of s.ok) {
    const body = fold.hashes[r.body]!;
    const f = factOf.get(r.body)!;
    if (f.setHash !== null) {
      let set = sets.get(f.setHash);
      if (!set) sets.set(f.setHash, (set = { setHash: f.setHash, bodySha256: body, servers: [] }));
      let seen = mine.get(f.setHash);
      if (!seen) {
        mine.set(f.setHash, (seen = { target: s.name, slug, firstSeen: runIso(r, 'first'), lastSeen: runIso(r, 'first'), observations: 0 }));
        set.servers.push(seen);
      }
      seen.lastSeen = runIso(r, 'last');
      seen.observations += r.n;
    }
    const prints = new Set(f.findings.map((x) => x.fingerprint));
    const fresh = f.findings.filter((x) => !before.has(x.fingerprint));
    if (fresh.length > 0) {
      const day = fold.dayIds[r.firstDay]!;
      bodyFindings.push({ id: `${day}-${body.slice(0, 12)}`, target: s.name, slug, day, observedAt: runIso(r, 'first'), runId: fold.runIds[r.firstRun]!, bodySha256: body, findings: fresh });
    }
    before = prints;
  }
  const last = s.ok.at(-1)!;
  const f = factOf.get(last.body)!;
  return { bodySha256: fold.hashes[last.body]!, observedAt: runIso(last, 'last'), setHash: f.setHash, setHashProblem: f.problem, findings: f.findings };
}

/** A target's probes: the latest, failures since the last ok one (from its strip), and its health. */
function probes(s: TargetState, asOfDay: string | null): Pick<ServerView, 'lastProbe' | 'consecutiveFailures' | 'health'> {
  let failures = 0;
  for (let k = s.seg.length - SEG; k >= 0; k -= SEG) {
    const code = s.seg[k]!;
    if (code === OK) break;
    if (ATTEMPT[code]) failures += s.seg[k + 2]!;
  }
  const recent: HealthProbe[] = [];
  for (let k = 0; k < s.recent.length; k += 3) recent.push({ ms: s.recent[k]!, ok: s.recent[k + 1] === 1, latencyMs: Number.isNaN(s.recent[k + 2]!) ? null : s.recent[k + 2]! });
  return {
    lastProbe: s.probeMs >= 0 ? new Date(s.probeMs).toISOString() : null,
    consecutiveFailures: failures,
    health: asOfDay === null ? null : serverHealth(recent, { asOfDay }),
  };
}

async function toolHashesOf(dir: string, sha: string, contentType: string | null, listing: { pages: string[]; types: (string | null)[] } | null): Promise<ServedToolHashes | string> {
  if (listing && listing.pages.length > 1) {
    // A listing v2 read over several pages: every page's definitions, the set hash of all of them.
    const pages: { body: Buffer; contentType: string | null }[] = [];
    for (let k = 0; k < listing.pages.length; k++) {
      const bytes = await readObject(dir, listing.pages[k]!);
      if (!bytes) return `raw body ${listing.pages[k]!.slice(0, 12)} missing or corrupt`;
      pages.push({ body: bytes, contentType: listing.types[k] ?? null });
    }
    return servedListingToolHashes(pages);
  }
  const bytes = await readObject(dir, sha);
  return bytes ? servedToolHashes(bytes, contentType) : `raw body ${sha.slice(0, 12)} missing or corrupt`;
}

/** Parsed roster pages, a few at a time: a hundred servers share one page, in name order. */
class PageCache {
  private readonly pages = new Map<string, Promise<unknown[] | null>>();
  constructor(private readonly dir: string) {}

  async entry(row: Observation): Promise<unknown> {
    if (row.registry_page_sha256 === null || row.registry_page_index === null) return null;
    let page = this.pages.get(row.registry_page_sha256);
    if (!page) {
      page = this.load(row.registry_page_sha256);
      this.pages.set(row.registry_page_sha256, page);
      if (this.pages.size > 32) this.pages.delete(this.pages.keys().next().value!);
    }
    return (await page)?.[row.registry_page_index] ?? null;
  }

  private async load(sha: string): Promise<unknown[] | null> {
    const bytes = await readObject(this.dir, sha);
    if (!bytes) return null;
    try {
      const page = JSON.parse(bytes.toString('utf8')) as { servers?: unknown };
      return Array.isArray(page.servers) ? page.servers : null;
    } catch {
      return null;
    }
  }
}

function strip(fold: Fold, s: TargetState, changes: ChangeView[]): StripSegment[] {
  const changeDays = new Set(changes.map((c) => `${c.day}|${c.afterSha256}`));
  const out: StripSegment[] = [];
  for (let k = 0; k < s.seg.length; k += SEG) {
    const [code, http, count, first, last, tools, second] = s.seg.slice(k, k + SEG) as [number, number, number, number, number, number, number];
    const c = CODES[code]!;
    const firstDay = fold.dayIds[first]!;
    const lastDay = fold.dayIds[last]!;
    // `error:<class>` and `not_attempted:<reason>` carry their class or reason in errorClass.
    const sep = c.indexOf(':');
    const kind = (sep >= 0 ? c.slice(0, sep) : c) as StripSegment['kind'];
    const errorClass = sep >= 0 ? c.slice(sep + 1) : null;
    if (code === OK && tools >= 0 && changeDays.has(`${firstDay}|${fold.hashes[tools]}`)) {
      out.push({ kind: 'changed', errorClass, http, count: 1, firstDay, lastDay: firstDay });
      // The rest of the run starts at its second observation, not on the change day (issue 16: hover
      // dates were a day early): the segment's second row's day, kept with the segment.
      if (count > 1) out.push({ kind, errorClass, http, count: count - 1, firstDay: fold.dayIds[second] ?? firstDay, lastDay });
    } else out.push({ kind, errorClass, http, count, firstDay, lastDay });
  }
  return out;
}

function serverView(fold: Fold, s: TargetState, slug: string, latest: Observation, registryRow: Observation | null, endpointRow: Observation | null, drift: Drift, changes: ChangeView[]): Omit<ServerView, 'lastProbe' | 'consecutiveFailures' | 'health' | 'current' | 'instructionChanges'> {
  const lastRun = s.ok.at(-1);
  const lastOk = lastRun ? runIso(lastRun, 'last') : null;
  const versions: VersionView[] = drift.versions.map((v) => {
    const id = fold.hashId.get(v.tools_sha256) ?? -1;
    const first = s.ok.find((r) => r.tools === id);
    return { toolsSha256: v.tools_sha256, bodySha256: v.body_sha256, firstSeen: v.first_seen, lastSeen: v.last_seen, toolCount: first && first.toolCount >= 0 ? first.toolCount : null };
  });
  return {
    name: s.name,
    slug,
    latest,
    registryRow,
    status: latest.outcome,
    errorClass: latest.error_class,
    notAttemptedReason: latest.not_attempted_reason ?? null,
    endpoint: latest.endpoint ?? endpointRow?.endpoint ?? null,
    toolCount: lastRun && lastRun.toolCount >= 0 ? lastRun.toolCount : null,
    firstObserved: s.firstIso ?? new Date(s.firstMs).toISOString(),
    lastObserved: s.latestIso ?? new Date(s.latestMs).toISOString(),
    lastOk,
    head: versions.at(-1) ?? null,
    versions,
    changes: [...changes].reverse(),
    lastChange: changes.at(-1)?.observedAt ?? null,
    repeatMover: drift.repeatMover,
    observations: s.rows,
    strip: strip(fold, s, changes),
  };
}

function tiles(latestRun: AnyRun | null, latestFullRun: AnyRun | null, changes: ChangeView[], asOfDay: string | null): Tiles {
  const changedWithin = (days: number) => {
    if (!asOfDay) return 0;
    const since = Date.parse(`${asOfDay}T00:00:00Z`) - (days - 1) * 86_400_000;
    return new Set(changes.filter((c) => Date.parse(`${c.day}T00:00:00Z`) >= since).map((c) => c.target)).size;
  };
  return {
    population: latestRun?.targets ?? null,
    withEndpoint: latestRun ? latestRun.eligible : null,
    okLatestFull: latestFullRun?.outcomes.ok ?? null,
    eligibleLatestFull: latestFullRun?.eligible ?? null,
    changed7: changedWithin(7),
    changed30: changedWithin(30),
    coverage: latestRun?.coverage ?? null,
    degraded: latestRun?.degraded ?? false,
  };
}

/** Array.prototype.findLast (ES2023) is in Node 20 but not in this project's ES2022 lib typings. */
export function findLast<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return items[i];
  return undefined;
}
