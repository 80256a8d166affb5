import { describe, expect, it } from 'vitest';
import type { ObservationV2 } from '../../src/lib/contract/observation-v2.ts';
import {
  eraAdoption,
  PartialRunV2Error,
  statusAgreement,
  studyShare,
  v2Statistics,
} from '../../src/lib/v2-statistics.ts';
import { wilson } from '../../src/lib/wilson.ts';
import { rowV2 } from './helpers/rows-v2.ts';

const day = '2026-12-01';
const at = (host: string) => `https://${host}/mcp`;
const rows = [
  rowV2(day, { ok: 'modern', supported: ['2026-07-28', '2025-11-25'] }, { target: 't1', endpoint: at('a.example') }),
  rowV2(day, { ok: 'legacy', canary: false }, { target: 't2', endpoint: 'https://A.example:8443/two' }),
  rowV2(day, { status: 'unreachable' }, { target: 't3', endpoint: at('a.example') }),
  rowV2(day, { auth: 'compliant' }, { target: 't4', endpoint: at('b.example') }),
  rowV2(day, { auth: 'noncompliant', bearer: true, valid: false }, { target: 't5', endpoint: at('b.example') }),
  rowV2(day, { ok: 'modern' }, { target: 't6', endpoint: at('c.example') }),
  rowV2(day, { status: 'handshake_only', era: 'legacy' }, { target: 't7', endpoint: at('c.example') }),
  rowV2(day, 'no_endpoint', { target: 't8' }),
  rowV2(day, 'excluded', { target: 't9' }),
  rowV2(day, 'not_attempted', { target: 't10', endpoint: at('d.example') }),
  rowV2(day, 'retired', { target: 't11' }),
];

