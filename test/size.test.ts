// The size rule: no source file of the tree that runs is over 600 lines, unless test/size-waivers.json
// lists it with its reason and the line count it may reach. A file that long is several concerns a
// reader has to hold at once; the rule makes the split happen when the file grows, not a year later.
// A waiver is for a file someone is splitting now: it fails once the file is split (remove it then)
// and the moment the file grows past the count it was given.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..');
/** The folders of code that runs (test/ is held to its own conventions, not this rule). */
const ROOTS = ['src', 'collector', 'mcp', 'sandbox', 'scripts', 'bench', 'bin'];
/** Source: code and styles. Docs (.md), data (.json) and fixtures are not. */
const SOURCE = /\.(ts|mts|cts|tsx|js|mjs|cjs|astro|sh|css)$/;
const LIMIT = 600;

interface Waiver {
  file: string;
  /** The line count the file may reach while the waiver stands. */
  lines: number;
  reason: string;
}

/** Lines as `wc -l` and an editor count them: a final newline ends the last line, it does not start one. */
function lineCount(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/** What breaks the rule: a file over the limit without a waiver, over its waiver, or a waiver no longer needed. */
function sizeProblems(files: ReadonlyArray<{ file: string; text: string }>, waivers: readonly Waiver[], limit = LIMIT): string[] {
  const problems: string[] = [];
  const byFile = new Map(waivers.map((w) => [w.file, w]));
  const seen = new Set<string>();
  for (const { file, text } of files) {
    const n = lineCount(text);
    const w = byFile.get(file);
    if (w) seen.add(file);
    if (n <= limit) {
      if (w) problems.push(`${file}: ${n} lines, within ${limit}: remove its waiver`);
    } else if (!w) problems.push(`${file}: ${n} lines, over ${limit}: split it by concern (or waive it in test/size-waivers.json with a reason)`);
    else if (n > w.lines) problems.push(`${file}: ${n} lines, over its waiver's ${w.lines}: split it rather than raise the waiver`);
  }
  for (const w of waivers) if (!seen.has(w.file)) problems.push(`${w.file}: waived but not found: remove its waiver`);
  return problems;
}

function sources(): Array<{ file: string; text: string }> {
  return ROOTS.flatMap((root) =>
    (readdirSync(path.join(ROOT, root), { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
      .filter((e) => e.isFile() && SOURCE.test(e.name))
      .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .sort()
      .map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') })),
  );
}

const waivers = JSON.parse(readFileSync(path.join(import.meta.dirname, 'size-waivers.json'), 'utf8')) as Waiver[];

describe(`source files of ${ROOTS.join(', ')}`, () => {
  const files = sources();

  it('are found (the walk reached every folder)', () => {
    for (const f of ['src/lib/index.ts', 'collector/run.ts', 'mcp/server.ts', 'sandbox/world.ts', 'scripts/use-node.sh', 'bench/years.ts', 'bin/mcp-schema-check.mjs']) expect(files.map((x) => x.file)).toContain(f);
  });

  it(`are at most ${LIMIT} lines each, or waived with a reason`, () => {
    expect(sizeProblems(files, waivers)).toEqual([]);
  });

  it('have waivers that each say why and allow more than the limit', () => {
    for (const w of waivers) {
      expect(w.reason.length, w.file).toBeGreaterThan(20);
      expect(w.lines, w.file).toBeGreaterThan(LIMIT);
    }
  });
});

describe('the size rule (near misses)', () => {
  const lines = (n: number) => 'x\n'.repeat(n);

  it('counts lines as wc -l does, with or without a final newline', () => {
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount(lines(600))]).toEqual([0, 1, 1, 2, 600]);
  });

  it('passes 600 lines and flags 601', () => {
    expect(sizeProblems([{ file: 'src/a.ts', text: lines(600) }], [])).toEqual([]);
    expect(sizeProblems([{ file: 'src/a.ts', text: lines(600) + 'x' }], [])).toEqual(['src/a.ts: 601 lines, over 600: split it by concern (or waive it in test/size-waivers.json with a reason)']);
  });

  it('lets a waived file reach its count and not one line more', () => {
    const waiver = [{ file: 'src/a.ts', lines: 700, reason: 'being split by the test; waiver removed when split' }];
    expect(sizeProblems([{ file: 'src/a.ts', text: lines(700) }], waiver)).toEqual([]);
    expect(sizeProblems([{ file: 'src/a.ts', text: lines(701) }], waiver)).toEqual(["src/a.ts: 701 lines, over its waiver's 700: split it rather than raise the waiver"]);
  });

  it('flags a waiver once its file is split or gone', () => {
    const waiver = [{ file: 'src/a.ts', lines: 700, reason: 'being split by the test; waiver removed when split' }];
    expect(sizeProblems([{ file: 'src/a.ts', text: lines(600) }], waiver)).toEqual(['src/a.ts: 600 lines, within 600: remove its waiver']);
    expect(sizeProblems([], waiver)).toEqual(['src/a.ts: waived but not found: remove its waiver']);
  });
});
