// The sharded daily pipeline at a growing registry (pure): years 1, 3 and 5 per job and per day,
// beside the limits of the engines it runs on, each with its margin (limit ÷ projected; flagged
// below 2×). `npm run bench:pipeline` prints it; `npm run bench:years` prints it first, as its
// headline, before the older single-job table.
//
// Model. The registry grows linearly (the same number of new servers and listing rows a day): two
// rates, the registry's measured one and the higher one bench:years' clone uses. Every job figure is
// built from a measured per-unit cost (its source beside it) times what drives it on that day:
//   plan     the roster: listing pages along c cursor chains under the one pace (each chain's cursor
//            comes from its page before), c as the collector's auto rule gives it (collector/
//            roster-chains.ts rosterChains: 1 until one chain would take an hour): the wall is
//            max(pages × a page's latency ÷ c, pages at the pace of 150 a minute);
//   probe    shard k of n: its endpoints at the measured seconds a v2 probe keeps a slot, over the
//            shard's concurrency, or its largest host's endpoints over that host's limit, whichever
//            is longer; n = ⌈endpoints ÷ the per-shard bound⌉, every host in one shard;
//   seal     the day's rows merged once, ∝ targets;
//   close    compact, offload, the daily verify (incremental + its scrub slice), commit;
//   render   the site-wide pages every day; per-server pages only for the servers whose page
//            changed. The build keeps every server's compact row and summary and derives the full
//            views one loader shard at a time (src/loader/shards.ts: ≤ 20,000 servers a shard on
//            average, the last two kept), so its heap is a per-server part plus two shards;
//   publish  the changed per-server files to the object store behind the CDN, and the files every day
//            rewrites whatever changed: the status shards (at most 256, ∝ servers in bytes), the
//            name-index shards (512: at scale a day's changed servers touch every one) and the
//            site-wide files (descriptor format 2: no per-server file carries a daily date).
// Matrix waves: at most MATRIX.concurrent jobs run at once, so n shards take ⌈n ÷ 20⌉ waves.

import { rosterChains } from '../collector/roster-chains.ts';
import { fmtValue } from './years-table.ts';

export interface Rate {
  key: 'measured' | 'bench';
  label: string;
  serversPerDay: number;
  rowsPerDay: number;
  source: string;
}

export const RATES: readonly Rate[] = [
  {
    key: 'measured',
    label: 'measured: ≈ 270 servers and ≈ 750 listing rows a day',
    serversPerDay: 270,
    rowsPerDay: 750,
    source: 'the official listing: 608 pages of 100 on 2026-07-28, 837 on 2026-08-27, ≈ 1,150 in October 2026',
  },
  {
    key: 'bench',
    label: "bench:years' clone: 437 servers and 1,527 listing rows (437 new, 1,090 new versions) a day",
    serversPerDay: 437,
    rowsPerDay: 1_527,
    source: 'the 2025-10-20 → 2025-12-12 listings (25.9 rows and 7.42 names a day over 1,950.5 rows) scaled to 115,000 rows (bench/years-registry.ts)',
  },
];

/** The registry today (the study's frame, October 2026; FIELD facts in DESIGN). */
export const TODAY = { servers: 42_000, rows: 115_000, endpointsPerServer: 26_619 / 42_176 } as const;

/** The limits the jobs run under (GitHub's and Cloudflare's published figures). */
export const LIMITS = {
  jobSeconds: 6 * 3600,
  ramBytes: 16e9,
  diskBytes: 14e9,
  matrixJobs: 256,
  matrixConcurrent: 20,
  pagesBytes: 1e9,
  pagesFiles: 100_000,
  registryPerMinute: 180,
  /** R2: Class A operations (writes, lists) free a month; beyond, $4.50 a million. */
  r2ClassAFreePerMonth: 1_000_000,
  r2ClassAPerMillionUsd: 4.5,
  r2ClassBFreePerMonth: 10_000_000,
  r2ClassBPerMillionUsd: 0.36,
  r2StorageFreeGb: 10,
  r2StorageUsdPerGbMonth: 0.015,
} as const;

