// The validation gate's pure parts (src/lib/validation.ts): the PRNG, the allocation, the stratified
// draw, Cohen's κ against values computed by hand, shell quoting run through a real shell, the
// reviewer column's errors, scoring and which gate stands for a run's figures.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { V2_STATUSES, type V2Status } from '../../src/lib/v2-status.ts';
import {
  allocate,
  DRAW_RULE,
  REVIEW_STATUSES,
  VALIDATION_N,
  VALIDATION_SEED,
  VALIDATION_THRESHOLD,
  ValidationRecord,
  Worksheet,
  cohensKappa,
  drawStratified,
  gateFor,
  mulberry32,
  scoreWorksheet,
  shellQuote,
  VALIDATION_RECORD_FORMAT,
  WORKSHEET_FORMAT,
  WorksheetError,
} from '../../src/lib/validation.ts';
import { wilson } from '../../src/lib/wilson.ts';

const rowsOf = (spec: Partial<Record<V2Status, number>>) =>
  Object.entries(spec).flatMap(([status, k]) => Array.from({ length: k! }, (_, i) => ({ target: `${status}-${String(i).padStart(3, '0')}`, status: status as V2Status })));

describe('mulberry32', () => {
  it('is the published generator: the same stream for a seed, in [0, 1)', () => {
    const a = mulberry32(20261012);
    const b = mulberry32(20261012);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    // The reference implementation's first output for seed 0 (t = 0x6d2b79f5 through the mix).
    expect(mulberry32(0)()).toBeCloseTo(0.26642920868471265, 15);
    expect(mulberry32(1)()).not.toBe(mulberry32(2)());
  });
  it('refuses a seed that is not an unsigned 32-bit integer', () => {
    for (const s of [-1, 1.5, 2 ** 32, NaN]) expect(() => mulberry32(s)).toThrow(RangeError);
  });
});

describe('allocate (one per status present, the rest by largest remainder)', () => {
  it('one each, then the remainder in proportion to size − 1', () => {
    // N = 100: ok 60, unreachable 30, not_mcp 10; n = 30: 3 strata get 1, 27 shared over 97 spare.
    // quotas 27·59/97 = 16.42, 27·29/97 = 8.07, 27·9/97 = 2.50 → 16, 8, 2 (26), one more to not_mcp (.50): 1 + 16, 1 + 8, 1 + 3.
    const a = allocate(new Map<V2Status, number>([['ok', 60], ['unreachable', 30], ['not_mcp', 10]]), 30);
    expect([...a]).toEqual([['unreachable', 9], ['ok', 17], ['not_mcp', 4]]);
  });
  it('every status present gets one, even a stratum of one among many', () => {
    const a = allocate(new Map<V2Status, number>([['ok', 500], ['legacy_sse', 1], ['payment_required', 1]]), 30);
    expect(a.get('legacy_sse')).toBe(1);
    expect(a.get('payment_required')).toBe(1);
    expect(a.get('ok')).toBe(28);
  });
  it('n larger than the population takes everyone', () => {
    const a = allocate(new Map<V2Status, number>([['ok', 3], ['not_mcp', 2]]), 30);
    expect([...a]).toEqual([['ok', 3], ['not_mcp', 2]]);
  });
  it('fewer draws than statuses: the largest strata, ties to the earlier status', () => {
    const a = allocate(new Map<V2Status, number>([['not_mcp', 5], ['ok', 5], ['unreachable', 2]]), 2);
    expect([...a]).toEqual([['unreachable', 0], ['ok', 1], ['not_mcp', 1]]);
  });
  it('never allocates more than a stratum holds and always m in all', () => {
    for (let seed = 1; seed < 200; seed++) {
      const r = mulberry32(seed);
      const sizes = new Map<V2Status, number>((['ok', 'unreachable', 'not_mcp', 'auth_compliant', 'server_error'] as V2Status[]).map((s) => [s, 1 + Math.floor(r() * 40)]));
      const n = 1 + Math.floor(r() * 80);
      const a = allocate(sizes, n);
      const total = [...sizes.values()].reduce((x, y) => x + y, 0);
      expect([...a.values()].reduce((x, y) => x + y, 0)).toBe(Math.min(n, total));
      for (const [s, k] of a) expect(k).toBeLessThanOrEqual(sizes.get(s)!);
      if (n >= sizes.size) for (const k of a.values()) expect(k).toBeGreaterThanOrEqual(1);
    }
  });
  it('refuses n below 1', () => expect(() => allocate(new Map([['ok', 1]]), 0)).toThrow(RangeError));
});

