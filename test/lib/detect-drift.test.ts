import { describe, expect, it } from 'vitest';
import { detectDrift, type DriftRow, REPEAT_MOVER_CHANGES } from '../../src/lib/detect-drift.ts';
import { hashOf, row } from './helpers/rows.ts';

const A = hashOf('A');
const B = hashOf('B');

describe('detectDrift(rows)', () => {
  it('moves the head only on ok rows: failures between two equal hashes are no change', () => {
    const d = detectDrift([row('2026-01-01', { ok: 'A' }), row('2026-01-02', { error: 'timeout' }), row('2026-01-03', 'no_endpoint'), row('2026-01-04', { ok: 'A' })]);
    expect(d.changes).toEqual([]);
    expect(d.versions).toEqual([
      { tools_sha256: A, body_sha256: expect.any(String), first_seen: '2026-01-01T06:00:00Z', last_seen: '2026-01-04T06:00:00Z', first_day: '2026-01-01', last_day: '2026-01-04', observations: 2 },
    ]);
    expect(d.head).toMatchObject({ tools_sha256: A, day: '2026-01-04', run_id: '2026-01-04-r1' });
  });
  it('compares with the last successful hash, across failures', () => {
    const d = detectDrift([row('2026-01-01', { ok: 'A' }), row('2026-01-02', { error: 'http_5xx' }), row('2026-01-03', { ok: 'B' })]);
    expect(d.changes).toEqual([
      {
        target: 'io.example/server',
        index: 0,
        day: '2026-01-03',
        observed_at: '2026-01-03T06:00:00Z',
        run_id: '2026-01-03-r1',
        before: expect.objectContaining({ tools_sha256: A, day: '2026-01-01' }),
        after: expect.objectContaining({ tools_sha256: B, day: '2026-01-03' }),
        revert: false,
      },
    ]);
  });
  it('marks a revert and opens a new version for it; two changes make a repeat mover', () => {
    const d = detectDrift([row('2026-01-01', { ok: 'A' }), row('2026-01-02', { ok: 'B' }), row('2026-01-03', { ok: 'A' })]);
    expect(d.changes.map((c) => c.revert)).toEqual([false, true]);
    expect(d.versions.map((v) => [v.tools_sha256, v.first_day, v.last_day])).toEqual([[A, '2026-01-01', '2026-01-01'], [B, '2026-01-02', '2026-01-02'], [A, '2026-01-03', '2026-01-03']]);
    expect(REPEAT_MOVER_CHANGES).toBe(2);
    expect(d.repeatMover).toBe(true);
  });
  it('sorts defensively by observed_at as an instant, then run_id', () => {
    const rows = [
      row('2026-01-02', { ok: 'B' }, { at: '2026-01-02T00:30:00+01:00' }), // = 2026-01-01T23:30Z, before the next
      row('2026-01-02', { ok: 'A' }, { at: '2026-01-02T00:10:00.123456Z' }),
      row('2026-01-01', { ok: 'A' }, { at: '2026-01-01T06:00:00Z', run: 'b' }),
      row('2026-01-01', { ok: 'B' }, { at: '2026-01-01T06:00:00Z', run: 'a' }),
    ];
    expect(detectDrift(rows).versions.map((v) => v.tools_sha256)).toEqual([B, A, B, A]);
    expect(detectDrift([...rows].reverse()).versions.map((v) => v.tools_sha256)).toEqual([B, A, B, A]);
  });
  it('keeps the first body of a version when only the raw body changes', () => {
    const d = detectDrift([row('2026-01-01', { ok: 'A' }, { body: 'x' }), row('2026-01-02', { ok: 'A' }, { body: 'y' })]);
    expect(d.changes).toEqual([]);
    expect(d.versions[0]!.body_sha256).toBe(hashOf('x'));
    expect(d.head!.body_sha256).toBe(hashOf('y'));
  });
  it('has a null head for a target that never answered', () => {
    expect(detectDrift([row('2026-01-01', { error: 'auth' })])).toEqual({ target: 'io.example/server', head: null, versions: [], changes: [], repeatMover: false });
  });
  it.each([
    ['no rows', []],
    ['two targets', [row('2026-01-01', { ok: 'A' }), row('2026-01-01', { ok: 'A' }, { target: 'other' })]],
  ])('throws a RangeError for %s', (_what, rows) => {
    expect(() => detectDrift(rows)).toThrow(RangeError);
  });
  it('says why it refuses: no rows, several targets, an observed_at that is not a time', () => {
    expect(() => detectDrift([])).toThrow(new RangeError('detectDrift needs at least one row'));
    expect(() => detectDrift([row('2026-01-01', { ok: 'A' }), row('2026-01-01', { ok: 'A' }, { target: 'other' })])).toThrow(
      new RangeError("detectDrift takes one target's rows, got more than one target"),
    );
    // A lean row (DriftRow, as the site's loader keeps them) is not checked by the zod contract.
    const { target, outcome, day, run_id, tools_sha256, body_sha256 } = row('2026-01-01', { ok: 'A' });
    expect(() => detectDrift([{ target, outcome, day, run_id, tools_sha256, body_sha256, observed_at: 'yesterday' }])).toThrow(new RangeError('detectDrift: unparseable observed_at'));
  });
  it('moves the head only on a row whose outcome is ok and that carries both hashes (lean rows are not checked by the contract)', () => {
    const lean = (day: string, outcome: string, tools: string | null, body: string | null): DriftRow => ({ target: 'io.example/server', outcome: outcome as DriftRow['outcome'], observed_at: `${day}T06:00:00Z`, day, run_id: `${day}-r1`, tools_sha256: tools, body_sha256: body });
    for (const bad of [lean('2026-01-02', 'error', B, B), lean('2026-01-02', 'ok', null, B), lean('2026-01-02', 'ok', B, null)]) {
      const d = detectDrift([lean('2026-01-01', 'ok', A, A), bad, lean('2026-01-03', 'ok', A, A)]);
      expect([d.changes.length, d.versions.length, d.versions[0]!.observations, d.head!.day]).toEqual([0, 1, 2, '2026-01-03']);
    }
    // The near miss: an ok row with both hashes moves it (A → B → A: two changes).
    expect(detectDrift([lean('2026-01-01', 'ok', A, A), lean('2026-01-02', 'ok', B, B), lean('2026-01-03', 'ok', A, A)]).changes).toHaveLength(2);
  });
  it('is a repeat mover at two changes, not at one', () => {
    expect(detectDrift([row('2026-01-01', { ok: 'A' }), row('2026-01-02', { ok: 'B' })]).repeatMover).toBe(false);
    expect(detectDrift([row('2026-01-01', { ok: 'A' })]).repeatMover).toBe(false);
  });
});
