// What bench:years takes from elsewhere, each with its source: earlier runs of bench:archive,
// bench:build and bench:scale recorded in bench/README.md (not this run), and the limits the
// projections are held against (GitHub's, the runner's, Cloudflare Pages').

/** What was measured at 42,000 targets × 30 days (bench:archive then bench:build --cold), not this run. */
export const ISSUE_SITE = {
  targets: 42_000,
  days: 30,
  site_mb: 1_128,
  site_files: 184_750,
  parts: { 'servers/': [550, 108_772], 'api/': [326, 63_561], 'data/': [153, null], 'objects/': [69, null] },
  wall_s: 333,
  peak_rss_gb: 4.27,
} as const;

/**
 * bench:build's first builds of 25,000 × 90 and × 365 days (bench/README.md, "Site build"; not this run):
 * what a day of history costs a cold build, per target-day. The small builds of this run give the
 * per-server slopes and the sizes; their per-day CPU and RSS differences are within the noise of a shared
 * machine (RSS moved down as well as up), so the day slopes come from these longer builds.
 */
export const README_BUILDS = { targets: 25_000, days: [90, 365], cpu_s: [311, 586], peak_rss_gb: [2.96, 3.84], source: 'bench:build --cold, 25,000 × 90 and × 365 (bench/README.md), not this run' } as const;
export const perTargetDay = (ys: readonly number[]) => (ys[1]! - ys[0]!) / (README_BUILDS.targets * (README_BUILDS.days[1] - README_BUILDS.days[0]));

/** bench:scale (bench/README.md): the v2 probe stage at 26,000 endpoints, projected, not measured here. */
export const PROBE_STAGE = { endpoints: 26_000, minutes: 47.7, source: 'bench:scale --methodology v2, factor 10 (bench/README.md), not this run' } as const;
/** The collector's registry pace (collector/roster.ts): 150 requests a minute. */
export const ROSTER_PACE_PER_MIN = 150;

export const LIMITS = {
  repo: { bytes: 10e9, label: 'repository (recommended; goal < 5 GB at 5 y)' },
  goal: { bytes: 5e9, label: 'goal' },
  push: { bytes: 2e9, label: 'push' },
  disk: { bytes: 14e9, label: 'runner disk' },
  ram: { bytes: 16e9, label: 'runner RAM' },
  heap: { bytes: 4096 * 2 ** 20, label: "V8's heap limit (4 GB: Node's default on a 16 GB runner)" },
  job: { seconds: 6 * 3600, label: 'job' },
  site: { bytes: 1e9, label: 'Pages site' },
  files: { count: 100_000, label: 'files (Cloudflare Pages paid)' },
  deploy: { seconds: 600, label: 'Pages deploy' },
  asset: { bytes: 2 * 2 ** 30, label: 'release asset' },
} as const;


export function fmtLimit(k: keyof typeof LIMITS): string {
  const text: Record<keyof typeof LIMITS, string> = {
    repo: 'repository 10 GB (recommended; goal < 5 GB at 5 y)',
    goal: 'the goal: < 5 GB packed after 5 y',
    push: 'push 2 GB',
    disk: 'runner disk 14 GB',
    ram: 'runner RAM 16 GB',
    heap: "V8 heap limit 4 GB (Node's default at 16 GB)",
    job: 'job 6 h',
    site: 'Pages site 1 GB',
    files: 'files: 100,000 (Cloudflare Pages paid; aim)',
    deploy: 'Pages deploy 10 min',
    asset: 'release asset 2 GiB',
  };
  return text[k];
}

/**
 * Two cold builds of the bounded site (bench:archive --targets 5000 --days 60 and --days 360, then
 * MCP_SCHEMA_RELEASE=parts MCP_SCHEMA_OBJECTS_URL=... bench:build --cold --kinds; bench/README.md
 * "Years": not this run): the site without data/ and its files, for the "bounded, no file host" rows.
 */
export const BOUNDED_BUILDS = {
  targets: 5_000,
  days: [60, 360],
  site_mb: [160.2 - 30.7, 198.1 - 44.7],
  files: [23_854 - 31, 27_744 - 31],
  source: 'bench:build --cold of bench:archive 5,000 x 60 and x 360 with the site bounds (bench/README.md, Years), not this run',
} as const;
/**
 * The Pages site with a file host (MCP_SCHEMA_FILES_URL; bench:build --files --kinds, DESIGN "The file
 * host"), measured on the current code at four sizes (bench/README.md, "Results, fourth run"; not this
 * run): bench:archive 20,000 × 30, 5,000 × 60 and × 360, and 1,000 × 1,824 — five years of days, so every
 * cap a server page has is reached by the servers that reach it, not extrapolated. Split by
 * bench/build.ts siteShares: per server, what grows with servers (server pages with their change pages
 * and list pages, the lookup's rows, Pagefind's fragments and index); the rest (the lookup's page
 * frames, Pagefind's scripts, drift lists: capped; trends, charts, methodology, /data/'s small files)
 * does not, and is taken as measured. Between two ages a server's share is interpolated linearly in days.
 */