describe('drawStratified', () => {
  const rows = rowsOf({ ok: 40, unreachable: 25, auth_compliant: 6, not_mcp: 8, legacy_sse: 1 });
  it('is deterministic for a seed, whatever the order of the rows', () => {
    const a = drawStratified(rows, 30, 20261012).drawn.map((r) => r.target);
    const b = drawStratified([...rows].reverse(), 30, 20261012).drawn.map((r) => r.target);
    expect(a).toEqual(b);
    expect(drawStratified(rows, 30, 20261013).drawn.map((r) => r.target)).not.toEqual(a);
  });
  it('is stratified: each status gets its allocation, every status present is drawn, no row twice', () => {
    const d = drawStratified(rows, 30, 20261012);
    expect(d.drawn).toHaveLength(30);
    expect(new Set(d.drawn.map((r) => r.target)).size).toBe(30);
    for (const [s, k] of d.allocation) expect(d.drawn.filter((r) => r.status === s)).toHaveLength(k);
    expect(new Set(d.drawn.map((r) => r.status))).toEqual(new Set(rows.map((r) => r.status)));
    expect(d.population.get('legacy_sse')).toBe(1);
  });
  it('takes the whole population when n is larger, and nothing from no rows', () => {
    const few = rowsOf({ ok: 2, not_mcp: 1 });
    expect(drawStratified(few, 30, 1).drawn.map((r) => r.target).sort()).toEqual(few.map((r) => r.target).sort());
    expect(drawStratified([], 30, 1).drawn).toEqual([]);
  });
  it('refuses a target listed twice', () => expect(() => drawStratified([...rowsOf({ ok: 1 }), ...rowsOf({ ok: 1 })], 3, 1)).toThrow(/twice/));
});

describe("Cohen's κ", () => {
  it('matches the textbook 2×2 example: pₒ 0.70, pₑ 0.50, κ 0.40', () => {
    const pairs = [
      ...Array.from({ length: 20 }, () => ['yes', 'yes'] as const),
      ...Array.from({ length: 5 }, () => ['yes', 'no'] as const),
      ...Array.from({ length: 10 }, () => ['no', 'yes'] as const),
      ...Array.from({ length: 15 }, () => ['no', 'no'] as const),
    ];
    const k = cohensKappa(pairs);
    expect(k.n).toBe(50);
    expect(k.agree).toBe(35);
    expect(k.observed).toBeCloseTo(0.7, 12);
    expect(k.expected).toBeCloseTo(0.5, 12);
    expect(k.kappa).toBeCloseTo(0.4, 12);
  });
  it('three labels by hand: pₒ 3/4, pₑ 3/4·2/4 + 1/4·2/4 = 1/2, κ 1/2; a label only one side used counts in its margin', () => {
    const k = cohensKappa([['a', 'a'], ['a', 'a'], ['b', 'b'], ['a', 'c']]);
    // A: a 3, b 1; B: a 2, b 1, c 1 → pₑ = 3/4·2/4 + 1/4·1/4 = 7/16; pₒ = 3/4; κ = (12/16 − 7/16)/(9/16) = 5/9.
    expect(k.expected).toBeCloseTo(7 / 16, 12);
    expect(k.kappa).toBeCloseTo(5 / 9, 12);
    expect(cohensKappa([['a', 'a'], ['a', 'a'], ['b', 'b'], ['a', 'b']]).kappa).toBeCloseTo(0.5, 12);
  });
  it('perfect agreement over two labels is 1; agreement at chance is 0; one label throughout is undefined', () => {
    expect(cohensKappa([['x', 'x'], ['y', 'y']]).kappa).toBe(1);
    expect(cohensKappa([['x', 'x'], ['x', 'y'], ['y', 'x'], ['y', 'y']]).kappa).toBeCloseTo(0, 12);
    expect(cohensKappa([['x', 'x'], ['x', 'x']]).kappa).toBeNaN();
    expect(cohensKappa([]).kappa).toBeNaN();
  });
});

describe('shellQuote', () => {
  it('gives back the exact string through a real shell, whatever it holds', () => {
    const hostile = ["https://x.example/mcp?a=1&b=2", "it's", "'; rm -rf / #", '$(touch /tmp/pwned)`id`', 'a\nb', '-o /etc/passwd', '"\\"', ''];
    for (const s of hostile) {
      const out = execFileSync('sh', ['-c', `printf '%s' ${shellQuote(s)}`], { encoding: 'utf8' });
      expect(out, s).toBe(s);
    }
  });
});

const sheet = (statuses: (string | null)[]): Worksheet => ({
  format: WORKSHEET_FORMAT,
  run_id: 'r1',
  run_day: '2026-12-01',
  prober_version: 'p1',
  seed: 1,
  n: statuses.length,
  rule: 'x',
  vocabulary: [],
  population: {},
  allocation: {},
  endpoints: statuses.map((s, i) => ({ target: `t${i}`, endpoint: `https://e${i}.example/mcp`, recorded: { status: 'ok', era: 'modern', protocol_version: null, step: null, http_status: null, jsonrpc_code: null, detail: null, www_authenticate: null, auth_metadata_url: null, tool_count: null, canary_in_channel: null }, objects: [], curl: [], reviewer_status: s, reviewer_note: null })),
});

