// `npm run bench:pipeline -- [--rate measured|bench|both] [--json FILE]`
//
// The sharded daily pipeline at a growing registry, years 1, 3 and 5 (bench/pipeline-project.ts).
// What it measures here, each time it runs (no network; scratch under .bench/pipeline, removed after):
//   - a roster target's heap: 100,000 targets shaped as collector/targets.ts writes them (names,
//     versions, endpoints and page hashes of real lengths), after a forced GC when node runs with
//     --expose-gc (the npm script passes it);
//   - the seal's inner loop: rows validated by the contract and appended to the day file through the
//     collector's Store (what seal does with every row a shard wrote), rows a second over 50,000
//     not_attempted v2 rows.
//   - a month's bundles against its day files: a generated archive (bench/archive-gen.ts, 3,000
//     targets × 12 days across a month's end) written by the site's own writer (src/outputs/bundles.ts,
//     the file host's months only), its month files' bytes and the roster members Parquet reads, each
//     over the bytes of the JSON Lines part (the month's day files as they stand); and the bundles job
//     itself (src/loader/month-view.ts and the months-only writer) timed, in seconds a row.
// Every other per-unit cost is a measured figure of another benchmark, named beside it (COSTS).
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { notAttemptedRowV2 } from '../collector/rows-v2.ts';
import { Store } from '../collector/store.ts';
import type { RosterTarget } from '../src/lib/index.ts';
import { forgetArchive, loadArchive } from '../src/loader/load-archive.ts';
import { writeBundles } from '../src/outputs/bundles.ts';
import { SITE_MONTHS } from '../src/outputs/catalogue.ts';
import { monthView } from '../src/loader/month-view.ts';
import type { Archive } from '../src/loader/views.ts';
import type { Publication } from '../src/outputs/publication.ts';
import { generateArchive } from './archive-gen.ts';
import { projectPipeline, RATES, renderPipeline, type Costs } from './pipeline-project.ts';

function target(i: number): RosterTarget {
  const name = `io.github.publisher-${(i * 7919) % 100_003}/server-${i}`;
  return { name, version: `1.${i % 17}.${i % 5}`, status: 'active', endpoint: `https://mcp.example-${i % 9_001}.com/${name.split('/')[1]}/mcp`, endpoint_problem: null, page_sha256: (i % 1_150).toString(16).padStart(64, '0'), page_index: i % 100 };
}

/** Heap bytes a roster target costs (after a forced GC when one is available; without --expose-gc an upper bound). */
function measureRosterTarget(n = 100_000): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const targets = Array.from({ length: n }, (_, i) => target(i));
  gc?.();
  const after = process.memoryUsage().heapUsed;
  if (targets.length !== n) throw new Error('unreachable');
  return Math.max(1, (after - before) / n);
}