/** Measured per-unit costs, each with where it was measured. */
export interface Costs {
  roster: { paceSecondsPerPage: number; latencySeconds: number; bytesPerTarget: number; source: string };
  probe: { secondsPerProbe: number; concurrency: number; largestHostShare: number; rssBytes: number; source: string };
  hostLimit: { divisor: number; max: number; span: number | null };
  shard: { maxEndpoints: number; setupSeconds: number };
  seal: { secondsPerRow: number; rssBytes: number; source: string };
  close: { verifySecondsPerRow: number; scrubSecondsAt42k: number; verifyRssBytesPerRow: number; baseRssBytes: number; source: string };
  deploy: {
    cacheBytesPerServer: number;
    loadSecondsPerServer: number;
    deriveSecondsPerServer: number;
    /** Passes over every server a sharded build makes, each deriving every shard again (counted in the code, not measured at scale). */
    derivePasses: number;
    closedBytesPerTargetDay: number;
    /** Days of bundles a build writes at most: one month (the open one at its end, or the one just closed, before it is sealed). */
    monthDays: number;
    /** A month's bundles (JSON Lines, CSV, Parquet of rows and roster targets) per byte of its closed day files. */
    bundleBytesPerDayByte: number;
    /** Roster members held while a month's roster targets are written, per byte of its closed day files. */
    rosterMemberBytesPerDayByte: number;
    /** The bundles job's time a row of the month it writes (each day read, counted, copied, converted; Parquet). */
    bundleSecondsPerRow: number;
    bulkBytesPerServer: number;
    baseDiskBytes: number;
    source: string;
  };
  render: {
    secondsPerServer: number;
    siteWideSeconds: number;
    /** The loader's shard size (src/loader/shards.ts SHARD_TARGETS): S = ⌈servers ÷ this⌉. */
    serversPerRenderShard: number;
    /** Shards whose full views are alive at once (src/loader/derive.ts SHARDS_KEPT). */
    shardsKept: number;
    /** A server's full views while its shard is alive. */
    heapBytesPerServer: number;
    /** What the build keeps for every server whatever S is: its row, its summary, its share of the site-wide lists. */
    compactBytesPerServer: number;
    heapBaseBytes: number;
    changedShare: number;
    source: string;
  };
  site: { pagesBytesPerServer: number; pagesFilesPerServer: number; pagesOtherBytes: number; pagesOtherFiles: number; cdnBytesPerServer: number; cdnFilesPerServer: number; cdnBytesPerChange: number; changedJsonFiles: number; changedJsonBytes: number; statusShards: number; statusBytesPerServer: number; indexShards: number; indexBytesPerServer: number; siteWideFiles: number; source: string };
  store: { keysPerTargetDay: number; bytesPerTargetDay: number; source: string };
}

export interface JobRow {
  job: string;
  metric: string;
  unit: 'seconds' | 'bytes' | 'count' | 'usd';
  limit: number | null;
  limitLabel: string;
  /** One value per year of YEARS. */
  values: number[];
  note: string;
}

export const YEARS = [1, 3, 5] as const;

export interface RegistryAt {
  days: number;
  servers: number;
  rows: number;
  pages: number;
  endpoints: number;
}

export function registryAt(rate: Rate, days: number): RegistryAt {
  const servers = TODAY.servers + rate.serversPerDay * days;
  const rows = TODAY.rows + rate.rowsPerDay * days;
  return { days, servers, rows, pages: Math.ceil(rows / 100), endpoints: Math.round(servers * TODAY.endpointsPerServer) };
}

/** The chains the collector's auto rule picks for a listing of `pages` (yesterday's, at the page latency). */
export function rosterChainsAt(pages: number, c: Costs): number {
  return rosterChains({ complete: { pages, ms: pages * c.roster.latencySeconds * 1000 }, cut: null }, { paceRequests: 60 / c.roster.paceSecondsPerPage, paceWindowMs: 60_000 });
}

/** The roster's wall: its chains overlap the page latency, the one pace bounds them all. */
export function rosterSeconds(pages: number, c: Costs): number {
  return Math.max((pages * c.roster.latencySeconds) / rosterChainsAt(pages, c), pages * c.roster.paceSecondsPerPage);
}