describe('scoreWorksheet', () => {
  it('refuses missing reviewer statuses and statuses not in the vocabulary, naming each', () => {
    const recorded = new Map<string, V2Status>([['t0', 'ok'], ['t1', 'ok'], ['t2', 'ok']]);
    let err: unknown;
    try {
      scoreWorksheet(sheet(['ok', null, 'OKAY']), recorded);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WorksheetError);
    expect((err as WorksheetError).problems).toEqual([expect.stringMatching(/endpoint 2 \("t1"\): no reviewer_status/), expect.stringMatching(/endpoint 3 \("t2"\): reviewer_status "OKAY" is not a status/)]);
    expect(() => scoreWorksheet(sheet(['excluded']), new Map([['t0', 'ok']]))).toThrow(/not a status/);
    expect(() => scoreWorksheet(sheet(['ok']), new Map())).toThrow(/no probed row/);
  });
  it('agreement, κ and the disagreements; passed at 90% and not below', () => {
    const recorded = new Map<string, V2Status>(Array.from({ length: 10 }, (_, i) => [`t${i}`, i < 5 ? 'ok' : 'unreachable'] as const));
    const nine = scoreWorksheet(sheet([...Array(5).fill('ok'), ...Array(4).fill('unreachable'), 'not_mcp']), recorded);
    expect(nine.agreement.count).toBe(9);
    expect(nine.agreement.p).toBeCloseTo(0.9, 12);
    expect(nine.passed).toBe(true);
    // A: ok 5, unreachable 5; B: ok 5, unreachable 4, not_mcp 1 → pₑ = .5·.5 + .5·.4 = .45; κ = (.9 − .45)/.55.
    expect(nine.kappa.kappa).toBeCloseTo(0.45 / 0.55, 12);
    expect(nine.disagreements).toEqual([{ target: 't9', endpoint: 'https://e9.example/mcp', recorded: 'unreachable', reviewer: 'not_mcp', note: null }]);
    const eight = scoreWorksheet(sheet([...Array(5).fill('ok'), ...Array(3).fill('unreachable'), 'not_mcp', 'ok']), recorded);
    expect(eight.passed).toBe(false);
    expect(eight.disagreements).toHaveLength(2);
  });
});

describe('gateFor', () => {
  const rec = (over: Partial<ValidationRecord>): ValidationRecord => ({
    format: VALIDATION_RECORD_FORMAT, scored_at: '2026-12-02T10:00:00Z', day: '2026-12-02', run_id: 'r1', run_day: '2026-12-01', prober_version: 'p1', seed: 1, n: 1, rule: '', worksheet_sha256: 'a'.repeat(64), threshold: 0.9,
    agreement: { count: 1, n: 1, share: 1, lower: 0.2, upper: 1 }, kappa: null, expected: 1, passed: true, endpoints: [], disagreements: [], ...over,
  });
  it('no record; a pass; a later failure withdraws it; another classifier does not count', () => {
    expect(gateFor([], 'p1')).toMatchObject({ state: 'not_validated', reason: 'no_record' });
    expect(gateFor([{ file: 'a', record: rec({}) }], 'p1')).toMatchObject({ state: 'passed', file: 'a' });
    expect(gateFor([{ file: 'a', record: rec({}) }, { file: 'b', record: rec({ scored_at: '2026-12-03T00:00:00Z', passed: false }) }], 'p1')).toMatchObject({ state: 'not_validated', reason: 'failed', file: 'b' });
    expect(gateFor([{ file: 'a', record: rec({ prober_version: 'p0' }) }], 'p1')).toMatchObject({ state: 'not_validated', reason: 'other_classifier' });
  });
});

describe('gateFor: the chosen record does not depend on the order the files were read', () => {
  const rec = (over: Partial<ValidationRecord>): ValidationRecord => ({
    format: VALIDATION_RECORD_FORMAT, scored_at: '2026-12-02T10:00:00Z', day: '2026-12-02', run_id: 'r1', run_day: '2026-12-01', prober_version: 'p1', seed: 1, n: 1, rule: '', worksheet_sha256: 'a'.repeat(64), threshold: 0.9,
    agreement: { count: 1, n: 1, share: 1, lower: 0.2, upper: 1 }, kappa: null, expected: 1, passed: true, endpoints: [], disagreements: [], ...over,
  });
  it('two other classifiers scored at the same instant: the later file name stands, in either order', () => {
    const a = { file: '2026-12-02-a.json', record: rec({ prober_version: 'p0' }) };
    const b = { file: '2026-12-02-b.json', record: rec({ prober_version: 'p9' }) };
    expect(gateFor([a, b], 'p1')).toMatchObject({ reason: 'other_classifier', file: b.file });
    expect(gateFor([b, a], 'p1')).toMatchObject({ reason: 'other_classifier', file: b.file });
  });
});

// ---- boundaries of the gate, each with its near miss --------------------------------------------------

