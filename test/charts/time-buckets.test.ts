// How many marks a chart over days draws (src/charts/time-buckets.ts): a mark a day up to
// MAX_DAILY_MARKS days, then a mark a week, with the week's values combined as each chart says; and the
// charts that use it, on a long series, against the same series drawn a day a mark.
import { describe, expect, it } from 'vitest';
import { coverageChart } from '../../src/charts/coverage.ts';
import { errorSharesChart } from '../../src/charts/error-shares.ts';
import { eraAdoptionChart, eraWeekly } from '../../src/charts/era-adoption.ts';
import { everChangedChart } from '../../src/charts/ever-changed.ts';
import { WIDE } from '../../src/charts/plot-svg.ts';
import { rosterFlowChart } from '../../src/charts/roster-flow.ts';
import { byWeek, changePoints, MAX_DAILY_MARKS, newest, thin, weekly } from '../../src/charts/time-buckets.ts';

const text = { title: 'A chart', description: 'What it shows.' };
const dayAfter = (start: string, n: number) => new Date(Date.parse(`${start}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const series = (n: number, start = '2026-01-05') => Array.from({ length: n }, (_, i) => dayAfter(start, i));

describe('weekly(rows)', () => {
  it('true only past MAX_DAILY_MARKS days from the first row to the last, whatever the rows between', () => {
    expect(weekly(series(MAX_DAILY_MARKS).map((day) => ({ day })))).toBe(false);
    expect(weekly(series(MAX_DAILY_MARKS + 1).map((day) => ({ day })))).toBe(true);
    // Two rows far apart: the span counts, not the rows.
    expect(weekly([{ day: '2026-01-01' }, { day: dayAfter('2026-01-01', MAX_DAILY_MARKS) }])).toBe(true);
    expect(weekly([{ day: '2026-01-01' }, { day: dayAfter('2026-01-01', MAX_DAILY_MARKS - 1) }])).toBe(false);
    expect(weekly([{ day: '2026-01-01' }])).toBe(false);
  });
});

describe('byWeek(rows, combine)', () => {
  it('groups by the Monday of each ISO week (UTC), in order', () => {
    // 2026-01-04 is a Sunday, 2026-01-05 a Monday.
    const rows = ['2026-01-03', '2026-01-04', '2026-01-05', '2026-01-11', '2026-01-12'].map((day, i) => ({ day, n: i + 1 }));
    expect(byWeek(rows, (week, g) => ({ week, n: g.reduce((s, r) => s + r.n, 0), days: g.length }))).toEqual([
      { week: '2025-12-29', n: 3, days: 2 },
      { week: '2026-01-05', n: 7, days: 2 },
      { week: '2026-01-12', n: 5, days: 1 },
    ]);
  });
});

describe('thin(rows, max) and changePoints(rows, keys)', () => {
  it('thin keeps every k-th row and the last, at most max + 1; short series whole', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    const t = thin(xs, 400);
    expect(t.slice(0, 3)).toEqual([0, 3, 6]);
    expect(t.at(-1)).toBe(999);
    expect(t.length).toBeLessThanOrEqual(401);
    expect(thin([1, 2, 3], 400)).toEqual([1, 2, 3]);
  });
  it('changePoints keeps the first row, each row where a key moves, and the last', () => {
    const rows = [1, 1, 1, 2, 2, 3, 3, 3].map((v, i) => ({ i, v, w: i === 6 ? 9 : 0 }));
    expect(changePoints(rows, ['v']).map((r) => r.i)).toEqual([0, 3, 5, 7]);
    expect(changePoints(rows, ['v', 'w']).map((r) => r.i)).toEqual([0, 3, 5, 6, 7]);
  });
  it('newest keeps the last n and counts the rest', () => {
    expect(newest([1, 2, 3, 4, 5], 2)).toEqual({ rows: [4, 5], left: 3 });
    expect(newest([1, 2], 5)).toEqual({ rows: [1, 2], left: 0 });
  });
});

describe('the charts over a long series', () => {
  const long = series(700); // 100 weeks from a Monday
  const count = (svg: string, tag: string) => svg.split(`<${tag}`).length - 1;

  it('error shares: a bar a week per class, each the mean of its runs', () => {
    const classes = ['ok', 'timeout'];
    const rows = long.map((day, i) => ({ day, classes: { ok: { p: i % 2 ? 1 : 0.5 }, timeout: { p: i % 2 ? 0 : 0.5 } } }));
    const svg = errorSharesChart(rows, { ...WIDE, ...text, classes })!;
    expect(count(svg, 'rect')).toBe(100 * 2);
    const short = errorSharesChart(rows.slice(0, 70), { ...WIDE, ...text, classes })!;
    expect(count(short, 'rect')).toBe(70 * 2);
    // Seven days of one week and a day 500 days on: two weekly bars per class.
    const oneWeek = errorSharesChart([...rows.slice(0, 7), { day: dayAfter(long[0]!, 500), classes: { ok: { p: 1 }, timeout: { p: 0 } } }], { ...WIDE, ...text, classes })!;
    expect(count(oneWeek, 'rect')).toBe(2 * 2);
  });

  it('roster flow: a bar a week of the summed joins and departures, the axis says per week', () => {
    const rows = long.map((day, i) => ({ day, joined: 1, left: i % 7 === 3 ? 1 : 0, first: i === 0 }));
    const svg = rosterFlowChart(rows, { ...WIDE, ...text })!;
    expect(svg).toContain('servers per week');
    expect(count(svg, 'rect')).toBeLessThanOrEqual(2 * 100);
    expect(count(svg, 'rect')).toBeGreaterThan(100);
    // Seven joins a week: the y axis reaches 7 (a day a bar would top out at 1).
    expect(svg).toMatch(/>7<\/text>/);
    const short = rosterFlowChart(rows.slice(0, 60), { ...WIDE, ...text })!;
    expect(short).toContain('servers per day');
  });

  it('coverage: past the limit the line alone, the degraded runs still marked', () => {
    const rows = long.map((day, i) => ({ day, coverage: i === 350 ? 0.5 : 1, degraded: i === 350, partial: false }));
    const svg = coverageChart(rows, { ...WIDE, ...text, degradedBelow: 0.9 })!;
    expect(svg).not.toContain('coverage-ok');
    expect(svg).toContain('coverage-degraded');
    expect(coverageChart(rows.slice(0, 60), { ...WIDE, ...text, degradedBelow: 0.9 })!).toContain('coverage-ok');
  });

  it('era adoption: a mark a week per era past the limit, each the mean of its runs\' shares; a mark a run before', () => {
    const point = (day: string, i: number) => ({ run_id: `r${i}`, day, n: 10, counts: { modern: i % 2 ? 10 : 0, legacy: i % 2 ? 0 : 10, legacy_sse: 0, dualEraAdvertised: 0 }, modern: { count: i % 2 ? 10 : 0, n: 10, p: i % 2 ? 1 : 0, lower: 0, upper: 1 } });
    const points = long.map(point);
    const marks = (svg: string, cls: string) => {
      const g = svg.split(`class="${cls}"`)[1]!.split('</g>')[0]!;
      return count(g, 'circle') + count(g, 'path');
    };
    expect(eraWeekly(points)).toBe(true);
    const svg = eraAdoptionChart(points, { ...WIDE, ...text })!;
    expect(marks(svg, 'era-modern')).toBe(100);
    expect(marks(svg, 'era-dual')).toBe(100);
    expect(eraWeekly(points.slice(0, 70))).toBe(false);
    expect(marks(eraAdoptionChart(points.slice(0, 70), { ...WIDE, ...text })!, 'era-modern')).toBe(70);
    // Weeks of 7 runs alternating 0 and 1: each week's mean share, 3/7 or 4/7, never a run's 0 or 1.
    const ys = (s2: string) => [...s2.split('class="era-modern"')[1]!.split('</g>')[0]!.matchAll(/(?:cy="|transform="translate\([\d.]+,)([\d.]+)/g)].map((m) => Number(m[1]));
    const daily = new Set(ys(eraAdoptionChart(points.slice(0, 70), { ...WIDE, ...text })!));
    expect(daily.size).toBe(2); // the shares 0 and 1
    const weeklyYs = new Set(ys(svg));
    expect(weeklyYs.size).toBe(2); // 3/7 and 4/7
    for (const y of weeklyYs) expect(daily.has(y), String(y)).toBe(false);
  });

  it('ever changed: at most MAX_DAILY_MARKS + 1 dots however many days', () => {
    const rows = Array.from({ length: 1800 }, (_, d) => ({ days: d, share: Math.min(1, Math.floor(d / 100) / 20), lower: 0, upper: 1, observed_share: d / 1800, linear: d < 900 ? d / 900 : null }));
    const svg = everChangedChart(rows, { ...WIDE, ...text })!;
    const dots = svg.split('class="ever-observed"')[1]!.split('</g>')[0]!;
    expect(count(dots, 'circle')).toBeLessThanOrEqual(MAX_DAILY_MARKS + 1);
    expect(count(dots, 'circle')).toBeGreaterThan(MAX_DAILY_MARKS / 2);
  });
});