/** The per-host limit: clamp(⌈n ÷ divisor⌉, 1, max(maxCap, ⌈n ÷ span⌉)) (span null: the cap alone). */
export function hostLimit(n: number, h: Costs['hostLimit']): number {
  const cap = h.span === null ? h.max : Math.max(h.max, Math.ceil(n / h.span));
  return Math.min(Math.max(Math.ceil(n / h.divisor), 1), cap);
}

export interface ShardPlanFigures {
  shards: number;
  waves: number;
  largestHost: number;
  largestHostLimit: number;
  /** Wall seconds of the slowest shard (the largest host's, or a full shard of small hosts). */
  slowestShardSeconds: number;
  fullShardSeconds: number;
  largestHostSeconds: number;
}

/** The probe stage at `endpoints`: shards of at most maxEndpoints, the largest host alone in its own. */
export function shardPlan(endpoints: number, c: Costs): ShardPlanFigures {
  const largestHost = Math.round(endpoints * c.probe.largestHostShare);
  const rest = endpoints - largestHost;
  const shards = 1 + Math.ceil(rest / c.shard.maxEndpoints);
  const L = hostLimit(largestHost, c.hostLimit);
  const largestHostSeconds = (largestHost * c.probe.secondsPerProbe) / L;
  const fullShardSeconds = (Math.min(rest, c.shard.maxEndpoints) * c.probe.secondsPerProbe) / c.probe.concurrency;
  const waves = Math.ceil(shards / LIMITS.matrixConcurrent);
  return { shards, waves, largestHost, largestHostLimit: L, slowestShardSeconds: Math.max(largestHostSeconds, fullShardSeconds) + c.shard.setupSeconds, fullShardSeconds, largestHostSeconds };
}

