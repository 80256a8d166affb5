// A reproducible archive of the local world: a fixed port (so endpoints and bodies name the same
// addresses every time), a fixed seed and fixed clocks, runCollector once per simulated day. Two
// versions of the collector given the same arguments write archives that compare-archives.ts finds
// equal but for wall-clock timings. Run as a script (the archive folder is wiped first):
//   npx tsx test/collector/helpers/seam-archive.ts <out-dir> [port] [days] [size] [bridge-days] [max-endpoints-per-shard]
// With max-endpoints-per-shard, each day is a sharded run (plan, every shard in turn in this process
// into <out-dir>.work/<day>/shard-<k>, seal) instead of runCollector.
import fs from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorld } from '../../../sandbox/fleet.ts';
import { runCollector } from '../../../collector/run.ts';
import { resolveOptions, runIdOf, type CollectorOptions } from '../../../collector/run-options.ts';
import { shardDir } from '../../../collector/shards/cli.ts';
import { planRun } from '../../../collector/shards/plan.ts';
import { probeShardInto } from '../../../collector/shards/probe-shard.ts';
import { sealRun } from '../../../collector/shards/seal.ts';
import { NO_SINK } from '../../../collector/series/tracked.ts';
import { Store } from '../../../collector/store.ts';

export async function seamArchive(out: string, port: number, days: number, size: number, bridgeDays: number, maxPerShard: number | null = null): Promise<void> {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const world = await startWorld({ seed: 1, size, port });
  try {
    for (let d = 0; d < days; d++) {
      world.setDay(d);
      const options: CollectorOptions = {
        registry: world.registryUrl,
        data: out,
        now: new Date(`${world.world.date(d)}T06:00:00.000Z`),
        allowPrivate: true,
        concurrency: 48,
        timeoutMs: 1000,
        optout: null,
        probeLimits: { sseGraceMs: 500 },
        rosterLimits: { backoffMs: 200 },
        scheduleLimits: { retryAfterCapMs: 200, backoffBaseMs: 20 },
        bridgeDays,
      };
      if (maxPerShard === null) await runCollector(options);
      else await sharded(options, `${out}.work/${world.world.date(d)}`, maxPerShard);
    }
  } finally {
    await world.close();
  }
}

async function sharded(options: CollectorOptions, work: string, maxPer: number): Promise<void> {
  const o = resolveOptions(options);
  const now = o.now!;
  let store = Store.open(o.data, new Date().toISOString());
  let plan;
  try {
    ({ plan } = await planRun({ store, o, runId: runIdOf(now), day: now.toISOString().slice(0, 10), clock: now, t0: performance.now(), maxEndpointsPerShard: maxPer, sink: NO_SINK }));
  } finally {
    store.close();
  }
  // One after the other: each shard has the run's whole concurrency (as one job each would have on its own machine).
  for (const s of plan.shards) await probeShardInto(shardDir(work, s.index), plan, s.index, o);
  store = Store.open(o.data, new Date().toISOString());
  try {
    await sealRun({ store, plan, o, shardDirs: plan.shards.map((s) => shardDir(work, s.index)), sink: NO_SINK });
  } finally {
    store.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [out, port = '47311', days = '5', size = '200', bridge = '2', maxPer] = process.argv.slice(2);
  if (!out) {
    process.stderr.write('usage: npx tsx test/collector/helpers/seam-archive.ts <out-dir> [port] [days] [size] [bridge-days]\n');
    process.exit(2);
  }
  await seamArchive(out, Number(port), Number(days), Number(size), Number(bridge), maxPer === undefined ? null : Number(maxPer));
}
