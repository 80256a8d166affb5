// src/lib/bridge.ts: when `auto` stops recording v1 (bridge days read off runs.jsonl) and the bridge
// note's cross-table of v1 outcome/error class × v2 status.
import { describe, expect, it } from 'vitest';
import {
  BRIDGE_DAYS,
  bridgeComplete,
  bridgeDays,
  bridgeTable,
  headlineMethodology,
  METHODOLOGY_CHOICES,
  type MethodologyChoice,
  seriesToRecord,
  v1Label,
  v2Label,
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

describe('seriesToRecord on a choice it does not know, headlineMethodology, bridgeDays order', () => {
  it('refuses a methodology choice outside METHODOLOGY_CHOICES (a CLI argument is only typed at compile time)', () => {
    expect(() => seriesToRecord('v3' as MethodologyChoice, [])).toThrow(new Error('unknown methodology choice v3'));
    expect(METHODOLOGY_CHOICES).toEqual(['v1', 'v2', 'v1,v2', 'auto']);
  });
  it('names the method a headline figure rests on: v1, or v2 stitched onto v1 before the seam day', () => {
    expect(headlineMethodology({ series: 'v1', seamDay: null })).toBe('v1');
    expect(headlineMethodology({ series: 'v1', seamDay: '2026-12-01' })).toBe('v1');
    expect(headlineMethodology({ series: 'stitched', seamDay: '2026-12-01' })).toBe('v2, stitched onto v1 before 2026-12-01');
    expect(() => headlineMethodology({ series: 'stitched', seamDay: null })).toThrow(new Error('a stitched headline has a seam day'));
  });
  it('lists bridge days in day order whatever order runs.jsonl holds them in', () => {
    expect(bridgeDays(['2026-12-03', '2026-12-01', '2026-12-02'].flatMap(both))).toEqual(['2026-12-01', '2026-12-02', '2026-12-03']);
  });
});

describe('bridgeTable: labels, order, and what counts as agreement', () => {
  const r1 = (run_id: string, target: string, outcome: string, error_class: string | null = null, tools_sha256: string | null = null) => ({ run_id, target, outcome, error_class, tools_sha256 });
  const r2 = (run_id: string, target: string, outcome: string, status: string | null, tools_sha256: string | null = null) => ({ run_id, target, outcome, status, tools_sha256 });
  it('labels a v1 row by its outcome, an error by its class, an error without a class as "error"; a v2 row by its status, else its outcome', () => {
    expect(v1Label(r1('a', 'x', 'ok'))).toBe('ok');
    expect(v1Label(r1('a', 'x', 'error', 'tls'))).toBe('tls');
    expect(v1Label(r1('a', 'x', 'error', null))).toBe('error');
    expect(v1Label(r1('a', 'x', 'retired', null))).toBe('retired');
    expect(v2Label(r2('a', 'x', 'error', 'server_error'))).toBe('server_error');
    expect(v2Label(r2('a', 'x', 'not_attempted', null))).toBe('not_attempted');
  });
  it('orders rows as v1 reads them: ok, the error classes, no_endpoint, then rows never probed; unknown labels last, by code units', () => {
    const v1 = ['ok', 'timeout', 'tls', 'http_4xx', 'http_5xx', 'auth', 'rate_limited', 'parse', 'no_endpoint', 'not_attempted', 'excluded', 'retired', 'error', 'mystery'];
    const shuffled = [...v1].reverse();
    const rows1 = shuffled.map((l, i) => (['ok', 'not_attempted', 'excluded', 'retired', 'mystery'].includes(l) ? r1('a', `t${i}`, l) : l === 'error' ? r1('a', `t${i}`, 'error', null) : r1('a', `t${i}`, 'error', l)));
    const t = bridgeTable(rows1, shuffled.map((_, i) => r2('a', `t${i}`, 'ok', 'ok')));
    expect(t.v1Labels).toEqual(v1);
    expect(t.cells.map((c) => c.v1)).toEqual(v1);
  });
  it('orders columns in v2 precedence, then no_endpoint, not_attempted, retired; unknown labels last', () => {
    const v2 = ['excluded', 'unreachable', 'auth_compliant', 'auth_noncompliant', 'ok', 'handshake_only', 'modern_rejected', 'legacy_sse', 'jsonrpc_error', 'payment_required', 'server_error', 'not_mcp', 'no_endpoint', 'not_attempted', 'retired', 'mystery'];
    const shuffled = [...v2].reverse();
    const rows2 = shuffled.map((l, i) => (['no_endpoint', 'not_attempted', 'retired'].includes(l) ? r2('a', `t${i}`, l, null) : r2('a', `t${i}`, 'error', l)));
    const t = bridgeTable(shuffled.map((_, i) => r1('a', `t${i}`, 'ok')), rows2);
    expect(t.v2Labels).toEqual(v2);
    expect(t.cells.map((c) => c.v2)).toEqual(v2);
  });
  it('counts a target ok in v1 on one run and ok in v2 on another as neither newly visible nor lost, but not as ok in both', () => {
    const t = bridgeTable([r1('a', 'x', 'ok', null, 'h'), r1('b', 'x', 'error', 'timeout')], [r2('a', 'x', 'error', 'unreachable'), r2('b', 'x', 'ok', 'ok', 'h')]);
    expect([t.newlyVisible, t.lostInV2, t.targetsBothOk, t.okOnlyV1, t.okOnlyV2]).toEqual([[], [], 0, 1, 1]);
    // The near miss: v2 ok only → newly visible; v1 ok only → lost.
    const u = bridgeTable([r1('a', 'x', 'error', 'timeout'), r1('a', 'y', 'ok', null, 'h')], [r2('a', 'x', 'ok', 'ok', 'h'), r2('a', 'y', 'error', 'unreachable')]);
    expect([u.newlyVisible, u.lostInV2]).toEqual([['x'], ['y']]);
  });
  it('counts a pair failed in both series as ok in neither', () => {
    const t = bridgeTable([r1('a', 'x', 'error', 'timeout')], [r2('a', 'x', 'error', 'unreachable')]);
    expect([t.bothOk, t.okOnlyV1, t.okOnlyV2, t.newlyVisible, t.lostInV2]).toEqual([0, 0, 0, [], []]);
  });
  it('does not take two missing hashes for agreement', () => {
    const t = bridgeTable([r1('a', 'x', 'ok', null, null)], [r2('a', 'x', 'ok', 'ok', null)]);
    expect([t.bothOk, t.hashesAgree, t.targetsBothOk, t.targetsAgree, t.targetsAgreeShare]).toEqual([1, 0, 1, 0, 0]);
    const u = bridgeTable([r1('a', 'x', 'ok', null, 'h')], [r2('a', 'x', 'ok', 'ok', 'h')]);
    expect([u.hashesAgree, u.targetsAgree, u.targetsAgreeShare]).toEqual([1, 1, 1]);
  });
  it('counts a target as agreeing only when its hashes agreed on every run ok in both', () => {
    const t = bridgeTable(
      [r1('a', 'x', 'ok', null, 'h'), r1('b', 'x', 'ok', null, 'h'), r1('a', 'y', 'ok', null, 'h'), r1('a', 'z', 'ok', null, 'h')],
      [r2('a', 'x', 'ok', 'ok', 'h'), r2('b', 'x', 'ok', 'ok', 'other'), r2('a', 'y', 'ok', 'ok', 'h'), r2('a', 'z', 'ok', 'ok', 'h')],
    );
    expect([t.bothOk, t.hashesAgree, t.targetsBothOk, t.targetsAgree, t.targetsAgreeShare]).toEqual([4, 3, 3, 2, 2 / 3]);
  });
  it('lists newly visible and lost targets in code-unit order, not the order rows came in', () => {
    const names = ['z', 'B', 'a'];
    const t = bridgeTable(
      [...names.map((n) => r1('a', `v2-${n}`, 'error', 'timeout')), ...names.map((n) => r1('a', `v1-${n}`, 'ok', null, 'h'))],
      [...names.map((n) => r2('a', `v2-${n}`, 'ok', 'ok', 'h')), ...names.map((n) => r2('a', `v1-${n}`, 'error', 'unreachable'))],
    );
    expect(t.newlyVisible).toEqual(['v2-B', 'v2-a', 'v2-z']);
    expect(t.lostInV2).toEqual(['v1-B', 'v1-a', 'v1-z']);
  });
});
