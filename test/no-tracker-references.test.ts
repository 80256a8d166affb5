// No pointer to an issue tracker the repository does not carry ("issue 23", "(issue 4)", "#27") in any
// tracked text file a reader or a page is made from: code, docs, methodology pages and changelog, tests,
// the Action. The reason is said instead, or the date and the changelog entry.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { trackerReferences } from './helpers/tracker-references.ts';

const ROOT = path.join(import.meta.dirname, '..');

/** Where the rule holds (git pathspecs). */
const COVERED = ['src', 'collector', 'mcp', 'sandbox', 'scripts', 'bin', 'pipeline', 'packages', 'bench', 'docs', 'content', 'test', 'README.md', 'action.yml', '.github', ':(glob)*.mjs', ':(glob)**/README.md'];

/** Left out, each with its reason. */
const SKIPPED: ReadonlyArray<{ prefix: string; reason: string }> = [
  { prefix: 'test/output/', reason: 'goldens: registry and server text (hostile ids such as "…#2025-12-19-…"), not ours' },
  { prefix: 'test/fixtures/', reason: 'recorded third-party data' },
  { prefix: 'test/helpers/tracker-references.ts', reason: 'the patterns, with the examples they must catch' },
  { prefix: 'test/no-tracker-references.test.ts', reason: 'this test, with its near-miss examples' },
  { prefix: 'test/docs.test.ts', reason: 'its own near-miss examples of the same check' },
];

/** References allowed where they stand, each with its reason. */
const ALLOWED: ReadonlyArray<{ file: string; text: string; reason: string }> = [
  { file: 'src/lib/hidden-characters.ts', text: '#51', reason: 'Unicode Technical Standard 51 ("UTS #51", emoji), a standard, not a tracker' },
];

function trackedTextFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', ...COVERED], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return [...new Set(out.split('\0').filter(Boolean))].filter((f) => !SKIPPED.some((s) => f.startsWith(s.prefix)));
}

/** Text, or null for a binary (a NUL byte in its first 8,000 bytes, as git decides) or a file gone from the work tree. */
function textOf(file: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(ROOT, file));
  } catch {
    return null;
  }
  return bytes.subarray(0, 8000).includes(0) ? null : bytes.toString('utf8');
}

/** "file:line: reference" for every reference not in ALLOWED. */
function offences(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const ref of trackerReferences(line)) if (!ALLOWED.some((a) => a.file === file && ref === a.text)) found.push(`${file}:${i + 1}: ${ref}`);
  });
  return found;
}

describe('tracker references', () => {
  it('appear in no tracked code, doc, page, test or workflow file', () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(300); // the listing worked: the check saw the tree
    expect(files).toContain('content/methodology/v2.mdx');
    expect(files).toContain('action.yml');
    const found = files.flatMap((f) => {
      const text = textOf(f);
      return text === null ? [] : offences(f, text);
    });
    expect(found).toEqual([]);
  });

  it('each exception is still needed (an allowed reference that is gone is taken off the list)', () => {
    for (const a of ALLOWED) expect(trackerReferences(textOf(a.file) ?? ''), a.file).toContain(a.text);
  });

  it('catches a reference and not its near misses', () => {
    expect(trackerReferences('see issue 23; (issue 4) and (issue 13, phase 2b); issues 12 and 18; Issue 16: x')).toEqual(['issue 23', 'issue 4', 'issue 13', 'issues 12', 'Issue 16']);
    expect(trackerReferences("issue 12's rule, issue #5, fixed in #27, and #7.")).toEqual(['issue 12', 'issue #5', '#27', '#7']);
    expect(trackerReferences('color: #fff; a tissue 3 cm wide; an issue with 2 parts; the `get_issue` tool; `&#60;`')).toEqual([]);
    expect(trackerReferences("'#39': \"'\", fill: #000; the anchor #change-<id>, /data/#name-indexes, a#1, spec PR #3002")).toEqual([]);
    expect(offences('x.ts', 'one\n// done (issue 23)\n')).toEqual(['x.ts:2: issue 23']);
    expect(offences('src/lib/hidden-characters.ts', 'UTS #51 and #52')).toEqual(['src/lib/hidden-characters.ts:1: #52']);
  });
});
