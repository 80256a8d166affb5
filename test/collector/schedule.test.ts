// The schedules of collector/schedule.ts, driven job by job: jobs finish when the test says so, with
// the signal the test gives, on a manual clock (no timing). lpt: per-host limits, longest queue
// first, back-off on 429/503, unresponsive hosts, the deadline, exactly one run() or skip() per job.
// hostQueues: the schedule before the host-aware one, kept for the benchmark.
import { describe, expect, it } from 'vitest';
import { hostQueues, lpt, perHostLimit, realClock, type HostJob, type HostSignal, type ScheduleClock, type ScheduleOptions } from '../../collector/schedule.ts';
import type { NotAttemptedReason } from '../../src/lib/index.ts';

function manualClock(): ScheduleClock & { advance(ms: number): Promise<void>; pending(): number } {
  let t = 0;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    now: () => t,
    pending: () => timers.length,
    after(ms, fn) {
      const timer = { at: t + ms, fn };
      timers.push(timer);
      return () => {
        timers = timers.filter((x) => x !== timer);
      };
    },
    async advance(ms) {
      const until = t + ms;
      for (;;) {
        const due = timers.filter((x) => x.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        t = due.at;
        due.fn();
        await tick();
      }
      t = until;
      await tick();
    },
  };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/** Jobs that record starts and skips and wait for `finish(name, signal)`. */
function harness(spec: [host: string, name: string][]) {
  const started: string[] = [];
  const skipped: [string, NotAttemptedReason][] = [];
  const running = new Map<string, (s: HostSignal) => void>();
  const peak = { all: 0, byHost: new Map<string, number>() };
  const calls = new Map<string, number>();
  const jobs: HostJob[] = spec.map(([host, name]) => ({
    host,
    run: () =>
      new Promise<HostSignal>((resolve) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        started.push(name);
        running.set(name, (s) => {
          running.delete(name);
          resolve(s);
        });
        peak.all = Math.max(peak.all, running.size);
        const onHost = spec.filter(([h, n]) => h === host && running.has(n)).length;
        peak.byHost.set(host, Math.max(peak.byHost.get(host) ?? 0, onHost));
      }),
    skip: (reason) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      skipped.push([name, reason]);
    },
  }));
  return {
    jobs,
    started,
    skipped,
    running,
    peak,
    calls,
    async finish(name: string, signal: HostSignal = { kind: 'ok' }) {
      const f = running.get(name);
      if (!f) throw new Error(`${name} is not running (running: ${[...running.keys()].join(', ')})`);
      f(signal);
      await tick();
    },
    /** Finish whatever runs, oldest first, until nothing does. */
    async drain(signal: HostSignal = { kind: 'ok' }) {
      while (running.size > 0) await this.finish(running.keys().next().value!, signal);
    },
  };
}

const spec = (host: string, n: number): [string, string][] => Array.from({ length: n }, (_, i) => [host, `${host}${i + 1}`]);
const options = (o: Partial<ScheduleOptions> = {}): ScheduleOptions => ({
  concurrency: 8,
  perHostDivisor: 500,
  perHostMax: 16,
  unresponsiveAfter: 0,
  unresponsiveSpanMs: 0,
  deadline: null,
  retryAfterCapMs: 120_000,
  backoffBaseMs: 2_000,
  ...o,
});

describe('perHostLimit(targets, divisor, max)', () => {
  it.each([
    [1, 1],
    [12, 1],
    [500, 1],
    [501, 2],
    [1000, 2],
    [1001, 3],
    [8000, 16],
    [12_000, 16],
    [0, 1],
  ])('%i targets → %i', (targets, limit) => expect(perHostLimit(targets, 500, 16)).toBe(limit));
});

