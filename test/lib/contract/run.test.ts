// The run contract (methodology v1, "Runs"): one row per collector run in data/runs.jsonl.
import { describe, expect, it } from 'vitest';
import { ERROR_CLASSES, OUTCOMES } from '../../../src/lib/contract/observation.ts';
import { OUTCOMES_V2 } from '../../../src/lib/contract/observation-v2.ts';
import { HostScheduling, isRunV1, isRunV2, Run, RUN_SERIES, RunScheduling, runSchemaOf, RunV2 } from '../../../src/lib/contract/run.ts';
import { ERAS } from '../../../src/lib/eras.ts';
import { V2_STATUSES } from '../../../src/lib/v2-status.ts';

const zero = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, 0]));

/** A finished full run with its texts filled, as collector/rows.ts runRow writes one. */
const finished = () => ({
  run_id: '2026-04-01-a1b2c3',
  day: '2026-04-01',
  started_at: '2026-04-01T06:00:00.000Z',
  finished_at: '2026-04-01T06:12:31.417Z',
  registry: 'https://registry.modelcontextprotocol.io',
  roster_file: '2026-04-01.json',
  roster_complete: true,
  targets: 3,
  eligible: 2,
  attempts: 2,
  coverage: 1,
  degraded: false,
  partial: false,
  limit: null,
  outcomes: { ...zero(OUTCOMES), ok: 1, error: 1, no_endpoint: 1 },
  error_classes: { ...zero(ERROR_CLASSES), timeout: 1, no_endpoint: 1 },
  status: 'finished',
  message: 'resumed after a crash; 1 target probed again',
  prober_version: '0.1.0',
  methodology_version: 'v1',
});

describe('Run', () => {
  it('accepts a finished run and a failed one as the collector writes them', () => {
    expect(Run.safeParse(finished()).success).toBe(true);
    const failed = { ...finished(), roster_file: null, roster_complete: false, attempts: 0, coverage: 0, degraded: true, status: 'failed', message: 'zero attempts: no target with an endpoint was probed' };
    expect(Run.safeParse(failed).success).toBe(true);
  });
  it('accepts instants with an offset (RFC 3339)', () => {
    expect(Run.safeParse({ ...finished(), started_at: '2026-04-01T08:00:00+02:00', finished_at: '2026-04-01T08:12:31.4+02:00' }).success).toBe(true);
  });
  it.each([
    ['a day with text after it', { day: '2026-04-01x' }],
    ['a day with text before it', { day: 'x2026-04-01' }],
    ['a status other than finished or failed', { status: 'running' }],
    ['a coverage above 1', { coverage: 1.01 }],
    ['a count missing from outcomes', { outcomes: zero(OUTCOMES.slice(1)) }],
    ['an unknown error class', { error_classes: { ...zero(ERROR_CLASSES), dns: 1 } }],
    ['an unknown field', { note: 'x' }],
    ['a zero limit', { limit: 0, partial: true }],
    ['another methodology version', { methodology_version: 'v1-contract' }],
  ])('refuses %s', (_what, change) => {
    expect(Run.safeParse({ ...finished(), ...change }).success).toBe(false);
  });
});

/** The scheduling block both series' rows of a run share (collector/run.ts), one slow host listed. */
const scheduling = () => ({
  scheduler: 'lpt',
  hosts: 2,
  max_targets_per_host: 2,
  per_host_limit: { divisor: 10, max: 4 },
  global_concurrency: 16,
  max_in_flight_per_host: 1,
  unresponsive_after: 10,
  deadline_at: '2026-04-01T07:00:00.000Z',
  not_attempted: { host_unresponsive: 0, run_deadline: 1 },
  slowest_hosts: [{ host: 'mcp.example.com:443', targets: 2, limit: 1, max_in_flight: 1, backoffs: 0, wall_ms: 1200, not_attempted: 1 }],
});
const host = () => scheduling().slowest_hosts[0]!;

/** The v2 series' row of that same run (collector/rows-v2.ts runRowV2). */
const finishedV2 = () => ({
  ...finished(),
  outcomes: { ...zero(OUTCOMES_V2), ok: 1, error: 1, no_endpoint: 1 },
  statuses: { ...zero(V2_STATUSES), ok: 1, unreachable: 1 },
  eras: { ...zero(ERAS), modern: 1, none: 2 },
  error_classes: { ...zero(ERROR_CLASSES), timeout: 1, no_endpoint: 1 },
  requests: { total: 9, max: 8, mean: 4.5 },
  methodology_version: 'v2',
  scheduling: scheduling(),
});

