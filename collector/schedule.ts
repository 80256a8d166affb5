// Which probe runs when (docs/OPERATIONS.md "Courtesy"; changelog "Deviation from v1: scheduling"). A schedule runs
// one job per target, keyed by the target's endpoint host (URL host, port included), and calls each
// job's run() or its skip() exactly once, so every target gets exactly one row. It does not know what a
// job does: a v1 probe, a v2 probe or both in turn; the job only tells it what the host did (HostSignal,
// derived from the classified ProbeError by host-signal.ts).
//
// `lpt`, the collector's schedule:
//   - per host at most L = clamp(ceil(targets on the host / divisor), 1, max) jobs in flight (500 and
//     16 by default): a host with a handful of servers still sees one probe at a time, a gateway that
//     serves thousands sees a few; all hosts share `concurrency` slots;
//   - longest-processing-time order: the next free slot goes to the host with the most queued jobs per
//     slot (queued / L), so the biggest hosts start first and every host progresses at a similar
//     pace — a deadline then cuts all hosts evenly instead of starving the last ones;
//   - a 429/503 pauses the host's new jobs until its Retry-After (capped), or 2 s, 4 s, 8 s ... without
//     one, and halves its L (at least 1) for the rest of the run — when it is the host speaking: at
//     least half of the host's last max(4, 2·L) answers were 429/503 (the first answer of a host
//     counts alone). A gateway that rate-limits one tenant's server answers 429 for that endpoint on
//     every day; pausing twelve thousand other servers for it each time would cost the day. Jobs in
//     flight finish their steps; the throttled job keeps its row (one attempt per target per run);
//   - after K consecutive jobs on one host ended in a timeout or connection failure (no answer between),
//     and the streak has lasted at least `unresponsiveSpanMs` (one request timeout) from the end of its
//     first failure to the end of its last, the host's queued jobs are skipped as host_unresponsive. The
//     span keeps one wave of simultaneous failures (a gateway stalled for a moment with L probes in
//     flight, or a restart refusing connections for a second) from costing a host its day;
//   - at the deadline every queued job is skipped as run_deadline; jobs in flight finish (each request
//     is bounded by its own timeout).
// `hostQueues`, the schedule before the host-aware one (one FIFO queue per host, L lanes, nothing skipped), is
// kept so the benchmark can measure it (`bench:scale -- --scheduler one-per-host`).
import TinyQueue from 'tinyqueue';
import type { NotAttemptedReason } from '../src/lib/index.ts';

/** What one job tells the schedule about its host. */
export type HostSignal =
  /** The job's answers were fine (the probe may still have failed for reasons of the server's own). */
  | { kind: 'ok' }
  /** The host answered, with something other than success or throttling (4xx, 5xx, bad JSON, ...). */
  | { kind: 'other' }
  /** No answer: the request timed out, or the connection failed (DNS, refused, reset, TLS handshake). */
  | { kind: 'unreachable' }
  /** 429 or 503: slow down. `retryAfterMs` from Retry-After (already relative to now), null without one. */
  | { kind: 'throttled'; retryAfterMs: number | null };

export interface HostJob {
  /** URL host (port included): the unit of courtesy. */
  host: string;
  /** Do the work (probe and write the row); resolves with what the host did. Throwing rejects the schedule. */
  run(): Promise<HostSignal>;
  /** Write the target's not_attempted row instead. */
  skip(reason: NotAttemptedReason): void | Promise<void>;
}

/** A clock the schedule reads and sets timers on (milliseconds; tests pass a manual one). */
export interface ScheduleClock {
  now(): number;
  /** Call fn after ms; returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
}

export interface ScheduleOptions {
  /** Jobs in flight over all hosts (at least 1). */
  concurrency: number;
  /** Per-host limit rule: clamp(ceil(targets / perHostDivisor), 1, max(perHostMax, ceil(targets / perHostSpan))). */
  perHostDivisor: number;
  perHostMax: number;
  /** Endpoints per slot above the cap for a very large host (null or absent: the cap alone). */
  perHostSpan?: number | null;
  /** Targets per host the rule counts (default: the jobs per host). A resumed run passes the whole run's. */
  hostTargets?: ReadonlyMap<string, number>;
  /** K (0 turns the rule off). */
  unresponsiveAfter: number;
  unresponsiveSpanMs: number;
  /** On `clock`: no job starts at or after it; null for none. */
  deadline: number | null;
  retryAfterCapMs: number;
  /** First pause after a 429/503 without Retry-After; doubled on each further one on that host. */
  backoffBaseMs: number;
  clock?: ScheduleClock;
}

export interface HostReport {
  host: string;
  targets: number;
  /** The rule's limit (before any halving). */
  limit: number;
  maxInFlight: number;
  backoffs: number;
  /** First job started to last job finished (0 when none ran). */
  wallMs: number;
  notAttempted: number;
}

