// Server slugs: the one mapping from a registry `server.name` to a URL path segment, used for
// /servers/<slug>/ (page, feed.xml, feed.json) and /api/servers/<slug>.json. Site-specific; no I/O.
//
// Registry names are unvetted text: they contain `/` and `.`, may differ only in case, and could
// hold anything up to 512 characters. The official registry validates names as `<reverse-dns>/<name>`,
// but the collector records any name and the site must publish whatever the archive holds. A slug must be
//   - stable: a function of the name alone, so a page's URL never changes when other servers come or go;
//   - collision-free: distinct names give distinct slugs, even on case-insensitive file systems;
//   - confined: one path segment that can never be `.`/`..`, start with a dot, or contain `/` or `\`;
//   - apart from the site's own files: a slug always holds `_` or `~`, and no name the site itself
//     writes under /servers/ or /api/servers/ (index.html today; checked by test/site/build.test.ts)
//     holds either. A server named `index.html` once took /servers/index.html/ and the build died
//     with EISDIR on the server list.
//
// The mapping (reversible by `nameFromSlug` unless hashed, see below):
//   a-z 0-9 - .      kept as they are (a leading `.` is escaped);
//   /                `_`  (the registry's namespace separator, which every registry-valid name has);
//   anything else    `~xx` per UTF-8 byte, lowercase hex (so `A` → `~41`, `_` → `~5f`, `~` → `~7e`);
//   lone surrogates  `~uxxxx` (they have no UTF-8 form, and mapping them all to U+FFFD would collide).
// A name that would still give a slug with neither `_` nor `~` (no `/`, only a-z 0-9 - .) has its
// first character escaped too: `index.html` → `~69ndex.html`, `data` → `~64ata`. Registry-valid
// names all hold `/`, so their slugs are unchanged by this rule.
// Only lowercase letters survive unescaped, so two slugs never differ only in case.
// Slugs longer than MAX_SLUG_LENGTH (file names are capped at 255 bytes on most file systems) keep
// their first 160 characters and end in `~~` plus 16 hex of SHA-256 of the name: unique unless
// SHA-256 collides in 64 bits. The empty name (the data contract forbids it) is `~~` plus that hash.
import { createHash } from 'node:crypto';

export const MAX_SLUG_LENGTH = 200;
const KEEP = /[a-z0-9.-]/;

export function slugFor(name: string): string {
  let out = '';
  const encoder = new TextEncoder();
  for (const char of name) {
    const cp = char.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += `~u${cp.toString(16)}`;
      continue;
    }
    for (const byte of encoder.encode(char)) {
      const ch = String.fromCharCode(byte);
      if (byte < 0x80 && KEEP.test(ch) && !(ch === '.' && out === '')) out += ch;
      else if (ch === '/') out += '_';
      else out += escape(byte);
    }
  }
  // Nothing escaped and no `/`: the slug could equal a file of the site; escape its first character.
  if (out !== '' && !/[_~]/.test(out)) out = escape(out.charCodeAt(0)) + out.slice(1);
  if (out !== '' && out.length <= MAX_SLUG_LENGTH) return out;
  const digest = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 16);
  return `${out.slice(0, 160)}~~${digest}`;
}

function escape(byte: number): string {
  return `~${byte.toString(16).padStart(2, '0')}`;
}

/** Inverse of `slugFor` for unhashed slugs; null when the slug is not one `slugFor` could write. */
export function nameFromSlug(slug: string): string | null {
  if (slug.includes('~~')) return null;
  let name = '';
  const bytes: number[] = [];
  const flush = () => {
    name += new TextDecoder('utf-8', { fatal: false }).decode(new Uint8Array(bytes));
    bytes.length = 0;
  };
  for (let i = 0; i < slug.length; i++) {
    const ch = slug[i]!;
    if (ch === '_') bytes.push(0x2f);
    else if (ch === '~' && slug[i + 1] === 'u') {
      const hex = slug.slice(i + 2, i + 6);
      if (!/^d[89a-f][0-9a-f]{2}$/.test(hex)) return null;
      flush();
      name += String.fromCharCode(parseInt(hex, 16));
      i += 5;
    } else if (ch === '~') {
      const hex = slug.slice(i + 1, i + 3);
      if (!/^[0-9a-f]{2}$/.test(hex)) return null;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (KEEP.test(ch)) bytes.push(ch.charCodeAt(0));
    else return null;
  }
  flush();
  return slugFor(name) === slug ? name : null;
}