describe('Run: the parts added after v1 shipped', () => {
  it('reads an old row without not_attempted or scheduling, and a new one with both', () => {
    expect(Run.safeParse(finished()).success).toBe(true);
    expect(Run.safeParse({ ...finished(), outcomes: { ...finished().outcomes, not_attempted: 1 }, scheduling: scheduling() }).success).toBe(true);
    expect(Run.safeParse({ ...finished(), scheduling: null }).success).toBe(true);
    expect(Run.safeParse({ ...finished(), outcomes: { ...finished().outcomes, not_attempted: -1 } }).success).toBe(false);
  });
  it('takes a coverage of 0 and of 1, and refuses one below 0', () => {
    expect(Run.safeParse({ ...finished(), coverage: 0 }).success).toBe(true);
    expect(Run.safeParse({ ...finished(), coverage: -0.01 }).success).toBe(false);
  });
});

describe('RunScheduling', () => {
  it('accepts the block as the collector writes it, with a deadline given with an offset, or none', () => {
    expect(RunScheduling.safeParse(scheduling()).success).toBe(true);
    expect(RunScheduling.safeParse({ ...scheduling(), scheduler: 'host-queues', deadline_at: '2026-04-01T09:00:00+02:00' }).success).toBe(true);
    expect(RunScheduling.safeParse({ ...scheduling(), deadline_at: null, unresponsive_after: 0 }).success).toBe(true);
  });
  it('takes shard_lost when given (a sharded run) and reads a block written before it existed without it', () => {
    expect(RunScheduling.safeParse({ ...scheduling(), not_attempted: { host_unresponsive: 0, run_deadline: 1, shard_lost: 3 } }).success).toBe(true);
    expect(RunScheduling.safeParse({ ...scheduling(), not_attempted: { host_unresponsive: 0, run_deadline: 1 } }).success).toBe(true);
    expect(RunScheduling.safeParse({ ...scheduling(), not_attempted: { host_unresponsive: 0, run_deadline: 1, shard_lost: -1 } }).success).toBe(false);
  });
  it('takes the per-host rule with or without its span, and only a positive whole span', () => {
    expect(RunScheduling.safeParse({ ...scheduling(), per_host_limit: { divisor: 500, max: 16, span: 2_000 } }).success).toBe(true);
    expect(RunScheduling.safeParse({ ...scheduling(), per_host_limit: { divisor: 500, max: 16 } }).success).toBe(true);
    expect(RunScheduling.safeParse({ ...scheduling(), per_host_limit: { divisor: 500, max: 16, span: 0 } }).success).toBe(false);
    expect(RunScheduling.safeParse({ ...scheduling(), per_host_limit: { divisor: 500, max: 16, span: 2.5 } }).success).toBe(false);
  });
  it('lists at most 10 slowest hosts', () => {
    expect(RunScheduling.safeParse({ ...scheduling(), slowest_hosts: Array.from({ length: 10 }, host) }).success).toBe(true);
    expect(RunScheduling.safeParse({ ...scheduling(), slowest_hosts: Array.from({ length: 11 }, host) }).success).toBe(false);
  });
  it.each<[string, Record<string, unknown>]>([
    ['an empty scheduler name', { scheduler: '' }],
    ['a deadline that is a day', { deadline_at: '2026-04-01' }],
    ['a zero divisor', { per_host_limit: { divisor: 0, max: 4 } }],
    ['an unknown field in per_host_limit', { per_host_limit: { divisor: 10, max: 4, min: 1 } }],
    ['a zero global concurrency', { global_concurrency: 0 }],
    ['a reason missing from not_attempted', { not_attempted: { host_unresponsive: 0 } }],
    ['an unknown reason in not_attempted', { not_attempted: { host_unresponsive: 0, run_deadline: 0, crash: 0 } }],
    ['a negative not_attempted count', { not_attempted: { host_unresponsive: -1, run_deadline: 0 } }],
    ['an unknown field', { note: 'x' }],
  ])('refuses %s', (_what, change) => {
    expect(RunScheduling.safeParse({ ...scheduling(), ...change }).success).toBe(false);
  });
});

describe('HostScheduling', () => {
  it('accepts a host as the collector writes it, and one with nothing probed', () => {
    expect(HostScheduling.safeParse(host()).success).toBe(true);
    expect(HostScheduling.safeParse({ ...host(), max_in_flight: 0, wall_ms: 0, not_attempted: 2 }).success).toBe(true);
  });
  it.each<[string, Record<string, unknown>]>([
    ['a limit of 0 (at least 1 after any halving)', { limit: 0 }],
    ['a host name over 256 characters', { host: 'h'.repeat(257) }],
    ['a negative backoff count', { backoffs: -1 }],
    ['a fractional wall time', { wall_ms: 1.5 }],
    ['an unknown field', { note: 'x' }],
  ])('refuses %s', (_what, change) => {
    expect(HostScheduling.safeParse({ ...host(), ...change }).success).toBe(false);
  });
  it('takes a host name of exactly 256 characters', () => {
    expect(HostScheduling.safeParse({ ...host(), host: 'h'.repeat(256) }).success).toBe(true);
  });
});