export interface ScheduleReport {
  scheduler: 'lpt' | 'host-queues';
  hosts: HostReport[];
  maxInFlightPerHost: number;
}

export type Schedule = (jobs: readonly HostJob[], options: ScheduleOptions) => Promise<ScheduleReport>;

/**
 * L for a host with `targets` targets: clamp(⌈targets ÷ divisor⌉, 1, cap), the cap `max`, or for a host
 * so large that `span` endpoints a slot need more, ⌈targets ÷ span⌉. With span 2,000 a host's day takes
 * at most ≈ 2,000 probes a slot (≈ 2 h at bench:scale's v2 rate) whatever its size, and a host under
 * max × span endpoints (32,000 by default) keeps exactly the cap it had: one probe a day per endpoint,
 * one request at a time per endpoint, either way.
 */
export function perHostLimit(targets: number, divisor: number, max: number, span: number | null = null): number {
  const cap = Math.max(1, max, span === null ? 0 : Math.ceil(targets / Math.max(1, span)));
  return Math.min(Math.max(1, Math.ceil(targets / Math.max(1, divisor))), cap);
}

export const realClock: ScheduleClock = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

interface HostState {
  host: string;
  order: number;
  jobs: HostJob[];
  next: number;
  targets: number;
  limit0: number;
  limit: number;
  inFlight: number;
  maxInFlight: number;
  backoffs: number;
  paused: boolean;
  /** The last answers (true: 429/503), newest last, at most `window`. */
  recent: boolean[];
  window: number;
  streak: number;
  streakStart: number;
  unresponsive: boolean;
  firstStart: number | null;
  lastEnd: number | null;
  notAttempted: number;
  /** Bumped on every change, so a stale heap entry is recognised. */
  stamp: number;
}

export const lpt: Schedule = (jobs, o) => {
  const clock = o.clock ?? realClock;
  const hosts = groupByHost(jobs, o);
  const concurrency = Math.max(1, o.concurrency);
  // Ready hosts (a free slot, queued jobs, not paused): most queued per slot first, then most queued, then first listed.
  const heap = new TinyQueue<{ h: HostState; stamp: number; perSlot: number; queued: number }>(
    [],
    (a, b) => b.perSlot - a.perSlot || b.queued - a.queued || a.h.order - b.h.order,
  );
  let running = 0;
  let queuedTotal = jobs.length;
  let deadlinePassed = false;
  const cancels = new Set<() => void>();
  const pending: Promise<void>[] = [];

  return new Promise<ScheduleReport>((resolve, reject) => {
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      for (const c of cancels) c();
      reject(e);
    };
    const queued = (h: HostState) => h.jobs.length - h.next;
    const ready = (h: HostState) => !deadlinePassed && !h.unresponsive && !h.paused && queued(h) > 0 && h.inFlight < h.limit;
    const offer = (h: HostState) => {
      h.stamp++;
      if (ready(h)) heap.push({ h, stamp: h.stamp, perSlot: queued(h) / h.limit, queued: queued(h) });
    };
    const skipRest = (h: HostState, reason: NotAttemptedReason) => {
      while (h.next < h.jobs.length) {
        const job = h.jobs[h.next++]!;
        queuedTotal--;
        h.notAttempted++;
        try {
          const p = job.skip(reason);
          if (p) pending.push(p.catch(fail));
        } catch (e) {
          fail(e);
        }
      }
      h.stamp++;
    };
    const finishIfDone = () => {
      // A paused host may still have queued jobs: its timer calls pump again.
      if (failed || running > 0 || queuedTotal > 0) return;
      for (const c of cancels) c();
      Promise.all(pending).then(() => {
        if (!failed) resolve(report('lpt', hosts));
      }, fail);
    };
    const pump = () => {
      while (!failed && running < concurrency) {
        const top = heap.pop();
        if (!top) break;
        if (top.stamp !== top.h.stamp || !ready(top.h)) continue;
        dispatch(top.h);
      }
      finishIfDone();
    };
    const dispatch = (h: HostState) => {
      const job = h.jobs[h.next++]!;
      queuedTotal--;
      h.inFlight++;
      running++;
      h.maxInFlight = Math.max(h.maxInFlight, h.inFlight);
      h.firstStart ??= clock.now();
      offer(h);
      let run: Promise<HostSignal>;
      try {
        run = job.run();
      } catch (e) {
        run = Promise.reject(e);
      }
      run.then((signal) => done(h, signal), fail);
    };
    const done = (h: HostState, signal: HostSignal) => {
      if (failed) return;
      h.inFlight--;
      running--;
      const now = clock.now();
      h.lastEnd = now;
      h.recent.push(signal.kind === 'throttled');
      if (h.recent.length > h.window) h.recent.shift();
      switch (signal.kind) {
        case 'ok':
        case 'other':
          h.streak = 0;
          break;
        case 'unreachable':
          if (h.streak++ === 0) h.streakStart = now;
          if (o.unresponsiveAfter > 0 && h.streak >= o.unresponsiveAfter && now - h.streakStart >= o.unresponsiveSpanMs && !h.unresponsive) {
            h.unresponsive = true;
            skipRest(h, 'host_unresponsive');
          }
          break;
        case 'throttled': {
          h.streak = 0;
          // One back-off per episode: the other jobs in flight when the host said 429 will say it too.
          if (h.paused) break;
          if (2 * h.recent.filter(Boolean).length < h.recent.length) break; // one endpoint's 429, not the host's
          h.backoffs++;
          h.limit = Math.max(1, Math.floor(h.limit / 2));
          const exponential = o.backoffBaseMs * 2 ** Math.min(h.backoffs - 1, 30);
          const wait = Math.min(o.retryAfterCapMs, Math.max(0, signal.retryAfterMs ?? exponential));
          if (wait > 0 && !deadlinePassed) {
            h.paused = true;
            const cancel = clock.after(wait, () => {
              cancels.delete(cancel);
              h.paused = false;
              offer(h);
              pump();
            });
            cancels.add(cancel);
          }
          break;
        }
        default: {
          const never: never = signal;
          fail(new Error(`unknown host signal ${JSON.stringify(never)}`));
          return;
        }
      }
      offer(h);
      pump();
    };

    if (o.deadline !== null) {
      const onDeadline = () => {
        deadlinePassed = true;
        for (const h of hosts.values()) {
          h.paused = false;
          skipRest(h, 'run_deadline');
        }
        finishIfDone();
      };
      if (o.deadline <= clock.now()) onDeadline();
      else {
        const cancel = clock.after(o.deadline - clock.now(), () => {
          cancels.delete(cancel);
          onDeadline();
        });
        cancels.add(cancel);
      }
    }
    for (const h of hosts.values()) offer(h);
    pump();
  });
};

