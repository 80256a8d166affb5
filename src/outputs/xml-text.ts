// Registry text made safe to stand in an XML 1.0 document: the one function every string goes
// through before it enters a feed (feeds.ts), titles, descriptions, categories and links alike.
//
// @astrojs/rss (through fast-xml-parser's builder) escapes `& < > " '` and passes every other
// character through, but XML 1.0 (§2.2, production [2] Char) forbids the C0 controls except tab, LF
// and CR, lone surrogates, U+FFFE and U+FFFF: one such character in one tool name and the whole feed
// stops being XML, so every subscriber's reader drops it until that server changes again. Character
// references do not help (`&#1;` is just as forbidden), so the characters are replaced, visibly, by
// U+FFFD REPLACEMENT CHARACTER. We also replace U+007F–U+009F (DEL and the C1 controls): XML 1.0
// allows them but asks authors to avoid them (§2.2), XML 1.1 forbids them as literals, and a reader
// that shows them shows nothing useful. Everything else is kept, bidi controls included: they are
// well-formed text, and a title is only ever text.
//
// Only used by the site's feeds, so it lives beside them rather than in src/lib.

/** A UTF-16 code unit sequence XML 1.0 does not allow as text (`u` flag: a lone surrogate is one match). */
const NOT_XML_TEXT = /[^\t\n\r\x20-\x7e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** `s` with every character XML 1.0 forbids (and DEL, C1 controls) replaced by U+FFFD. */
export function xmlText(s: string): string {
  return s.replace(NOT_XML_TEXT, '\ufffd');
}
