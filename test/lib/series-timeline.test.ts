import { describe, expect, it } from 'vitest';
import { contractIntervals } from '../../src/lib/contract-intervals.ts';
import type { DriftRow } from '../../src/lib/detect-drift.ts';
import {
  censorAtMigrations,
  protocolMigration,
  stitchedChanges,
  stitchedIntervals,
  stitchSeries,
} from '../../src/lib/series-timeline.ts';

const d = (n: number) => `2026-12-${String(n).padStart(2, '0')}`;
/** An ok row of run r<n> on day n (both series of a bridge run share the run_id), or a failure. */
const r = (n: number, hash: string | null, target = 't'): DriftRow => ({
  target, day: d(n), observed_at: `${d(n)}T06:00:00Z`, run_id: `r${n}`,
  outcome: hash === null ? 'error' : 'ok', tools_sha256: hash, body_sha256: hash,
});

describe('stitchSeries', () => {
  it('v1 before the seam, v2 from it; no seam when the bridge run agrees', () => {
    const h = stitchSeries([r(1, 'A'), r(2, 'A'), r(3, 'A'), r(4, 'A')], [r(3, 'A'), r(4, 'B')], d(3));
    expect(h.before.map((x) => x.day)).toEqual([d(1), d(2)]);
    expect(h.after.map((x) => x.day)).toEqual([d(3), d(4)]);
    expect(h.seam).toBeNull();
    // A (days 1–3 from v1 then v2) then B on day 4: one event of 3 days, B censored.
    expect(stitchedIntervals(h).map((i) => [i.tools_sha256, i.duration, i.event])).toEqual([
      ['A', 3, true],
      ['B', 0, false],
    ]);
    expect(stitchedChanges(h).map((c) => [c.day, c.before.tools_sha256, c.after.tools_sha256, c.index])).toEqual([[d(4), 'A', 'B', 0]]);
  });

  it('a seam when the bridge run’s two probes disagree: censored, not an event', () => {
    // v1 read page 1 (A), v2 all pages (A+): same server, same run.
    const h = stitchSeries([r(1, 'A'), r(2, 'A'), r(3, 'A')], [r(3, 'A+'), r(4, 'A+')], d(3));
    expect(h.seam).toEqual({ target: 't', day: d(3), basis: 'bridge_run', v1_tools_sha256: 'A', v2_tools_sha256: 'A+' });
    expect(stitchedIntervals(h).map((i) => [i.tools_sha256, i.start_day, i.end_day, i.event])).toEqual([
      ['A', d(1), d(2), false],
      ['A+', d(3), d(4), false],
    ]);
    expect(stitchedChanges(h)).toEqual([]);
    // Without the seam rule the same rows would make a false event:
    expect(contractIntervals([...h.before, ...h.after]).filter((i) => i.event)).toHaveLength(1);
  });

  it('the first bridge run where BOTH answered decides; failures are skipped', () => {
    const h = stitchSeries([r(1, 'A'), r(3, null), r(4, 'A')], [r(3, 'A'), r(4, 'A')], d(3));
    expect(h.seam).toBeNull();
    const h2 = stitchSeries([r(1, 'A'), r(3, null), r(4, 'A')], [r(3, 'Z'), r(4, 'Z')], d(3));
    expect(h2.seam?.basis).toBe('bridge_run');
  });

  it('with no run where both answered, differing heads make a seam of basis heads', () => {
    const h = stitchSeries([r(1, 'A'), r(2, 'A'), r(3, null)], [r(3, null), r(5, 'B')], d(3));
    expect(h.seam).toMatchObject({ basis: 'heads', v1_tools_sha256: 'A', v2_tools_sha256: 'B' });
    expect(stitchedIntervals(h).every((i) => !i.event)).toBe(true);
    expect(stitchSeries([r(1, 'A')], [r(5, 'A')], d(3)).seam).toBeNull();
    expect(stitchSeries([r(1, 'A')], [], d(3)).seam).toBeNull();
    expect(stitchSeries([], [r(5, 'A')], d(3)).seam).toBeNull();
  });

  it('refuses no rows and mixed targets', () => {
    expect(() => stitchSeries([], [], d(3))).toThrow(RangeError);
    expect(() => stitchSeries([r(1, 'A', 'x')], [r(4, 'A', 'y')], d(3))).toThrow(/one target/);
  });
});

describe('protocolMigration and censorAtMigrations', () => {
  const v2 = (n: number, era: 'modern' | 'legacy', version: string) => ({ run_id: `r${n}`, target: 't', outcome: 'ok' as const, era, protocol_version: version, methodology_version: 'v2' as const });
  const rows = [r(1, 'A'), r(2, 'B'), r(3, 'C')];
  const changes = stitchedChanges(stitchSeries([], rows, d(1)));

  it('flags a change whose v2 rows differ in era or negotiated version, and only those', () => {
    const eras = [v2(1, 'legacy', '2025-11-25'), v2(2, 'modern', '2026-07-28'), v2(3, 'modern', '2026-07-28')];
    expect(changes.map((c) => protocolMigration(c, eras))).toEqual([true, false]);
    const versions = [v2(1, 'legacy', '2025-03-26'), v2(2, 'legacy', '2025-03-26'), v2(3, 'legacy', '2025-11-25')];
    expect(changes.map((c) => protocolMigration(c, versions))).toEqual([false, true]);
    // A v1 row on one side (no v2 row for that run) is never a migration.
    expect(protocolMigration(changes[0]!, [eras[1]!])).toBe(false);
  });

  it('the sensitivity series censors exactly the intervals a migration ended', () => {
    const intervals = stitchedIntervals(stitchSeries([], rows, d(1)));
    expect(intervals.map((i) => i.event)).toEqual([true, true, false]);
    const censored = censorAtMigrations(intervals, [changes[0]!]);
    expect(censored.map((i) => i.event)).toEqual([false, true, false]);
    expect(censored.map((i) => i.duration)).toEqual(intervals.map((i) => i.duration));
    expect(censorAtMigrations(intervals, [])).toEqual(intervals);
  });
});
