// hostQueues(jobs, limits): the collector's courtesy rule as a schedule — jobs in order per host, never
// more than perHost at once on a host nor concurrency in all, and a big host cannot starve a small one.
// Jobs finish when the test says so (no clock).
import { describe, expect, it } from 'vitest';
import { hostQueues, type HostJob } from '../../collector/schedule.ts';

/** Jobs that record when they start and wait for `finish(name)`. */
function harness(spec: [host: string, name: string][]) {
  const started: string[] = [];
  const running = new Map<string, () => void>();
  const peak = { all: 0, byHost: new Map<string, number>() };
  const jobs: HostJob[] = spec.map(([host, name]) => ({
    host,
    run: () =>
      new Promise<void>((resolve) => {
        started.push(name);
        running.set(name, () => {
          running.delete(name);
          resolve();
        });
        peak.all = Math.max(peak.all, running.size);
        const onHost = spec.filter(([h, n]) => h === host && running.has(n)).length;
        peak.byHost.set(host, Math.max(peak.byHost.get(host) ?? 0, onHost));
      }),
  }));
  const tick = () => new Promise<void>((r) => setImmediate(r));
  return {
    jobs,
    started,
    running,
    peak,
    async finish(name: string) {
      running.get(name)!();
      await tick();
    },
    tick,
  };
}

describe('hostQueues(jobs, { concurrency, perHost })', () => {
  it('starts the first job of each host before a second of any, and never exceeds either limit', async () => {
    const h = harness([['a', 'a1'], ['a', 'a2'], ['a', 'a3'], ['b', 'b1'], ['c', 'c1']]);
    const done = hostQueues(h.jobs, { concurrency: 2, perHost: 1 });
    await h.tick();
    expect(h.started).toEqual(['a1', 'b1']);
    await h.finish('a1');
    // The freed slot goes to the longest waiter (c1), not to host a's next job.
    expect(h.started).toEqual(['a1', 'b1', 'c1']);
    for (const name of ['b1', 'c1', 'a2', 'a3']) await h.finish(name);
    await done;
    expect(h.started).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
    expect(h.peak.all).toBe(2);
    expect(Math.max(...h.peak.byHost.values())).toBe(1);
  });

  it('runs up to perHost jobs of one host at once, in the host order', async () => {
    const h = harness([['a', 'a1'], ['a', 'a2'], ['a', 'a3']]);
    const done = hostQueues(h.jobs, { concurrency: 8, perHost: 2 });
    await h.tick();
    expect(h.started).toEqual(['a1', 'a2']);
    await h.finish('a2');
    expect(h.started).toEqual(['a1', 'a2', 'a3']);
    await h.finish('a1');
    await h.finish('a3');
    await done;
    expect(h.peak.byHost.get('a')).toBe(2);
  });

  it('treats a concurrency below 1 as 1 and finishes an empty list at once', async () => {
    await expect(hostQueues([], { concurrency: 0, perHost: 1 })).resolves.toBeUndefined();
    const h = harness([['a', 'a1'], ['b', 'b1']]);
    const done = hostQueues(h.jobs, { concurrency: 0, perHost: 1 });
    await h.tick();
    expect(h.started).toEqual(['a1']);
    await h.finish('a1');
    await h.finish('b1');
    await done;
  });
});
