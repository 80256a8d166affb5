import { describe, expect, it } from 'vitest';
import { csvLine } from '../../src/outputs/bundles.ts';

describe('csvLine(values)', () => {
  it.each([
    [['a', 1, true, null], 'a,1,true,\r\n'],
    [['say "hi", then go'], '"say ""hi"", then go"\r\n'],
    [['line\nbreak'], '"line\nbreak"\r\n'],
    [['=HYPERLINK("http://x")'], `"'=HYPERLINK(""http://x"")"\r\n`],
    [['@SUM(A1)', '+1', '-1'], "'@SUM(A1),'+1,'-1\r\n"],
    [[-1, { a: 1 }], '-1,"{""a"":1}"\r\n'],
  ])('writes %j as %j (text a spreadsheet would run gets a leading apostrophe; numbers never do)', (values, line) => {
    expect(csvLine(values)).toBe(line);
  });
});