describe('perHostLimit(targets, divisor, max, span): a very large host keeps its day bounded', () => {
  it.each([
    // Today's hosts (under max × span = 32,000 endpoints) keep exactly the cap they had.
    [12_000, 16],
    [32_000, 16],
    // Just over: ⌈32,001 / 2,000⌉ = 17 slots.
    [32_001, 17],
    [158_600, 80],
    [249_000, 125],
    [0, 1],
  ])('%i targets → %i', (targets, limit) => expect(perHostLimit(targets, 500, 16, 2_000)).toBe(limit));
  it('never above ⌈targets ÷ divisor⌉, and without a span the cap alone (the near miss)', () => {
    expect(perHostLimit(40_000, 5_000, 16, 2_000)).toBe(8);
    expect(perHostLimit(158_600, 500, 16)).toBe(16);
    expect(perHostLimit(158_600, 500, 16, null)).toBe(16);
  });
});

describe('lpt(jobs, options): limits and order', () => {
  it('keeps every host within its limit and the run within concurrency, reaching both', async () => {
    // Host g has 12 targets with divisor 4: limit 3; hosts a..d one each: limit 1.
    const h = harness([...spec('g', 12), ...spec('a', 1), ...spec('b', 1), ...spec('c', 2)]);
    const done = lpt(h.jobs, options({ concurrency: 5, perHostDivisor: 4 }));
    await tick();
    // g (12 queued / 3 slots = 4 per slot) first and up to its limit, then c (2 per slot), then a.
    expect(h.started).toEqual(['g1', 'g2', 'g3', 'c1', 'a1']);
    await h.drain();
    const report = await done;
    expect(h.peak.byHost.get('g')).toBe(3);
    expect(h.peak.byHost.get('c')).toBe(1);
    expect(h.peak.all).toBe(5);
    expect([...h.calls.values()].every((n) => n === 1) && h.calls.size === 16).toBe(true);
    expect(report.hosts.find((x) => x.host === 'g')).toMatchObject({ targets: 12, limit: 3, maxInFlight: 3, notAttempted: 0 });
    expect(report.maxInFlightPerHost).toBe(3);
  });

  it('gives a freed slot to the host with the most queued work per slot', async () => {
    const h = harness([...spec('a', 3), ...spec('b', 6)]);
    const done = lpt(h.jobs, options({ concurrency: 1, perHostDivisor: 100 }));
    await tick();
    expect(h.started).toEqual(['b1']); // b has 6 queued, a 3
    await h.finish('b1'); // b 5 vs a 3
    await h.finish('b2'); // b 4 vs a 3
    await h.finish('b3'); // b 3 vs a 3: the tie goes to the host with more queued, then the first listed
    expect(h.started).toEqual(['b1', 'b2', 'b3', 'a1']);
    await h.drain();
    await done;
    expect(h.started.slice(4)).toEqual(['b4', 'a2', 'b5', 'a3', 'b6']);
  });

  it('judges a freed slot by where hosts stand now, not by where they stood when last offered', async () => {
    // h: 10 targets, k: 9, both limit 2 (divisor 5), 2 slots; the oldest job finishes first. After h3,
    // h has 7 queued (3.5 per slot) and k 8 (4): k goes next, although h, offered twice meanwhile, once
    // stood at 4 per slot and first listed.
    const h = harness([...spec('h', 10), ...spec('k', 9)]);
    const done = lpt(h.jobs, options({ concurrency: 2, perHostDivisor: 5 }));
    await tick();
    await h.drain();
    await done;
    expect(h.started.join(' ')).toBe('h1 h2 k1 h3 k2 h4 k3 h5 k4 h6 k5 h7 k6 h8 k7 h9 k8 h10 k9');
  });

  it('counts the whole run\'s targets per host for the limit when told (a resumed run)', async () => {
    const h = harness(spec('g', 3));
    const done = lpt(h.jobs, options({ perHostDivisor: 2, hostTargets: new Map([['g', 6]]) }));
    await tick();
    expect(h.running.size).toBe(3); // ceil(6 / 2)
    await h.drain();
    expect((await done).hosts[0]).toMatchObject({ targets: 6, limit: 3 });
  });

  it('finishes an empty list at once and treats a concurrency below 1 as 1', async () => {
    await expect(lpt([], options({ deadline: 10 }))).resolves.toMatchObject({ hosts: [], maxInFlightPerHost: 0 });
    const h = harness([...spec('a', 1), ...spec('b', 1)]);
    const done = lpt(h.jobs, options({ concurrency: 0 }));
    await tick();
    expect(h.running.size).toBe(1);
    await h.drain();
    await done;
  });
});

