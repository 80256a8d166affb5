// Projections of `npm run bench:years` (pure): from a few measured real-sized days to years 1, 3 and 5,
// beside GitHub's limits, each with its margin (limit ÷ projected), flagged below 2×.
//
// Model. Every per-day figure is split into parts (pages, bodies, rosters, observations, runs+chain,
// trees), and each part grows with what drives it:
//   listing rows L(t)  raw pages (today's), page manifests (new), git trees;
//   targets N(t)       rosters, observation rows, verify memory;
//   endpoints E(t)     tool-list bodies (drift), the probe stage;
//   churn (constant)   entry objects of the new design: only new and changed entries are new keys;
//   constant           runs.jsonl and chain.jsonl lines.
// L, N and E grow linearly at the rate measured over the bench's days (the real registry's daily change
// scaled to today's size, bench/years-registry.ts): day t costs part × driver(t)/driver(measured), so
// a total over T days is the first day plus Σ_{t=1}^{T-1}. "flat" is the same with the registry frozen at
// today's size: the floor. Verify time grows with what the archive holds (L: pages and entries to read).
//
// The split: years-figures.ts (what is measured), years-inputs.ts (earlier runs and the limits),
// years-fit.ts (least squares), years-table.ts (the Markdown table); this module the growth model and
// project(). Everything bench/years.ts imports is re-exported here.
import { clamp, fitBuilds, fitSite, line, median } from './years-fit.ts';
import {
  BOUNDED_BUILDS,
  BUILD_HEAP,
  BUILD_RSS,
  FILE_HOST_SITE,
  FILE_HOST_STORE,
  ISSUE_SITE,
  LIMITS,
  PROBE_STAGE,
  README_BUILDS,
  ROSTER_PACE_PER_MIN,
  boundedPerTargetDay,
  fileHostShare,
  fmtLimit,
  perTargetDay,
} from './years-inputs.ts';
import type { BuildPoint, DayFigures, Design, Kind, Measured, Projections, Row } from './years-figures.ts';

/** A month's bundles (JSON Lines, CSV, Parquet) and the roster members Parquet reads, per byte of its day files (bench:pipeline measures it: 2.25 + 0.35). */
const MONTH_BUNDLE_PER_DAY_BYTE = 2.6;

export { PARTS, zeroParts, type BuildPoint, type ByPart, type DayFigures, type Design, type Kind, type Measured, type Part, type Projections, type Row, type VerifyRun } from './years-figures.ts';
export { BOUNDED_BUILDS, BUILD_HEAP, BUILD_RSS, FILE_HOST_SITE, FILE_HOST_STORE, ISSUE_SITE, LIMITS, PROBE_STAGE, README_BUILDS, ROSTER_PACE_PER_MIN, fileHostShare } from './years-inputs.ts';
export { fitBuilds, line } from './years-fit.ts';
export { fmtValue, renderTable } from './years-table.ts';

type Driver = 'L' | 'N' | 'E' | 'churn' | 'const';

const PART_DRIVER: Record<string, Driver> = { pages: 'L', bodies: 'E', rosters: 'N', observations: 'N', 'runs+chain': 'const', other: 'const', 'trees+commits': 'L' };
const KIND_DRIVER: Record<string, Driver> = { page: 'L', manifest: 'L', entry: 'churn', body: 'E', closed: 'N' };
/** verify's entry cache (src/archive/objects.ts EntryCache), full. */
const ENTRY_CACHE_MB = 256;
/** Heap a verify keeps per stored key (a 64-hex name in its checked set, a tenth of them in the referenced map): 132 B, measured in Node 26 with 138,009 names (bench/README.md, Years). */
const VERIFY_KEY_BYTES = 132;
/** The weekly full verify's parts (verify-full.yml's matrix). */
const VERIFY_PARTS = 4;
/** What the object store takes, by kind (closed: the day's gz rows and roster, offloaded; absent from runs before that existed). */
const KINDS = ['page', 'entry', 'manifest', 'body', 'closed'] as const satisfies readonly Kind[];

export const YEARS = [1, 3, 5] as const;

interface Growth {
  /** Value at the steady days' mean, and growth a day. */
  L: [number, number];
  N: [number, number];
  E: [number, number];
}

function growth(days: DayFigures[], flat: boolean): Growth {
  const steady = days.slice(1);
  const mean = (f: (d: DayFigures) => number) => steady.reduce((s, d) => s + f(d), 0) / steady.length;
  const slope = (f: (d: DayFigures) => number) => (flat || days.length < 2 ? 0 : (f(days.at(-1)!) - f(days[0]!)) / (days.length - 1));
  return { L: [mean((d) => d.listing_rows), slope((d) => d.listing_rows)], N: [mean((d) => d.targets), slope((d) => d.targets)], E: [mean((d) => d.endpoints), slope((d) => d.endpoints)] };
}

/** The driver's value on day t (0 = the first measured day) relative to the steady days' mean. */
function ratio(g: Growth, drv: Driver, t: number, days: number): number {
  if (drv === 'const' || drv === 'churn') return 1;
  const [v, s] = g[drv];
  const tMean = days / 2; // the steady days 1..D-1 have their mean at t = D/2
  return (v + s * (t - tMean)) / v;
}

