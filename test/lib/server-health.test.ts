import { describe, expect, it } from 'vitest';
import { serverHealth, type HealthProbe } from '../../src/lib/server-health.ts';
import { wilson } from '../../src/lib/wilson.ts';

const at = (day: string, ok: boolean, latencyMs: number | null = null): HealthProbe => ({ ms: Date.parse(`${day}T06:00:00Z`), ok, latencyMs });

describe('serverHealth(probes, { asOfDay, days })', () => {
  it('counts the probes of the window only, its first day and its last day included', () => {
    const h = serverHealth([at('2026-01-01', true, 5), at('2026-01-02', true, 100), at('2026-01-31', false, 900), at('2026-02-01', true, 1)], { asOfDay: '2026-01-31' });
    expect([h.fromDay, h.toDay, h.probes, h.ok]).toEqual(['2026-01-02', '2026-01-31', 2, 1]);
    expect(h.okShare).toEqual(wilson(1, 2));
  });

  it('takes the median and p90 of ok probes only, by R type 7 (a timeout is our deadline, not the server\'s)', () => {
    const h = serverHealth([at('2026-01-29', true, 200), at('2026-01-30', true, 100), at('2026-01-30', false, 20_000), at('2026-01-31', true, 120)], { asOfDay: '2026-01-31' });
    // R: quantile(c(100, 120, 200), c(0.5, 0.9)) → 120, 184
    expect(h.latency).toEqual({ n: 3, median: 120, p90: 184 });
  });

  it('says nothing it does not know: no probe → share NaN and no latency; an ok probe without latency is counted, not timed', () => {
    const none = serverHealth([], { asOfDay: '2026-01-31', days: 7 });
    expect([none.fromDay, none.probes, Number.isNaN(none.okShare.p), none.latency]).toEqual(['2026-01-25', 0, true, { n: 0, median: null, p90: null }]);
    const untimed = serverHealth([at('2026-01-31', true, null)], { asOfDay: '2026-01-31' });
    expect([untimed.ok, untimed.latency.n]).toEqual([1, 0]);
  });

  it('starts the window at the first day’s first millisecond and ends it before the next day’s, to the millisecond', () => {
    const ms = (iso: string, ok = true): HealthProbe => ({ ms: Date.parse(iso), ok, latencyMs: 10 });
    const h = serverHealth(
      [ms('2026-01-24T23:59:59.999Z'), ms('2026-01-25T00:00:00.000Z'), ms('2026-01-31T23:59:59.999Z'), ms('2026-02-01T00:00:00.000Z')],
      { asOfDay: '2026-01-31', days: 7 },
    );
    expect([h.fromDay, h.toDay, h.probes, h.ok]).toEqual(['2026-01-25', '2026-01-31', 2, 2]);
  });

  it('times no probe whose latency is not a finite number (NaN, Infinity), but counts it as ok', () => {
    const h = serverHealth([at('2026-01-30', true, Number.NaN), at('2026-01-30', true, Number.POSITIVE_INFINITY), at('2026-01-31', true, 100)], { asOfDay: '2026-01-31' });
    expect([h.ok, h.latency]).toEqual([3, { n: 1, median: 100, p90: 100 }]);
  });
});
