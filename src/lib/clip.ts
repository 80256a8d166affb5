// Registry text is unvetted and may be huge: wherever it is quoted (messages, feeds, tables), it is
// cut to a bound and the cut is shown with an ellipsis. One rule, so a reader sees the same cut on
// a page, in a feed and in a finding's message.

/** `text` cut to its first `max` UTF-16 code units plus `…` when longer; shorter text unchanged. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
