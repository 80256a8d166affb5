// How the probe stage spreads its work (README "Courtesy"): every job belongs to a host, a host never
// has more than `perHost` jobs running, and all hosts share `concurrency` slots in FIFO order, so one
// big host cannot starve the others. The collector asks for one job at a time per host (perHost 1);
// the HTTP layer's HostGate holds the same line for every request of a job.
//
// The seam for a different policy (issue 12, a per-host concurrency scheduler): a Schedule is any
// function that runs jobs keyed by host under these limits; runCollector takes one.

export interface HostJob {
  /** URL host (port included): the unit of courtesy. */
  host: string;
  run(): Promise<void>;
}

export interface ScheduleLimits {
  /** Jobs running at once, over all hosts (at least 1). */
  concurrency: number;
  /** Jobs running at once on one host (at least 1). */
  perHost: number;
}

/** Run every job under the limits; resolves when all have finished (a job that throws rejects it). */
export type Schedule = (jobs: readonly HostJob[], limits: ScheduleLimits) => Promise<void>;

/** A FIFO queue per host, in the order hosts first appear; each host's queue drained by `perHost` lanes sharing the global slots. */
export const hostQueues: Schedule = async (jobs, limits) => {
  const byHost = new Map<string, HostJob[]>();
  for (const job of jobs) {
    const queue = byHost.get(job.host);
    if (queue) queue.push(job);
    else byHost.set(job.host, [job]);
  }
  const slots = semaphore(Math.max(1, limits.concurrency));
  const lanes: Promise<void>[] = [];
  for (const queue of byHost.values()) {
    let next = 0;
    const lane = async () => {
      while (next < queue.length) {
        const job = queue[next++]!;
        await slots.acquire();
        try {
          await job.run();
        } finally {
          slots.release();
        }
      }
    };
    for (let i = 0; i < Math.min(Math.max(1, limits.perHost), queue.length); i++) lanes.push(lane());
  }
  await Promise.all(lanes);
};

function semaphore(n: number): { acquire(): Promise<void>; release(): void } {
  let free = n;
  const waiting: Array<() => void> = [];
  return {
    acquire() {
      if (free > 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
