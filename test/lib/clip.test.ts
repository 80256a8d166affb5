// clip: unvetted registry text cut to a bound wherever it is quoted, the cut shown by an ellipsis.
import { describe, expect, it } from 'vitest';
import { clip } from '../../src/lib/clip.ts';

describe('clip(text, max)', () => {
  it('leaves text of max code units or fewer unchanged', () => {
    expect(clip('abcde', 5)).toBe('abcde');
    expect(clip('abc', 5)).toBe('abc');
    expect(clip('', 0)).toBe('');
  });

  it('cuts text one over max to its first max code units and an ellipsis', () => {
    expect(clip('abcdef', 5)).toBe('abcde…');
    expect(clip('abcdefghij', 3)).toBe('abc…');
  });

  it('never splits a surrogate pair: the cut moves back one unit before a high surrogate', () => {
    // '🔧' is two code units (\ud83d\udd27); max 3 would end on its high surrogate
    expect(clip('ab🔧cd', 3)).toBe('ab…');
    expect(clip('ab🔧cd', 4)).toBe('ab🔧…');
    expect(clip('ab🔧cd', 2)).toBe('ab…');
    expect(clip('ab🔧cd', 3)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('keeps a cut at any other character, including a low surrogate ending a pair', () => {
    expect(clip('a🔧b', 3)).toBe('a🔧…');
    expect(clip('aébc', 2)).toBe('aé…');
  });

  it('cuts to a bare ellipsis at max 0, and at max 1 before a pair', () => {
    expect(clip('abc', 0)).toBe('…');
    expect(clip('🔧', 1)).toBe('…');
  });
});
