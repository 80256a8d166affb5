import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contractIntervals } from '../../src/lib/contract-intervals.ts';
import { detectDrift } from '../../src/lib/detect-drift.ts';
import { firstChangeIntervals } from '../../src/lib/first-change-intervals.ts';
import { halfLife } from '../../src/lib/survival/half-life.ts';
import { kaplanMeier } from '../../src/lib/survival/kaplan-meier.ts';
import { hashOf, row } from './helpers/rows.ts';

const A = hashOf('A');

describe('firstChangeIntervals(rows)', () => {
  it('runs from the first ok observation to the first change, and follows the server to its last ok one', () => {
    const rows = [
      row('2026-01-01', { error: 'timeout' }),
      row('2026-01-02', { ok: 'A' }),
      row('2026-01-05', { error: 'http_5xx' }),
      row('2026-01-06', { ok: 'B' }),
      row('2026-01-07', { ok: 'C' }),
      row('2026-01-20', { ok: 'C' }),
    ];
    expect(firstChangeIntervals(rows)).toEqual([
      { target: 'io.example/server', tools_sha256: A, start_day: '2026-01-02', end_day: '2026-01-06', duration: 4, event: true, retired: false, observed_days: 18 },
    ]);
  });
  it('censors a server that never changed at its last ok observation, retired or not', () => {
    expect(firstChangeIntervals([row('2026-03-01', { ok: 'A' }), row('2026-03-04', { ok: 'A' }), row('2026-03-09', { error: 'auth' })])).toMatchObject([{ duration: 3, event: false, retired: false, observed_days: 3 }]);
    expect(firstChangeIntervals([row('2026-03-01', { ok: 'A' }), row('2026-03-04', { ok: 'A' }), row('2026-03-05', 'retired')])).toMatchObject([{ duration: 3, event: false, retired: true, observed_days: 3 }]);
  });
  it('ends at the first change even when the server later returns to its first contract (a first change is never a revert)', () => {
    const rows = [row('2026-03-01', { ok: 'A' }), row('2026-03-02', { ok: 'B' }), row('2026-03-03', { ok: 'A' }), row('2026-03-04', 'retired')];
    expect(detectDrift(rows).changes.map((c) => c.revert)).toEqual([false, true]);
    expect(firstChangeIntervals(rows)).toMatchObject([{ tools_sha256: A, duration: 1, event: true, retired: false, observed_days: 2 }]);
  });
  it('excludes a server that never answered ([]), and gives a 0-day censored interval for a single observation', () => {
    expect(firstChangeIntervals([row('2026-03-01', 'no_endpoint'), row('2026-03-02', { error: 'tls' })])).toEqual([]);
    expect(firstChangeIntervals([])).toEqual([]);
    expect(firstChangeIntervals([row('2026-03-01', { ok: 'A' })])).toMatchObject([{ duration: 0, event: false, observed_days: 0 }]);
  });
  it('is the first contract lifetime, with the first change of detectDrift as its end (property)', () => {
    const day = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
    const kinds = fc.array(fc.oneof(fc.constantFrom('A', 'B', 'C').map((ok) => ({ ok })), fc.constant({ error: 'timeout' as const })), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(kinds, (ks) => {
        const rows = ks.map((k, i) => row(day(i * 2), k));
        const drift = detectDrift(rows);
        const got = firstChangeIntervals(rows);
        if (drift.head === null) return got.length === 0;
        const first = drift.versions[0]!;
        const change = drift.changes[0];
        expect(got).toEqual([{ ...contractIntervals(rows)[0], observed_days: (Date.parse(drift.head.day) - Date.parse(first.first_day)) / 86_400_000 }]);
        expect(got[0]!.event).toBe(change !== undefined);
        expect(got[0]!.end_day).toBe(change?.day ?? drift.head.day);
        return true;
      }),
    );
  });
  it('feeds kaplanMeier and halfLife unchanged: one server that changes daily counts once', () => {
    const volatile = ['A', 'B', 'C', 'D', 'E'].map((l, i) => row(`2026-04-0${i + 1}`, { ok: l }, { target: 'volatile' }));
    const calm = ['x', 'y'].map((t) => [row('2026-04-01', { ok: 'A' }, { target: t }), row('2026-04-05', { ok: 'A' }, { target: t })]);
    const servers = [volatile, ...calm].flatMap(firstChangeIntervals);
    const contracts = [volatile, ...calm].flatMap(contractIntervals);
    // Contracts: four of six ended after 1 day, so the contract half-life is 1 day; servers: one of three changed.
    expect(halfLife(kaplanMeier(contracts.map((i) => i.duration), contracts.map((i) => i.event)))?.median).toBe(1);
    expect(halfLife(kaplanMeier(servers.map((i) => i.duration), servers.map((i) => i.event)))).toBeNull();
  });
});
