// Pass 3 of the loader: the derived state pages show, built once per build from the fold (fold.ts).
// Every statistic and every diff is a src/lib call: detectDrift and contractIntervals on each target's
// lean rows, its changes through their bodies (changes.ts), what each of its bodies says on its own
// (bodies.ts: set hashes, body findings), its health (serverHealth), then the population — kaplanMeier,
// halfLife, errorClassShares over the full rows of the latest full run, read back from its day
// (rows.ts) with the few other rows pages show whole. Raw objects are read on demand.
import type { DayFiles } from '../archive/day-files.ts';
import { readObject } from '../archive/objects.ts';
import {
  byCodeUnits, contractIntervals, detectDrift, errorClassShares, firstChangeIntervals, firstChangeOf, headlineFigures, protocolMigration, servedListingToolHashes, servedToolHashes, serverHealth, serverSummary,
  REPEAT_MOVER_CHANGES, serverInstructionsChanged, stitchedChanges, stitchedIntervals, stitchSeries,
  type AnyRun, type Drift, type FirstChangeInterval, type HealthProbe, type Interval, type MigrationRow, type Observation, type Run, type SeriesSeam, type ServedToolHashes, type ServerSummary,
} from '../lib/index.ts';
import { slugFor } from '../lib/slug.ts';
import { cachedBodyFacts, type BodyFacts } from './bodies.ts';
import { cachedChanges, ToolsCache } from './changes.ts';
import { ATTEMPT, CODES, OK } from './day-summary.ts';
import { bridgeV1Rows, eraOf, leanRows, runIso, SEG, type Fold, type RowRef, type TargetState } from './fold.ts';
import { cachedRowsAt } from './rows.ts';
import { addRosterFlow, emptyRosterFlow, timelines, type RosterFlow } from './timelines.ts';
import type { Archive, BodyFindingView, ChangeView, InstructionsChangeView, CurrentBodyView, RawArchive, ServerRow, ServerView, SetView, StripSegment, Tiles, VersionView } from './views.ts';

/** The run and the day every shard shares: the headline's runs, the as-of day, the build cache's print. */
interface Context {
  latestRun: AnyRun | null;
  latestFullRun: AnyRun | null;
  asOfDay: string | null;
  lib: string;
  shards: number;
}

/** What the site-wide pages need of every server, added up shard by shard (a shard's full state is then dropped). */
interface Totals {
  changes: ChangeView[];
  bodyFindings: BodyFindingView[];
  instructionChanges: InstructionsChangeView[];
  seams: SeriesSeam[];
  summaries: ServerSummary[];
  rows: ServerRow[];
  sets: Map<string, SetView>;
  /** Per set hash, the target whose body `SetView.bodySha256` is: the first in code-unit order, whatever the shard order. */
  setOwner: Map<string, string>;
  contentTypes: Map<string, string | null>;
  contractPages: Map<string, { pages: string[]; types: (string | null)[] }>;
  roster: RosterFlow;
  stats: { changeHits: number; changeMisses: number; bodyHits: number; bodyMisses: number };
  rowsMs: number;
  daysRead: number;
  /** The rows of the latest full run (shard 0 reads them, for errorClassShares). */
  fullRows: Observation[];
}

const emptyTotals = (): Totals => ({
  changes: [], bodyFindings: [], instructionChanges: [], seams: [], summaries: [], rows: [], sets: new Map(), setOwner: new Map(), contentTypes: new Map(), contractPages: new Map(),
  roster: emptyRosterFlow(), stats: { changeHits: 0, changeMisses: 0, bodyHits: 0, bodyMisses: 0 }, rowsMs: 0, daysRead: 0, fullRows: [],
});