describe('mulberry32: the seed range and the stream', () => {
  it('takes 0 and 4294967295, refuses one past either end, naming the seed', () => {
    expect(() => mulberry32(0)).not.toThrow();
    expect(() => mulberry32(0xffffffff)).not.toThrow();
    expect(() => mulberry32(-1)).toThrow(new RangeError('mulberry32: the seed must be an integer from 0 to 4294967295, not -1'));
    expect(() => mulberry32(2 ** 32)).toThrow(/not 4294967296$/);
  });
  it("the reference implementation's first outputs (t = a + 0x6D2B79F5, three mixing steps, / 2^32)", () => {
    // The reference C/JS, written out here independently of the module.
    const ref = (seed: number) => {
      let a = seed >>> 0;
      return () => {
        a = (a + 0x6d2b79f5) | 0;
        let t = Math.imul(a ^ (a >>> 15), 1 | a);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    };
    for (const seed of [0, 1, 20261012, 0xffffffff]) {
      const got = mulberry32(seed);
      const want = ref(seed);
      for (let i = 0; i < 50; i++) expect(got(), `seed ${seed}, output ${i}`).toBe(want());
    }
  });
});

describe('allocate: the boundaries of the rule', () => {
  it('n = 1 is a draw of one (the largest stratum); n = 0 and 1.5 are refused', () => {
    expect([...allocate(new Map<V2Status, number>([['ok', 2], ['not_mcp', 3]]), 1)]).toEqual([['ok', 0], ['not_mcp', 1]]);
    expect(() => allocate(new Map([['ok', 1]]), 0)).toThrow(new RangeError('allocate: n must be a whole number from 1, not 0'));
    expect(() => allocate(new Map([['ok', 5]]), 1.5)).toThrow(RangeError);
  });
  it('a stratum of size 0 is no stratum: it gets nothing and takes no share', () => {
    expect([...allocate(new Map<V2Status, number>([['ok', 4], ['not_mcp', 0]]), 2)]).toEqual([['ok', 2]]);
  });
  it('exactly as many draws as statuses: one each; one fewer: the largest', () => {
    const sizes = new Map<V2Status, number>([['ok', 9], ['unreachable', 5], ['not_mcp', 2]]);
    expect([...allocate(sizes, 3)]).toEqual([['unreachable', 1], ['ok', 1], ['not_mcp', 1]]);
    expect([...allocate(sizes, 2)]).toEqual([['unreachable', 1], ['ok', 1], ['not_mcp', 0]]);
  });
  it('strata of one each: everyone once, whatever n', () => {
    expect([...allocate(new Map<V2Status, number>([['ok', 1], ['unreachable', 1]]), 30)]).toEqual([['unreachable', 1], ['ok', 1]]);
    expect([...allocate(new Map<V2Status, number>([['ok', 1]]), 1)]).toEqual([['ok', 1]]);
  });
  it('equal fractional parts: the extra draw goes to the larger stratum; equal sizes too: to the earlier status', () => {
    // m = 4, S = 2, rest 2 over spare 4 (sizes 1+1, 1+3 → spare 1 and 3): quotas 0.5, 1.5 → 0, 1 and one more by
    // remainder: both .5, the larger (not_mcp, 4) wins → ok 1, not_mcp 3.
    expect([...allocate(new Map<V2Status, number>([['ok', 2], ['not_mcp', 4]]), 4)]).toEqual([['ok', 1], ['not_mcp', 3]]);
    // sizes equal (3, 3), m = 3: one each, rest 1 over spare 4: quotas .5, .5 → the earlier status (unreachable before ok).
    expect([...allocate(new Map<V2Status, number>([['ok', 3], ['unreachable', 3]]), 3)]).toEqual([['unreachable', 2], ['ok', 1]]);
    expect([...allocate(new Map<V2Status, number>([['unreachable', 3], ['ok', 3]]), 3)]).toEqual([['unreachable', 2], ['ok', 1]]);
  });
  it('the larger fractional part wins before the larger stratum', () => {
    // m = 5, S = 2, rest 3 over spare 9 (sizes 4 and 7 → 3 and 6): quotas 1.0, 2.0 → exact, nothing left.
    expect([...allocate(new Map<V2Status, number>([['ok', 4], ['not_mcp', 7]]), 5)]).toEqual([['ok', 2], ['not_mcp', 3]]);
    // m = 4, S = 2, rest 2 over spare 9 (sizes 4, 7 → 3, 6): quotas 0.667, 1.333 → 0, 1, one more to ok (.667 > .333).
    expect([...allocate(new Map<V2Status, number>([['ok', 4], ['not_mcp', 7]]), 4)]).toEqual([['ok', 2], ['not_mcp', 2]]);
  });
});

describe('drawStratified: the draw as published', () => {
  /** The header's rule written out again: per stratum in status order, rows by target, a partial Fisher–Yates. */
  const reference = (rows: { target: string; status: V2Status }[], allocation: Map<V2Status, number>, seed: number) => {
    const u = mulberry32(seed);
    const out: string[] = [];
    for (const [s, k] of allocation) {
      const list = rows.filter((r) => r.status === s).map((r) => r.target).sort();
      for (let i = 0; i < k; i++) {
        const j = i + Math.floor(u() * (list.length - i));
        const t = list[i]!;
        list[i] = list[j]!;
        list[j] = t;
        out.push(list[i]!);
      }
    }
    return out;
  };
  it('takes exactly the rows the published rule names, for the study seed', () => {
    const rows = rowsOf({ ok: 40, unreachable: 25, auth_compliant: 6, not_mcp: 8, legacy_sse: 1 });
    const d = drawStratified([...rows].reverse(), 30, 20261012);
    expect([...d.population]).toEqual([['unreachable', 25], ['auth_compliant', 6], ['ok', 40], ['legacy_sse', 1], ['not_mcp', 8]]);
    expect(d.drawn.map((r) => r.target)).toEqual(reference(rows, d.allocation, 20261012));
  });
  it('a stratum taken whole is every row of it once', () => {
    const rows = rowsOf({ ok: 3 });
    const d = drawStratified(rows, 3, 7);
    expect(d.drawn.map((r) => r.target).sort()).toEqual(['ok-000', 'ok-001', 'ok-002']);
    expect(d.drawn.map((r) => r.target)).toEqual(reference(rows, d.allocation, 7));
  });
  it('no rows: no population, no allocation, nothing drawn', () => {
    expect(drawStratified([], 30, 1)).toEqual({ population: new Map(), allocation: new Map(), drawn: [] });
  });
  it('names the target listed twice', () => {
    expect(() => drawStratified([{ target: 'x', status: 'ok' }, { target: 'x', status: 'not_mcp' }], 2, 1)).toThrow(new RangeError('drawStratified: target "x" appears twice'));
  });
});

describe("Cohen's κ: margins and order", () => {
  it('a label only the first rater used counts in its margin (0 on the other side)', () => {
    // A: a 2, b 2; B: a 3, c 1 → pₑ = 2/4·3/4 + 2/4·0 = 3/8; pₒ = 2/4; κ = (1/2 − 3/8)/(5/8) = 1/5.
    const k = cohensKappa([['a', 'a'], ['a', 'a'], ['b', 'a'], ['b', 'c']]);
    expect(k.agree).toBe(2);
    expect(k.expected).toBeCloseTo(3 / 8, 12);
    expect(k.kappa).toBeCloseTo(1 / 5, 12);
  });
  it('gives the same bits whatever the order of the pairs', () => {
    // pₑ = (1·1 + 3·2 + 1·2)/25 = 0.36, a sum whose rounding depends on the order of its terms.
    const pairs: [string, string][] = [['a', 'a'], ['c', 'c'], ['c', 'c'], ['c', 'd'], ['d', 'd']];
    const perms = (xs: [string, string][]): [string, string][][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])));
    const first = cohensKappa(pairs);
    expect(first.expected).toBeCloseTo(0.36, 12);
    for (const p of perms(pairs)) {
      const k = cohensKappa(p);
      expect(k.expected).toBe(first.expected);
      expect(k.kappa).toBe(first.kappa);
    }
  });
  it("the record's pₑ can be recomputed to the bit: its terms are summed in code-unit order of the labels", () => {
    // A: a 1, c 3, d 1; B: a 1, c 2, d 2 (n = 5). In order a, c, d the sum rounds to 0.36000000000000004; in the reverse order to 0.36.
    const k = cohensKappa([['d', 'd'], ['c', 'd'], ['c', 'c'], ['c', 'c'], ['a', 'a']]);
    expect(k.expected).toBe((1 / 5) * (1 / 5) + (3 / 5) * (2 / 5) + (1 / 5) * (2 / 5));
    expect(k.expected).not.toBe((1 / 5) * (2 / 5) + (3 / 5) * (2 / 5) + (1 / 5) * (1 / 5));
  });
  it('no pairs: n 0, agree 0 and every share undefined', () => {
    expect(cohensKappa([])).toEqual({ n: 0, agree: 0, observed: NaN, expected: NaN, kappa: NaN });
  });
});