export function projectPipeline(rate: Rate, c: Costs): { rows: JobRow[]; registry: RegistryAt[]; plans: ShardPlanFigures[] } {
  const at = YEARS.map((y) => registryAt(rate, y * 365));
  const plans = at.map((r) => shardPlan(r.endpoints, c));
  const rows: JobRow[] = [];
  const add = (job: string, metric: string, unit: JobRow['unit'], limit: number | null, limitLabel: string, f: (r: RegistryAt, i: number) => number, note: string) =>
    rows.push({ job, metric, unit, limit, limitLabel, values: at.map((r, i) => f(r, i)), note });

  const pace = `${(60 / c.roster.paceSecondsPerPage).toFixed(0)}/min`;
  add('plan (roster)', 'cursor chains', 'count', null, '—', (r) => rosterChainsAt(r.pages, c), `the collector's auto rule on yesterday's listing at ${c.roster.latencySeconds} s a page: one chain up to an hour, then as many as the pace can use`);
  add('plan (roster)', 'wall', 'seconds', LIMITS.jobSeconds, 'job 6 h', (r) => rosterSeconds(r.pages, c) + c.shard.setupSeconds, `max(pages × a page's latency (${c.roster.latencySeconds} s) ÷ chains, pages at the pace (${pace})); ${c.roster.source}`);
  add('plan (roster)', 'registry requests a minute', 'count', null, 'registry ≈ 180 a minute', (r) => (60 * r.pages) / rosterSeconds(r.pages, c), `at most the pace (${pace} after a burst of 20, shared by every chain: a sixth in hand by design, not a margin to grow into)`);
  add('plan (roster)', 'peak memory', 'bytes', LIMITS.ramBytes, 'runner RAM 16 GB', (r) => 300e6 + r.servers * c.roster.bytesPerTarget, `Node + the roster's targets (${c.roster.bytesPerTarget} B a target)`);
  add('probe (shards)', 'matrix jobs', 'count', LIMITS.matrixJobs, 'matrix 256 jobs', (_r, i) => plans[i]!.shards, `⌈endpoints outside the largest host ÷ ${c.shard.maxEndpoints.toLocaleString('en')}⌉ + the largest host's own shard`);
  add('probe (shards)', 'slowest shard, wall', 'seconds', LIMITS.jobSeconds, 'job 6 h', (_r, i) => plans[i]!.slowestShardSeconds, `the larger of the largest host (${(c.probe.largestHostShare * 100).toFixed(0)} % of endpoints) at its limit and a full shard at concurrency ${c.probe.concurrency}; ${c.probe.secondsPerProbe} s a probe; ${c.probe.source}`);
  add('probe (shards)', 'largest host: its limit (in flight)', 'count', null, '—', (_r, i) => plans[i]!.largestHostLimit, c.hostLimit.span === null ? `clamp(⌈n/${c.hostLimit.divisor}⌉, 1, ${c.hostLimit.max})` : `clamp(⌈n/${c.hostLimit.divisor}⌉, 1, max(${c.hostLimit.max}, ⌈n/${c.hostLimit.span}⌉))`);
  add('probe (shards)', 'stage wall (waves of 20 jobs)', 'seconds', LIMITS.jobSeconds, 'workflow: plan + probe + seal within the day', (_r, i) => plans[i]!.largestHostSeconds + c.shard.setupSeconds > (plans[i]!.waves * (plans[i]!.fullShardSeconds + c.shard.setupSeconds)) ? plans[i]!.largestHostSeconds + c.shard.setupSeconds : plans[i]!.waves * (plans[i]!.fullShardSeconds + c.shard.setupSeconds), 'the largest host runs beside the waves of the others');
  add('probe (shards)', 'peak memory a shard', 'bytes', LIMITS.ramBytes, 'runner RAM 16 GB', () => c.probe.rssBytes, c.probe.source);
  add('seal', 'wall', 'seconds', LIMITS.jobSeconds, 'job 6 h', (r) => r.servers * c.seal.secondsPerRow + c.shard.setupSeconds, c.seal.source);
  add('seal', 'peak memory', 'bytes', LIMITS.ramBytes, 'runner RAM 16 GB', () => c.seal.rssBytes, c.seal.source);
  const scrub = (r: RegistryAt) => (c.close.scrubSecondsAt42k * r.servers) / TODAY.servers;
  add('close (compact, offload, verify, commit)', 'wall', 'seconds', LIMITS.jobSeconds, 'job 6 h', (r) => r.servers * c.close.verifySecondsPerRow + scrub(r) + c.shard.setupSeconds, c.close.source);
  add('close (compact, offload, verify, commit)', 'peak memory', 'bytes', LIMITS.ramBytes, 'runner RAM 16 GB', (r) => c.close.baseRssBytes + r.servers * c.close.verifyRssBytesPerRow, c.close.source);
  const changed = (r: RegistryAt) => rate.serversPerDay + r.servers * c.render.changedShare;
  add('render', "a day's per-server renders", 'count', null, '—', (r) => changed(r), `new servers + ${(c.render.changedShare * 100).toFixed(1)} % of servers whose page changed; ${c.render.source}`);
  add('render', 'wall (one render job)', 'seconds', LIMITS.jobSeconds, 'job 6 h', (r) => c.render.siteWideSeconds + changed(r) * c.render.secondsPerServer + c.shard.setupSeconds, 'site-wide pages + the changed servers');
  const shardServers = (r: RegistryAt) => r.servers / Math.max(1, Math.ceil(r.servers / c.render.serversPerRenderShard));
  add('render', 'live heap (every server compact, two shards in full)', 'bytes', 4096 * 2 ** 20, "V8's heap 4 GB", (r) => c.render.heapBaseBytes + r.servers * c.render.compactBytesPerServer + c.render.shardsKept * shardServers(r) * c.render.heapBytesPerServer, `${(c.render.compactBytesPerServer / 1e3).toFixed(1)} kB a server + ${c.render.shardsKept} shards of ≤ ${c.render.serversPerRenderShard.toLocaleString('en')} at ${(c.render.heapBytesPerServer / 1e3).toFixed(1)} kB`);
  const uploads = (r: RegistryAt) => dailyUploads(rate, r, c);
  add('publish', "a day's uploads (files)", 'count', null, '—', uploads, `the changed servers' pages and files (${c.site.cdnFilesPerServer} + ${c.site.changedJsonFiles} JSON: descriptor, tools and set file), + ${c.site.statusShards} status shards, ${c.site.indexShards} name-index shards and ${c.site.siteWideFiles} site-wide files every day`);
  add('publish', "a day's upload (bytes)", 'bytes', null, '—', (r) => changed(r) * (c.site.cdnBytesPerServer + c.site.changedJsonBytes) + r.servers * (c.site.statusBytesPerServer + c.site.indexBytesPerServer), `status files ${c.site.statusBytesPerServer} B and name indexes ${c.site.indexBytesPerServer} B a server, rewritten daily (the bundles, site-wide, are not counted)`);
  add('publish', 'wall (16 uploads at once, 50 ms each)', 'seconds', LIMITS.jobSeconds, 'job 6 h', (r) => (uploads(r) * 0.05) / 16 + c.shard.setupSeconds, 'an upload ≈ 50 ms to a bucket (assumed; no network here)');
  const storeKeysDay = (r: RegistryAt) => r.servers * c.store.keysPerTargetDay;
  // The deploy's build: the carried build cache (fold checkpoints: ∝ servers), the load and derivation
  // of the days since the checkpoint, and its disk — the site's recent days pulled for the bundles grow
  // with servers × days kept.
  add('deploy (build)', 'build cache carried', 'bytes', 4 * 2 ** 30, 'actions/cache: not saved over 4 GiB', (r) => r.servers * c.deploy.cacheBytesPerServer, c.deploy.source);
  add('deploy (build)', 'load + derive (days since the checkpoint)', 'seconds', LIMITS.jobSeconds, 'job 6 h', (r) => r.servers * (c.deploy.loadSecondsPerServer + c.deploy.deriveSecondsPerServer * (r.servers > c.render.serversPerRenderShard ? c.deploy.derivePasses : 1)), `${c.deploy.source}; with more than one loader shard every pass over the servers (${c.deploy.derivePasses}: site bodies, families, fingerprints, registry hygiene, routes, pages, change pages, repositories, files) derives every shard again`);
  // Sealed months and the bundles job (deploy.yml): the bundles job writes one month's bundles at most
  // (the open month at its end, or the month just closed, with its roster members), reading its days
  // one at a time, with no build cache; the site build takes every month from the record.
  const monthBundle = (r: RegistryAt) => c.deploy.monthDays * r.servers * c.deploy.closedBytesPerTargetDay * (c.deploy.bundleBytesPerDayByte + c.deploy.rosterMemberBytesPerDayByte);
  add('deploy (bundles job)', "disk (checkout, a month's bundles and roster members, a day's scratch)", 'bytes', LIMITS.diskBytes, 'runner disk 14 GB', (r) => c.deploy.baseDiskBytes + 2 * r.servers * c.deploy.closedBytesPerTargetDay + monthBundle(r), `closed day files ${Math.round(c.deploy.closedBytesPerTargetDay)} B a target-day (bench:years); a month's bundles ${c.deploy.bundleBytesPerDayByte.toFixed(2)}× and roster members ${c.deploy.rosterMemberBytesPerDayByte.toFixed(2)}× its day files (${c.deploy.source.includes('measured here') ? 'measured here' : 'bench:pipeline'})`);
  add('deploy (bundles job)', 'wall (a month of rows)', 'seconds', LIMITS.jobSeconds, 'job 6 h', (r) => c.shard.setupSeconds + c.deploy.monthDays * r.servers * c.deploy.bundleSecondsPerRow, `${(c.deploy.bundleSecondsPerRow * 1e6).toFixed(1)} µs a row, a row a server a day (v1 or v2; both on a bridge day: twice)`);
  add('deploy (build)', 'disk (checkout, cache, servers.json)', 'bytes', LIMITS.diskBytes, 'runner disk 14 GB', (r) => c.deploy.baseDiskBytes + r.servers * (c.deploy.cacheBytesPerServer + c.deploy.bulkBytesPerServer + 2 * c.deploy.closedBytesPerTargetDay), `the months' bundles are the bundles job's; the bulk descriptors ${(c.deploy.bulkBytesPerServer / 1000).toFixed(1)} kB a server, two days read after the checkpoint`);
  add('object store', 'R2 Class A operations a month (store + CDN uploads)', 'count', null, 'R2: 1M a month free, then $4.50 a million (a cost, not a limit)', (r) => 30 * (storeKeysDay(r) + uploads(r)), `${c.store.keysPerTargetDay.toFixed(3)} store keys a target a day (${c.store.source}) + the publish uploads`);
  add('site', 'Pages site', 'bytes', LIMITS.pagesBytes, 'Pages 1 GB', (r) => c.site.pagesOtherBytes + r.servers * c.site.pagesBytesPerServer, 'site-wide pages and the paged server lists only');
  add('site', 'Pages files', 'count', LIMITS.pagesFiles, '100,000 files', (r) => c.site.pagesOtherFiles + r.servers * c.site.pagesFilesPerServer, '');
  add('site', 'CDN bucket (per-server part)', 'bytes', null, '—', (r) => r.servers * c.site.cdnBytesPerServer + c.site.cdnBytesPerChange * cumulativeChanges(rate, r.days, c), c.site.source);
  add('cost', 'R2 a month (storage + operations)', 'usd', null, '—', (r) => monthlyCost(rate, r, c), 'storage beyond 10 GB at $0.015/GB-month; Class A beyond 1M at $4.50/M');
  return { rows, registry: at, plans };
}