describe('lpt(jobs, options): 429 and 503', () => {
  it('pauses the host until Retry-After, halves its limit, and lets other hosts go on', async () => {
    const clock = manualClock();
    const h = harness([...spec('g', 8), ...spec('a', 2)]);
    const done = lpt(h.jobs, options({ concurrency: 8, perHostDivisor: 2, clock })); // g: limit 4
    await tick();
    expect(h.running.size).toBe(5);
    await h.finish('g1', { kind: 'throttled', retryAfterMs: 30_000 });
    await h.finish('g2', { kind: 'throttled', retryAfterMs: 30_000 }); // same episode: no second halving
    await h.finish('a1');
    // Interleaved by queued work per slot (g 8/4 = a 2/1, g first listed; then g 7/4 < a 2 ...); after
    // the 429, a goes on and g starts nothing.
    expect(h.started).toEqual(['g1', 'a1', 'g2', 'g3', 'g4', 'a2']);
    await h.finish('g3');
    await h.finish('g4');
    await clock.advance(29_999);
    expect(h.started).toHaveLength(6);
    await clock.advance(1);
    // Resumed at limit 2 (4 halved once).
    expect(h.started.slice(6)).toEqual(['g5', 'g6']);
    await h.drain();
    const report = await done;
    expect(h.peak.byHost.get('g')).toBe(4);
    expect(report.hosts.find((x) => x.host === 'g')).toMatchObject({ backoffs: 1, limit: 4 });
  });

  it('without Retry-After waits 2 s, then 4 s, capped, and never below limit 1', async () => {
    const clock = manualClock();
    const h = harness(spec('a', 4));
    const done = lpt(h.jobs, options({ clock, retryAfterCapMs: 3_000 }));
    await tick();
    await h.finish('a1', { kind: 'throttled', retryAfterMs: null });
    await clock.advance(1_999);
    expect(h.started).toEqual(['a1']);
    await clock.advance(1);
    await h.finish('a2', { kind: 'throttled', retryAfterMs: null });
    await clock.advance(2_999); // 4 s capped at 3 s
    expect(h.started).toEqual(['a1', 'a2']);
    await clock.advance(1);
    expect(h.started).toEqual(['a1', 'a2', 'a3']);
    await h.drain();
    expect((await done).hosts[0]).toMatchObject({ backoffs: 2, maxInFlight: 1 });
  });
});

describe('lpt(jobs, options): whose 429 it is', () => {
  it("does not pause a host for one endpoint's 429 among its answers, and does once half of its recent answers are", async () => {
    const clock = manualClock();
    const h = harness(spec('g', 30));
    const done = lpt(h.jobs, options({ concurrency: 1, clock })); // limit 1: a window of the last 4 answers
    await tick();
    for (let i = 1; i <= 4; i++) await h.finish(`g${i}`);
    await h.finish('g5', { kind: 'throttled', retryAfterMs: 60_000 }); // 1 of the last 4
    expect(h.started).toContain('g6');
    await h.finish('g6', { kind: 'throttled', retryAfterMs: 60_000 }); // 2 of 4: half, the host's
    expect(h.started).toHaveLength(6);
    await clock.advance(59_999);
    expect(h.started).toHaveLength(6);
    await clock.advance(1);
    expect(h.started).toHaveLength(7);
    for (let i = 0; i < 25; i++) await h.drain();
    expect((await done).hosts[0]).toMatchObject({ backoffs: 1 });
  });
});

