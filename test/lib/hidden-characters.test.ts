import { describe, expect, it } from 'vitest';
import { escapeHidden, hiddenCharacters, showHidden } from '../../src/lib/hidden-characters.ts';

describe('hiddenCharacters(text)', () => {
  it.each([
    ['a zero-width space', 'a\u200Bb', ['\u200B']],
    ['tag characters (ASCII smuggling)', 'ok\u{E0049}\u{E0047}', ['\u{E0049}', '\u{E0047}']],
    ['a bidi override', 'abc\u202Edef', ['\u202E']],
    ['a bidi isolate and a right-to-left mark', '\u2067x\u2069\u200F', ['\u2067', '\u2069', '\u200F']],
    ['ESC (a terminal escape)', 'x\u001B[2J', ['\u001B']],
    ['a soft hyphen', 'pass\u00ADword', ['\u00AD']],
    ['a zero-width joiner between letters', 'a\u200Db', ['\u200D']],
    ['a variation selector from the supplement (emoji smuggling)', 'x\u{E0100}', ['\u{E0100}']],
    ['the tags of an unrecommended flag sequence', '\u{1F3F4}\u{E0075}\u{E0073}\u{E007F}', ['\u{E0075}', '\u{E0073}', '\u{E007F}']],
  ])('finds %s', (_what, text, want) => {
    expect(hiddenCharacters(text)).toEqual(want);
  });
  it.each([
    ['tab, line feed, carriage return', 'a\tb\r\nc'],
    ['an emoji with its presentation selector', 'Warning \u26A0\uFE0F'],
    ['an emoji ZWJ sequence', '\u{1F469}\u200D\u{1F4BB}'],
    ['the Scotland flag (a recommended tag sequence)', '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'],
    ['accents, CJK and right-to-left letters', 'caf\u00E9 \u6F22\u5B57 \u05E9\u05DC\u05D5\u05DD'],
  ])('finds none in %s', (_what, text) => {
    expect(hiddenCharacters(text)).toEqual([]);
  });
});

describe('showHidden(text)', () => {
  it('writes hidden characters as visible escapes and leaves the rest', () => {
    expect(showHidden('a\u200Bb\u{E0041} \u26A0\uFE0F\n')).toBe('a\\u{200B}b\\u{E0041} \u26A0\uFE0F\n');
  });
});

describe('escapeHidden(text, escape)', () => {
  it('keeps a recommended subdivision flag whole and escapes the tags of any other tag sequence', () => {
    const wales = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}';
    const mark = (c: string) => `[${c.codePointAt(0)!.toString(16)}]`;
    expect(escapeHidden(`Wales ${wales}`, mark)).toBe(`Wales ${wales}`);
    expect(showHidden(wales)).toBe(wales);
    expect(escapeHidden('\u{1F3F4}\u{E0075}\u{E007F}', mark)).toBe('\u{1F3F4}[e0075][e007f]');
  });
});
