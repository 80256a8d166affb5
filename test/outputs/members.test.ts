import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvLine } from '../../src/outputs/members.ts';

/** RFC 4180 cells of one line (the test's own reader: quoted cells, doubled quotes). */
function cells(line: string): string[] {
  expect(line.endsWith('\r\n')).toBe(true);
  const out: string[] = [];
  const body = line.slice(0, -2);
  let i = 0;
  for (;;) {
    if (body[i] === '"') {
      let v = '';
      i++;
      for (;;) {
        const q = body.indexOf('"', i);
        v += body.slice(i, q);
        if (body[q + 1] === '"') {
          v += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(v);
    } else {
      const end = body.indexOf(',', i);
      out.push(body.slice(i, end === -1 ? undefined : end));
      i = end === -1 ? body.length : end;
    }
    if (i >= body.length) return out;
    expect(body[i]).toBe(',');
    i++;
  }
}

describe('csvLine(values)', () => {
  it.each([
    [['a', 1, true, null], 'a,1,true,\r\n'],
    [['say "hi", then go'], '"say ""hi"", then go"\r\n'],
    [['line\nbreak'], `"line\nbreak"\r\n`],
    [['=HYPERLINK("http://x")'], `"'=HYPERLINK(""http://x"")"\r\n`],
    [['@SUM(A1)', '+1', '-1'], "'@SUM(A1),'+1,'-1\r\n"],
    [[-1, { a: 1 }], '-1,"{""a"":1}"\r\n'],
  ])('writes %j as %j (text a spreadsheet would run gets a leading apostrophe; numbers never do)', (values, line) => {
    expect(csvLine(values)).toBe(line);
  });

  // OWASP "CSV Injection": no cell begins with = + - @ tab CR LF; ASVS 1.2.10 adds NUL; leading
  // whitespace or control characters before = + - @ do not hide a formula.
  it.each([
    [' =1+1', "' =1+1"],
    ['   @SUM(A1)', "'   @SUM(A1)"],
    ['\u00a0+1', "'\u00a0+1"],
    ['\u3000-1', "'\u3000-1"],
    ['\ufeff=1', "'\ufeff=1"],
    ['\u0001=1', "'\u0001=1"],
    ['\t=1', `"'\t=1"`],
    ['\tplain', `"'\tplain"`],
    ['\rplain', `"'\rplain"`],
    ['\nplain', `"'\nplain"`],
    ['\r\n=cmd|\' /C calc\'!A0', `"'\r\n=cmd|' /C calc'!A0"`],
    ['\u0000x', "'\u0000x"],
    [' plain', ' plain'],
    ['a=1', 'a=1'],
    ['ok -1', 'ok -1'],
  ])('neutralises %j as %j', (value, cell) => {
    expect(csvLine([value])).toBe(`${cell}\r\n`);
  });

  it.each([
    ['a;=1+1', '"a;=1+1"'],
    ['a\t=1+1', '"a\t=1+1"'],
    ['x,@SUM(A1)', '"x,@SUM(A1)"'],
  ])('quotes %j so a reader splitting on ; or tab cannot start a cell inside it', (value, cell) => {
    expect(csvLine([value])).toBe(`${cell}\r\n`);
  });

  it('for any text, reads back as one cell per value that is the value or the value after an apostrophe, and the apostrophe only when needed', () => {
    const risky = fc.constantFrom('=', '+', '-', '@', ' ', '\t', '\r', '\n', '\u0000', '\u00a0', ',', ';', '"', "'", 'a', '1');
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: risky, maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 20 })), { minLength: 1, maxLength: 5 }), (values) => {
        const read = cells(csvLine(values));
        expect(read).toHaveLength(values.length);
        values.forEach((v, i) => {
          const formula = /^(?:[\t\r\n\0]|[\s\p{Cc}]*[=+\-@])/u.test(v);
          expect(read[i]).toBe(formula ? `'${v}` : v);
          // What a spreadsheet sees first: never a formula sign after only blanks, never tab/CR/LF/NUL.
          expect(read[i]).not.toMatch(/^(?:[\t\r\n\0]|[\s\p{Cc}]*[=+\-@])/u);
          // A separator, quote or line break inside a cell always comes quoted.
          const raw = csvLine([v]);
          if (/[,;"\t\r\n]/.test(v)) expect(raw.startsWith('"')).toBe(true);
        });
      }),
    );
  });
});
