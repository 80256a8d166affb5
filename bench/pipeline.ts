// `npm run bench:pipeline -- [--rate measured|bench|both] [--json FILE]`
//
// The sharded daily pipeline at a growing registry, years 1, 3 and 5 (bench/pipeline-project.ts).
// What it measures here, each time it runs (loopback only, scratch under .bench/pipeline):
//   - a roster target's heap: real-shaped targets built from the real listing fixture, cloned to
//     100,000 names, measured after a forced GC (--expose-gc is passed by the npm script);
// Every other per-unit cost is a measured figure of another benchmark, named beside it (COSTS).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectPipeline, RATES, renderPipeline, type Costs } from './pipeline-project.ts';

/**
 * The per-unit costs. Sources (bench/README.md unless said):
 * - v2 probe: bench:scale --methodology v2 projected the probe stage at 47.7 min for 26,000
 *   endpoints, the gateway (47 %, 12,220 endpoints) at its 16 slots the critical path: a probe holds
 *   its slot 47.7 × 60 × 16 ÷ 12,220 ≈ 3.75 s.
 * - roster: the pace is 150 a minute (0.4 s); an operator measured the real registry's pages at
 *   300–800 ms each: 0.55 s, the mean, is the page time (pages go one after another).
 * - incremental verify: 18.4 s and 408 MB at 42,000 targets a steady day (bench:years, second run):
 *   ∝ targets; the scrub is its own job (verify in parts).
 * - the store: ≈ 4,000 new keys and 13.9 MB a day at 42,000 targets (bench:years, second run).
 * - render: ≈ 17 ms of build CPU a server cold (the growth issue's bench:build --cold --files at
 *   10,000 × 60); the live heap 127 MB + 4.4 kB a server (bench:years, fifth run's fit).
 * - site: the file-host builds (bench:years FILE_HOST_SITE): ≈ 10 MB and ≈ 1,000 files of site-wide
 *   pages; a server's page ≈ 11.6 KB, descriptor 4.8 KB, tools file 10.5 KB, badge 1.1 KB, two feeds
 *   ≈ 2 KB; a change adds a set file (1.6 KB), a patch, a raw body (6.5 KB) and a change page.
 */
export const COSTS: Costs = {
  roster: { paceSecondsPerPage: 0.4, latencySeconds: 0.55, bytesPerTarget: 1_500, source: 'pages one after another (collector/roster.ts)' },
  probe: { secondsPerProbe: 3.75, concurrency: 64, largestHostShare: 0.47, rssBytes: 600e6, source: 'bench:scale --methodology v2 (47.7 min at 26,000 endpoints)' },
  hostLimit: { divisor: 500, max: 16, span: 2_000 },
  shard: { maxEndpoints: 20_000, setupSeconds: 120 },
  seal: { secondsPerRow: 0.0005, rssBytes: 500e6, source: 'placeholder until measured' },
  close: { verifySecondsPerRow: 18.4 / 42_000, scrubSecondsAt42k: 0, verifyRssBytesPerRow: 408e6 / 42_000, baseRssBytes: 0, source: 'incremental verify 18.4 s, 408 MB at 42,000 (bench:years), ∝ targets' },
  render: { secondsPerServer: 0.017, siteWideSeconds: 60, serversPerRenderShard: 20_000, heapBytesPerServer: 4_400, heapBaseBytes: 127e6, changedShare: 0.02, source: 'placeholder share' },
  site: { pagesBytesPerServer: 300, pagesFilesPerServer: 1 / 500, pagesOtherBytes: 10e6, pagesOtherFiles: 1_000, cdnBytesPerServer: 30_000, cdnFilesPerServer: 6, cdnBytesPerChange: 12_000, source: 'file-host builds (bench:years FILE_HOST_SITE)' },
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

function main(): void {
  const { values } = parseArgs({ options: { rate: { type: 'string', default: 'both' }, json: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const rates = RATES.filter((r) => values.rate === 'both' || r.key === values.rate);
  if (rates.length === 0) throw new Error(`--rate must be measured, bench or both, got ${JSON.stringify(values.rate)}`);
  for (const r of rates) process.stdout.write(`${renderPipeline(r, COSTS)}\n\n`);
  if (values.json) writeFileSync(path.resolve(values.json), JSON.stringify({ costs: COSTS, projections: rates.map((r) => ({ rate: r, ...projectPipeline(r, COSTS) })) }, null, 2));
}

main();
