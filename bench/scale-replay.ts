// The schedule alone, in virtual time: the collector's own schedule functions (collector/schedule.ts,
// with a virtual ScheduleClock) over the same world as bench/scale-world.ts (same host layout, same
// hang, stateful and latency distributions, the stuck host, the 429 bursts), with each probe taking
// the sum of its requests' drawn latencies (a hang or a stuck host: one request timeout). No sockets,
// no CPU contention: what the schedule would take in real time if every answer came exactly when the
// world says. The measured run (bench/scale.ts) includes everything this leaves out — the collector's
// CPU, loopback I/O, the machine's load — so the two bracket the real figure.
import { hostQueues, lpt, type HostJob, type HostSignal, type Schedule, type ScheduleClock, type ScheduleReport } from '../collector/schedule.ts';
import { rng } from '../sandbox/prng.ts';
import { LATENCY, layout } from './scale-world.ts';

export interface Replay {
  wallMs: number;
  report: ScheduleReport;
  skipped: Record<string, number>;
}

export async function replay(opts: {
  endpoints: number;
  seed: string;
  scheduler: 'lpt' | 'one-per-host';
  concurrency: number;
  perHostDivisor: number;
  perHostMax: number;
  unresponsiveAfter: number;
  timeoutMs: number;
  deadlineMs: number | null;
  retryAfterCapMs: number;
  backoffBaseMs: number;
}): Promise<Replay> {
  const clock = virtualClock();
  const draw = rng(`${opts.seed}|latency`);
  const latency = () => {
    const u = 1 - draw.next();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * draw.next());
    return LATENCY.medianMs * Math.exp(LATENCY.sigma * z);
  };
  const jobs: HostJob[] = [];
  const skipped: Record<string, number> = {};
  let k = 0;
  layout(opts.endpoints).forEach((p, h) => {
    let served = 0; // requests answered by the stuck host before it stops
    for (let j = 0; j < p.targets; j++, k++) {
      const r = rng(`${opts.seed}|e${k}`);
      const hangs = r.chance(0.02);
      const stateful = r.chance(0.4);
      jobs.push({
        host: `h${h}`,
        run: () => {
          let ms: number;
          let signal: HostSignal = { kind: 'ok' };
          if (p.kind === 'burst' && clock.now() % 600_000 < 60_000) {
            ms = latency();
            signal = { kind: 'throttled', retryAfterMs: 60_000 };
          } else if (hangs || (p.kind === 'stuck' && served >= 50)) {
            ms = opts.timeoutMs;
            signal = { kind: 'unreachable' };
          } else {
            const requests = stateful ? 4 : 3;
            served += requests;
            ms = 0;
            for (let i = 0; i < requests; i++) ms += Math.min(latency(), opts.timeoutMs);
          }
          return new Promise<HostSignal>((resolve) => clock.after(ms, () => resolve(signal)));
        },
        skip: (reason) => {
          skipped[reason] = (skipped[reason] ?? 0) + 1;
        },
      });
    }
  });
  const schedule: Schedule = opts.scheduler === 'lpt' ? lpt : hostQueues;
  const done = schedule(jobs, {
    concurrency: opts.concurrency,
    perHostDivisor: opts.perHostDivisor,
    perHostMax: opts.perHostMax,
    unresponsiveAfter: opts.unresponsiveAfter,
    unresponsiveSpanMs: opts.timeoutMs,
    deadline: opts.deadlineMs,
    retryAfterCapMs: opts.retryAfterCapMs,
    backoffBaseMs: opts.backoffBaseMs,
    clock,
  });
  let finished = false;
  let report: ScheduleReport | null = null;
  void done.then((r) => {
    finished = true;
    report = r;
  });
  while (!finished) await clock.step();
  return { wallMs: clock.now(), report: report!, skipped };
}

/** A clock whose time moves only when step() fires the next timer (then lets promises settle). */
function virtualClock(): ScheduleClock & { step(): Promise<void> } {
  let t = 0;
  let seq = 0;
  // A binary heap would be faster; the replay's few tens of thousands of timers sort fine in buckets by time.
  const timers = new Map<number, { at: number; fn: () => void }>();
  let queue: { at: number; id: number }[] = [];
  let sorted = true;
  return {
    now: () => t,
    after(ms, fn) {
      const id = ++seq;
      timers.set(id, { at: t + Math.max(0, ms), fn });
      queue.push({ at: t + Math.max(0, ms), id });
      sorted = false;
      return () => void timers.delete(id);
    },
    async step() {
      if (!sorted) {
        queue.sort((a, b) => b.at - a.at || b.id - a.id);
        sorted = true;
      }
      for (;;) {
        const next = queue.pop();
        if (!next) {
          await new Promise<void>((r) => setImmediate(r));
          return;
        }
        const timer = timers.get(next.id);
        if (!timer) continue;
        timers.delete(next.id);
        t = timer.at;
        timer.fn();
        // Settle the promise chains the timer started (job done → schedule → new timers).
        for (let i = 0; i < 4; i++) await Promise.resolve();
        return;
      }
    },
  };
}