/** Σ_{t=1}^{T-1} ratio(t): how many steady days T days of archive are worth. */
function cumulative(g: Growth, drv: Driver, T: number, days: number): number {
  if (T <= 1) return 0;
  if (drv === 'const' || drv === 'churn') return T - 1;
  const [v, s] = g[drv];
  const tMean = days / 2;
  const n = T - 1;
  const sumT = (n * (n + 1)) / 2; // Σ t for t = 1..T-1
  return (v * n + s * (sumT - tMean * n)) / v;
}

function steadyMean(days: DayFigures[], f: (d: DayFigures, prev: DayFigures) => number): number {
  const xs = days.slice(1).map((d, i) => f(d, days[i]!));
  return xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
}


export function project(m: Measured): Projections {
  const D = m.days.length;
  if (D < 2) throw new Error('bench:years needs at least 2 days (--days 2): day 1 is the first-day cost, days 2.. the steady state');
  const first = m.days[0]!;
  const gGrow = growth(m.days, false);
  const gFlat = growth(m.days, true);
  const sumv = (x: Record<string, number>) => Object.values(x).reduce((s, v) => s + v, 0);

  // Per steady day: what each part adds, per design.
  const perDay = {} as Projections['per_day'];
  const firstDay = {} as Projections['first_day'];
  for (const k of ['today', 'new'] as const) {
    const parts = Object.keys(first.design[k].worktree);
    const pd: Record<string, number> = {};
    for (const p of parts) {
      pd[`worktree:${p}`] = steadyMean(m.days, (d, prev) => d.design[k].worktree[p as 'pages'] - prev.design[k].worktree[p as 'pages']);
      pd[`pack:${p}`] = steadyMean(m.days, (d, prev) => d.design[k].pack_by_part[p as 'pages'] - prev.design[k].pack_by_part[p as 'pages']);
    }
    for (const kind of KINDS) pd[`store:${kind}`] = steadyMean(m.days, (d) => d.design[k].store_added[kind]?.bytes ?? 0);
    pd.push = steadyMean(m.days, (d) => d.design[k].push_bytes);
    pd.pack = steadyMean(m.days, (d, prev) => d.design[k].pack_bytes - prev.design[k].pack_bytes);
    pd.git_add_commit_s = steadyMean(m.days, (d) => d.design[k].git_seconds.add_commit);
    pd.write_s = steadyMean(m.days, (d) => sumv(Object.fromEntries(Object.entries(d.seconds).filter(([s]) => s.startsWith(`${k}:`) && !s.includes('verify')))));
    pd.verify_incremental_s = m.verifyHasIncremental ? steadyMean(m.days, (d) => d.design[k].verify_incremental?.wall_s ?? NaN) : NaN;
    pd.verify_incremental_rss_mb = m.verifyHasIncremental ? steadyMean(m.days, (d) => d.design[k].verify_incremental?.max_rss_mb ?? NaN) : NaN;
    perDay[k] = pd;
    const fd: Record<string, number> = {};
    for (const p of parts) {
      fd[`worktree:${p}`] = first.design[k].worktree[p as 'pages'];
      fd[`pack:${p}`] = first.design[k].pack_by_part[p as 'pages'];
    }
    for (const kind of KINDS) fd[`store:${kind}`] = first.design[k].store_added[kind]?.bytes ?? 0;
    fd.push = first.design[k].push_bytes;
    fd.pack = first.design[k].pack_bytes;
    fd.worktree = sumv(first.design[k].worktree);
    firstDay[k] = fd;
  }

  // The site: the issue's 42,000 × 30 build, moved by the slopes of this run's small builds.
  // The site apart from data/, and data/ (the latest three months' bundles: it stops growing with days after 90).
  const dataMb = (p: BuildPoint) => p.largest['data/']?.mb ?? 0;
  const fitMb = clamp(fitSite(m.builds, (p) => p.site_mb - dataMb(p)));
  const fitData = clamp(fitSite(m.builds, dataMb));
  // Time slopes from CPU seconds of the build tree: steadier than wall time on a shared machine (the issue's 333 s wall is the anchor).
  const withDays = (f: { a: number; b: number } | null, b: number) => (f ? { a: f.a, b } : null);
  const fitS = withDays(clamp(fitSite(m.builds, (p) => p.cpu_s)), perTargetDay(README_BUILDS.cpu_s));
  const fitRss = withDays(clamp(fitSite(m.builds, (p) => p.peak_rss_mb)), perTargetDay(README_BUILDS.peak_rss_gb) * 1000);
  const biggest = [...m.builds].sort((a, b) => b.targets * b.days - a.targets * a.days)[0];
  // Release assets: the whole-archive observation bundles (JSONL.gz, CSV.gz: the larger) grow with the
  // day files; servers.json (every descriptor) with targets.
  const relFile = (b: BuildPoint, re: RegExp) => Math.max(0, ...Object.entries(b.release_by_file ?? {}).filter(([f]) => re.test(f.split('/').at(-1)!)).map(([, v]) => v));
  const WHOLE = /^observations\.(jsonl|csv)\.gz$/;
  // observations.jsonl.gz is the day files' gzip members back to back (src/outputs/bundles.ts), so it is Σ day .jsonl.gz;
  // the CSV.gz beside it is this much of it (the larger of the two is the asset that meets the limit first).
  const jsonlMb = biggest ? relFile(biggest, /^observations\.jsonl\.gz$/) : 0;
  const releaseRatio = biggest && jsonlMb > 0 ? Math.max(1, relFile(biggest, WHOLE) / jsonlMb) : null;
  const serversJsonPerTarget = biggest && relFile(biggest, /^servers\.json$/) > 0 ? (relFile(biggest, /^servers\.json$/) * 1e6) / biggest.targets : null;
  const siteModel: Projections['site_model'] = {
    source: fitMb ? `sizes: the issue's 42,000 × 30 figures, moved by the slopes of ${m.builds.map((b) => `${b.targets}×${b.days}`).join(', ')} built by this run (y = c + a·targets + b·targets·days through them, negative slopes as 0; data/ apart, growing with days only for the first 90: the site keeps three months of bundles; build time and memory: per server from these builds (CPU seconds), per target-day from ${README_BUILDS.source})` : "the issue's 42,000 × 30 figures scaled by targets alone (no small builds in this run)",
    per_server_mb: fitMb && fitData ? fitMb.a + fitData.a : null,
    per_target_day_mb: fitMb?.b ?? null,
    data_per_target_day_mb_first_90_days: fitData?.b ?? null,
    per_server_s: fitS?.a ?? null,
    per_target_day_s: fitS?.b ?? null,
    per_server_rss_mb: fitRss?.a ?? null,
    per_target_day_rss_mb: fitRss?.b ?? null,
    whole_bundle_over_day_files: releaseRatio,
    servers_json_bytes_per_target: serversJsonPerTarget,
  };
  /** y at N targets and `targetDays` of history (Σ targets over the days: a server listed later has fewer). */
  const siteAt = (N: number, targetDays: number, fit: { a: number; b: number } | null, base: number) =>
    fit ? base + fit.a * (N - ISSUE_SITE.targets) + fit.b * (targetDays - ISSUE_SITE.targets * ISSUE_SITE.days) : base * (N / ISSUE_SITE.targets);

  const registryAt: Projections['registry_at'] = {};
  const rows: Row[] = [];
  const at = (g: Growth, drv: 'L' | 'N' | 'E', T: number) => g[drv][0] * ratio(g, drv, T - 1, D);
  /** Σ targets over days 0..T-1 (the rows of T days, one per target a day). */
  const targetDays = (g: Growth, T: number) => at(g, 'N', 1) + g.N[0] * cumulative(g, 'N', T, D);

  /** Cumulative bytes of parts over T days (first day + steady days). */
  const total = (k: Design, prefix: 'worktree' | 'pack' | 'store', T: number, g: Growth) => {
    let s = 0;
    for (const [key, v] of Object.entries(perDay[k])) {
      if (!key.startsWith(`${prefix}:`)) continue;
      const part = key.slice(prefix.length + 1);
      const drv = prefix === 'store' ? KIND_DRIVER[part]! : PART_DRIVER[part]!;
      s += (firstDay[k][key] ?? 0) + v * cumulative(g, drv, T, D);
    }
    return s;
  };
  /** One day's bytes of parts on day T. */
  const oneDay = (k: Design, prefix: 'pack' | 'store' | 'worktree', T: number, g: Growth) => {
    let s = 0;
    for (const [key, v] of Object.entries(perDay[k])) {
      if (!key.startsWith(`${prefix}:`)) continue;
      const part = key.slice(prefix.length + 1);
      s += v * ratio(g, prefix === 'store' ? KIND_DRIVER[part]! : PART_DRIVER[part]!, T - 1, D);
    }
    return s;
  };
  /** A full verify after T days: least squares over the full verifies after each measured day (the CLI's own time), slope ≥ 0. */
  const verify = (k: Design, T: number, g: Growth, what: 'wall_s' | 'max_rss_mb') => {
    const ys = m.verifyFull[k].map((r) => (what === 'wall_s' ? (r.own_s ?? r.wall_s) + startup(k) : r.max_rss_mb));
    const { base, slope } = line(ys);
    if (k === 'new' && what === 'wall_s') {
      // With the entry cache a day of archive costs the new design little more than its rows and rosters,
      // and the measured slope is within a shared machine's noise: never less than today's design's (the same rows and rosters).
      const today = line(m.verifyFull.today.map((r) => (r.own_s ?? r.wall_s) + startup('today')));
      return base + Math.max(0, slope, today.slope) * cumulative(g, 'L', T, D);
    }
    if (k === 'new' && what === 'max_rss_mb') return verifyRssNew(T, g, 1);
    return base + Math.max(0, slope) * cumulative(g, what === 'wall_s' ? 'L' : 'N', T, D);
  };
  /**
   * A full verify's memory in the new design: its first day's max RSS, the entry cache full (it fills
   * over the first days: that is the measured rise, not growth), and what it keeps per stored key
   * (VERIFY_KEY_BYTES: its checked set and referenced map), for the keys the store gains a day. A part
   * holds 1/n of the keys.
   */
  const keysPerDay = steadyMean(m.days, (d) => Object.values(d.design.new.store_added).reduce((a, x) => a + (x?.keys ?? 0), 0));
  const verifyRssNew = (T: number, g: Growth, parts: number) =>
    (m.verifyFull.new[0]?.max_rss_mb ?? 0) + ENTRY_CACHE_MB + (VERIFY_KEY_BYTES * keysPerDay * cumulative(g, 'N', T, D)) / parts / 1e6;
  /** npx + tsx start-up: the command's wall minus the CLI's own time (median over the runs). */
  const startup = (k: Design) => median(m.verifyFull[k].map((r) => (r.own_s === null ? 0 : r.wall_s - r.own_s)));
  const snapshotRatio = (k: Design) => firstDay[k].pack! / Math.max(1, firstDay[k].worktree!);

  const Ts = [...YEARS.map((y) => y * 365)];
  const T5 = 5 * 365;
  for (const T of [1, ...Ts]) {
    registryAt[T === 1 ? 'today' : `${T / 365} y`] = { rows: Math.round(at(gGrow, 'L', T)), targets: Math.round(at(gGrow, 'N', T)), endpoints: Math.round(at(gGrow, 'E', T)), pages: Math.ceil(at(gGrow, 'L', T) / 100) };
  }

  const add = (metric: string, limitKey: keyof typeof LIMITS, design: Row['design'], f: (T: number, g: Growth) => number, note = '') => {
    const lim = LIMITS[limitKey];
    const limitValue = 'bytes' in lim ? lim.bytes : 'count' in lim ? lim.count : lim.seconds;
    const first = (g: Growth) => {
      for (let T = 1; T <= T5; T++) if (f(T, g) > limitValue) return T;
      return null;
    };
    rows.push({ metric, limit: fmtLimit(limitKey), design, values: Ts.map((T) => f(T, gGrow)), flat5: f(T5, gFlat), reaches: { growth: first(gGrow), flat: first(gFlat) }, unit: 'bytes' in lim ? 'bytes' : 'count' in lim ? 'count' : 'seconds', limitValue, note });
  };
  for (const k of ['today', 'new'] as const) add('packed repository', 'repo', k, (T, g) => total(k, 'pack', T, g), `${m.gc}, per day measured`);
  add('packed repository', 'goal', 'new', (T, g) => total('new', 'pack', T, g), `${m.gc}, per day measured`);
  for (const k of ['today', 'new'] as const) add("a day's push (thin pack)", 'push', k, (T, g) => perDay[k].push! * (oneDay(k, 'pack', T, g) / Math.max(1, perDay[k].pack!)), 'git bundle HEAD~1..HEAD, scaled like the pack');
  /** The closed files (gz rows and roster) of day T, which the new design keeps in the store and a job pulls back (store pull). */
  const closedDay = (T: number, g: Growth) => (perDay.new['store:closed'] ?? 0) * ratio(g, 'N', T - 1, D);
  for (const k of ['today', 'new'] as const) {
    add('collect job disk: checkout + node_modules' + (k === 'new' ? " + the day's store keys + 8 days pulled" : ''), 'disk', k, (T, g) => {
      const wt = total(k, 'worktree', T, g);
      return wt + wt * snapshotRatio(k) + m.node_modules_bytes + (k === 'new' ? oneDay(k, 'store', T, g) + 8 * closedDay(T, g) : 0);
    }, k === 'new' ? 'fetch-depth 1: working tree + its packed snapshot; collect.yml pulls the last 8 days' : 'fetch-depth 1: working tree + its packed snapshot');
  }
  const sitePrj = (T: number, g: Growth) =>
    (fitMb && fitData
      ? siteAt(at(g, 'N', T), targetDays(g, T), fitMb, ISSUE_SITE.site_mb - ISSUE_SITE.parts['data/'][0]) + siteAt(at(g, 'N', T), at(g, 'N', T) * Math.min(T, 90), fitData, ISSUE_SITE.parts['data/'][0])
      : siteAt(at(g, 'N', T), 0, null, ISSUE_SITE.site_mb)) * 1e6;
  add('Pages site (unbounded)', 'site', 'today', sitePrj, "issue's 42k×30 figure + slopes");
  /**
   * The bounded site (server pages, drift lists, feeds capped; raw bodies beyond those pages in the
   * store): the issue's month at 42,000 servers, plus what a target-day of history added between the
   * bounded builds of 60 and 360 days (BOUNDED_BUILDS), linearly (an upper bound: caps bite more with
   * time); data/ (three months) as for today's design.
   */
  /**
   * The Pages site with a file host: each server's measured share at its age (FILE_HOST_SITE; a server
   * listed later is younger, so this takes the archive's age for all: an upper bound), plus the rest.
   */
  const fileHostSite = (T: number, g: Growth) => (at(g, 'N', T) * fileHostShare(T, 'per_server_kb') * 1e3) + fileHostShare(T, 'other_mb') * 1e6;
  const fileHostFiles = (T: number, g: Growth) => at(g, 'N', T) * fileHostShare(T, 'per_server_files') + fileHostShare(T, 'other_files');
  add('Pages site (with the file host)', 'site', 'new', fileHostSite, 'per server as measured at 60, 360 and 1,825 days (FILE_HOST_SITE) × targets, + the rest of the site');
  add('Pages site files (with the file host)', 'files', 'new', fileHostFiles, 'per server as measured at 60, 360 and 1,825 days × targets, + the rest');
  const siteBounded = (T: number, g: Growth) => {
    const month = ISSUE_SITE.site_mb - ISSUE_SITE.parts['data/'][0];
    const grown = month * (at(g, 'N', T) / ISSUE_SITE.targets) + boundedPerTargetDay(BOUNDED_BUILDS.site_mb) * Math.max(0, targetDays(g, T) - ISSUE_SITE.targets * ISSUE_SITE.days);
    const data = fitData ? siteAt(at(g, 'N', T), at(g, 'N', T) * Math.min(T, 90), fitData, ISSUE_SITE.parts['data/'][0]) : ISSUE_SITE.parts['data/'][0] * (at(g, 'N', T) / ISSUE_SITE.targets);
    return (grown + data) * 1e6;
  };
  const filesBounded = (T: number, g: Growth) => (ISSUE_SITE.site_files / ISSUE_SITE.targets) * at(g, 'N', T) + boundedPerTargetDay(BOUNDED_BUILDS.files) * Math.max(0, targetDays(g, T) - ISSUE_SITE.targets * ISSUE_SITE.days);
  add('Pages site (bounded, no file host)', 'site', 'new', siteBounded, "the issue's month + the bounded builds' slope per target-day");
  add('Pages site files (bounded, no file host)', 'files', 'new', filesBounded, "the issue's month's files per target + the bounded builds' slope");
  // Σ day .jsonl.gz: today's design's gz day files (yesterday's closed each day, so a steady day adds one gz; its first day is plain).
  const releasePrj = (T: number, g: Growth) => (releaseRatio ?? 1) * perDay.today['worktree:observations']! * (1 + cumulative(g, 'N', T, D));
  add('release asset: whole-archive observations bundle', 'asset', 'today', releasePrj, releaseRatio ? `Σ day .jsonl.gz (its members), × ${releaseRatio.toFixed(2)} for the larger of it and observations.csv.gz (small builds)` : 'Σ day .jsonl.gz');
  if (serversJsonPerTarget !== null) add('release asset: servers.json', 'asset', 'today', (T, g) => serversJsonPerTarget * at(g, 'N', T), `${(serversJsonPerTarget / 1e3).toFixed(1)} kB per target (small build) ∝ targets`);
  // The new design publishes no whole-archive file: one part per closed month (npm run months), split
  // into pieces under 2 GB when larger. Before splitting, a part holds the month's git files and store
  // keys (30 days of both) plus every entry its pages name (a whole listing's entries, ≈ the first day's
  // store keys): an upper bound, uncompressed (the part is a tar.gz).
  const storeFirst = Object.entries(firstDay.new).reduce((a, [key, v]) => (key.startsWith('store:') ? a + (v ?? 0) : a), 0);
  add("release asset: a closed month's part (before splitting)", 'asset', 'new', (T, g) => 30 * (oneDay('new', 'worktree', T, g) + oneDay('new', 'store', T, g)) + storeFirst * ratio(g, 'L', T - 1, D), "30 days of git files and store keys + a listing's entries; split into < 2 GB pieces when larger");
  const buildRss = (T: number, g: Growth) => (fitRss ? siteAt(at(g, 'N', T), targetDays(g, T), fitRss, ISSUE_SITE.peak_rss_gb * 1000) : ISSUE_SITE.peak_rss_gb * 1000 * (at(g, 'N', T) / ISSUE_SITE.targets)) * 1e6;
  add('RAM: site build peak (cold)', 'ram', 'today', buildRss, "issue's 4.27 GB + slopes");
  // The daily build (warm: the carried cache) and a cold one (a lost cache, a new cache format: every
  // day's summary computed again, in 30-day worker chunks), each fitted to the current code's builds
  // (BUILD_RSS: c + a·targets + b·targets·days, least squares). Their peak is Pagefind's, in the search
  // stage, on top of what the loaded archive holds.
  const warmFit = fitBuilds(BUILD_RSS.warm);
  const coldFit = fitBuilds(BUILD_RSS.cold);
  const fitted = (f: ReturnType<typeof fitBuilds>) => (T: number, g: Growth) => (f ? f.c + f.a * at(g, 'N', T) + f.b * targetDays(g, T) : NaN) * 1e6;
  const fitNote = (f: ReturnType<typeof fitBuilds>, pts: readonly { targets: number; days: number; y: number }[]) =>
    f ? `${Math.round(f.c)} MB + ${(f.a * 1e3).toFixed(1)} kB a target + ${(f.b * 1e6).toFixed(1)} B a target-day, through ${pts.map((p, i) => `${p.targets.toLocaleString('en')} × ${p.days} (${p.y} MB, residual ${f.residuals[i]! >= 0 ? '+' : ''}${Math.round(f.residuals[i]!)})`).join(', ')}` : 'fewer than 3 builds';
  // The daily build's memory, from what it holds (BUILD_HEAP): its live heap (fitted) must stay under
  // V8's heap limit or the build fails. Its peak RSS is the larger of its two steps (npm run build: the
  // Astro build, then the search step once Astro has exited): the Astro step at most its process
  // outside the heap (fitted) plus the heap at its cap, the search step fitted to its own peaks: an upper bound.
  const heapPts = (y: (p: (typeof BUILD_HEAP)[number]) => number) => BUILD_HEAP.map((p) => ({ targets: p.targets, days: p.days, y: y(p) }));
  const liveFit = fitBuilds(heapPts((p) => p.live));
  const nonHeapFit = fitBuilds(heapPts((p) => p.main_rss - p.before));
  const searchFit = fitBuilds(heapPts((p) => p.search_rss));
  add("RAM: the daily build's live heap (V8, after a mark-compact)", 'heap', 'new', fitted(liveFit), `fitted to --trace-gc builds: ${fitNote(liveFit, heapPts((p) => p.live))}`);
  const capMb = LIMITS.heap.bytes / 2 ** 20;
  add('RAM: daily site build peak (warm cache), bounded', 'ram', 'new', (T, g) => Math.max(fitted(nonHeapFit)(T, g) + capMb * 1e6, fitted(searchFit)(T, g)), `the larger of the Astro step — outside the heap ${fitNote(nonHeapFit, heapPts((p) => p.main_rss - p.before))}, + the heap at its cap (${capMb} MB) — and the search step, ${fitNote(searchFit, heapPts((p) => p.search_rss))}`);
  add('RAM: daily site build peak (warm cache), fitted to peak RSS', 'ram', 'new', fitted(warmFit), `fitted to the current code's warm builds (uncapped heap: V8's slack extrapolated): ${fitNote(warmFit, BUILD_RSS.warm)}`);
  add('RAM: a cold site build (a lost cache, a new cache format)', 'ram', 'new', fitted(coldFit), `fitted to the current code's cold builds: ${fitNote(coldFit, BUILD_RSS.cold)}`);
  add('RAM: full verify', 'ram', 'today', (T, g) => verify('today', T, g, 'max_rss_mb') * 1e6, 'measured after each day, least-squares slope ∝ targets');
  add('RAM: full verify', 'ram', 'new', (T, g) => verify('new', T, g, 'max_rss_mb') * 1e6, `first day + entry cache (${ENTRY_CACHE_MB} MB) + ${VERIFY_KEY_BYTES} B a stored key`);
  if (m.verifyHasIncremental) for (const k of ['today', 'new'] as const) add('RAM: daily verify', 'ram', k, (T, g) => perDay[k].verify_incremental_rss_mb! * ratio(g, 'L', T - 1, D) * 1e6, 'measured steady days ∝ listing rows');
  add('deploy job disk: checkout + node_modules + site + release folder', 'disk', 'today', (T, g) => {
    const wt = total('today', 'worktree', T, g);
    return wt * (1 + snapshotRatio('today')) + m.node_modules_bytes + sitePrj(T, g) + releasePrj(T, g) + (serversJsonPerTarget ?? 0) * at(g, 'N', T);
  }, 'release folder ≈ the whole-archive bundle + servers.json');
  add("deploy job disk: checkout + node_modules + site + a month's bundles + servers.json", 'disk', 'new', (T, g) => {
    const wt = total('new', 'worktree', T, g);
    return wt * (1 + snapshotRatio('new')) + m.node_modules_bytes + siteBounded(T, g) + 31 * MONTH_BUNDLE_PER_DAY_BYTE * closedDay(T, g) + (serversJsonPerTarget ?? 0) * at(g, 'N', T);
  }, `MCP_SCHEMA_RELEASE=parts with a file host: closed months sealed, so a build writes one month's bundles and roster members (${MONTH_BUNDLE_PER_DAY_BYTE}× its day files, bench:pipeline) and reads its days one at a time; the build cache not counted`);
  for (const k of ['today', 'new'] as const) add('full verify (--full)', 'job', k, (T, g) => verify(k, T, g, 'wall_s'), 'wall; slope per day ∝ listing rows');
  // verify-full.yml: VERIFY_PARTS jobs side by side (--full --part k/n), each 1/n of the days and shards.
  add(`full verify, one of ${VERIFY_PARTS} parts (verify-full.yml)`, 'job', 'new', (T, g) => (verify('new', T, g, 'wall_s') - startup('new')) / VERIFY_PARTS + startup('new'), `the full verify's work ÷ ${VERIFY_PARTS}, plus start-up`);
  add(`RAM: one of ${VERIFY_PARTS} parts of a full verify`, 'ram', 'new', (T, g) => verifyRssNew(T, g, VERIFY_PARTS) * 1e6, `first day + entry cache + ${VERIFY_KEY_BYTES} B a stored key, ÷ ${VERIFY_PARTS}`);
  /**
   * The daily verify: incremental from the recorded head (the day's runs, rows, roster and objects: ∝ the
   * listing) plus the scrub, which re-hashes 1/28 of every stored key a day: at most a 28th of a full
   * verify of the archive as it then is (an upper bound: a full verify also reads every row).
   */
  const daily = (k: Design, T: number, g: Growth) =>
    m.verifyHasIncremental ? perDay[k].verify_incremental_s! * ratio(g, 'L', T - 1, D) + Math.max(0, verify(k, T, g, 'wall_s') - startup(k)) / 28 : verify(k, T, g, 'wall_s');
  if (m.verifyHasIncremental) for (const k of ['today', 'new'] as const) add('daily verify (incremental + 1/28 scrub)', 'job', k, (T, g) => daily(k, T, g), 'measured steady days ∝ listing + full ÷ 28');
  for (const k of ['today', 'new'] as const) {
    add('collect job (probe + roster + write + daily verify + commit)', 'job', k, (T, g) => {
      const probe = PROBE_STAGE.minutes * 60 * (at(g, 'E', T) / PROBE_STAGE.endpoints);
      const roster = (Math.ceil(at(g, 'L', T) / 100) * 60) / ROSTER_PACE_PER_MIN;
      const write = perDay[k].write_s! * ratio(g, 'L', T - 1, D);
      const commit = perDay[k].git_add_commit_s! * ratio(g, 'L', T - 1, D);
      return probe + roster + write + commit + daily(k, T, g);
    }, m.verifyHasIncremental ? 'incremental verify' : 'full verify');
  }
  const buildWall = (T: number, g: Growth) => (fitS ? siteAt(at(g, 'N', T), targetDays(g, T), fitS, ISSUE_SITE.wall_s) : ISSUE_SITE.wall_s * (at(g, 'N', T) / ISSUE_SITE.targets));
  add('deploy job (daily verify + cold build)', 'job', 'today', (T, g) => daily('today', T, g) + buildWall(T, g), 'deploy.yml verified, then built without a cache');
  // The new design's deploy restores its build cache (deploy.yml), so it builds warm: fitted to the warm builds' wall time.
  const wallFit = fitBuilds(BUILD_RSS.warm_wall_s);
  const warmWall = (T: number, g: Growth) => (wallFit ? wallFit.c + wallFit.a * at(g, 'N', T) + wallFit.b * targetDays(g, T) : NaN);
  add('deploy job (daily verify + warm build)', 'job', 'new', (T, g) => daily('new', T, g) + warmWall(T, g), `deploy.yml verifies, then builds on the carried cache; the build ${wallFit ? `${Math.round(wallFit.c)} s + ${(wallFit.a * 1e3).toFixed(1)} ms a target + ${(wallFit.b * 1e6).toFixed(2)} µs a target-day (the warm builds' wall time, a shared machine)` : 'not fitted'}; publish-files' upload is not measured (no network here)`);
  // Not GitHub limits, shown for the new design: the object store and its upload.
  const info = (metric: string, f: (T: number, g: Growth) => number, note: string) =>
    rows.push({ metric, limit: '—', design: 'new', values: Ts.map((T) => f(T, gGrow)), flat5: f(T5, gFlat), reaches: { growth: null, flat: null }, unit: 'bytes', limitValue: null, note });
  info('object store (objects/ + pages/)', (T, g) => total('new', 'store', T, g), 'entries, manifests, bodies');
  info("a day's upload to the object store", (T, g) => oneDay('new', 'store', T, g), 'new keys');
  // The file host (a bucket beside Pages, DESIGN "The file host"): a server's share measured at four ages, interpolated in days; a day's publish-files ∝ targets.
  const fileHostKb = (days: number) => {
    const d = FILE_HOST_STORE.days;
    let i = 0;
    while (i < d.length - 2 && days > d[i + 1]!) i++;
    const [ka, kb] = [FILE_HOST_STORE.per_server_kb[i]!, FILE_HOST_STORE.per_server_kb[i + 1]!];
    return Math.max(0, ka + ((kb - ka) * (days - d[i]!)) / (d[i + 1]! - d[i]!));
  };
  info('file host (the site\'s moved files)', (T, g) => at(g, 'N', T) * fileHostKb(T) * 1e3, 'per server as measured at 30, 60, 360 and 1,824 days × targets');
  info("a day's publish-files upload", (T, g) => (FILE_HOST_STORE.daily_upload.mb * 1e6 * at(g, 'N', T)) / FILE_HOST_STORE.daily_upload.targets, `${FILE_HOST_STORE.daily_upload.files.toLocaleString('en')} files, ${FILE_HOST_STORE.daily_upload.mb} MB at ${FILE_HOST_STORE.daily_upload.targets.toLocaleString('en')} targets (bench:build --daily --files), ∝ targets`);

  const assumptions = [
    `Registry: ${m.shape.rows.toLocaleString('en')} rows, ${m.shape.names.toLocaleString('en')} names, ${m.shape.endpoints.toLocaleString('en')} endpoints, cloned from the real 2025-12-12 listing (real entry sizes and shapes).`,
    `Daily change: the real listings of ${m.rate.from} and ${m.rate.to} (${m.rate.days} days apart) grew ${m.rate.rows[0]} → ${m.rate.rows[1]} rows and ${m.rate.names[0]} → ${m.rate.names[1]} names: ${m.rate.new_rows_per_day.toFixed(1)} rows and ${m.rate.new_names_per_day.toFixed(2)} names a day over a mean of ${m.rate.mean_rows} rows; scaled proportionally to ${m.shape.rows.toLocaleString('en')} rows: ${m.change.newNames.toFixed(0)} new servers and ${m.change.newVersions.toFixed(0)} new versions a day (each flips the previous latest's isLatest and updatedAt).`,
    `Growth: linear at that rate (the same number of new rows a day, not the same fraction: compounding 1.3 % a day would be absurd), so in 5 years the listing has ${registryAt['5 y']!.rows.toLocaleString('en')} rows in ${registryAt['5 y']!.pages.toLocaleString('en')} pages and ${registryAt['5 y']!.targets.toLocaleString('en')} targets; "5 y flat" freezes it at today's size.`,
    `Each part of a day grows with its driver: pages, manifests and git trees with listing rows; rosters and rows with targets; bodies with endpoints; the new design's entry objects with the churn (constant); runs and chain lines constant.`,
    `Push ≈ the day's thin pack (git bundle of the day's commit). Runner disk of the collect job = the working tree + its depth-1 pack (the first day's pack ÷ working tree) + node_modules${' '}(+ the day's new store keys, the new design's local cache).`,
    'Verify: a full verify (--full) after every measured day, the least-squares slope per day of its own time (plus the command\'s start-up) projected ∝ listing rows (the new design\'s never below today\'s: the same rows and rosters), of its max RSS ∝ targets (the new design\'s: its first day, the entry cache full, and 132 B per stored key); the daily verify is the CLI\'s incremental mode (--record, head in verify-state.json) measured on the steady days ∝ listing rows (time and the whole RSS: an upper bound), plus its scrub (1/28 of every stored key a day) bounded by a 28th of the projected full verify.',
    `Job time: probe stage ${PROBE_STAGE.minutes} min at ${PROBE_STAGE.endpoints.toLocaleString('en')} endpoints (${PROBE_STAGE.source}) ∝ endpoints; roster paging at ${ROSTER_PACE_PER_MIN} pages/min; this run's write and commit seconds ∝ listing rows; verify as measured.`,
    `Site: today's design ${siteModel.source}, unbounded. The new design's site is bounded (server pages, drift lists, feeds capped; raw bodies beyond those pages in the store): the issue's month at 42,000 servers ∝ targets, plus the slope per target-day between two bounded cold builds (${BOUNDED_BUILDS.source}: ${(boundedPerTargetDay(BOUNDED_BUILDS.site_mb) * 1e6).toFixed(1)} B of site and ${(boundedPerTargetDay(BOUNDED_BUILDS.files) * 1000).toFixed(2)} files per 1,000 target-days), linearly: an upper bound, as the caps bite more with time. Its per-server baseline (server page 11.6 KB, descriptor 4.8 KB, tools file 10.4 KB for a server that answers, badge 1.1 KB: ≈ 26 KB a server at 5,000 × 60) is most of it and does not shrink with time.`,
    `Build memory and time: the current code's builds (${BUILD_RSS.source}), fitted as c + a·targets + b·targets·days; a build's peak is the larger of its two steps (the Astro build holding the loaded archive, then the search step, Pagefind, once Astro has exited); a cold build computes every day's summary in 30-day worker chunks, a fresh worker each. The Pages site: ${FILE_HOST_SITE.map((b) => `${b.targets.toLocaleString('en')} × ${b.days}: ${b.per_server_kb.toFixed(2)} kB and ${b.per_server_files.toFixed(2)} files a server + ${b.other_mb.toFixed(1)} MB, ${b.other_files} files`).join('; ')} (bench/build.ts siteShares), interpolated in days. The file host: ${FILE_HOST_STORE.per_server_kb.map((k, i) => `${k.toFixed(1)} kB a server at ${FILE_HOST_STORE.days[i]} days`).join(', ')}; a day's publish-files ${FILE_HOST_STORE.daily_upload.files.toLocaleString('en')} files, ${FILE_HOST_STORE.daily_upload.mb} MB at ${FILE_HOST_STORE.daily_upload.targets.toLocaleString('en')} targets, ∝ targets.`,
    `The new design's jobs: collect.yml pulls the last 8 days of closed files back from the store; deploy.yml the site's three months (92 days) and builds with MCP_SCHEMA_RELEASE=parts (no whole-archive file, no release folder of bundles); verify-full.yml runs ${VERIFY_PARTS} parts side by side.`,
    'Pages deploy time (10 min) is not measured (no network here): what it must upload is the site row.',
  ];
  return { assumptions, per_day: perDay, first_day: firstDay, rows, site_model: siteModel, registry_at: registryAt };
}

