// The README's first screen: what the project is in two sentences, the two commands, a
// screenshot of the demo's dashboard (made by `npm run screenshot`, so it stays true) and where to go
// next — every link of it leading somewhere, and the whole of it on one 1280×900 screen of GitHub's
// rendering (an estimate: GitHub's README column is about 830 px wide at a 1280 px window, 16 px text
// at about 110 characters a line).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const top = readme.slice(0, readme.indexOf('\nRuntime: '));

/** GitHub's heading anchors: lower case, punctuation other than - and _ dropped, spaces to -. */
const anchors = new Set([...readme.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));

describe('the README\'s first screen', () => {
  it('says what it is in two sentences, then the two commands', () => {
    const intro = top.slice(top.indexOf('\n\n') + 2, top.indexOf('```sh')).trim();
    expect(intro.replace(/\s+/g, ' ').split(/[.!?](\s|$)/).filter((s) => s.trim().length > 1).length).toBeLessThanOrEqual(2);
    const commands = top.split('```sh\n')[1]!.split('\n```')[0]!.split('\n');
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatch(/npm run demo\b/);
    expect(commands[1]).toMatch(/npm test\b/);
  });

  it('shows the dashboard screenshot a script made from the demo (PNG, 1280 wide)', () => {
    const img = /!\[[^\]]+\]\(([^)]+\.png)\)/.exec(top)?.[1];
    expect(img).toBe('docs/dashboard.png');
    const png = readFileSync(path.join(ROOT, img!));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 640]);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.screenshot).toBe('tsx scripts/screenshot.ts');
    expect(readFileSync(path.join(ROOT, 'scripts', 'screenshot.ts'), 'utf8')).toContain("'docs/dashboard.png'");
  });

  it('says where to go next, and every link of the first screen leads somewhere', () => {
    const next = /\*\*Where next:\*\*([\s\S]*?)(\n\n|$)/.exec(top)?.[1] ?? '';
    expect(next).toMatch(/use the data[\s\S]*run it for real[\s\S]*how it works[\s\S]*contribute/);
    for (const [, target] of top.matchAll(/\]\(([^)]+)\)/g)) {
      if (target!.startsWith('#')) expect(anchors, target).toContain(target!.slice(1));
      else expect(existsSync(path.join(ROOT, target!)), target).toBe(true);
    }
  });

  it('fits one 1280×900 screen (estimated at GitHub\'s rendering)', () => {
    const prose = top.split('\n\n').filter((b) => !b.startsWith('#') && !b.startsWith('```') && !b.startsWith('[![') && !b.startsWith('. scripts'));
    const lines = prose.reduce((n, b) => n + Math.ceil(b.replace(/\[([^\]]*)\]\([^)]*\)|<[^>]+>|[`*]/g, '$1').length / 110), 0);
    // Title 56 px, a paragraph line 24 px and 16 px after each block, the code block 2 × 20 + 32 px,
    // the 1280×640 screenshot scaled to 830 px wide (415 px), the page's header above it ~ 110 px.
    const height = 110 + 56 + lines * 24 + prose.length * 16 + 72 + 16 + 415 + 16;
    expect(height).toBeLessThanOrEqual(900);
  });
});

/** The README's prose as sentences: code blocks left out, table rows and list items each their own block. */
function sentencesOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '\n\n');
  const blocks = prose.split(/\n\s*\n|\n(?=\||- |\d+\. )/).map((b) => b.replace(/\s+/g, ' ').trim()).filter(Boolean);
  return blocks.flatMap((b) => b.split(/(?<=[.!?:])\s+(?=[A-Z`*[(])/)).map((s) => s.trim()).filter(Boolean);
}

describe('the README as a whole', () => {
  it('stays an entrance, not a notebook: at most 1,300 words', () => {
    expect(readme.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(1300);
  });

  it('says nothing twice: no paragraph, and no sentence of 12 words or more, repeated', () => {
    const paragraphs = readme.replace(/```[\s\S]*?```/g, '').split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => p.length > 0 && !p.startsWith('#'));
    expect(paragraphs.filter((p, i) => paragraphs.indexOf(p) !== i)).toEqual([]);
    const long = sentencesOf(readme).filter((s) => s.split(' ').length >= 12);
    expect(long.filter((s, i) => long.indexOf(s) !== i)).toEqual([]);
  });

  it('has no sentence over 80 words', () => {
    expect(sentencesOf(readme).filter((s) => s.split(' ').length > 80)).toEqual([]);
  });

  it('would notice a repeated sentence and a long one (the checks can fail)', () => {
    const sentence = 'Every day it asks each server in the official registry for its tools and keeps the raw answer.';
    const twice = sentencesOf(`${sentence}\n\nSomething else. ${sentence}`).filter((s) => s.split(' ').length >= 12);
    expect(twice.filter((s, i) => twice.indexOf(s) !== i)).toHaveLength(1);
    expect(sentencesOf(`${'word '.repeat(81)}end.`).filter((s) => s.split(' ').length > 80)).toHaveLength(1);
    expect(sentencesOf('```sh\n' + 'x '.repeat(100) + '\n```')).toEqual([]);
  });
});