describe('the worksheet and record contracts: what a hand-edited file may and may not hold', () => {
  const recorded = { status: 'ok', era: 'modern', protocol_version: '2025-06-18', step: 'tools/list', http_status: 200, jsonrpc_code: -32601, detail: 'd', www_authenticate: 'Bearer', auth_metadata_url: 'https://x.example/.well-known', tool_count: 3, canary_in_channel: false };
  const entry = { target: 't0', endpoint: 'https://e.example/mcp', recorded, objects: [{ role: 'tools/list', sha256: 'a'.repeat(64), path: 'objects/aa/x', content_type: 'application/json' }], curl: [{ step: 'initialize', when: 'first', command: "curl 'x'" }], reviewer_status: 'ok', reviewer_note: 'n' };
  const ws = { format: WORKSHEET_FORMAT, run_id: 'r1', run_day: '2026-12-01', prober_version: 'p1', seed: 0, n: 1, rule: DRAW_RULE, vocabulary: ['ok'], population: { ok: 1 }, allocation: { ok: 0 }, endpoints: [entry] };
  const rec = {
    format: VALIDATION_RECORD_FORMAT, scored_at: '2026-12-02T10:00:00Z', day: '2026-12-02', run_id: 'r1', run_day: '2026-12-01', prober_version: 'p1', seed: 0, n: 1, rule: '', worksheet_sha256: 'b'.repeat(64), threshold: 0.9,
    agreement: { count: 0, n: 1, share: 0, lower: 0, upper: 0.79 }, kappa: 0.5, expected: 0.5, passed: false,
    endpoints: [{ target: 't0', endpoint: 'e', recorded: 'excluded', reviewer: 'ok', note: null }],
    disagreements: [{ target: 't0', endpoint: 'e', recorded: 'ok', reviewer: 'anything', note: 'why' }],
  };
  const withEntry = (over: Record<string, unknown>) => ({ ...ws, endpoints: [{ ...entry, ...over }] });
  const withRecorded = (over: Record<string, unknown>) => withEntry({ recorded: { ...recorded, ...over } });

  it('a full worksheet parses, and so does every field at its null or smallest value', () => {
    expect(Worksheet.parse(ws)).toEqual(ws);
    const nulls = Object.fromEntries(Object.keys(recorded).filter((k) => k !== 'status' && k !== 'era').map((k) => [k, null]));
    expect(Worksheet.safeParse(withRecorded(nulls)).success).toBe(true);
    expect(Worksheet.safeParse(withEntry({ reviewer_status: null, reviewer_note: null, objects: [{ ...entry.objects[0], content_type: null }] })).success).toBe(true);
    expect(Worksheet.safeParse({ ...ws, endpoints: [], seed: 0, n: 1, population: { ok: 0 } }).success).toBe(true);
    for (const era of ['modern', 'legacy', 'legacy_sse', 'none']) expect(Worksheet.safeParse(withRecorded({ era })).success, era).toBe(true);
    expect(Worksheet.safeParse(withRecorded({ status: 'excluded' })).success).toBe(true);
  });
  it.each([
    ['another format', { ...ws, format: 'mcp-schema-validation-worksheet/2' }],
    ['an extra field', { ...ws, extra: 1 }],
    ['an empty run id', { ...ws, run_id: '' }],
    ['an empty prober version', { ...ws, prober_version: '' }],
    ['a run day with a time', { ...ws, run_day: '2026-12-01T00:00:00Z' }],
    ['a run day with text before it', { ...ws, run_day: 'x2026-12-01' }],
    ['a run day of short parts', { ...ws, run_day: '2026-1-01' }],
    ['a run day with a short day', { ...ws, run_day: '2026-12-1' }],
    ['a run day with a short year', { ...ws, run_day: '226-12-01' }],
    ['a run day of letters', { ...ws, run_day: 'yyyy-mm-dd' }],
    ['a negative seed', { ...ws, seed: -1 }],
    ['a fractional seed', { ...ws, seed: 0.5 }],
    ['n = 0', { ...ws, n: 0 }],
    ['a fractional n', { ...ws, n: 1.5 }],
    ['a rule that is not text', { ...ws, rule: null }],
    ['a vocabulary of numbers', { ...ws, vocabulary: [1] }],
    ['a negative population', { ...ws, population: { ok: -1 } }],
    ['a fractional allocation', { ...ws, allocation: { ok: 0.5 } }],
    ['an entry with an extra field', withEntry({ extra: 1 })],
    ['an entry with an empty target', withEntry({ target: '' })],
    ['an entry with an empty endpoint', withEntry({ endpoint: '' })],
    ['an object whose hash is upper case', withEntry({ objects: [{ ...entry.objects[0], sha256: 'A'.repeat(64) }] })],
    ['an object with an extra field', withEntry({ objects: [{ ...entry.objects[0], size: 1 }] })],
    ['an object without a content type', withEntry({ objects: [{ role: 'r', sha256: 'a'.repeat(64), path: 'p' }] })],
    ['a curl step with an extra field', withEntry({ curl: [{ step: 's', when: 'w', command: 'c', x: 1 }] })],
    ['a curl step without its command', withEntry({ curl: [{ step: 's', when: 'w' }] })],
    ['a reviewer status that is a number', withEntry({ reviewer_status: 1 })],
    ['a recorded status that is no status', withRecorded({ status: 'fine' })],
    ['a recorded era that is no era', withRecorded({ era: 'future' })],
    ['a recorded field added', withRecorded({ extra: 1 })],
    ['a fractional HTTP status', withRecorded({ http_status: 200.5 })],
    ['a fractional JSON-RPC code', withRecorded({ jsonrpc_code: -1.5 })],
    ['a fractional tool count', withRecorded({ tool_count: 1.5 })],
    ['a canary that is a string', withRecorded({ canary_in_channel: 'no' })],
    ['a protocol version that is a number', withRecorded({ protocol_version: 1 })],
    ['a step that is a number', withRecorded({ step: 1 })],
    ['a detail that is a number', withRecorded({ detail: 1 })],
    ['a WWW-Authenticate that is a number', withRecorded({ www_authenticate: 1 })],
    ['an auth metadata URL that is a number', withRecorded({ auth_metadata_url: 1 })],
  ])('a worksheet is refused for %s', (_why, bad) => {
    expect(Worksheet.safeParse(bad).success).toBe(false);
  });

  it('a full record parses: an offset time, a null κ, any text as a disagreement\'s reviewer', () => {
    expect(ValidationRecord.parse(rec)).toEqual(rec);
    expect(ValidationRecord.safeParse({ ...rec, scored_at: '2026-12-02T10:00:00+01:00', kappa: null }).success).toBe(true);
    expect(ValidationRecord.safeParse({ ...rec, agreement: { ...rec.agreement, count: 0, n: 1 } }).success).toBe(true);
  });
  it.each([
    ['another format', { ...rec, format: 'mcp-schema-validation/2' }],
    ['an extra field', { ...rec, extra: 1 }],
    ['a scored_at that is only a day', { ...rec, scored_at: '2026-12-02' }],
    ['a day that is a time', { ...rec, day: '2026-12-02T10:00:00Z' }],
    ['a worksheet hash one digit short', { ...rec, worksheet_sha256: 'b'.repeat(63) }],
    ['a threshold that is text', { ...rec, threshold: '0.9' }],
    ['a negative agreement count', { ...rec, agreement: { ...rec.agreement, count: -1 } }],
    ['a fractional agreement count', { ...rec, agreement: { ...rec.agreement, count: 0.5 } }],
    ['an agreement over n = 0', { ...rec, agreement: { ...rec.agreement, n: 0 } }],
    ['a fractional agreement n', { ...rec, agreement: { ...rec.agreement, n: 1.5 } }],
    ['an agreement with an extra field', { ...rec, agreement: { ...rec.agreement, kappa: 1 } }],
    ['an agreement without its bounds', { ...rec, agreement: { count: 0, n: 1, share: 0 } }],
    ['a κ that is text', { ...rec, kappa: 'NaN' }],
    ['no expected agreement', { ...rec, expected: null }],
    ['passed as text', { ...rec, passed: 'yes' }],
    ['a reviewer status "excluded"', { ...rec, endpoints: [{ ...rec.endpoints[0], reviewer: 'excluded' }] }],
    ['a reviewer status that is no status', { ...rec, endpoints: [{ ...rec.endpoints[0], reviewer: 'fine' }] }],
    ['a recorded status that is no status', { ...rec, endpoints: [{ ...rec.endpoints[0], recorded: 'fine' }] }],
    ['an endpoint with an extra field', { ...rec, endpoints: [{ ...rec.endpoints[0], x: 1 }] }],
    ['an endpoint note that is a number', { ...rec, endpoints: [{ ...rec.endpoints[0], note: 1 }] }],
    ['a disagreement with an extra field', { ...rec, disagreements: [{ ...rec.disagreements[0], x: 1 }] }],
    ['a disagreement whose recorded status is no status', { ...rec, disagreements: [{ ...rec.disagreements[0], recorded: 'fine' }] }],
    ['a disagreement without its note', { ...rec, disagreements: [{ target: 't', endpoint: 'e', recorded: 'ok', reviewer: 'ok' }] }],
  ])('a record is refused for %s', (_why, bad) => {
    expect(ValidationRecord.safeParse(bad).success).toBe(false);
  });

  it('a reviewer may write every status of a probed endpoint, and not excluded', () => {
    expect(REVIEW_STATUSES).toEqual(V2_STATUSES.filter((s) => s !== 'excluded'));
    expect(REVIEW_STATUSES).toHaveLength(V2_STATUSES.length - 1);
  });
  it('the study constants: seed 20261012, n 30, 90 %', () => {
    expect([VALIDATION_SEED, VALIDATION_N, VALIDATION_THRESHOLD]).toEqual([20261012, 30, 0.9]);
  });
  it('the rule as printed names every step of the draw', () => {
    for (const words of ['probed rows (outcome ok or error)', 'm = min(n, population)', 'every stratum gets 1', 'largest remainder', 'ties to the larger stratum, then the earlier status', 'if m < S, the m largest strata get 1 each', 'rows sorted by target', 'partial Fisher-Yates', 'floor(u * i)', 'mulberry32 stream seeded with the seed']) {
      expect(DRAW_RULE).toContain(words);
    }
  });
});

