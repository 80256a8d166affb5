// src/lib/bridge.ts: when `auto` stops recording v1 (bridge days read off runs.jsonl) and the bridge
// note's cross-table of v1 outcome/error class × v2 status.
import { describe, expect, it } from 'vitest';
import {
  BRIDGE_DAYS,
  bridgeComplete,
  bridgeDays,
  bridgeTable,
  seriesToRecord,
} from '../../src/lib/bridge.ts';
import type { AnyRun } from '../../src/lib/contract/run.ts';

/** Only the fields bridgeDays reads; the rest of a run row does not matter to it. */
const run = (run_id: string, series: 'v1' | 'v2', over: Partial<{ status: 'finished' | 'failed'; partial: boolean }> = {}) =>
  ({ run_id, day: run_id.slice(0, 10), methodology_version: series, status: 'finished', partial: false, ...over }) as unknown as AnyRun;
const both = (day: string) => [run(`${day}T031500Z`, 'v1'), run(`${day}T031500Z`, 'v2')];
const days = (n: number) => Array.from({ length: n }, (_, i) => `2026-12-${String(i + 1).padStart(2, '0')}`);

describe('bridgeDays(runs), bridgeComplete(runs, length)', () => {
  it('counts distinct days with a run finished and full in both series (same run_id)', () => {
    const runs = [
      ...both('2026-12-01'),
      ...both('2026-12-01').map((r) => ({ ...r, run_id: '2026-12-01T120000Z' })), // a second run that day: same day
      run('2026-12-02T031500Z', 'v1'), // v1 alone
      run('2026-12-03T031500Z', 'v1'),
      run('2026-12-03T031500Z', 'v2', { partial: true }), // --limit
      run('2026-12-04T031500Z', 'v1', { status: 'failed' }),
      run('2026-12-04T031500Z', 'v2'),
      run('2026-12-05T031500Z', 'v1'),
      run('2026-12-05T999999Z', 'v2'), // both series that day, but not one run
      ...both('2026-12-06'),
    ];
    expect(bridgeDays(runs)).toEqual(['2026-12-01', '2026-12-06']);
    expect(bridgeComplete(runs, 2)).toBe(true);
    expect(bridgeComplete(runs, 3)).toBe(false);
    expect(bridgeComplete(runs)).toBe(false);
  });
  it('is complete after BRIDGE_DAYS (14) such days, and not a day earlier', () => {
    expect(BRIDGE_DAYS).toBe(14);
    expect(bridgeComplete(days(13).flatMap(both))).toBe(false);
    expect(bridgeComplete(days(14).flatMap(both))).toBe(true);
  });
});

describe('seriesToRecord(choice, earlierRuns, length)', () => {
  it('records what was asked; auto records both until the bridge is complete, then v2 alone', () => {
    expect(seriesToRecord('v1', [])).toEqual(['v1']);
    expect(seriesToRecord('v2', [])).toEqual(['v2']);
    expect(seriesToRecord('v1,v2', days(20).flatMap(both))).toEqual(['v1', 'v2']);
    expect(seriesToRecord('auto', [])).toEqual(['v1', 'v2']);
    expect(seriesToRecord('auto', days(13).flatMap(both))).toEqual(['v1', 'v2']);
    expect(seriesToRecord('auto', days(14).flatMap(both))).toEqual(['v2']);
    expect(seriesToRecord('auto', days(2).flatMap(both), 2)).toEqual(['v2']);
    // v1-only days before the bridge do not count towards it.
    expect(seriesToRecord('auto', days(20).map((d) => run(`${d}T031500Z`, 'v1')))).toEqual(['v1', 'v2']);
  });
});

describe('bridgeTable(v1Rows, v2Rows)', () => {
  const r1 = (run_id: string, target: string, outcome: string, error_class: string | null = null, tools_sha256: string | null = null) => ({ run_id, target, outcome, error_class, tools_sha256 });
  const r2 = (run_id: string, target: string, outcome: string, status: string | null, tools_sha256: string | null = null) => ({ run_id, target, outcome, status, tools_sha256 });
  it('pairs rows by (run, target), counts cells, agreement, and what only one series sees', () => {
    const t = bridgeTable(
      [r1('a', 'x', 'ok', null, 'h1'), r1('b', 'x', 'ok', null, 'h1'), r1('a', 'y', 'ok', null, 'h2'), r1('a', 'm', 'error', 'http_4xx'), r1('a', 'g', 'ok', null, 'h3'), r1('c', 'x', 'ok', null, 'h1')],
      [r2('a', 'x', 'ok', 'ok', 'h1'), r2('b', 'x', 'ok', 'ok', 'h1'), r2('a', 'y', 'ok', 'ok', 'h2-all-pages'), r2('a', 'm', 'ok', 'ok', 'h4'), r2('a', 'g', 'error', 'auth_compliant'), r2('a', 'n', 'not_attempted', null)],
    );
    expect(t.runs).toBe(2);
    expect(t.pairs).toBe(5);
    expect(t.unpaired).toEqual({ v1: 1, v2: 1 });
    expect(t.cells).toEqual([
      // Columns in v2's precedence: auth_compliant comes before ok.
      { v1: 'ok', v2: 'auth_compliant', count: 1 },
      { v1: 'ok', v2: 'ok', count: 3 },
      { v1: 'http_4xx', v2: 'ok', count: 1 },
    ]);
    expect([t.bothOk, t.hashesAgree]).toEqual([3, 2]);
    expect([t.targetsBothOk, t.targetsAgree, t.targetsAgreeShare]).toEqual([2, 1, 0.5]);
    expect([t.okOnlyV2, t.okOnlyV1]).toEqual([1, 1]);
    expect(t.newlyVisible).toEqual(['m']);
    expect(t.lostInV2).toEqual(['g']);
  });
  it('has no share when no target was ok in both', () => {
    expect(bridgeTable([], []).targetsAgreeShare).toBeNull();
  });
});