function cumulativeChanges(rate: Rate, days: number, c: Costs): number {
  // Σ over days of servers × changed share: servers grow linearly.
  return c.render.changedShare * (TODAY.servers * days + (rate.serversPerDay * days * days) / 2);
}

/** Files a day's publish uploads: the changed servers' files, and the bounded files every day rewrites. */
function dailyUploads(rate: Rate, r: RegistryAt, c: Costs): number {
  const changed = rate.serversPerDay + r.servers * c.render.changedShare;
  return changed * (c.site.cdnFilesPerServer + c.site.changedJsonFiles) + Math.min(c.site.statusShards, r.servers) + c.site.indexShards + c.site.siteWideFiles;
}

function monthlyCost(rate: Rate, r: RegistryAt, c: Costs): number {
  const storeBytes = c.store.bytesPerTargetDay * (TODAY.servers * r.days + (rate.serversPerDay * r.days * r.days) / 2);
  const cdnBytes = r.servers * c.site.cdnBytesPerServer + c.site.cdnBytesPerChange * cumulativeChanges(rate, r.days, c);
  const gb = (storeBytes + cdnBytes) / 1e9;
  const classA = 30 * (r.servers * c.store.keysPerTargetDay + dailyUploads(rate, r, c));
  return Math.max(0, gb - LIMITS.r2StorageFreeGb) * LIMITS.r2StorageUsdPerGbMonth + (Math.max(0, classA - LIMITS.r2ClassAFreePerMonth) / 1e6) * LIMITS.r2ClassAPerMillionUsd;
}

