import { describe, expect, it } from 'vitest';
import { Run } from '../../src/lib/contract/run.ts';
import { errorClassShares, PartialRunError } from '../../src/lib/error-class-shares.ts';
import { wilson } from '../../src/lib/wilson.ts';
import { row } from './helpers/rows.ts';

const day = '2026-04-01';
const rows = [
  row(day, { ok: 'A' }, { target: 't1', endpoint: 'https://a.example/mcp' }),
  row(day, { ok: 'B' }, { target: 't2', endpoint: 'https://A.example:8443/other' }),
  row(day, { error: 'timeout' }, { target: 't3', endpoint: 'https://a.example/x' }),
  row(day, { error: 'auth' }, { target: 't4', endpoint: 'https://b.example/mcp' }),
  row(day, 'no_endpoint', { target: 't5' }),
  row(day, 'no_endpoint', { target: 't6' }),
  row(day, 'retired', { target: 't7' }),
  row(day, 'excluded', { target: 't8' }),
  row(day, { notAttempted: 'host_unresponsive' }, { target: 't9', endpoint: 'https://a.example/y' }),
  row(day, { notAttempted: 'run_deadline' }, { target: 't10', endpoint: 'https://c.example/mcp' }),
];

function run(partial: boolean): Run {
  const zero = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, 0]));
  return Run.parse({
    run_id: `${day}-r1`, day, started_at: `${day}T06:00:00Z`, finished_at: `${day}T06:10:00Z`, registry: 'https://registry.example', roster_file: null,
    roster_complete: true, targets: 8, eligible: 5, attempts: 4, coverage: 0.8, degraded: true, partial, limit: partial ? 4 : null,
    outcomes: zero(['ok', 'error', 'no_endpoint', 'retired', 'excluded']), error_classes: zero(['timeout', 'tls', 'http_4xx', 'http_5xx', 'auth', 'rate_limited', 'no_endpoint', 'parse']),
    status: 'finished', message: null, prober_version: 'test', methodology_version: 'v1',
  });
}

describe('errorClassShares(rows)', () => {
  const shares = () => errorClassShares(rows, { run: run(false) });
  it('counts attempted rows (ok + error) with Wilson intervals', () => {
    const s = shares();
    expect(s.attempted.n).toBe(4);
    expect(s.attempted.classes.ok).toEqual({ count: 2, ...wilson(2, 4) });
    expect(s.attempted.classes.timeout.count).toBe(1);
    expect(s.attempted.classes.auth.count).toBe(1);
    expect(s.attempted.classes.no_endpoint).toEqual({ count: 0, ...wilson(0, 4) });
  });
  it('counts listed rows (ok + error + no_endpoint), where no_endpoint is a class', () => {
    const s = shares();
    expect(s.listed.n).toBe(6);
    expect([s.listed.classes.ok.count, s.listed.classes.timeout.count, s.listed.classes.auth.count]).toEqual([2, 1, 1]);
    expect(s.listed.classes.no_endpoint.count).toBe(2);
    expect(s.listed.classes.no_endpoint.p).toBe(2 / 6);
  });
  it('weights hosts equally (hostname, case and port ignored): mean of within-host shares', () => {
    const s = shares();
    expect(s.attempted.hosts).toBe(2);
    expect(s.attempted.largestHostCount).toBe(3);
    // a.example: ok 2/3, timeout 1/3; b.example: auth 1/1
    expect(s.attempted.hostWeighted.ok).toBeCloseTo((2 / 3 + 0) / 2, 15);
    expect(s.attempted.hostWeighted.timeout).toBeCloseTo((1 / 3 + 0) / 2, 15);
    expect(s.attempted.hostWeighted.auth).toBe(0.5);
  });
  it('keeps retired and excluded rows out of both denominators, and counts them', () => {
    const s = shares();
    expect([s.retired, s.excluded]).toEqual([1, 1]);
  });
  it('keeps not_attempted rows out of both denominators and the host view, and counts them', () => {
    const s = shares();
    expect(s.notAttempted).toBe(2);
    expect([s.attempted.n, s.listed.n, s.attempted.hosts, s.attempted.largestHostCount]).toEqual([4, 6, 2, 3]);
  });
  it('refuses a partial run, rows of several runs and rows of another run than the one given', () => {
    expect(() => errorClassShares(rows, { run: run(true) })).toThrow(PartialRunError);
    expect(() => errorClassShares(rows, { run: run(true) })).toThrow(
      expect.objectContaining({ name: 'PartialRunError', message: `run ${day}-r1 is partial: its rows never feed published shares` }),
    );
    expect(() => errorClassShares([...rows, row('2026-04-02', { ok: 'A' })])).toThrow(new RangeError('errorClassShares takes the rows of one run'));
    const other = rows.map((r) => ({ ...r, run_id: `${day}-r2` }));
    expect(() => errorClassShares(other, { run: run(false) })).toThrow(new RangeError('errorClassShares: rows and run disagree on run_id'));
  });
  it('takes the run_id from the run when the run wrote no rows', () => {
    expect(errorClassShares([], { run: run(false) })).toMatchObject({ run_id: `${day}-r1`, attempted: { n: 0 }, listed: { n: 0 } });
    expect(errorClassShares([]).run_id).toBe('');
  });
  it('groups an endpoint that is not a URL by its own text, one host per distinct text', () => {
    const odd = [
      row(day, { ok: 'A' }, { target: 'u1', endpoint: 'not a url' }),
      row(day, { error: 'parse' }, { target: 'u2', endpoint: 'also not a url' }),
      row(day, { ok: 'B' }, { target: 'u3', endpoint: 'not a url' }),
    ];
    expect(errorClassShares(odd).attempted).toMatchObject({ hosts: 2, largestHostCount: 2 });
  });
  it('gives n = 0, NaN shares and no hosts for a run without attempts', () => {
    const e = errorClassShares([row(day, 'no_endpoint')]);
    expect(e.attempted).toMatchObject({ n: 0, hosts: 0, largestHostCount: 0 });
    expect(e.attempted.hostWeighted.ok).toBeNaN();
  });
});