describe('v2Statistics(rows)', () => {
  // Computed inside each test (not in the describe body), so a mutant of v2Statistics is covered per test.
  const stats = () => v2Statistics(rows, { run: { run_id: `${day}-r1`, partial: false } });

  it('RQ1: every status over the probed endpoints only; unprobed rows are counted beside', () => {
    const s = stats();
    expect(s.statuses.ok).toMatchObject({ count: 3, n: 7 });
    expect(s.statuses.unreachable).toMatchObject({ count: 1, n: 7 });
    expect(s.statuses.auth_compliant.count + s.statuses.auth_noncompliant.count + s.statuses.handshake_only.count).toBe(3);
    expect(Object.values(s.statuses).reduce((a, x) => a + x.count, 0)).toBe(7);
    expect(s.notProbed).toEqual({ no_endpoint: 1, retired: 1, excluded: 1, not_attempted: 1 });
    expect(s.reachable).toMatchObject({ count: 6, n: 7, ...wilson(6, 7) });
  });

  it('host-weighted view: each hostname once (case and port ignored), with hosts and the largest host', () => {
    const s = stats();
    // a.example: 2 of 3 reachable; b.example 2 of 2; c.example 2 of 2.
    expect(s.reachable.hostWeighted).toBeCloseTo((2 / 3 + 1 + 1) / 3, 12);
    expect(s.reachable.hosts).toBe(3);
    expect(s.reachable.largestHostCount).toBe(3);
    // Handshakes: a.example 2/3, b.example 0/2, c.example 2/2.
    expect(s.handshake).toMatchObject({ count: 4, n: 7 });
    expect(s.handshake.hostWeighted).toBeCloseTo((2 / 3 + 0 + 1) / 3, 12);
  });

  it('RQ2: eras over handshakes; dual-era is modern with a legacy revision advertised', () => {
    const s = stats();
    expect(s.era.modern).toMatchObject({ count: 2, n: 4, hosts: 2, largestHostCount: 2 });
    expect(s.era.legacy).toMatchObject({ count: 2, n: 4 });
    expect(s.era.dualEraAdvertised).toMatchObject({ count: 1, n: 4 });
    expect(s.era.modern.hostWeighted).toBeCloseTo(0.5, 12);
    // Near miss: three legacy handshakes and one modern are not two and two.
    const lopsided = v2Statistics([...rows.filter((r) => r.target !== 't6'), rowV2(day, { ok: 'legacy' }, { target: 't6', endpoint: at('c.example') })]).era;
    expect([lopsided.modern.count, lopsided.legacy.count, lopsided.dualEraAdvertised.count, lopsided.modern.n]).toEqual([1, 3, 1, 4]);
    expect(s.protocolVersions).toEqual([
      { version: '2026-07-28', count: 2 },
      { version: '2025-11-25', count: 1 },
    ]);
  });

  it('RQ3 over auth-gated endpoints, RQ5 over endpoints sent the canary', () => {
    const s = stats();
    expect(s.auth.followable).toMatchObject({ count: 1, n: 2 });
    expect(s.auth.bearer).toMatchObject({ count: 2, n: 2 });
    expect(s.auth.metadataValid).toMatchObject({ count: 1, n: 2 });
    expect(s.canaryInChannel).toMatchObject({ count: 2, n: 3 });
  });

  it('refuses partial runs, mixed runs and a run that is not the rows’', () => {
    expect(() => v2Statistics(rows, { run: { run_id: `${day}-r1`, partial: true } })).toThrow(PartialRunV2Error);
    expect(() => v2Statistics([...rows, rowV2(day, 'retired', { target: 'x', run_id: 'other' })])).toThrow(RangeError);
    expect(() => v2Statistics(rows, { run: { run_id: 'other', partial: false } })).toThrow(RangeError);
    // What a reader of the build's log is told.
    expect(() => v2Statistics(rows, { run: { run_id: `${day}-r1`, partial: true } })).toThrow(`run ${day}-r1 is partial: its rows never feed published shares`);
    expect(() => v2Statistics([...rows, rowV2(day, 'retired', { target: 'x', run_id: 'other' })])).toThrow('v2Statistics takes the rows of one run');
    expect(() => v2Statistics(rows, { run: { run_id: 'other', partial: false } })).toThrow('v2Statistics: rows and run disagree on run_id');
    const e = (() => { try { v2Statistics([], { run: { run_id: 'p', partial: true } }); } catch (x) { return x as Error; } return null; })();
    expect(e?.name).toBe('PartialRunV2Error');
  });

  it('the run id: the rows’, else the run named (a run with no rows), else empty', () => {
    expect(v2Statistics([], { run: { run_id: 'r-empty', partial: false } }).run_id).toBe('r-empty');
    expect(v2Statistics([]).run_id).toBe('');
    expect(v2Statistics(rows).run_id).toBe(`${day}-r1`);
    // A partial run with no rows is still refused; a full one is not.
    expect(() => v2Statistics([], { run: { run_id: 'r-empty', partial: true } })).toThrow(PartialRunV2Error);
    expect(() => v2Statistics(rows, { run: { run_id: `${day}-r1`, partial: false } })).not.toThrow();
  });

  it('negotiated versions: most frequent first, a tie in version order, whatever the row order', () => {
    const v = (target: string, version: string) => rowV2(day, { ok: 'legacy', version }, { target });
    const one = [v('a', '2025-06-18'), v('b', '2024-11-05'), v('c', '2025-03-26')];
    const want = [
      { version: '2024-11-05', count: 1 },
      { version: '2025-03-26', count: 1 },
      { version: '2025-06-18', count: 1 },
    ];
    expect(v2Statistics(one).protocolVersions).toEqual(want);
    expect(v2Statistics([...one].reverse()).protocolVersions).toEqual(want);
    expect(v2Statistics([...one, v('d', '2025-06-18')]).protocolVersions[0]).toEqual({ version: '2025-06-18', count: 2 });
  });

  it('RQ3 counts true only: a gated row with bearer or metadata unknown is not counted as having it', () => {
    const gated = [
      rowV2(day, { auth: 'noncompliant', bearer: false, valid: false }, { target: 'g1' }),
      rowV2(day, { auth: 'noncompliant', bearer: true, valid: false }, { target: 'g2' }),
      rowV2(day, { auth: 'noncompliant', bearer: false, valid: true }, { target: 'g3' }),
    ];
    const a = v2Statistics(gated).auth;
    expect([a.followable.count, a.bearer.count, a.metadataValid.count, a.followable.n]).toEqual([0, 1, 1, 3]);
  });

  it('an empty denominator gives NaN shares, 0 hosts, never a division by zero presented as 0', () => {
    const none = v2Statistics([rowV2(day, 'no_endpoint', { target: 'z' })]);
    expect(none.auth.followable).toMatchObject({ count: 0, n: 0, hosts: 0, largestHostCount: 0 });
    expect(none.auth.followable.p).toBeNaN();
    expect(none.auth.followable.hostWeighted).toBeNaN();
  });
});

