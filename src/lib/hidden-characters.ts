// Characters a model reads and a person reviewing the text does not see. Tool text is hostile: tag
// characters (U+E0000–E007F) can spell a whole instruction invisibly ("ASCII smuggling"), bidirectional
// controls reorder what a reviewer reads, zero-width characters hide words or payloads, and control
// characters such as ESC can rewrite a terminal (mcp-pin docs/TOOL_DEFINITION_HASH.md §6: show
// definitions with these as visible escapes).
//
// The class is Unicode's own, not a hand list: Default_Ignorable_Code_Point (zero-width characters,
// soft hyphen, Hangul fillers, all Bidi_Control characters, variation selectors, tag characters) plus
// the C0/C1 controls (General_Category Cc), minus what ordinary text uses:
//   - TAB, LF, CR (descriptions are multi-line);
//   - U+FE0E/U+FE0F, which select text or emoji presentation ("⚠️" is U+26A0 U+FE0F) and, being one
//     code point, cannot carry a hidden message beyond their count;
//   - U+200D ZERO WIDTH JOINER directly before a pictograph, as inside emoji ZWJ sequences (👩‍💻);
//   - the tag characters of the three recommended subdivision flags (England, Scotland, Wales:
//     U+1F3F4 then the tags "gbeng", "gbsct" or "gbwls" and CANCEL TAG, Unicode UTS #51), and no
//     other tag sequence.
// The first alternative matches those flags whole, so that they are skipped rather than counted.
const HIDDEN = /(\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F})|(?![\t\n\r\uFE0E\uFE0F])(?!\u200D\p{Extended_Pictographic})[\p{Default_Ignorable_Code_Point}\p{Cc}]/gu;

/** The hidden characters in a string, in order (each a full code point). */
export function hiddenCharacters(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(HIDDEN)) if (m[1] === undefined) out.push(m[0]);
  return out;
}

/** The string with every hidden character written as a visible escape, `\u{E0041}`. */
export function showHidden(text: string): string {
  return escapeHidden(text, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/** The string with every hidden character (one full code point each) replaced by `escape(c)`. */
export function escapeHidden(text: string, escape: (c: string) => string): string {
  return text.replace(HIDDEN, (c, flag: string | undefined) => (flag !== undefined ? c : escape(c)));
}
