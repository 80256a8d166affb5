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

describe('stitchSeries: which rows decide the seam', () => {
  /** A row with every field given: outcome and hashes independently (a lean row is not checked by the zod contract). */
  const raw = (n: number, outcome: string, tools: string | null, body: string | null): DriftRow => ({
    target: 't', day: d(n), observed_at: `${d(n)}T06:00:00Z`, run_id: `r${n}`, outcome: outcome as DriftRow['outcome'], tools_sha256: tools, body_sha256: body,
  });

  it('says why it refuses: no rows, two targets in one series, an unparseable time', () => {
    expect(() => stitchSeries([], [], d(3))).toThrow(new RangeError('stitchSeries needs at least one row'));
    expect(() => stitchSeries([r(1, 'A', 'x'), r(2, 'A', 'y')], [], d(3))).toThrow(new RangeError("stitchSeries takes one target's rows, got more than one target"));
    expect(() => stitchSeries([], [r(4, 'A', 'x'), r(5, 'A', 'y')], d(3))).toThrow(new RangeError("stitchSeries takes one target's rows, got more than one target"));
    expect(() => stitchSeries([{ ...r(1, 'A'), observed_at: 'soon' }], [], d(3))).toThrow(new RangeError('stitchSeries: unparseable observed_at'));
    expect(() => stitchSeries([], [{ ...r(4, 'A'), observed_at: 'soon' }], d(3))).toThrow(new RangeError('stitchSeries: unparseable observed_at'));
  });

  it('keeps v2 rows from the seam day on only (the seam day itself included)', () => {
    const h = stitchSeries([r(1, 'A')], [r(1, 'A'), r(2, 'A'), r(3, 'A'), r(4, 'A')], d(3));
    expect(h.after.map((x) => x.day)).toEqual([d(3), d(4)]);
    expect(h.before.map((x) => x.day)).toEqual([d(1)]);
  });

  it('skips a bridge run whose v2 probe failed: the next run where both answered decides', () => {
    const h = stitchSeries([r(1, 'A'), r(3, 'A'), r(4, 'A')], [r(3, null), r(4, 'A')], d(3));
    expect(h.seam).toBeNull();
  });

  it('never lets a v1 row dated before the seam decide as a bridge run, even with a v2 run_id', () => {
    // A v1 row of day 2 carrying run r3 (the v2 row's run): not a bridge run.
    const g = stitchSeries([r(1, 'A'), { ...r(2, 'B'), run_id: 'r3' }], [r(3, 'A')], d(3));
    // The heads compare B (the last v1 ok before the seam) with A: a seam of basis heads, not bridge_run.
    expect(g.seam).toEqual({ target: 't', day: d(3), basis: 'heads', v1_tools_sha256: 'B', v2_tools_sha256: 'A' });
  });

  it('compares heads with the last v1 ok row before the seam (a later failure does not count) and the first v2 ok row', () => {
    expect(stitchSeries([r(1, 'A'), r(2, null)], [r(4, 'B')], d(3)).seam).toEqual({ target: 't', day: d(3), basis: 'heads', v1_tools_sha256: 'A', v2_tools_sha256: 'B' });
    expect(stitchSeries([r(1, 'A'), r(2, null)], [r(4, 'A')], d(3)).seam).toBeNull();
    // The last, not the second: A, B, C then v2 C is no seam; v2 B is one.
    expect(stitchSeries([r(1, 'A'), r(2, 'B'), r(3, 'C')], [r(5, 'C')], d(4)).seam).toBeNull();
    expect(stitchSeries([r(1, 'A'), r(2, 'B'), r(3, 'C')], [r(5, 'B')], d(4)).seam).toMatchObject({ basis: 'heads', v1_tools_sha256: 'C', v2_tools_sha256: 'B' });
    // The first v2 ok, after a failure.
    expect(stitchSeries([r(1, 'A')], [r(4, null), r(5, 'A'), r(6, 'B')], d(3)).seam).toBeNull();
  });

  it('reads as ok only a row whose outcome is ok and that carries both hashes', () => {
    // An error row that carries hashes, an ok row without a tools hash, an ok row without a body hash:
    // none is a head, so the heads are A (v1) and A (v2): no seam. Each one alone as a head would make B ≠ A.
    const notOk = [raw(2, 'error', 'B', 'B'), raw(2, 'ok', null, 'B'), raw(2, 'ok', 'B', null)];
    for (const bad of notOk) {
      expect(stitchSeries([r(1, 'A'), bad], [r(4, 'A')], d(3)).seam).toBeNull();
      expect(stitchSeries([r(1, 'A')], [{ ...bad, day: d(4), observed_at: `${d(4)}T06:00:00Z`, run_id: 'r4' }, r(5, 'A')], d(3)).seam).toBeNull();
      // Nor does it pair as a bridge run: v1's r4 is not ok, so the heads (A, A) decide.
      expect(stitchSeries([r(1, 'A'), { ...bad, day: d(4), observed_at: `${d(4)}T06:00:00Z`, run_id: 'r4' }], [r(4, 'A')], d(3)).seam).toBeNull();
    }
    // The near miss: an ok row with both hashes is a head.
    expect(stitchSeries([r(1, 'A'), raw(2, 'ok', 'B', 'B')], [r(4, 'A')], d(3)).seam).toMatchObject({ basis: 'heads', v1_tools_sha256: 'B' });
  });
});

