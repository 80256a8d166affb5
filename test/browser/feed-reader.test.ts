// A naive feed reader in Chromium: it XML-decodes each RSS <description> and puts it into a page's
// innerHTML, the way readers treat descriptions (as HTML). Whatever registry text a change carries,
// that reader must run nothing and show the text. Bounded: ~170 changes in one page, one evaluate.
import fc from 'fast-check';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChangeView } from '../../src/loader/load-archive.ts';
import { changeSummary, rssFeed, serverChannel } from '../../src/outputs/feeds.ts';
import { TEST_PUBLICATION } from '../helpers/publication.ts';
import { xmlText } from '../../src/outputs/xml-text.ts';
import { hostileChange, PAYLOADS } from '../helpers/hostile-text.ts';
import { parseRss } from '../helpers/strict-rss.ts';
import { browserSuite, launchChromium } from './chromium.ts';

interface Reading {
  ran: unknown;
  /** Tag names of every element the descriptions produced. */
  tags: string[];
  /** textContent of each description, as rendered. */
  texts: string[];
}

/** Put each HTML string into its own <article> by innerHTML, let queued handlers run, report. */
async function naiveReader(page: Page, descriptions: string[]): Promise<Reading> {
  await page.setContent('<!doctype html><meta charset="utf-8"><title>reader</title><body></body>');
  return page.evaluate(async (ds) => {
    const w = window as unknown as { __ran: unknown };
    w.__ran = 0;
    const root = document.createElement('main');
    document.body.append(root);
    const boxes = ds.map((d) => {
      const box = document.createElement('article');
      box.innerHTML = d;
      root.append(box);
      return box;
    });
    // Our own failing image, made after every description: once its error handler has run, the
    // error and load handlers queued by the descriptions' elements have had their turn too.
    await new Promise((resolve) => {
      const img = document.createElement('img');
      img.onerror = resolve;
      img.src = 'x';
      document.body.append(img);
    });
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return { ran: w.__ran, tags: [...new Set([...root.querySelectorAll('article *')].map((e) => e.tagName))], texts: boxes.map((b) => b.textContent ?? '') };
  }, descriptions);
}

browserSuite('a naive feed reader in Chromium (each description into innerHTML)', () => {
  let browser: Browser;
  let page: Page;
  let dialogs = 0;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('would catch a description that carried live markup (the payloads run when given raw)', async () => {
    const reading = await naiveReader(page, PAYLOADS);
    expect(reading.ran).not.toBe(0);
    expect(reading.tags).toContain('IMG');
  });

  it('runs nothing and shows exactly the text, for known payloads and arbitrary text in every field', async () => {
    const known: ChangeView[] = PAYLOADS.map((p, i) => ({
      ...fc.sample(hostileChange(), { numRuns: 1, seed: i })[0]!,
      target: `io.github.evil/${p}`,
      diff: { added: [p], removed: [p], changed: [{ name: p, surfaces: [], input: [], output: [] }], returned: [] },
      diffProblem: null,
      findings: [{ rule: p, axis: 'security', level: 'HIGH', tool: p, path: p, before: null, after: null, fingerprint: '0123456789ab', message: `${p}${p}` }],
    }));
    const changes = [...known, ...fc.sample(hostileChange(), { numRuns: 150, seed: 20261130 })];
    const feed = parseRss(await rssFeed(changes, serverChannel(PAYLOADS.join(''), 'io.github.evil_x'), TEST_PUBLICATION));
    expect(feed.items).toHaveLength(changes.length);
    dialogs = 0;
    const reading = await naiveReader(page, feed.items.map((i) => i.description));
    expect(reading.ran).toBe(0);
    expect(dialogs).toBe(0);
    // The only element a description may produce is our line break: no img, svg, script, iframe, a…
    expect(reading.tags.filter((t) => t !== 'BR')).toEqual([]);
    changes.forEach((c, i) => expect(reading.texts[i], `change ${i}`).toBe(xmlText(changeSummary(c)).replace(/\r\n?/g, '\n')));
  });
});