describe('reviewerStatuses and scoreWorksheet: the gate\'s arithmetic and its errors', () => {
  const recordedAll = (n: number, status: V2Status = 'ok') => new Map<string, V2Status>(Array.from({ length: n }, (_, i) => [`t${i}`, status]));
  const errorOf = (f: () => unknown): WorksheetError => {
    try {
      f();
    } catch (e) {
      if (e instanceof WorksheetError) return e;
      throw e;
    }
    throw new Error('no WorksheetError');
  };
  it('27 of the study\'s 30 agree: 90 %, passed; 26: not', () => {
    const pass = scoreWorksheet(sheet([...Array(27).fill('ok'), ...Array(3).fill('not_mcp')]), recordedAll(30));
    expect(pass.passed).toBe(true);
    expect(pass.agreement).toEqual({ count: 27, n: 30, ...wilson(27, 30) });
    const fail = scoreWorksheet(sheet([...Array(26).fill('ok'), ...Array(4).fill('not_mcp')]), recordedAll(30));
    expect(fail.passed).toBe(false);
    expect(fail.agreement.count).toBe(26);
  });
  it('a threshold met exactly passes even when threshold × n rounds a hair above the count', () => {
    // 0.56 × 25 = 14.000000000000002 in floating point; 14 of 25 is 56 %.
    const s = (k: number) => scoreWorksheet(sheet([...Array(k).fill('ok'), ...Array(25 - k).fill('not_mcp')]), recordedAll(25), 0.56);
    expect(s(14).passed).toBe(true);
    expect(s(13).passed).toBe(false);
    // a threshold over n: all agree is 100 %, and a threshold of 1 needs every one
    expect(scoreWorksheet(sheet(['ok', 'ok']), recordedAll(2), 1).passed).toBe(true);
    expect(scoreWorksheet(sheet(['ok', 'not_mcp']), recordedAll(2), 1).passed).toBe(false);
  });
  it('the κ is over (recorded, reviewer) pairs, and each endpoint carries both', () => {
    const s = scoreWorksheet(sheet(['ok', 'not_mcp']), new Map<string, V2Status>([['t0', 'ok'], ['t1', 'unreachable']]));
    expect(s.kappa).toEqual(cohensKappa([['ok', 'ok'], ['unreachable', 'not_mcp']]));
    expect(s.endpoints).toEqual([
      { target: 't0', endpoint: 'https://e0.example/mcp', recorded: 'ok', reviewer: 'ok', note: null },
      { target: 't1', endpoint: 'https://e1.example/mcp', recorded: 'unreachable', reviewer: 'not_mcp', note: null },
    ]);
  });
  it('a status with spaces around it is read trimmed; a note of spaces is no note, a note is kept as written', () => {
    const ws = sheet([' ok ', 'ok', 'ok']);
    ws.endpoints[0]!.reviewer_note = '  ';
    ws.endpoints[1]!.reviewer_note = ' checked by hand ';
    ws.endpoints[2]!.reviewer_note = '';
    const s = scoreWorksheet(ws, recordedAll(3));
    expect(s.endpoints.map((e) => [e.reviewer, e.note])).toEqual([['ok', null], ['ok', ' checked by hand '], ['ok', null]]);
    expect(s.passed).toBe(true);
  });
  it('a blank status is no status; an empty worksheet cannot be scored; every problem is listed in the message', () => {
    const e = errorOf(() => scoreWorksheet(sheet(['  ', 'ok', 'nope']), recordedAll(3)));
    expect(e.name).toBe('WorksheetError');
    expect(e.problems).toEqual(['endpoint 1 ("t0"): no reviewer_status', `endpoint 3 ("t2"): reviewer_status "nope" is not a status (${REVIEW_STATUSES.join(', ')})`]);
    expect(e.message).toBe(`the worksheet cannot be scored:\n  - ${e.problems[0]}\n  - ${e.problems[1]}`);
    expect(errorOf(() => scoreWorksheet(sheet([]), new Map())).problems).toEqual(['the worksheet lists no endpoint']);
  });
  it('targets the run has no probed row for are all named', () => {
    const e = errorOf(() => scoreWorksheet(sheet(['ok', 'ok', 'ok']), new Map([['t1', 'ok']])));
    expect(e.problems).toEqual(['the run r1 has no probed row for "t0", "t2"']);
  });
  it('disagreements are the endpoints where the two differ, in worksheet order', () => {
    const s = scoreWorksheet(sheet(['not_mcp', 'ok', 'unreachable']), recordedAll(3));
    expect(s.disagreements.map((d) => [d.target, d.reviewer])).toEqual([['t0', 'not_mcp'], ['t2', 'unreachable']]);
  });
});

