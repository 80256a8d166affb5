// survivalChart(rows, options): a golden SVG (ids normalised) and the properties readers rely on.
import { describe, expect, it } from 'vitest';
import { normaliseSvgIds, survivalChart, survivalText } from '../../src/charts/survival.ts';
import { halfLife, kaplanMeier } from '../../src/lib/index.ts';
import { expectGolden } from '../helpers/golden.ts';

// Durations in days and whether the contract changed (true) or was censored (false); ties of both at day 5.
const durations = [1, 2, 2, 3, 5, 5, 5, 8, 10, 12, 12, 15];
const events = [true, true, false, true, true, true, false, true, false, false, false, false];

describe('survivalChart(rows, options)', () => {
  const rows = kaplanMeier(durations, events);
  const median = halfLife(rows)?.median ?? null;
  const svg = survivalChart(rows, { width: 640, height: 360, ...survivalText(rows, '2026-01-31'), median })!;

  it('matches the golden SVG (test/output/survival.svg) after id normalisation', async () => {
    await expectGolden('survival.svg', normaliseSvgIds(svg));
  });

  it('is a standalone, accessible SVG: xmlns, role img, <title> then <desc>', () => {
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toMatch(/^<svg [^>]*role="img"/);
    expect(svg).toMatch(/^<svg[^>]*><title>Schema survival[^<]*\(data as of 2026-01-31\)<\/title><desc>Kaplan–Meier estimate over 12 contracts, 6 of which changed; the other 6 are censored/);
    expect(svg).not.toMatch(/<g[^>]*aria-label/);
  });

  it('starts the curve at (0, 1), draws one dashed tail after the last event, and a half-life marker', () => {
    expect(svg.match(/class="km-tail"/g)).toHaveLength(1);
    expect(svg).toMatch(/<g[^>]*stroke-dasharray="6,4"[^>]*class="km-tail"/);
    expect(svg).not.toMatch(/<g[^>]*stroke-dasharray[^>]*class="km-solid"/);
    expect(svg).toContain(`half-life ${median} d`);
    // The first point of the solid line is x = marginLeft (day 0), y = top (S = 1).
    const d = /class="km-solid"[^>]*><path d="M([\d.]+),([\d.]+)/.exec(svg)!;
    expect(Number(d[1])).toBe(48);
    expect(Number(d[2])).toBe(20);
  });

  it('returns null for an empty table', () => {
    expect(survivalChart([], { width: 100, height: 100, title: 't', description: 'd' })).toBeNull();
  });
});