/** A value as the bench:years table prints it (bytes, seconds, counts), and dollars. */
export function fmt(v: number, unit: JobRow['unit']): string {
  if (unit === 'usd') return Number.isFinite(v) ? `$${v.toFixed(v < 10 ? 2 : 0)}` : 'n/a';
  return fmtValue(v, unit);
}

export function margin(limit: number | null, v: number): string {
  if (limit === null || !Number.isFinite(v) || v <= 0) return '—';
  const x = limit / v;
  const s = x >= 10 ? `${x.toFixed(0)}×` : `${x.toFixed(1)}×`;
  return x < 2 ? `**${s}** ⚠` : s;
}

/** The headline table: one row per job metric, years 1, 3, 5 with margins. */
export function renderPipeline(rate: Rate, c: Costs): string {
  const { rows, registry } = projectPipeline(rate, c);
  const out: string[] = [];
  out.push(`Registry growing at ${rate.label} (${rate.source}):`);
  out.push(registry.map((r) => `year ${r.days / 365}: ${r.servers.toLocaleString('en')} servers, ${r.rows.toLocaleString('en')} listing rows in ${r.pages.toLocaleString('en')} pages, ${r.endpoints.toLocaleString('en')} endpoints`).join('; '));
  out.push('');
  out.push('| job | metric | limit | 1 y | margin | 3 y | margin | 5 y | margin | note |');
  out.push('|---|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    const cells = r.values.flatMap((v) => [fmt(v, r.unit), margin(r.limit, v)]);
    out.push(`| ${r.job} | ${r.metric} | ${r.limitLabel} | ${cells.join(' | ')} | ${r.note} |`);
  }
  return out.join('\n');
}