/** Seconds a row costs the seal's append (contract validation + one whole line to the day file). */
function measureSealRow(n = 50_000): number {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-schema-bench-pipeline-'));
  try {
    const store = Store.open(dir, new Date().toISOString());
    try {
      const rows = Array.from({ length: n }, (_, i) => notAttemptedRowV2({ runId: '2026-12-07T031500Z', day: '2026-12-07', observedAt: new Date(Date.UTC(2026, 11, 7, 3, 15, 0, i)).toISOString() }, target(i), 'shard_lost'));
      const t0 = performance.now();
      for (const r of rows) store.appendObservationV2(r);
      return (performance.now() - t0) / 1000 / n;
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The per-unit costs. Sources (bench/README.md unless said):
 * - v2 probe: bench:scale --methodology v2 projected the probe stage at 47.7 min for 26,000
 *   endpoints, the gateway (47 %, 12,220 endpoints) at its 16 slots the critical path: a probe holds
 *   its slot 47.7 × 60 × 16 ÷ 12,220 ≈ 3.75 s.
 * - roster: the pace is 150 a minute (0.4 s); an operator measured the real registry's pages at
 *   300–800 ms each: 0.55 s, the mean, is a page's latency (a chain's pages go one after another;
 *   chains overlap it under the one pace).
 * - incremental verify: 18.4 s and 408 MB at 42,000 targets a steady day (bench:years, second run):
 *   ∝ targets; the scrub is its own job (verify in parts).
 * - the store: ≈ 4,000 new keys and 13.9 MB a day at 42,000 targets (bench:years, second run).
 * - render: ≈ 17 ms of build CPU a server cold (bench:build --cold --files at 10,000 × 60); the live
 *   heap 127 MB (bench:years' fit) + 1.2 kB for every server (rows, summaries, site-wide lists) + two
 *   loader shards' views at 4.5 kB a server (bench/memory.ts --walk at 10,000 × 30: 56.5 MB held with
 *   one shard, 11.8 MB after the load and 25.4 MB at the walk's peak with four).
 * - site: the file-host builds (bench:years FILE_HOST_SITE): ≈ 10 MB and ≈ 1,000 files of site-wide
 *   pages; a server's page ≈ 11.6 KB, descriptor 4.8 KB, tools file 10.5 KB, badge 1.1 KB, two feeds
 *   ≈ 2 KB; a change adds a set file (1.6 KB), a patch, a raw body (6.5 KB) and a change page.
 */
export const COSTS: Costs = {
  roster: { paceSecondsPerPage: 0.4, latencySeconds: 0.55, bytesPerTarget: 1_500, source: 'cursor chains under one pacer (collector/roster-chains.ts); bytesPerTarget measured at run time' },
  probe: { secondsPerProbe: 3.75, concurrency: 64, largestHostShare: 0.47, rssBytes: 600e6, source: 'bench:scale --methodology v2 (47.7 min at 26,000 endpoints)' },
  hostLimit: { divisor: 500, max: 16, span: 2_000 },
  // collector/run-options.ts: 5,000 endpoints a shard (≈ 16 min of a bridge day at bench:scale's rate).
  shard: { maxEndpoints: 5_000, setupSeconds: 120 },
  seal: { secondsPerRow: 0.0005, rssBytes: 500e6, source: 'measured at run time' },
  close: { verifySecondsPerRow: 18.4 / 42_000, scrubSecondsAt42k: 0, verifyRssBytesPerRow: 408e6 / 42_000, baseRssBytes: 0, source: 'incremental verify 18.4 s, 408 MB at 42,000 (bench:years), ∝ targets' },
  deploy: { cacheBytesPerServer: 3_470, loadSecondsPerServer: 0.923 / 2_000, deriveSecondsPerServer: 2.577 / 2_000, derivePasses: 9, closedBytesPerTargetDay: 4.9e6 / 42_000, monthDays: 31, bundleBytesPerDayByte: 2.3, rosterMemberBytesPerDayByte: 0.4, bundleSecondsPerRow: 60e-6, bulkBytesPerServer: 4_800, baseDiskBytes: 1.5e9, source: 'bench:checkpoint 2,000 × 60, a daily build: cache 6.94 MB, load 923 ms, derive 2,577 ms (∝ servers); closed files 4.9 MB a day at 42,000 (bench:years); bundle ratios measured at run time' },
  render: { secondsPerServer: 0.017, siteWideSeconds: 60, serversPerRenderShard: 20_000, shardsKept: 2, heapBytesPerServer: 4_500, compactBytesPerServer: 1_200, heapBaseBytes: 127e6, changedShare: 0.02, source: 'bench:incremental on the sandbox world: 1 of 56 servers re-rendered the day after (1.8 %); the build keeps 1.2 kB a server and two shards\' views at 4.5 kB (bench/memory.ts --walk, 10,000 × 30, S = 1 and 4)' },
  site: { pagesBytesPerServer: 300, pagesFilesPerServer: 1 / 500, pagesOtherBytes: 10e6, pagesOtherFiles: 1_000, cdnBytesPerServer: 30_000, cdnFilesPerServer: 6, cdnBytesPerChange: 12_000, changedJsonFiles: 3, changedJsonBytes: 11_000, statusShards: 256, statusBytesPerServer: 750, indexShards: 512, indexBytesPerServer: 1_500, siteWideFiles: 30, source: 'file-host builds (bench:years FILE_HOST_SITE); status files ≈ 750 B and name indexes ≈ 1.5 kB a server and 30 site-wide files a quiet day, bench:incremental (2026-12-07, the sandbox world: few tools a server)' },
  store: { keysPerTargetDay: 4_000 / 42_000, bytesPerTargetDay: 13.9e6 / 42_000, source: 'bench:years, second run' },
};

export const HELP = `usage: npm run bench:pipeline -- [--rate measured|bench|both] [--json FILE]

The sharded daily pipeline at a growing registry: per job (plan, probe shards, seal, close, render,
publish) its wall time and memory, per day its uploads and renders, the published site on each host,
at years 1, 3 and 5, beside the limits (job 6 h, runner RAM 16 GB and disk 14 GB, matrix 256 jobs and
20 at once, Pages 1 GB, R2 operations a month, the registry's 180 requests a minute).

  --rate R      measured (≈ 270 servers and ≈ 750 listing rows a day, the headline), bench
                (bench:years' 437 servers and 1,527 rows), or both (default)
  --json FILE   also write the figures as JSON
  -h, --help    this text
`;

/** A month's bundles and roster members per byte of its day files, and the bundles job's time a row (see the header). */
async function measureBundleRatios(): Promise<{ bundles: number; rosterMembers: number; secondsPerRow: number }> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'mcps-bench-bundles-'));
  try {
    const dir = path.join(scratch, 'archive');
    await generateArchive({ targets: 3_000, days: 12, out: dir, start: '2026-01-25', seed: 'bench-pipeline' });
    const a = await loadArchive(dir);
    const pub: Publication = { permalink: (p) => `https://example.org/${p}`, releaseDir: null, releaseUrl: 'https://example.org/r/', simulated: false, partsOnly: true };
    const cacheDir = path.join(scratch, 'cache');
    const w = await writeBundles(a, path.join(scratch, 'out'), { pub, cacheDir });
    const month = (re: RegExp) => w.site.filter((f) => re.test(f.name)).reduce((n, f) => n + f.bytes, 0);
    const jsonl = month(/^observations-\d{4}-\d{2}\.jsonl\.gz$/);
    const all = month(/^(observations-\d{4}-\d{2}\.(jsonl\.gz|csv\.gz|parquet)|roster-targets-\d{4}-\d{2}\.parquet)$/);
    const members = path.join(cacheDir, 'members');
    const rosters = readdirSync(members).filter((f) => f.endsWith('.roster.gz')).reduce((n, f) => n + statSync(path.join(members, f)).size, 0);
    // The bundles job itself: the month view (each day read and counted) and the months' files, timed.
    const t0 = performance.now();
    const view = await monthView(dir, { sourceRoot: process.cwd(), months: SITE_MONTHS });
    const files = path.join(scratch, 'files');
    await writeBundles(view as unknown as Archive, files, { pub: { ...pub, fileHost: { dir: files, url: 'https://files.example.org/' } }, cacheDir: path.join(scratch, 'step-cache'), monthsOnly: true });
    const rows = view.dayFiles.reduce((n, d) => n + d.rows, 0) + view.v2.dayFiles.reduce((n, d) => n + d.rows, 0);
    return { bundles: all / jsonl, rosterMembers: rosters / jsonl, secondsPerRow: (performance.now() - t0) / 1000 / rows };
  } finally {
    forgetArchive();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rate: { type: 'string', default: 'both' }, json: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const rates = RATES.filter((r) => values.rate === 'both' || r.key === values.rate);
  if (rates.length === 0) throw new Error(`--rate must be measured, bench or both, got ${JSON.stringify(values.rate)}`);
  const bytesPerTarget = Math.round(measureRosterTarget());
  const secondsPerRow = measureSealRow();
  const ratios = await measureBundleRatios();
  const costs: Costs = {
    ...COSTS,
    deploy: { ...COSTS.deploy, bundleBytesPerDayByte: ratios.bundles, rosterMemberBytesPerDayByte: ratios.rosterMembers, bundleSecondsPerRow: ratios.secondsPerRow, source: `${COSTS.deploy.source.replace('; bundle ratios measured at run time', '')}; a month's bundles and roster members measured here` },
    roster: { ...COSTS.roster, bytesPerTarget },
    seal: { ...COSTS.seal, secondsPerRow, source: `measured here: ${(1 / secondsPerRow).toFixed(0)} rows a second through Store.appendObservationV2 (validated, one line each); seal reads each shard's rows and appends them once` },
  };
  process.stdout.write(`measured here: a roster target ${bytesPerTarget} B of heap${(globalThis as { gc?: unknown }).gc ? '' : ' (no --expose-gc: an upper bound)'}; the seal's append ${(secondsPerRow * 1e6).toFixed(1)} µs a row; a month's bundles ${ratios.bundles.toFixed(2)}× and its roster members ${ratios.rosterMembers.toFixed(2)}× its day files, the bundles job ${(ratios.secondsPerRow * 1e6).toFixed(1)} µs a row\n\n`);
  for (const r of rates) process.stdout.write(`${renderPipeline(r, costs)}\n\n`);
  if (values.json) writeFileSync(path.resolve(values.json), JSON.stringify({ costs, projections: rates.map((r) => ({ rate: r, ...projectPipeline(r, costs) })) }, null, 2));
}

await main();