describe('lpt(jobs, options): unresponsive hosts', () => {
  it('after K consecutive failures lasting the span, skips the rest of that host as host_unresponsive', async () => {
    const clock = manualClock();
    const h = harness([...spec('dead', 20), ...spec('ok', 3)]);
    const done = lpt(h.jobs, options({ concurrency: 4, perHostDivisor: 10, unresponsiveAfter: 3, unresponsiveSpanMs: 1_000, clock })); // dead: limit 2
    await tick();
    await h.finish('dead1', { kind: 'unreachable' });
    await h.finish('dead2', { kind: 'unreachable' });
    await h.finish('dead3', { kind: 'unreachable' }); // 3 failures, but all at t = 0: not yet
    expect(h.skipped).toEqual([]);
    await clock.advance(1_000);
    await h.finish('dead4', { kind: 'unreachable' }); // 4th, 1 s after the first ended
    expect(h.skipped.map(([, r]) => r)).toEqual(Array(15).fill('host_unresponsive'));
    expect(h.skipped.map(([n]) => n)).toEqual(spec('dead', 20).slice(5).map(([, n]) => n));
    await h.drain();
    const report = await done;
    expect(report.hosts.find((x) => x.host === 'dead')).toMatchObject({ notAttempted: 15 });
    expect(h.calls.size).toBe(23);
    expect([...h.calls.values()].every((n) => n === 1)).toBe(true);
  });

  it('an answer between failures resets the count; throttling and other answers count as answers', async () => {
    const clock = manualClock();
    const h = harness(spec('a', 8));
    const done = lpt(h.jobs, options({ unresponsiveAfter: 2, unresponsiveSpanMs: 0, clock, backoffBaseMs: 0 }));
    await tick();
    await h.finish('a1', { kind: 'unreachable' });
    await h.finish('a2', { kind: 'other' });
    await h.finish('a3', { kind: 'unreachable' });
    await h.finish('a4', { kind: 'throttled', retryAfterMs: 0 });
    await h.finish('a5', { kind: 'unreachable' });
    await h.finish('a6', { kind: 'ok' });
    expect(h.skipped).toEqual([]);
    await h.finish('a7', { kind: 'unreachable' });
    await h.finish('a8', { kind: 'unreachable' });
    await done;
    expect(h.skipped).toEqual([]); // tripped with nothing left to skip
  });

  it('never trips with K = 0', async () => {
    const h = harness(spec('a', 30));
    const done = lpt(h.jobs, options({ unresponsiveAfter: 0 }));
    await tick();
    await h.drain({ kind: 'unreachable' });
    await done;
    expect(h.started).toHaveLength(30);
  });
});

describe('lpt(jobs, options): the deadline', () => {
  it('skips every queued job as run_deadline, paused hosts included, and lets jobs in flight finish', async () => {
    const clock = manualClock();
    const h = harness([...spec('a', 5), ...spec('b', 5), ...spec('c', 2)]);
    const done = lpt(h.jobs, options({ concurrency: 2, deadline: 10_000, clock }));
    await tick();
    await h.finish('a1', { kind: 'throttled', retryAfterMs: 60_000 });
    expect(h.running.size).toBe(2);
    await clock.advance(10_000);
    expect(h.skipped).toHaveLength(12 - h.started.length);
    expect(new Set(h.skipped.map(([, r]) => r))).toEqual(new Set(['run_deadline']));
    expect(h.running.size).toBe(2);
    await h.drain();
    await done;
    expect(clock.pending()).toBe(0); // a1's back-off (60 s) cancelled with the run
    expect(h.calls.size).toBe(12);
    expect([...h.calls.values()].every((n) => n === 1)).toBe(true);
  });

  it('a deadline already past skips everything', async () => {
    const clock = manualClock();
    await clock.advance(5);
    const h = harness(spec('a', 3));
    await lpt(h.jobs, options({ deadline: 5, clock }));
    expect(h.started).toEqual([]);
    expect(h.skipped).toEqual([['a1', 'run_deadline'], ['a2', 'run_deadline'], ['a3', 'run_deadline']]);
  });

  it('a job that throws rejects the schedule', async () => {
    const jobs: HostJob[] = [{ host: 'a', run: () => Promise.reject(new Error('bug')), skip: () => {} }];
    await expect(lpt(jobs, options())).rejects.toThrow('bug');
  });
});

