// Hostile text as data (collector/check/text.ts) and the published-archive reader's confinement
// (collector/check/archive.ts), on their own: every control, bidi and invisible character comes out as a
// visible escape, quoting cannot be broken out of, and no site path leaves the archive folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PublishedArchive } from '../../collector/check/archive.ts';
import { oneLine, quoted, visibleData } from '../../collector/check/text.ts';
import { hiddenCharacters } from '../../src/lib/index.ts';
import { BIDI, CONTROLS, hostileText } from '../helpers/hostile-text.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const tmp = scratchDirs();

describe('quoted()', () => {
  it('escapes every C0/C1 control and bidi control, and TAB/LF/CR too', () => {
    for (const c of CONTROLS) {
      const q = quoted(`a${c}b`);
      expect(hiddenCharacters(q), `U+${c.codePointAt(0)!.toString(16)}`).toEqual([]);
      expect(q).not.toMatch(/[\t\n\r]/);
    }
    expect(quoted('a\u2028b\u2029')).toBe('"a\\u{2028}b\\u{2029}"');
    for (const c of BIDI) expect(hiddenCharacters(quoted(c))).toEqual([]);
    expect(quoted('tab\there\nnew')).toBe('"tab\\there\\nnew"');
    expect(quoted('\u202e')).toBe('"\\u{202E}"');
  });

  it('is one quoted string whatever the text: inner quotes and backslashes escaped, the cut shown', () => {
    fc.assert(
      fc.property(hostileText(300), (s) => {
        const q = quoted(s, 100);
        expect(q.startsWith('"') && q.endsWith('"')).toBe(true);
        // Between the outer quotes, every quote is escaped.
        expect(q.slice(1, -1).replace(/\\\\/g, '').replace(/\\"/g, '')).not.toContain('"');
        expect(hiddenCharacters(q)).toEqual([]);
        expect(q).not.toMatch(/[\n\r\t\u2028\u2029]/);
      }),
    );
    expect(quoted('x'.repeat(10), 4)).toBe('"xxxx…"');
  });

  it('oneLine() keeps our sentence and escapes the data inside it', () => {
    expect(oneLine('Tool "a\u001b[2Jb" was added.\nnext')).toBe('Tool "a\\u{1B}[2Jb" was added.\\nnext');
  });

  it('visibleData() escapes hidden characters in every string and key, and leaves numbers and null alone', () => {
    const v = visibleData({ 'k\u200b': ['x\u202ey', 3, null, { deep: '\u0007' }], __proto__x: 'ok' });
    expect(v).toEqual({ 'k\\u{200B}': ['x\\u{202E}y', 3, null, { deep: '\\u{7}' }], __proto__x: 'ok' });
    expect(JSON.stringify(visibleData(JSON.parse('{"__proto__": {"polluted": 1}}')))).toBe('{"__proto__":{"polluted":1}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('PublishedArchive over a folder', () => {
  it('reads site paths inside the folder and refuses any step out of it', async () => {
    const root = tmp('mcps-archive-folder-');
    const site = path.join(root, 'site');
    mkdirSync(path.join(site, 'api'), { recursive: true });
    writeFileSync(path.join(site, 'api', 'a.json'), '{"ok":true}');
    writeFileSync(path.join(root, 'secret.json'), '{"secret":true}');
    const a = new PublishedArchive(site);
    expect(await a.json('/api/a.json')).toMatchObject({ value: { ok: true } });
    expect((await a.read('/../secret.json')).found).toBe(false);
    expect((await a.read('/api/../../secret.json')).found).toBe(false);
    expect(await a.json('/api/missing.json')).toBeNull();
    a.learnPrefix('https://example.org/base/api/servers/x.json', '/api/servers/x.json');
    expect((await a.readPermalink('https://example.org/base/api/a.json')).found).toBe(true);
    expect((await a.readPermalink('https://example.org/base/%E0%A4%A.json')).found).toBe(false);
    // A folder archive never fetches: a permalink outside it is not found.
    expect((await a.readPermalink('https://elsewhere.example/x.json')).found).toBe(false);
  });

  it('refuses an --archive that is neither a folder nor an http(s) URL, in one sentence', () => {
    expect(() => new PublishedArchive('ftp://example.org/')).toThrow(/^--archive must be an http\(s\) URL or a folder, got "ftp:\/\/example\.org\/"$/);
  });
});