/** The schedule before the host-aware one: a FIFO queue per host in first-appearance order, drained by L lanes sharing the global slots. Never skips. */
export const hostQueues: Schedule = async (jobs, o) => {
  const clock = o.clock ?? realClock;
  const hosts = groupByHost(jobs, o);
  const slots = semaphore(Math.max(1, o.concurrency));
  const lanes: Promise<void>[] = [];
  for (const h of hosts.values()) {
    const lane = async () => {
      while (h.next < h.jobs.length) {
        const job = h.jobs[h.next++]!;
        await slots.acquire();
        h.inFlight++;
        h.maxInFlight = Math.max(h.maxInFlight, h.inFlight);
        h.firstStart ??= clock.now();
        try {
          await job.run();
        } finally {
          h.inFlight--;
          h.lastEnd = clock.now();
          slots.release();
        }
      }
    };
    for (let i = 0; i < Math.min(h.limit, h.jobs.length); i++) lanes.push(lane());
  }
  await Promise.all(lanes);
  return report('host-queues', hosts);
};

function groupByHost(jobs: readonly HostJob[], o: ScheduleOptions): Map<string, HostState> {
  const hosts = new Map<string, HostState>();
  for (const job of jobs) {
    let h = hosts.get(job.host);
    if (!h) {
      h = {
        host: job.host,
        order: hosts.size,
        jobs: [],
        next: 0,
        targets: 0,
        limit0: 1,
        limit: 1,
        inFlight: 0,
        maxInFlight: 0,
        backoffs: 0,
        paused: false,
        recent: [],
        window: 10,
        streak: 0,
        streakStart: 0,
        unresponsive: false,
        firstStart: null,
        lastEnd: null,
        notAttempted: 0,
        stamp: 0,
      };
      hosts.set(job.host, h);
    }
    h.jobs.push(job);
  }
  for (const h of hosts.values()) {
    h.targets = Math.max(h.jobs.length, o.hostTargets?.get(h.host) ?? 0);
    h.limit0 = h.limit = perHostLimit(h.targets, o.perHostDivisor, o.perHostMax, o.perHostSpan ?? null);
    h.window = Math.max(4, 2 * h.limit0);
  }
  return hosts;
}

function report(scheduler: ScheduleReport['scheduler'], hosts: Map<string, HostState>): ScheduleReport {
  const out: HostReport[] = [];
  let maxInFlightPerHost = 0;
  for (const h of hosts.values()) {
    maxInFlightPerHost = Math.max(maxInFlightPerHost, h.maxInFlight);
    out.push({
      host: h.host,
      targets: h.targets,
      limit: h.limit0,
      maxInFlight: h.maxInFlight,
      backoffs: h.backoffs,
      wallMs: h.firstStart !== null && h.lastEnd !== null ? Math.round(h.lastEnd - h.firstStart) : 0,
      notAttempted: h.notAttempted,
    });
  }
  return { scheduler, hosts: out, maxInFlightPerHost };
}

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