describe('hostQueues(jobs, options): the schedule before the host-aware one', () => {
  it('starts the first job of each host before a second of any, one per host with perHostMax 1', async () => {
    const h = harness([...spec('a', 3), ...spec('b', 1), ...spec('c', 1)]);
    const done = hostQueues(h.jobs, options({ concurrency: 2, perHostMax: 1 }));
    await tick();
    expect(h.started).toEqual(['a1', 'b1']);
    await h.finish('a1');
    // The freed slot goes to the longest waiter (c1), not to host a's next job.
    expect(h.started).toEqual(['a1', 'b1', 'c1']);
    await h.drain();
    await h.drain();
    await done;
    expect(h.started).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
    expect(h.peak.all).toBe(2);
    expect(Math.max(...h.peak.byHost.values())).toBe(1);
    expect(h.skipped).toEqual([]);
  });

  it('never skips: with a deadline and failures, every job runs', async () => {
    const h = harness(spec('a', 12));
    const done = hostQueues(h.jobs, options({ deadline: 0, unresponsiveAfter: 1 }));
    for (let i = 0; i < 12; i++) {
      await tick();
      await h.drain({ kind: 'unreachable' });
    }
    expect((await done).scheduler).toBe('host-queues');
    expect(h.started).toHaveLength(12);
  });
});

describe('lpt(jobs, options): what the report says', () => {
  it('measures each host from its first start to its last finish; a host that never ran reports 0', async () => {
    const clock = manualClock();
    await clock.advance(700); // the run starts at 700 on this clock
    const h = harness([...spec('a', 2), ...spec('b', 1)]);
    const done = lpt(h.jobs, options({ clock, deadline: 5_700 }));
    await tick();
    await clock.advance(1_000);
    await h.finish('a1');
    await clock.advance(1_500.4);
    await h.finish('b1');
    await h.finish('a2');
    const report = await done;
    expect(report.scheduler).toBe('lpt');
    expect(report.hosts).toEqual([
      { host: 'a', targets: 2, limit: 1, maxInFlight: 1, backoffs: 0, wallMs: 2_500, notAttempted: 0 },
      { host: 'b', targets: 1, limit: 1, maxInFlight: 1, backoffs: 0, wallMs: 2_500, notAttempted: 0 },
    ]);
    const none = await lpt(harness(spec('c', 2)).jobs, options({ clock, deadline: 0 }));
    expect(none.hosts).toEqual([{ host: 'c', targets: 2, limit: 1, maxInFlight: 0, backoffs: 0, wallMs: 0, notAttempted: 2 }]);
    expect(none.maxInFlightPerHost).toBe(0);
  });

  it('leaves no timer behind once done: neither the deadline nor a back-off (they would keep the process alive)', async () => {
    const clock = manualClock();
    const h = harness(spec('a', 2));
    const done = lpt(h.jobs, options({ clock, deadline: 600_000, backoffBaseMs: 1_000 }));
    await tick();
    expect(clock.pending()).toBe(1); // the deadline
    await h.finish('a1', { kind: 'throttled', retryAfterMs: null });
    expect(clock.pending()).toBe(2);
    await clock.advance(1_000);
    expect(clock.pending()).toBe(1);
    await h.finish('a2');
    await done;
    expect(clock.pending()).toBe(0);
  });
});