export async function deriveArchive(raw: RawArchive): Promise<Archive> {
  const t0 = performance.now();
  const shards = raw.shards?.count ?? 1;
  // The headline series' runs: v1's, or v2's once the headline is stitched (load-archive.ts).
  const latestRun = findLast(raw.headlineRuns, (r) => r.status === 'finished') ?? raw.headlineRuns.at(-1) ?? null;
  const latestFullRun = findLast(raw.headlineRuns, (r) => r.status === 'finished' && !r.partial) ?? null;
  const ctx: Context = { latestRun, latestFullRun, asOfDay: latestRun?.day ?? raw.days.at(-1) ?? null, lib: raw.cache.libPrint(), shards };
  const totals = emptyTotals();
  // One shard at a time (shards.ts): its fold, its servers, then only its summaries, rows and events
  // are kept. With one shard the servers are held as well (`servers`, `bySlug`).
  let held: ServerView[] = [];
  let foldMs = 0;
  for (let k = 0; k < shards; k++) {
    const f0 = performance.now();
    const fold = k === 0 ? raw.fold : await raw.shards!.fold(k);
    foldMs += performance.now() - f0;
    const servers = await deriveShard(raw, fold, k, ctx, totals, k === 0);
    // While the shard's fold and views are alive: bench/memory.ts --live reads the heap here.
    if (shards > 1) raw.timings.mark('derive-shard', performance.now() - f0, { shard: k, servers: servers.length });
    if (shards === 1) held = servers;
    // Shard 0's fold came with the raw archive: with more shards, its state is dropped like the others'.
    else if (k === 0) raw.fold.targets.clear();
  }
  const { stats } = totals;
  raw.timings.mark('rows', totals.rowsMs, { days_read: totals.daysRead });
  const byTime = (a: { observedAt: string; target: string }, b: { observedAt: string; target: string }) => Date.parse(b.observedAt) - Date.parse(a.observedAt) || byCodeUnits(a.target, b.target);
  const bodyFindings = totals.bodyFindings.sort(byTime);
  const changes = totals.changes.sort(byTime);
  const instructionChanges = totals.instructionChanges.sort(byTime);
  const seams = totals.seams.sort((a, b) => byCodeUnits(a.target, b.target));
  const rows = totals.rows.sort((a, b) => byCodeUnits(a.name, b.name));
  for (const set of totals.sets.values()) set.servers.sort((a, b) => byCodeUnits(a.target, b.target));
  // Every population figure from the servers' summaries (src/lib headlineFigures): the same whatever the number of shards.
  const figures = headlineFigures(totals.summaries, { stitched: raw.headline.series === 'stitched' });
  const asOf = latestRun?.finished_at ?? rows.map((s) => s.lastObserved).sort().at(-1) ?? null;
  const migrationSensitivity: Archive['migrationSensitivity'] = figures.withoutMigrations ? { series: 'v2-without-migrations', ...figures.withoutMigrations } : null;
  const { contentTypes, contractPages } = totals;
  // The same listings by their first page (a v2 row's body_sha256), for the tool definition hashes.
  const listingByFirstPage = new Map([...contractPages.values()].map((p) => [p.pages[0]!, p]));
  const pages = new PageCache(raw.dir);
  const rowBySlug = new Map(rows.map((r) => [r.slug, r]));
  // Servers of a shard, derived again on demand when they are not held: the latest shard or two stay.
  const derived = new Map<number, Promise<ServerView[]>>();
  const serversIn = (k: number): Promise<ServerView[]> => {
    if (!Number.isInteger(k) || k < 0 || k >= shards) return Promise.reject(new RangeError(`shard ${k} is not one of 0..${shards - 1}`));
    if (shards === 1) return Promise.resolve(held);
    let got = derived.get(k);
    if (!got) {
      got = raw.shards!.fold(k).then(async (fold) => {
        const servers = await deriveShard(raw, fold, k, { ...ctx, latestFullRun: null }, emptyTotals(), false);
        // As loadArchive marks the held changes: a change on a server whose latest list is private-scope.
        for (const s of servers) for (const c of s.changes) if (out.v2?.cachingByTarget.get(c.target)?.cacheScope === 'private') c.privateScopeList = true;
        return servers;
      });
      derived.set(k, got);
      while (derived.size > SHARDS_KEPT) derived.delete(derived.keys().next().value!);
    }
    return got;
  };
  const slugIndex = new WeakMap<ServerView[], Map<string, ServerView>>();
  const notHeld = (what: string) => () => {
    throw new Error(`this archive was derived in ${shards} shards and holds no ${what}: read rows, serversIn(k) or server(slug)`);
  };
  raw.timings.mark('derive', performance.now() - t0 - totals.rowsMs - foldMs, {
    servers: rows.length, changes: changes.length, intervals: figures.intervals.length, sets: totals.sets.size,
    change_cache_hits: stats.changeHits, change_cache_misses: stats.changeMisses, body_cache_hits: stats.bodyHits, body_cache_misses: stats.bodyMisses,
    ...(shards > 1 ? { shards, shard_fold_ms: Math.round(foldMs) } : {}),
  });
  const out: Archive = {
    dir: raw.dir,
    empty: raw.rowCount === 0,
    asOf,
    asOfDay: ctx.asOfDay,
    runs: raw.runs,
    headline: raw.headline,
    latestRun,
    latestFullRun,
    seams,
    migrationSensitivity,
    servers: held,
    bySlug: new Map(held.map((s) => [s.slug, s])),
    shards,
    rows,
    summaries: totals.summaries,
    serversIn,
    server: async (slug) => {
      const row = rowBySlug.get(slug);
      if (!row) return null;
      if (shards === 1) return out.bySlug.get(slug) ?? null;
      // Each page of a shard asks here: its views by slug, indexed once per derived shard.
      const servers = await serversIn(row.shard);
      let index = slugIndex.get(servers);
      if (!index) slugIndex.set(servers, (index = new Map(servers.map((s) => [s.slug, s]))));
      return index.get(slug) ?? null;
    },
    changes,
    bodyFindings,
    instructionChanges,
    sets: [...totals.sets.values()].sort((a, b) => byCodeUnits(a.setHash, b.setHash)),
    intervals: figures.intervals,
    km: figures.km,
    halfLife: figures.halfLife,
    serverIntervals: figures.serverIntervals,
    serverKm: figures.serverKm,
    serverHalfLife: figures.serverHalfLife,
    everChanged: figures.everChanged,
    volatility: figures.volatility,
    // Over the headline's days and runs: on a stitched headline v1's before the seam, v2's from it on.
    timelines: timelines({ runs: timelineRuns(raw), days: raw.foldDays.map((d) => d.day), roster: totals.roster }, changes),
    // A v2 run's rows carry v1's error class (methodology v2), so the table reads the same on either series.
    errorShares: latestFullRun && totals.fullRows.length > 0 ? errorClassShares(totals.fullRows, { run: latestFullRun as Run }) : null,
    tiles: tiles(latestRun, latestFullRun, changes, ctx.asOfDay),
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
  // Held only with one shard: with more, asking for every server at once is a mistake to see, not an empty list.
  if (shards > 1) Object.defineProperties(out, { servers: { get: notHeld('servers'), enumerable: false }, bySlug: { get: notHeld('bySlug map'), enumerable: false } });
  return out;
}

/** Shards derived on demand and kept (derive.ts serversIn): the one a page run is in, and the one before. */
const SHARDS_KEPT = 2;

/**
 * One shard's servers from its fold: each target's drift, changes, bodies and view (pass 3), and what
 * the site-wide pages need of it added to `totals` — its summary, its compact row, its changes, body
 * findings, instructions changes, seam, its sets, its bodies' content types and its roster flow.
 * `withRun`: also read the latest full run's rows (for errorClassShares; the first shard does).
 */
async function deriveShard(raw: RawArchive, fold: Fold, k: number, ctx: Context, totals: Totals, withRun: boolean): Promise<ServerView[]> {
  const contentTypes = new Map<string, string | null>();
  for (const [id, type] of fold.bodyType) contentTypes.set(fold.hashes[id]!, type);
  for (const [sha, type] of contentTypes) if (!totals.contentTypes.has(sha)) totals.contentTypes.set(sha, type);
  const contractPages = new Map([...fold.contractPages].map(([id, p]) => [fold.hashes[id]!, p]));
  for (const [sha, p] of contractPages) if (!totals.contractPages.has(sha)) totals.contractPages.set(sha, p);
  addRosterFlow(totals.roster, fold);

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
  const fullRun = withRun ? ctx.latestFullRun : null;
  const fullDay = fullRun ? raw.foldDays.findIndex((d) => d.day === fullRun.day) : -1;
  const full = new Map<number, Map<number, Observation>>();
  const daysToRead = new Set([...wanted.keys(), ...(fullDay >= 0 ? [fullDay] : [])]);
  const part = ctx.shards === 1 ? null : `${k}of${ctx.shards}`;
  for (const d of [...daysToRead].sort((a, b) => a - b)) {
    const info = raw.foldDays[d]!;
    const got = await cachedRowsAt(raw.cache, raw.dir, { day: info.day, files: info.files } as DayFiles, info.key, wanted.get(d) ?? new Set(), d === fullDay ? fullRun!.run_id : undefined, info.series ?? 'v1', part);
    full.set(d, got.byLine);
    if (d === fullDay) totals.fullRows = got.ofRun;
  }
  const rowAt = (ref: RowRef | null) => (ref ? (full.get(ref.d)?.get(ref.line) ?? null) : null);
  totals.rowsMs += performance.now() - t1;
  totals.daysRead += daysToRead.size;

  const servers: ServerView[] = [];
  const names = [...fold.targets.keys()].sort(byCodeUnits);
  for (const name of names) {
    const s = fold.targets.get(name)!;
    const lean = leanRows(fold, s);
    const timeline = targetTimeline(raw, fold, s, name, lean);
    const { drift } = timeline;
    if (timeline.seam) totals.seams.push(timeline.seam);
    const slug = slugFor(name);
    const v2Rows = migrationRows(fold, s);
    const serverChanges = (await cachedChanges(raw.cache, ctx.lib, drift, slug, contentTypes, raw.dir, totals.stats, contractPages)).map((c, i) => ({ ...c, protocolMigration: v2Rows.length > 0 && protocolMigration(drift.changes[i]!, v2Rows) }));
    const migrations = drift.changes.filter((_, i) => serverChanges[i]!.protocolMigration);
    totals.summaries.push(serverSummary(drift, timeline.intervals, timeline.firstChange, migrations));
    const serverInstructions = instructionsDrift(fold, s, slug, serverChanges);
    totals.instructionChanges.push(...serverInstructions);
    totals.changes.push(...serverChanges);
    const bodies = await bodiesOf(raw, fold, s, slug, contentTypes, ctx.lib, totals.stats, totals.sets, totals.setOwner, totals.bodyFindings);
    const latest = rowAt(s.latest);
    if (!latest) continue; // its day file changed under us: the row is counted in problems on the next build
    const view: ServerView = { ...serverView(fold, s, slug, latest, rowAt(s.pageRef), rowAt(s.endpointRef), drift, serverChanges), instructionChanges: [...serverInstructions].reverse(), ...probes(s, ctx.asOfDay), current: bodies };
    servers.push(view);
    totals.rows.push(serverRow(view, k));
  }
  return servers;
}

/** A server's compact row (views.ts ServerRow): what lists and counts read, kept for every server. */
function serverRow(s: ServerView, shard: number): ServerRow {
  return {
    name: s.name, slug: s.slug, shard, status: s.status, errorClass: s.errorClass, notAttemptedReason: s.notAttemptedReason, endpoint: s.endpoint, toolCount: s.toolCount,
    firstObserved: s.firstObserved, lastObserved: s.lastObserved, lastOk: s.lastOk, lastChange: s.lastChange, changeCount: s.changes.length, repeatMover: s.repeatMover,
  };
}

/**
 * One target's contract timeline on the headline: on a v1 headline its drift, lifetimes and first
 * change from its rows; on a stitched headline through src/lib stitchSeries (v1 rows before the seam
 * with its v1 ok rows of the bridge, v2 rows from the seam on): changes never cross a series seam
 * (stitchedChanges), lifetimes are censored at it (stitchedIntervals), and the versions list both
 * sides' hashes.
 */
function targetTimeline(raw: RawArchive, fold: Fold, s: TargetState, name: string, lean: ReturnType<typeof leanRows>): { drift: Drift; intervals: Interval[]; firstChange: FirstChangeInterval[]; seam: SeriesSeam | null } {
  const seamDay = raw.headline.seamDay;
  if (seamDay === null) {
    const drift: Drift = lean.length > 0 ? detectDrift(lean) : { target: name, head: null, versions: [], changes: [], repeatMover: false };
    return { drift, intervals: contractIntervals(lean), firstChange: firstChangeIntervals(lean), seam: null };
  }
  const v1 = [...lean.filter((r) => r.day < seamDay), ...bridgeV1Rows(fold, name)];
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
  fold: Fold,
  s: TargetState,
  slug: string,
  contentTypes: ReadonlyMap<string, string | null>,
  lib: string,
  stats: { bodyHits: number; bodyMisses: number },
  sets: Map<string, SetView>,
  setOwner: Map<string, string>,
  bodyFindings: BodyFindingView[],
): Promise<CurrentBodyView | null> {
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
        // The set's body is its first server's (code units), whichever shard reached it first.
        const owner = setOwner.get(f.setHash);
        if (owner === undefined || byCodeUnits(s.name, owner) < 0) {
          setOwner.set(f.setHash, s.name);
          set.bodySha256 = body;
        }
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
      // The rest of the run starts at its second observation, not on the change day (hover
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
