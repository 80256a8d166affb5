// What every chart of the site does to Observable Plot's output (src/charts/*.ts, one module per
// chart): render with linkedom (one DOM library, so snapshots are stable), then make the SVG a
// standalone, accessible image — xmlns (Plot leaves it out), role img, <title> and <desc> first —
// and drop Plot's per-mark aria-labels, which are prohibited ARIA on plain <g> elements (axe:
// aria-prohibited-attr); each chart is backed by a data table on its page.
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A chart's accessible title and description (also the standalone SVG's <title>/<desc>). */
export interface ChartText {
  title: string;
  description: string;
}

export interface ChartSize {
  width: number;
  height: number;
}

/**
 * The sizes pages draw each chart at. Wide fits the content column from 48rem up unscaled; narrow is
 * drawn for a phone (a 390 px screen leaves 350 px) rather than shrunk, so its 12 px text stays 12 px
 * (the wide chart scaled to a phone had ~5 px axis text).
 */
export const WIDE: ChartSize = { width: 720, height: 380 };
export const NARROW: ChartSize = { width: 340, height: 300 };

/** Text style of every chart: at NARROW and WIDE the SVG is shown unscaled, so these are pixels on screen. */
export const CHART_STYLE = { fontFamily: 'system-ui, sans-serif', fontSize: '12px', background: 'white' };

export function plotDocument(): Document {
  return parseHTML('<!doctype html><html><body></body></html>').document as unknown as Document;
}

/** Plot.plot with our document and style, finished as a standalone accessible SVG string. */
export function plotSvg(options: Plot.PlotOptions, text: ChartText): string {
  const document = plotDocument();
  const svg = Plot.plot({ document, style: CHART_STYLE, ...options }) as unknown as Element;
  return finishSvg(svg, document, text);
}

/**
 * The <svg role="img"> is named by <title>/<desc> and backed by a data table on the page; Plot's
 * per-mark aria-labels on plain <g> elements are prohibited ARIA there (axe: aria-prohibited-attr).
 */
export function finishSvg(svg: Element, document: Document, text: ChartText): string {
  for (const el of svg.querySelectorAll('[aria-label],[aria-description]')) {
    el.removeAttribute('aria-label');
    el.removeAttribute('aria-description');
  }
  svg.setAttributeNS('http://www.w3.org/2000/xmlns/', 'xmlns', SVG_NS);
  svg.setAttribute('role', 'img');
  const title = document.createElementNS(SVG_NS, 'title');
  title.textContent = text.title;
  const desc = document.createElementNS(SVG_NS, 'desc');
  desc.textContent = text.description;
  svg.insertBefore(desc, svg.firstChild);
  svg.insertBefore(title, svg.firstChild);
  return svg.outerHTML;
}

/** A day (YYYY-MM-DD) as the instant Plot's utc scales take. */
export function utcDay(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}