describe('lpt(jobs, options): a job that fails', () => {
  it('a run() that rejects rejects the schedule; later finishes start nothing, no back-off is set and the deadline skips nothing', async () => {
    const clock = manualClock();
    const h = harness([...spec('a', 1), ...spec('c', 3)]);
    let fail!: (e: Error) => void;
    const failing: HostJob = { host: 'b', run: () => new Promise((_, reject) => (fail = reject)), skip: () => {} };
    const done = lpt([...h.jobs, failing], options({ concurrency: 3, clock, deadline: 10_000 }));
    await tick();
    expect(h.started).toEqual(['c1', 'a1']);
    fail(new Error('write failed'));
    await expect(done).rejects.toThrow('write failed');
    expect(clock.pending()).toBe(0); // the deadline timer cancelled
    await h.finish('a1', { kind: 'throttled', retryAfterMs: 1_000 });
    await h.finish('c1');
    expect(clock.pending()).toBe(0);
    await clock.advance(20_000);
    expect(h.started).toEqual(['c1', 'a1']);
    expect(h.skipped).toEqual([]);
  });

  it('a run() that throws synchronously rejects it too', async () => {
    const jobs: HostJob[] = [{ host: 'a', run: () => { throw new Error('sync bug'); }, skip: () => {} }];
    await expect(lpt(jobs, options())).rejects.toThrow('sync bug');
  });

  it.each([
    ['throws', () => { throw new Error('skip failed'); }],
    ['rejects', () => Promise.reject(new Error('skip failed'))],
  ])('a skip() that %s rejects the schedule', async (_how, skip) => {
    const jobs: HostJob[] = [{ host: 'a', run: () => Promise.resolve({ kind: 'ok' }), skip }];
    await expect(lpt(jobs, options({ deadline: -1 }))).rejects.toThrow('skip failed');
  });

  it('waits for a skip() that writes asynchronously before it resolves', async () => {
    let wrote!: () => void;
    const written: string[] = [];
    const jobs: HostJob[] = [{ host: 'a', run: () => Promise.resolve({ kind: 'ok' }), skip: (r) => new Promise<void>((res) => (wrote = () => (written.push(r), res()))) }];
    let resolved = false;
    const done = lpt(jobs, options({ deadline: -1 })).then((r) => ((resolved = true), r));
    await tick();
    expect(resolved).toBe(false);
    wrote();
    expect((await done).hosts[0]!.notAttempted).toBe(1);
    expect(written).toEqual(['run_deadline']);
  });
});

