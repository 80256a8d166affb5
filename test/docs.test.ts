// The docs hold the decisions in force, not lab notebooks: no pointer to a tracker the repository does
// not carry (a reader cannot follow it: the reason is said instead), each doc within its word budget,
// and every relative link leading to a file or heading that exists.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { trackerReferences } from './helpers/tracker-references.ts';

const ROOT = path.join(import.meta.dirname, '..');

/** The docs these rules cover. OPERATIONS.md, ARCHIVE.md and CHECK.md are left out for now. */
const DOCS = ['README.md', 'docs/DESIGN.md', 'docs/MUTATION.md', 'docs/VALIDATION.md', 'docs/CONTRIBUTING.md', 'bench/README.md', 'sandbox/README.md'];

// DESIGN grew by the daily pipeline's shards, the site's incremental pages, the bucket's failures and
// contract families (2026-12-07): 10,000 words, each section a decision in force with its reason.
const BUDGETS: Record<string, number> = { 'README.md': 1300, 'docs/DESIGN.md': 10000, 'docs/MUTATION.md': 3000, 'bench/README.md': 5000 };

const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** GitHub's heading anchors: lower case, punctuation other than - and _ dropped, spaces to -, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, title] of stripFences(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = title!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Fenced code blocks removed: a heading shown as code is not one. */
function stripFences(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** Fenced code blocks and inline code removed: a link shown as code is not one. */
function stripCode(markdown: string): string {
  return stripFences(markdown).replace(/`[^`\n]*`/g, '');
}

/** Relative links of a Markdown file that lead nowhere: a missing file, or a missing heading in the target. */
function brokenLinks(file: string, markdown: string, readTarget: (file: string) => string | null): string[] {
  const broken: string[] = [];
  for (const [, target] of stripCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
    const [rel, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = rel === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), rel));
    const text = readTarget(resolved);
    if (text === null) broken.push(`${target} (no file ${resolved})`);
    else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(text).has(anchor)) broken.push(`${target} (no heading #${anchor} in ${resolved})`);
  }
  return broken;
}

function readTarget(file: string): string | null {
  const full = path.join(ROOT, file);
  if (!existsSync(full)) return null;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
}

describe('the docs', () => {
  it('hold no tracker reference: a reader cannot follow one, so the reason is said instead', () => {
    for (const file of DOCS) expect(trackerReferences(read(file)), file).toEqual([]);
  });

  it('stay within their word budgets', () => {
    for (const [file, budget] of Object.entries(BUDGETS)) expect(words(read(file)), file).toBeLessThanOrEqual(budget);
  });

  it('have a CONTRIBUTING that covers setup, tests, the house rules and changing a methodology', () => {
    const text = read('docs/CONTRIBUTING.md');
    for (const heading of ['set-up', 'test', 'house-rules', 'changing-a-methodology']) expect(anchorsOf(text), heading).toContain(heading);
    expect(text).toContain('scripts/use-node.sh');
  });

  it('link only to files and headings that exist', () => {
    for (const file of DOCS) expect(brokenLinks(file, read(file), readTarget), file).toEqual([]);
  });

  it('would notice a tracker reference, a doc over budget and a broken link (the checks can fail)', () => {
    expect(trackerReferences('as issue 40 says; see (issue 12) and #7; issues 18 and 27')).toEqual(['issue 40', 'issue 12', 'issues 18', '#7']);
    expect(trackerReferences('the `get_issue` tool, a zod issue, `&#60;`, the anchor #change-<id>')).toEqual([]);
    expect(words('one two  three\nfour')).toBe(4);
    const docs: Record<string, string> = { 'docs/A.md': '# A\n## The one idea\n## Layout (`data/`)\n## Layout (`data/`)\n', 'docs/B.md': '' };
    const fake = (f: string): string | null => docs[f] ?? null;
    expect(brokenLinks('docs/B.md', '[a](A.md#the-one-idea) [b](A.md#layout-data-1) [c](https://x.org/y) `[d](C.md)`', fake)).toEqual([]);
    expect(brokenLinks('docs/B.md', '[a](A.md#the-one-ideas) [b](C.md) [c](../docs/A.md#layout-data-2)', fake)).toEqual([
      'A.md#the-one-ideas (no heading #the-one-ideas in docs/A.md)',
      'C.md (no file docs/C.md)',
      '../docs/A.md#layout-data-2 (no heading #layout-data-2 in docs/A.md)',
    ]);
  });
});