describe('RunV2', () => {
  it('accepts the v2 row of a run, with a scheduling block or null, and both statuses', () => {
    expect(RunV2.safeParse(finishedV2()).success).toBe(true);
    expect(RunV2.safeParse({ ...finishedV2(), scheduling: null, status: 'failed' }).success).toBe(true);
  });
  it('counts every v2 outcome, status, era and error class, each a key of its own', () => {
    for (const [field, keys] of [['outcomes', OUTCOMES_V2], ['statuses', V2_STATUSES], ['eras', ERAS], ['error_classes', ERROR_CLASSES]] as const) {
      for (const k of keys) expect(RunV2.safeParse({ ...finishedV2(), [field]: zero(keys.filter((x) => x !== k)) }).success).toBe(false);
      expect(RunV2.safeParse({ ...finishedV2(), [field]: { ...zero(keys), other: 0 } }).success).toBe(false);
    }
  });
  it('keeps requests within the budget: a max or mean of 8 passes, above it is refused', () => {
    expect(RunV2.safeParse({ ...finishedV2(), requests: { total: 16, max: 8, mean: 8 } }).success).toBe(true);
    expect(RunV2.safeParse({ ...finishedV2(), requests: { total: 0, max: 0, mean: 0 } }).success).toBe(true);
    expect(RunV2.safeParse({ ...finishedV2(), requests: { total: 18, max: 9, mean: 4.5 } }).success).toBe(false);
    expect(RunV2.safeParse({ ...finishedV2(), requests: { total: 17, max: 8, mean: 8.5 } }).success).toBe(false);
    expect(RunV2.safeParse({ ...finishedV2(), requests: { total: 9, max: 8, mean: -1 } }).success).toBe(false);
    expect(RunV2.safeParse({ ...finishedV2(), requests: { total: 9, max: 8, mean: 4.5, min: 1 } }).success).toBe(false);
  });
  it.each<[string, Record<string, unknown>]>([
    ['no scheduling field (the collector always writes one)', { scheduling: undefined }],
    ['methodology v1', { methodology_version: 'v1' }],
    ['a day with text after it', { day: '2026-04-01x' }],
    ['a day with text before it', { day: 'x2026-04-01' }],
    ['an instant that is a day', { started_at: '2026-04-01' }],
    ['a status other than finished or failed', { status: 'running' }],
    ['an empty run_id', { run_id: '' }],
    ['an unknown field', { note: 'x' }],
  ])('refuses %s', (_what, change) => {
    expect(RunV2.safeParse({ ...finishedV2(), ...change }).success).toBe(false);
  });
  it('takes a coverage from 0 to 1, and refuses one outside', () => {
    for (const coverage of [0, 0.5, 1]) expect(RunV2.safeParse({ ...finishedV2(), coverage }).success).toBe(true);
    for (const coverage of [-0.01, 1.01]) expect(RunV2.safeParse({ ...finishedV2(), coverage }).success).toBe(false);
  });
  it('accepts instants with an offset', () => {
    expect(RunV2.safeParse({ ...finishedV2(), started_at: '2026-04-01T08:00:00+02:00', finished_at: '2026-04-01T08:12:31.4+02:00' }).success).toBe(true);
  });
});

describe('runSchemaOf, isRunV1, isRunV2: which series a runs.jsonl line belongs to', () => {
  it('reads a line saying methodology_version v2 with RunV2, every other value with Run', () => {
    expect(runSchemaOf(finishedV2())).toBe(RunV2);
    expect(runSchemaOf(finished())).toBe(Run);
    expect(runSchemaOf({ methodology_version: 'v3' })).toBe(Run);
    expect(runSchemaOf({})).toBe(Run);
    for (const v of [null, undefined, 'v2', 2, []]) expect(runSchemaOf(v)).toBe(Run);
  });
  it("tells a parsed row's series", () => {
    const v1 = Run.parse(finished());
    const v2 = RunV2.parse(finishedV2());
    expect([isRunV1(v1), isRunV2(v1)]).toEqual([true, false]);
    expect([isRunV1(v2), isRunV2(v2)]).toEqual([false, true]);
    expect(RUN_SERIES).toEqual(['v1', 'v2']);
  });
});