describe('lpt(jobs, options): the edges of the rules', () => {
  it('trips at exactly K failures spanning exactly the span, not a millisecond short', async () => {
    const clock = manualClock();
    await clock.advance(500);
    const h = harness([...spec('a', 10), ...spec('b', 10)]);
    const done = lpt(h.jobs, options({ concurrency: 2, clock, unresponsiveAfter: 3, unresponsiveSpanMs: 1_000 }));
    await tick();
    await h.finish('a1', { kind: 'unreachable' }); // a's streak starts when this one ends: t = 500
    await h.finish('b1', { kind: 'unreachable' }); // and b's
    await clock.advance(999);
    await h.finish('a2', { kind: 'unreachable' });
    await h.finish('a3', { kind: 'unreachable' }); // a: 3 failures over 999 ms: not yet
    await h.finish('b2', { kind: 'unreachable' });
    expect(h.skipped).toEqual([]);
    await clock.advance(1);
    await h.finish('b3', { kind: 'unreachable' }); // b: the 3rd failure, 1,000 ms after the first: trips
    expect(h.skipped.map(([n]) => n)).toEqual(spec('b', 10).slice(3).map(([, n]) => n));
    await h.finish('a4', { kind: 'unreachable' }); // a: the 4th, over 1,000 ms: trips
    expect(h.skipped).toHaveLength(7 + 6);
    await done;
  });

  it('does not trip at K − 1 failures however long they last', async () => {
    const clock = manualClock();
    const h = harness(spec('a', 4));
    const done = lpt(h.jobs, options({ clock, unresponsiveAfter: 3, unresponsiveSpanMs: 0 }));
    await tick();
    await h.finish('a1', { kind: 'unreachable' });
    await clock.advance(60_000);
    await h.finish('a2', { kind: 'unreachable' });
    await h.finish('a3', { kind: 'ok' });
    await h.finish('a4', { kind: 'unreachable' });
    await done;
    expect(h.skipped).toEqual([]);
  });

  it('a host with limit 3 weighs its last 6 answers: 3 throttled of 6 pause it, 2 of 6 do not', async () => {
    const clock = manualClock();
    const h = harness(spec('g', 40));
    const done = lpt(h.jobs, options({ concurrency: 1, perHostDivisor: 14, clock })); // ceil(40 / 14) = 3: a window of 6
    await tick();
    const seq = async (kinds: string) => {
      for (const k of kinds) await h.finish(h.started.at(-1)!, k === 't' ? { kind: 'throttled', retryAfterMs: 5_000 } : { kind: 'ok' });
    };
    await seq('oooooo'); // six answers, none throttled
    await seq('t'); // o o o o o t: 1 of 6
    await seq('oo');
    await seq('t'); // o o t o o t: 2 of 6 (a window of 4, t o o t, would say half)
    expect(h.running.size).toBe(1);
    await seq('t'); // o t o o t t: 3 of 6, the host's
    expect(h.running.size).toBe(0);
    await clock.advance(5_000);
    expect(h.running.size).toBe(1);
    for (let i = 0; i < 40; i++) await h.drain();
    expect((await done).hosts[0]).toMatchObject({ limit: 3, backoffs: 1 });
  });
});

describe('lpt(jobs, options): when it ends', () => {
  it('resolves only once the last job in flight has finished', async () => {
    const h = harness(spec('a', 1).concat(spec('b', 1)));
    let resolved = false;
    const done = lpt(h.jobs, options()).then(() => (resolved = true));
    await tick();
    await h.finish('a1');
    expect(resolved).toBe(false);
    await h.finish('b1');
    await done;
    expect(resolved).toBe(true);
  });

  it('a deadline while every host waits out a back-off ends the run at the deadline, not at the back-off', async () => {
    const clock = manualClock();
    await clock.advance(1_000);
    const h = harness(spec('a', 3));
    let resolved = false;
    const done = lpt(h.jobs, options({ clock, deadline: 11_000 })).then((r) => ((resolved = true), r));
    await tick();
    await h.finish('a1', { kind: 'throttled', retryAfterMs: 60_000 });
    await clock.advance(9_999);
    expect(h.skipped).toEqual([]);
    await clock.advance(1);
    expect(h.skipped.map(([n, r]) => `${n} ${r}`)).toEqual(['a2 run_deadline', 'a3 run_deadline']);
    await tick();
    expect(resolved).toBe(true);
    expect((await done).hosts[0]).toMatchObject({ notAttempted: 2, backoffs: 1 });
    expect(clock.pending()).toBe(0);
  });

  it('a 429 answered after the deadline sets no back-off timer', async () => {
    const clock = manualClock();
    const h = harness([...spec('a', 2), ...spec('b', 2)]);
    const done = lpt(h.jobs, options({ clock, concurrency: 2, deadline: 1_000 }));
    await tick();
    await clock.advance(1_000);
    expect(clock.pending()).toBe(0);
    await h.finish('a1', { kind: 'throttled', retryAfterMs: 30_000 });
    expect(clock.pending()).toBe(0);
    await h.finish('b1');
    await done;
  });

  it('a 429 with Retry-After 0 pauses nothing: the host’s next job starts at once', async () => {
    const clock = manualClock();
    const h = harness(spec('a', 2));
    const done = lpt(h.jobs, options({ clock }));
    await tick();
    await h.finish('a1', { kind: 'throttled', retryAfterMs: 0 });
    expect(h.started).toEqual(['a1', 'a2']);
    expect(clock.pending()).toBe(0);
    await h.finish('a2');
    expect((await done).hosts[0]!.backoffs).toBe(1);
  });

  it('a signal the schedule does not know rejects the run', async () => {
    const jobs: HostJob[] = [{ host: 'a', run: () => Promise.resolve({ kind: 'weird' } as unknown as HostSignal), skip: () => {} }];
    await expect(lpt(jobs, options())).rejects.toThrow('unknown host signal {"kind":"weird"}');
  });
});