describe('gateFor: which record stands', () => {
  const rec = (over: Partial<ValidationRecord>): ValidationRecord => ({
    format: VALIDATION_RECORD_FORMAT, scored_at: '2026-12-02T10:00:00Z', day: '2026-12-02', run_id: 'r1', run_day: '2026-12-01', prober_version: 'p1', seed: 1, n: 1, rule: '', worksheet_sha256: 'a'.repeat(64), threshold: 0.9,
    agreement: { count: 1, n: 1, share: 1, lower: 0.2, upper: 1 }, kappa: null, expected: 1, passed: true, endpoints: [], disagreements: [], ...over,
  });
  const both = (records: { file: string; record: ValidationRecord }[], v = 'p1') => {
    const a = gateFor(records, v);
    expect(gateFor([...records].reverse(), v), 'the same in the other order').toEqual(a);
    return a;
  };
  it('a pass one second after a failure stands again; one second before it, the failure stands', () => {
    const failed = { file: 'f.json', record: rec({ scored_at: '2026-12-02T10:00:00Z', passed: false }) };
    const later = { file: 'a.json', record: rec({ scored_at: '2026-12-02T10:00:01Z' }) };
    const earlier = { file: 'z.json', record: rec({ scored_at: '2026-12-02T09:59:59Z' }) };
    expect(both([failed, later])).toEqual({ state: 'passed', record: later.record, file: 'a.json' });
    expect(both([failed, earlier])).toEqual({ state: 'not_validated', reason: 'failed', record: failed.record, file: 'f.json' });
  });
  it('two records of the classifier scored at the same instant: the later file name stands', () => {
    const pass = { file: '2026-12-02-b.json', record: rec({}) };
    const fail = { file: '2026-12-02-a.json', record: rec({ passed: false }) };
    expect(both([pass, fail])).toMatchObject({ state: 'passed', file: pass.file });
    const fail2 = { file: '2026-12-02-c.json', record: rec({ passed: false }) };
    expect(both([pass, fail2])).toMatchObject({ state: 'not_validated', reason: 'failed', file: fail2.file });
  });
  it('records of other classifiers never stand, even later and passed; the latest of them is named', () => {
    const mine = { file: 'm.json', record: rec({ passed: false, scored_at: '2026-12-01T00:00:00Z' }) };
    const other = { file: 'o.json', record: rec({ prober_version: 'p2', scored_at: '2026-12-09T00:00:00Z' }) };
    expect(both([mine, other])).toEqual({ state: 'not_validated', reason: 'failed', record: mine.record, file: 'm.json' });
    const old = { file: 'z-old.json', record: rec({ prober_version: 'p0', scored_at: '2026-11-01T00:00:00Z' }) };
    expect(both([old, other])).toEqual({ state: 'not_validated', reason: 'other_classifier', record: other.record, file: 'o.json' });
    expect(both([old, other], 'p2')).toEqual({ state: 'passed', record: other.record, file: 'o.json' });
    expect(gateFor([], 'p1')).toEqual({ state: 'not_validated', reason: 'no_record', record: null, file: null });
  });
});
