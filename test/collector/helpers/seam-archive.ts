// A reproducible archive of the local world: a fixed port (so endpoints and bodies name the same
// addresses every time), a fixed seed and fixed clocks, runCollector once per simulated day. Two
// versions of the collector given the same arguments write archives that compare-archives.ts finds
// equal but for wall-clock timings. Run as a script (the archive folder is wiped first):
//   npx tsx test/collector/helpers/seam-archive.ts <out-dir> [port] [days] [size] [bridge-days]
import fs from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorld } from '../../../sandbox/fleet.ts';
import { runCollector } from '../../../collector/run.ts';

export async function seamArchive(out: string, port: number, days: number, size: number, bridgeDays: number): Promise<void> {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const world = await startWorld({ seed: 1, size, port });
  try {
    for (let d = 0; d < days; d++) {
      world.setDay(d);
      await runCollector({
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
      });
    }
  } finally {
    await world.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [out, port = '47311', days = '5', size = '200', bridge = '2'] = process.argv.slice(2);
  if (!out) {
    process.stderr.write('usage: npx tsx test/collector/helpers/seam-archive.ts <out-dir> [port] [days] [size] [bridge-days]\n');
    process.exit(2);
  }
  await seamArchive(out, Number(port), Number(days), Number(size), Number(bridge));
}