describe('stitchedChanges and stitchedIntervals around the seam', () => {
  it('counts a change across the seam day when the series agree (a real change, not a seam)', () => {
    // v1: B on day 1, A on day 3 (the bridge run), where v2 also reads A: no seam, and B → A is a change.
    const h = stitchSeries([r(1, 'B'), r(3, 'A')], [r(3, 'A'), r(4, 'A')], d(3));
    expect(h.seam).toBeNull();
    expect(stitchedChanges(h).map((c) => [c.day, c.before.tools_sha256, c.after.tools_sha256, c.index])).toEqual([[d(3), 'B', 'A', 0]]);
    expect(stitchedIntervals(h).map((i) => [i.tools_sha256, i.event])).toEqual([['B', true], ['A', false]]);
  });
  it('keeps the changes on each side of a seam, indexed in order', () => {
    const h = stitchSeries([r(1, 'A'), r(2, 'B'), r(3, 'B')], [r(3, 'X'), r(4, 'Y')], d(3));
    expect(h.seam?.basis).toBe('bridge_run');
    expect(stitchedChanges(h).map((c) => [c.day, c.before.tools_sha256, c.after.tools_sha256, c.index])).toEqual([
      [d(2), 'A', 'B', 0],
      [d(4), 'X', 'Y', 1],
    ]);
  });
  it('has no changes when neither side holds a row (v1 rows only from the seam on, no v2 rows)', () => {
    const h = stitchSeries([r(3, 'A'), r(4, 'B')], [], d(3));
    expect([h.before, h.after, h.seam]).toEqual([[], [], null]);
    expect(stitchedChanges(h)).toEqual([]);
    expect(stitchedIntervals(h)).toEqual([]);
  });
  it('with a seam on the first day: only v2’s changes; with a seam and no v2 rows given: only v1’s', () => {
    const h = stitchSeries([r(3, 'A')], [r(3, 'X'), r(4, 'Y')], d(3));
    expect([h.before.length, h.seam?.basis]).toEqual([0, 'bridge_run']);
    expect(stitchedChanges(h).map((c) => [c.after.tools_sha256, c.index])).toEqual([['Y', 0]]);
    const v1Only = { ...stitchSeries([r(1, 'A'), r(2, 'B')], [r(4, 'X')], d(3)), after: [] };
    expect(v1Only.seam).not.toBeNull();
    expect(stitchedChanges(v1Only).map((c) => [c.after.tools_sha256, c.index])).toEqual([['B', 0]]);
  });
});

describe('protocolMigration: only the change’s own target and ok v2 rows', () => {
  const v2 = (n: number, era: 'modern' | 'legacy' | 'legacy_sse', version: string, over: Partial<{ target: string; outcome: 'ok' | 'error' }> = {}) => ({ run_id: `r${n}`, target: 't', outcome: 'ok' as const, era, protocol_version: version, methodology_version: 'v2' as const, ...over });
  const change = stitchedChanges(stitchSeries([], [r(1, 'A'), r(2, 'B')], d(1)))[0]!;
  it('flags a change of era alone (same negotiated version), and not the same era and version', () => {
    expect(protocolMigration(change, [v2(1, 'legacy', '2025-03-26'), v2(2, 'legacy_sse', '2025-03-26')])).toBe(true);
    expect(protocolMigration(change, [v2(1, 'legacy', '2025-03-26'), v2(2, 'legacy', '2025-03-26')])).toBe(false);
  });
  it('ignores rows of another target and rows that are not ok, even on the same run', () => {
    const same = [v2(1, 'legacy', '2025-03-26'), v2(2, 'legacy', '2025-03-26')];
    expect(protocolMigration(change, [v2(2, 'modern', '2026-07-28', { target: 'other' }), ...same])).toBe(false);
    expect(protocolMigration(change, [v2(2, 'modern', '2026-07-28', { outcome: 'error' }), ...same])).toBe(false);
    expect(protocolMigration(change, [v2(1, 'legacy', '2025-03-26'), v2(2, 'modern', '2026-07-28', { target: 'other' })])).toBe(false);
    expect(protocolMigration(change, [v2(1, 'legacy', '2025-03-26'), v2(2, 'modern', '2026-07-28', { outcome: 'error' })])).toBe(false);
  });
});