describe('lpt(jobs, options): the 429 window, once more', () => {
  it('two good answers then a 429: 1 of 3, not the host’s', async () => {
    const clock = manualClock();
    const h = harness(spec('a', 5));
    const done = lpt(h.jobs, options({ clock }));
    await tick();
    await h.finish('a1');
    await h.finish('a2');
    await h.finish('a3', { kind: 'throttled', retryAfterMs: 5_000 });
    expect(h.started).toEqual(['a1', 'a2', 'a3', 'a4']);
    await h.drain();
    await h.drain();
    expect((await done).hosts[0]!.backoffs).toBe(0);
  });

  it('a host with limit 3 forgets its seventh-last answer: o o o t o o o t t pauses it (3 of the last 6)', async () => {
    const clock = manualClock();
    const h = harness(spec('g', 40));
    const done = lpt(h.jobs, options({ concurrency: 1, perHostDivisor: 14, clock }));
    await tick();
    for (const k of 'ooooootooot') await h.finish(h.started.at(-1)!, k === 't' ? { kind: 'throttled', retryAfterMs: 5_000 } : { kind: 'ok' });
    expect(h.running.size).toBe(1); // t o o o t in the last 6 (with o before): 2 of 6
    await h.finish(h.started.at(-1)!, { kind: 'throttled', retryAfterMs: 5_000 }); // t o o o t t: 3 of 6 (of the last 5 only 2)
    expect(h.running.size).toBe(0);
    await clock.advance(5_000);
    for (let i = 0; i < 40; i++) await h.drain();
    expect((await done).hosts[0]!.backoffs).toBe(1);
  });
});

describe('realClock', () => {
  it('reads a clock that moves forward and calls a timer once, after its delay, unless cancelled', async () => {
    const t0 = realClock.now();
    const calls: string[] = [];
    realClock.after(30, () => calls.push('later'));
    realClock.after(0, () => calls.push('fired'));
    const cancel = realClock.after(0, () => calls.push('cancelled'));
    cancel();
    realClock.after(-5, () => calls.push('negative'));
    await new Promise((r) => setTimeout(r, 60));
    expect(calls).toEqual(['fired', 'negative', 'later']); // the 30 ms timer, set first, fires last
    expect(realClock.now()).toBeGreaterThan(t0);
  });
});

describe('hostQueues(jobs, options): what it reports', () => {
  it('reports each host’s lanes as its peak in flight, within the global slots', async () => {
    const clock = manualClock();
    await clock.advance(300);
    const h = harness([...spec('a', 4), ...spec('b', 1)]);
    const done = hostQueues(h.jobs, options({ concurrency: 3, perHostDivisor: 2, clock })); // a: 2 lanes, b: 1
    await tick();
    await clock.advance(200);
    expect(h.running.size).toBe(3);
    for (let i = 0; i < 4; i++) {
      await h.drain();
      await tick();
    }
    const report = await done;
    expect(report.hosts.map((x) => [x.host, x.limit, x.maxInFlight, x.wallMs])).toEqual([
      ['a', 2, 2, 200],
      ['b', 1, 1, 200],
    ]);
    expect(report.maxInFlightPerHost).toBe(2);
    expect(h.peak.all).toBe(3);
  });
});
