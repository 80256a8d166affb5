import { describe, expect, it } from 'vitest';
import { contractIntervals } from '../../src/lib/contract-intervals.ts';
import { hashOf, row } from './helpers/rows.ts';

const A = hashOf('A');
const B = hashOf('B');

describe('contractIntervals(rows)', () => {
  it('ends a contract at the first ok observation of a different hash (event) and censors the last at the last ok one', () => {
    const rows = [
      row('2026-01-01', { ok: 'A' }),
      row('2026-01-05', { ok: 'A' }),
      row('2026-01-08', { error: 'timeout' }),
      row('2026-01-10', { ok: 'B' }),
      row('2026-01-31', { ok: 'B' }),
      row('2026-02-03', { error: 'timeout' }),
    ];
    expect(contractIntervals(rows)).toEqual([
      { target: 'io.example/server', tools_sha256: A, start_day: '2026-01-01', end_day: '2026-01-10', duration: 9, event: true, retired: false },
      { target: 'io.example/server', tools_sha256: B, start_day: '2026-01-10', end_day: '2026-01-31', duration: 21, event: false, retired: false },
    ]);
  });
  it('counts whole UTC days from the day fields, not instants (a late run is still one day later)', () => {
    const rows = [row('2026-01-01', { ok: 'A' }, { at: '2026-01-01T23:59:00Z' }), row('2026-01-02', { ok: 'B' }, { at: '2026-01-02T00:01:00Z' })];
    expect(contractIntervals(rows)[0]!.duration).toBe(1);
  });
  it('censors a retired target at its last ok observation and says so', () => {
    const rows = [row('2026-03-01', { ok: 'A' }), row('2026-03-04', { ok: 'A' }), row('2026-03-05', 'retired')];
    expect(contractIntervals(rows)).toEqual([{ target: 'io.example/server', tools_sha256: A, start_day: '2026-03-01', end_day: '2026-03-04', duration: 3, event: false, retired: true }]);
  });
  it('marks only the last interval retired: the earlier ones ended in a change', () => {
    const rows = [row('2026-03-01', { ok: 'A' }), row('2026-03-02', { ok: 'B' }), row('2026-03-05', 'retired')];
    expect(contractIntervals(rows).map((i) => [i.event, i.retired])).toEqual([[true, false], [false, true]]);
  });
  it('counts a retired row at the very instant of the last ok observation as retirement, one a second earlier not', () => {
    const at = (t: string) => ({ at: `2026-03-04T${t}Z` });
    const same = [row('2026-03-01', { ok: 'A' }), row('2026-03-04', { ok: 'A' }, at('06:00:00')), row('2026-03-04', 'retired', at('06:00:00'))];
    expect(contractIntervals(same).map((i) => i.retired)).toEqual([true]);
    const before = [row('2026-03-01', { ok: 'A' }), row('2026-03-04', { ok: 'A' }, at('06:00:00')), row('2026-03-04', 'retired', at('05:59:59'))];
    expect(contractIntervals(before).map((i) => i.retired)).toEqual([false]);
  });
  it('does not mark a target retired that came back after its retired row', () => {
    const rows = [row('2026-03-01', { ok: 'A' }), row('2026-03-02', 'retired'), row('2026-03-09', { ok: 'A' })];
    expect(contractIntervals(rows)).toEqual([{ target: 'io.example/server', tools_sha256: A, start_day: '2026-03-01', end_day: '2026-03-09', duration: 8, event: false, retired: false }]);
  });
  it('is [] for a target retired without ever answering ok', () => {
    expect(contractIntervals([row('2026-03-01', { error: 'auth' }), row('2026-03-02', 'retired')])).toEqual([]);
  });
  it('gives a zero-day censored interval for a single observation, and [] for a target never seen ok', () => {
    expect(contractIntervals([row('2026-03-01', { ok: 'A' })])).toMatchObject([{ duration: 0, event: false }]);
    expect(contractIntervals([row('2026-03-01', 'no_endpoint')])).toEqual([]);
    expect(contractIntervals([])).toEqual([]);
  });
  it('crosses month and leap-day boundaries in whole days', () => {
    const rows = [row('2028-02-28', { ok: 'A' }), row('2028-03-01', { ok: 'B' })];
    expect(contractIntervals(rows)[0]!.duration).toBe(2);
  });
});

describe('contractIntervals and detectDrift on lean rows (DriftRow: ok and retired rows, drift fields only)', () => {
  it('give what they give on the full rows, failures included', async () => {
    const { detectDrift } = await import('../../src/lib/detect-drift.ts');
    const rows = [
      row('2026-01-01', { ok: 'A' }),
      row('2026-01-02', { error: 'timeout' }),
      row('2026-01-03', { ok: 'B' }),
      row('2026-01-04', 'no_endpoint'),
      row('2026-01-05', { ok: 'A' }),
      row('2026-01-06', 'retired'),
    ];
    const lean = rows
      .filter((r) => r.outcome === 'ok' || r.outcome === 'retired')
      .map(({ target, outcome, observed_at, day, run_id, tools_sha256, body_sha256 }) => ({ target, outcome, observed_at, day, run_id, tools_sha256, body_sha256 }));
    expect(contractIntervals(lean)).toEqual(contractIntervals(rows));
    expect(detectDrift(lean)).toEqual(detectDrift(rows));
  });
});
