// The run contract (methodology v1, "Runs"): one row per collector run in data/runs.jsonl.
import { describe, expect, it } from 'vitest';
import { ERROR_CLASSES, OUTCOMES } from '../../../src/lib/contract/observation.ts';
import { Run } from '../../../src/lib/contract/run.ts';

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