describe('studyShare', () => {
  it('an unparseable endpoint is a host of its own', () => {
    const r = [{ endpoint: 'not a url' }, { endpoint: 'https://x.example/' }];
    expect(studyShare(r, (x) => x.endpoint === 'not a url')).toMatchObject({ count: 1, n: 2, hosts: 2, hostWeighted: 0.5 });
  });
});

describe('statusAgreement (RQ6)', () => {
  // The textbook 2×2 table [[20, 5], [10, 15]]: pₒ = 0.7, pₑ = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4
  // (irr::kappa2 in R gives 0.4 for these ratings).
  const earlier: ObservationV2[] = [];
  const later: ObservationV2[] = [];
  let i = 0;
  const add = (a: 'ok' | 'server_error', b: 'ok' | 'server_error', k: number) => {
    for (let j = 0; j < k; j++, i++) {
      const target = `s${i}`;
      earlier.push(a === 'ok' ? rowV2(day, { ok: 'legacy' }, { target }) : rowV2(day, { status: 'server_error' }, { target }));
      later.push(b === 'ok' ? rowV2('2026-12-02', { ok: 'legacy' }, { target }) : rowV2('2026-12-02', { status: 'server_error' }, { target }));
    }
  };
  add('ok', 'ok', 20);
  add('ok', 'server_error', 5);
  add('server_error', 'ok', 10);
  add('server_error', 'server_error', 15);

  it('percentage agreement and Cohen’s κ by hand', () => {
    const a = statusAgreement(earlier, later);
    expect(a.n).toBe(50);
    expect(a.agreement).toMatchObject({ count: 35, ...wilson(35, 50) });
    expect(a.expected).toBeCloseTo(0.5, 12);
    expect(a.kappa).toBeCloseTo(0.4, 12);
  });

  it('only targets probed in both runs are compared', () => {
    const a = statusAgreement(
      [...earlier, rowV2(day, { ok: 'legacy' }, { target: 'only-earlier' }), rowV2(day, 'not_attempted', { target: 's0' })].filter((r) => !(r.target === 's0' && r.outcome === 'ok')),
      [...later, rowV2('2026-12-02', { ok: 'legacy' }, { target: 'only-later' })],
    );
    // s0 was not probed in the earlier run (not_attempted): it drops out, the rest is unchanged but one ok/ok pair.
    expect(a.n).toBe(49);
    expect(a.agreement.count).toBe(34);
  });

  it('no target probed in both runs: n 0, agreement, expected and κ NaN', () => {
    const r = statusAgreement([rowV2(day, { ok: 'modern' }, { target: 'a' })], [rowV2(day, { ok: 'modern' }, { target: 'b' })]);
    expect(r.n).toBe(0);
    expect(r.agreement.count).toBe(0);
    expect(r.agreement.p).toBeNaN();
    expect(r.expected).toBeNaN();
    expect(r.kappa).toBeNaN();
  });

  it('κ below chance is negative: two runs that always disagree', () => {
    // Two endpoints swapping ok and server_error: pₒ = 0, pₑ = 0.5·0.5 + 0.5·0.5 = 0.5, κ = −1.
    const e = [rowV2(day, { ok: 'legacy' }, { target: 'a' }), rowV2(day, { status: 'server_error' }, { target: 'b' })];
    const l = [rowV2(day, { status: 'server_error' }, { target: 'a' }), rowV2(day, { ok: 'legacy' }, { target: 'b' })];
    const r = statusAgreement(e, l);
    expect(r).toMatchObject({ n: 2, expected: 0.5, kappa: -1 });
    expect(r.agreement.count).toBe(0);
  });

  it('a probed row without a status is an error, not a status of its own', () => {
    const bad = { ...rowV2(day, { ok: 'modern' }, { target: 'a' }), status: null };
    expect(() => statusAgreement([bad], [])).toThrow(/without a status/);
    expect(() => statusAgreement([], [bad])).toThrow(/without a status/);
    // Near miss: an unprobed row has no status and is simply left out.
    expect(statusAgreement([rowV2(day, 'not_attempted', { target: 'a' })], [rowV2(day, { ok: 'modern' }, { target: 'a' })]).n).toBe(0);
  });

  it('κ is undefined (NaN) when every endpoint has one status in both runs; a duplicated target is an error', () => {
    const same = [rowV2(day, { ok: 'modern' }, { target: 'a' }), rowV2(day, { ok: 'modern' }, { target: 'b' })];
    const r = statusAgreement(same, same);
    expect(r.agreement.count).toBe(2);
    expect(r.kappa).toBeNaN();
    expect(() => statusAgreement([...same, same[0]!], same)).toThrow(/twice/);
  });
});