const build = (targets: number, days: number, per: { bytes: number; files: number }, rest: { bytes: number; files: number }) => ({ targets, days, per_server_kb: per.bytes / targets / 1e3, per_server_files: per.files / targets, other_mb: rest.bytes / 1e6, other_files: rest.files });
export const FILE_HOST_SITE = [
  build(20_000, 30, { bytes: 168_941_473, files: 21_627 }, { bytes: 6_617_243, files: 1_027 }),
  build(5_000, 60, { bytes: 44_218_656, files: 5_475 }, { bytes: 5_126_280, files: 911 }),
  build(5_000, 360, { bytes: 48_112_485, files: 5_528 }, { bytes: 8_760_150, files: 948 }),
  build(1_000, 1_824, { bytes: 11_227_838, files: 1_126 }, { bytes: 10_310_655, files: 905 }),
] as const;
/** The file host beside it (the same builds): its size per server, and what a day's publish-files uploads (bench:build --daily --files, 20,000 × 30). */
export const FILE_HOST_STORE = { per_server_kb: [305.3 / 20, 92.4 / 5, 113.3 / 5, 32.9], days: [30, 60, 360, 1_824], daily_upload: { targets: 20_000, files: 35_033, mb: 241.3 }, source: 'bench:build --files of bench:archive 20,000 × 30, 5,000 × 60 and × 360, 1,000 × 1,824 (bench/README.md, fourth run), not this run' } as const;
/**
 * Peak RSS of the build's process tree (bench:build: the Astro build, its day-summary workers, then the
 * search step), warm (the carried cache: what the daily deploy runs) and cold (--cold: every day's
 * summary computed in 30-day worker chunks), fitted as c + a·targets + b·targets·days by least squares
 * (fitBuilds), each point's residual printed. Both on the fifth run's code (the fold as runs, the search a step of its
 * own; bench/README.md, fifth run).
 */
export const BUILD_RSS = {
  warm: [
    { targets: 20_000, days: 30, y: 1_886 },
    { targets: 5_000, days: 60, y: 930 },
    { targets: 5_000, days: 360, y: 966 },
    { targets: 1_000, days: 60, y: 797 },
    { targets: 1_000, days: 360, y: 879 },
    { targets: 1_000, days: 1_824, y: 916 },
  ],
  cold: [
    { targets: 20_000, days: 30, y: 1_668 },
    { targets: 5_000, days: 60, y: 1_477 },
    { targets: 5_000, days: 360, y: 1_512 },
    { targets: 1_000, days: 60, y: 1_240 },
    { targets: 1_000, days: 360, y: 1_309 },
    { targets: 1_000, days: 1_824, y: 1_229 },
  ],
  /** Wall seconds of the warm builds (the same runs; a shared 2-core machine, other work beside them: an upper bound). */
  warm_wall_s: [
    { targets: 20_000, days: 30, y: 181.8 },
    { targets: 5_000, days: 60, y: 80.5 },
    { targets: 5_000, days: 360, y: 143.3 },
    { targets: 1_000, days: 60, y: 31.2 },
    { targets: 1_000, days: 360, y: 31.6 },
    { targets: 1_000, days: 1_824, y: 55.0 },
  ],
  source: 'bench:build --files --kinds --trace-gc [--cold] of bench:archive 20,000 × 30, 5,000 × 60 and × 360, 1,000 × 60, × 360 and × 1,824 (bench/README.md, fifth run), not this run',
} as const;
/**
 * What the warm builds hold (bench:build --trace-gc; bench/README.md, fifth run; not this run), on the
 * code where the fold keeps ok rows as runs and npm run build indexes the search in a step of its own:
 * the largest V8 heap after a mark-compact (live), the largest before one (how far V8 let the heap
 * grow), the Astro step's peak RSS (main_rss) and the search step's (search_rss: Pagefind and its
 * Node process, after the Astro process has exited). MB.
 */
export const BUILD_HEAP = [
  { targets: 20_000, days: 30, live: 220.5, before: 839.3, main_rss: 1_616, search_rss: 1_886 },
  { targets: 5_000, days: 60, live: 153.0, before: 351.7, main_rss: 930, search_rss: 719 },
  { targets: 5_000, days: 360, live: 161.0, before: 341.7, main_rss: 966, search_rss: 724 },
  { targets: 1_000, days: 60, live: 130.0, before: 241.0, main_rss: 797, search_rss: 411 },
  { targets: 1_000, days: 360, live: 135.7, before: 298.5, main_rss: 879, search_rss: 406 },
  { targets: 1_000, days: 1_824, live: 151.8, before: 342.5, main_rss: 916, search_rss: 405 },
] as const;

/** A server's share of the file-host site (KB) after `days`, interpolated between the measured ages (the last slope past the oldest). */
export function fileHostShare(days: number, key: 'per_server_kb' | 'per_server_files' | 'other_mb' | 'other_files'): number {
  const pts = [...FILE_HOST_SITE].sort((a, b) => a.days - b.days);
  let i = 0;
  while (i < pts.length - 2 && days > pts[i + 1]!.days) i++;
  const [a, b] = [pts[i]!, pts[i + 1]!];
  const y = a[key] + ((b[key] - a[key]) * (days - a.days)) / (b.days - a.days);
  return Math.max(y, 0);
}


export const boundedPerTargetDay = (ys: readonly number[]) => (ys[1]! - ys[0]!) / (BOUNDED_BUILDS.targets * (BOUNDED_BUILDS.days[1] - BOUNDED_BUILDS.days[0]));
