// A real archive for ops tests: the collector run once per simulated day against the local world,
// into a temporary folder (never data/).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCollector } from '../../collector/run.ts';
import { startWorld } from '../../sandbox/fleet.ts';

export async function collectArchive(opts: { seed: string; size: number; days: number }): Promise<string> {
  const world = await startWorld({ seed: opts.seed, size: opts.size });
  const dir = mkdtempSync(join(tmpdir(), 'mcps-ops-'));
  try {
    for (let day = 0; day < opts.days; day++) {
      world.setDay(day);
      await runCollector({
        registry: world.registryUrl,
        data: dir,
        now: new Date(Date.parse(`${world.world.date(day)}T03:15:00Z`)),
        allowPrivate: true,
        concurrency: 16,
        timeoutMs: 800,
        optout: null,
      });
    }
  } finally {
    await world.close();
  }
  return dir;
}