describe('eraAdoption', () => {
  it('counts probed endpoints by era per run, in day order, with the modern share', () => {
    const d2 = '2026-12-02';
    const later = [
      rowV2(d2, { ok: 'modern', supported: ['2026-07-28', '2025-06-18'] }, { target: 'a' }),
      rowV2(d2, { ok: 'modern' }, { target: 'b' }),
      rowV2(d2, { status: 'legacy_sse' }, { target: 'c' }),
      rowV2(d2, { status: 'unreachable' }, { target: 'd' }),
    ];
    const pts = eraAdoption([
      { run_id: `${d2}-r1`, day: d2, rows: later },
      { run_id: `${day}-r1`, day, rows },
    ]);
    expect(pts.map((p) => p.day)).toEqual([day, d2]);
    // Day 1: t1, t6 modern; t2, t7 legacy; t3 unreachable (era none) and auth rows (none) left out.
    expect(pts[0]).toMatchObject({ n: 4, counts: { modern: 2, legacy: 2, legacy_sse: 0, dualEraAdvertised: 1 } });
    expect(pts[1]).toMatchObject({ n: 3, counts: { modern: 2, legacy: 0, legacy_sse: 1, dualEraAdvertised: 1 }, modern: wilson(2, 3) });
    expect(() => eraAdoption([{ run_id: 'x', day, rows }])).toThrow(RangeError);
    expect(() => eraAdoption([{ run_id: 'x', day, rows }])).toThrow('eraAdoption: a row of another run');
  });
  it('runs come back in day order whatever order they are given in; the counts hold the three eras and dual-era only', () => {
    const run = (d: string, eras: ('modern' | 'legacy')[]) => ({ run_id: `${d}-r1`, day: d, rows: eras.map((e, i) => rowV2(d, { ok: e }, { target: `t${i}` })) });
    const a = run('2026-12-01', ['modern']);
    const b = run('2026-12-02', ['legacy']);
    const c = run('2026-12-03', ['modern', 'legacy']);
    for (const given of [[a, b, c], [c, b, a], [b, a, c], [a, c, b]]) expect(eraAdoption(given).map((p) => p.day)).toEqual(['2026-12-01', '2026-12-02', '2026-12-03']);
    const [p] = eraAdoption([{ run_id: `${day}-r1`, day, rows }]);
    expect(p!.counts).toEqual({ modern: 2, legacy: 2, legacy_sse: 0, dualEraAdvertised: 1 });
    expect(p!.modern).toEqual(wilson(2, 4));
  });
});
