// Registry text is unvetted and may be huge: wherever it is quoted (messages, feeds, tables), it is
// cut to a bound and the cut is shown with an ellipsis. One rule, so a reader sees the same cut on
// a page, in a feed and in a finding's message.

/**
 * `text` cut to its first `max` UTF-16 code units plus `…` when longer (one fewer when the cut would
 * split a surrogate pair: half a character is not text, and XML refuses it); shorter text unchanged.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}
