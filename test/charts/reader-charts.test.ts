// The reader charts (one module each in src/charts): golden SVGs at the wide and the narrow size
// (ids normalised), and the properties a reader relies on. Inputs come from src/lib and the loader's
// timeline types with literal, hand-checkable values.
import { describe, expect, it } from 'vitest';
import { changesPerWeekChart, WEEK_LEVELS } from '../../src/charts/changes-per-week.ts';
import { coverageChart } from '../../src/charts/coverage.ts';
import { errorSharesChart } from '../../src/charts/error-shares.ts';
import { everChangedChart, everChangedText } from '../../src/charts/ever-changed.ts';
import { NARROW, WIDE } from '../../src/charts/plot-svg.ts';
import { rosterFlowChart } from '../../src/charts/roster-flow.ts';
import { normaliseSvgIds } from '../../src/charts/survival.ts';
import { everChangedShare, wilson } from '../../src/lib/index.ts';
import { ATTEMPT_CLASSES } from '../../src/loader/timelines.ts';
import { expectGolden } from '../helpers/golden.ts';

const text = { title: 'A chart', description: 'What it shows.' };
const days = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-12', '2026-01-13'];
// Servers' first-change durations, whether they changed, and how long each was followed.
const servers = [
  { duration: 1, event: true, observed_days: 20 },
  { duration: 1, event: true, observed_days: 20 },
  { duration: 3, event: true, observed_days: 20 },
  { duration: 8, event: true, observed_days: 12 },
  { duration: 12, event: false, observed_days: 12 },
  ...Array.from({ length: 15 }, () => ({ duration: 20, event: false, observed_days: 20 })),
];

describe('everChangedChart(rows, options)', () => {
  const rows = everChangedShare(servers);
  const t = everChangedText(rows, servers.length, '2026-01-31');
  it.each([['wide', WIDE], ['narrow', NARROW]] as const)('matches its golden at the %s size', async (name, size) => {
    await expectGolden(`ever-changed-${name}.svg`, normaliseSvgIds(everChangedChart(rows, { ...size, ...t })!));
  });
  it('draws the curve, its complete-case dots and the constant-rate line dashed, and says both in its description', () => {
    const svg = everChangedChart(rows, { ...WIDE, ...t })!;
    expect(svg).toMatch(/<g[^>]*stroke-dasharray="6,4"[^>]*class="ever-linear"/);
    expect(svg).toContain('class="ever-share"');
    expect(svg).toContain('class="ever-observed"');
    // Day 1: 2 of 20 changed (10%), so a constant rate predicts 10% a day, capped at 100% from day 10.
    expect(t.description).toContain('would predict 100.0% by day 20');
    expect(t.description).toMatch(/After 20 days, an estimated \d+\.\d% had changed/);
  });
  it('returns null with fewer than two days', () => {
    expect(everChangedChart(everChangedShare([{ duration: 0, event: false, observed_days: 0 }]), { ...WIDE, ...text })).toBeNull();
  });
});

describe('the views over time', () => {
  const runs = days.map((day, i) => ({ day, coverage: i === 3 ? 0.8 : 1, degraded: i === 3, partial: false }));
  const weeks = [
    { week: '2026-01-05', levels: { ERR: 2, WARN: 1, INFO: 3, NONE: 1 } },
    { week: '2026-01-12', levels: { ERR: 0, WARN: 0, INFO: 1, NONE: 2 } },
  ];
  const shares = days.map((day, i) => {
    const counts: Record<string, number> = { ok: 6 + (i % 2), timeout: 1, tls: 0, http_4xx: 1, http_5xx: 0, auth: 2 - (i % 2), rate_limited: 0, parse: 0 };
    return { day, classes: Object.fromEntries(Object.entries(counts).map(([c, n]) => [c, wilson(n, 10)])) };
  });
  const roster = days.map((day, i) => ({ day, joined: i === 0 ? 40 : i % 3, left: i === 4 ? 2 : 0, first: i === 0 }));
  const charts = {
    coverage: (size: typeof WIDE) => coverageChart(runs, { ...size, ...text, degradedBelow: 0.9 }),
    'changes-per-week': (size: typeof WIDE) => changesPerWeekChart(weeks, { ...size, ...text }),
    'error-shares': (size: typeof WIDE) => errorSharesChart(shares, { ...size, ...text, classes: ATTEMPT_CLASSES }),
    'roster-flow': (size: typeof WIDE) => rosterFlowChart(roster, { ...size, ...text }),
  };
  it.each(Object.keys(charts).flatMap((n) => [[n, 'wide'], [n, 'narrow']]))('%s matches its golden at the %s size', async (name, size) => {
    const svg = charts[name as keyof typeof charts](size === 'wide' ? WIDE : NARROW)!;
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*><title>A chart<\/title><desc>What it shows\.<\/desc>/);
    expect(svg).not.toMatch(/<g[^>]*aria-label/);
    await expectGolden(`${name}-${size}.svg`, normaliseSvgIds(svg));
  });
  it('marks the degraded run apart from the others', () => {
    const svg = charts.coverage(WIDE)!;
    expect(svg.match(/class="coverage-degraded"[^>]*>(.*?)<\/g>/)![1]!.match(/<path/g)).toHaveLength(1);
  });
  it('stacks one bar per week and level, 4 levels in the legend table order', () => {
    const svg = charts['changes-per-week'](WIDE)!;
    expect(WEEK_LEVELS.map((l) => l.level)).toEqual(['ERR', 'WARN', 'INFO', 'NONE']);
    // Plot draws a rect per datum, zero-height ones included: 2 weeks × 4 levels.
    expect(svg.match(/<rect /g)!.length).toBe(8);
  });
  it('leaves out the archive\'s first day, when every name joins, and draws nothing without another day', () => {
    expect(rosterFlowChart(roster.slice(0, 1), { ...WIDE, ...text })).toBeNull();
    expect(charts['roster-flow'](WIDE)).not.toContain('>40<');
  });
  it('returns null for no rows', () => {
    expect(coverageChart([], { ...WIDE, ...text, degradedBelow: 0.9 })).toBeNull();
    expect(changesPerWeekChart([], { ...WIDE, ...text })).toBeNull();
    expect(errorSharesChart([], { ...WIDE, ...text, classes: ATTEMPT_CLASSES })).toBeNull();
  });
});
