// Pointers to an issue tracker the repository does not carry: "issue 23", "issues 12 and 18", "(issue 4)",
// "issue 12's", "issue #5", "#27". A reader cannot follow one, so the code, docs and pages say the reason
// (or the date and changelog entry) instead. Shared by test/docs.test.ts and test/no-tracker-references.test.ts.

/** The patterns, each with why it is shaped so (what it must not catch). */
export const TRACKER_PATTERNS: readonly RegExp[] = [
  // "issue 23", "Issue 16:", "issues 12 and 18", "(issue 4)", "issue #5", "issue 23's": a whole word "issue"
  // (not "tissue 3") followed by a number (not "an issue with 2 parts").
  /\bissues? #?\d+/gi,
  // "#27": a short number after "#" that is not an HTML entity (&#60;), part of a word or path (a#1, /#2),
  // the "issue #5" above, a quoted key ('#39'), or a CSS colour (fill: #000). Four digits and more are
  // not ours (other projects' pull requests, named with their project).
  /(?<![&\w/'"|]|issues? |(?:colou?r|fill|stroke|background|border)[\w-]*:\s*)#\d{1,3}\b(?!['"])/gi,
];

/** Every tracker reference in `text`, in the order the patterns find them. */
export function trackerReferences(text: string): string[] {
  const found: string[] = [];
  for (const re of TRACKER_PATTERNS) for (const m of text.matchAll(re)) found.push(m[0]);
  return found;
}
