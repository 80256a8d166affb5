// What a page looks like to a reader, measured in the browser (page.evaluate(legibility)): the
// checks that the site reads on a phone. Self-contained: it runs in the page.
//   - small: text nodes rendered under 11 px (computed font size of their element);
//   - smallChartText: SVG <text> whose size on screen (font size × the SVG's scale) is under 11 px;
//   - brokenWords: a word (a run of letters and digits; CJK and Thai, which break between characters,
//     aside) whose text spans two lines, unless the word
//     alone is wider than its block (a 64-hex hash cannot fit a phone: breaking it is the only way);
//     <pre> and preformatted text (diffs, snippets) are left out — they scroll or wrap by design;
//   - wrappedDates: a date (YYYY-MM-DD) in running text, or a <time> or .date element, whose text
//     spans two lines ("2026-|01-17");
//   - overflow: how far the page is wider than the viewport (≤ 0 means no sideways scroll).
export interface Legibility {
  textNodes: number;
  small: string[];
  smallChartText: string[];
  brokenWords: string[];
  wrappedDates: string[];
  overflow: number;
  visibleCharts: number;
}

export function legibility(): Legibility {
  const MIN = 11;
  const out: Legibility = { textNodes: 0, small: [], smallChartText: [], brokenWords: [], wrappedDates: [], overflow: 0, visibleCharts: 0 };
  const visible = (el: Element) => {
    if (el.closest('.visually-hidden, [hidden], details:not([open]) > :not(summary)')) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const lines = (rects: DOMRectList) => new Set([...rects].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  const block = (el: Element): Element => {
    let e: Element | null = el;
    while (e && getComputedStyle(e).display.startsWith('inline')) e = e.parentElement;
    return e ?? el;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    const text = n.textContent ?? '';
    if (!el || !text.trim() || el.closest('svg, script, style, noscript') || !visible(el)) continue;
    out.textNodes++;
    const style = getComputedStyle(el);
    if (parseFloat(style.fontSize) < MIN) out.small.push(`${parseFloat(style.fontSize).toFixed(1)} px: ${text.trim().slice(0, 40)}`);
    if (el.closest('pre') || style.whiteSpace.startsWith('pre')) continue;
    for (const m of text.matchAll(/\d{4}-\d\d-\d\d/g)) {
      const range = document.createRange();
      range.setStart(n, m.index!);
      range.setEnd(n, m.index! + m[0].length);
      if (lines(range.getClientRects()) > 1) out.wrappedDates.push(`${m[0]} in "${text.trim().slice(0, 60)}"`);
    }
    const width = block(el).clientWidth;
    for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
      // Chinese, Japanese, Korean and Thai text breaks between characters by the rules of its script.
      if (m[0].length < 2 || /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u.test(m[0])) continue;
      const range = document.createRange();
      range.setStart(n, m.index!);
      range.setEnd(n, m.index! + m[0].length);
      const rects = range.getClientRects();
      if (lines(rects) > 1) {
        const total = [...rects].reduce((s, r) => s + r.width, 0);
        if (total <= width) out.brokenWords.push(`"${m[0].slice(0, 30)}" in "${text.trim().slice(0, 60)}"`);
      }
    }
  }
  for (const el of document.querySelectorAll('time, .date')) {
    if (!visible(el) || !/\d{4}-\d\d-\d\d/.test(el.textContent ?? '')) continue;
    const range = document.createRange();
    range.selectNodeContents(el);
    if (lines(range.getClientRects()) > 1) out.wrappedDates.push(el.textContent!.trim());
  }
  for (const svg of document.querySelectorAll('svg')) {
    if (!visible(svg)) continue;
    const drawn = svg.viewBox.baseVal?.width || Number(svg.getAttribute('width')) || svg.getBoundingClientRect().width;
    const scale = svg.getBoundingClientRect().width / drawn;
    if (svg.closest('.chart')) out.visibleCharts++;
    for (const t of svg.querySelectorAll('text')) {
      if (!(t.textContent ?? '').trim()) continue;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < MIN - 0.05) out.smallChartText.push(`${px.toFixed(1)} px: ${t.textContent!.trim().slice(0, 30)}`);
    }
  }
  out.overflow = document.documentElement.scrollWidth - window.innerWidth;
  return out;
}

/**
 * Run `legibility` in a page. esbuild under tsx (keepNames) wraps named inner functions in `__name(…)`,
 * which does not exist in the page: a no-op stands in for it.
 */
export async function measureLegibility(page: { evaluate: (f: string | (() => Legibility)) => Promise<unknown> }): Promise<Legibility> {
  await page.evaluate('globalThis.__name = globalThis.__name || ((f) => f)');
  return (await page.evaluate(legibility)) as Legibility;
}
