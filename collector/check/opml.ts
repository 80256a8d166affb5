// The lockfile's OPML (`npm run check -- lock --opml <file>`): the breaking-only feeds of the servers a
// product pins (src/outputs/breaking-feeds.ts writes them on the site), as OPML 2.0 a feed reader imports.
// Registry names are attribute text: XML-escaped, and the characters XML 1.0 forbids (C0 controls but
// tab, LF and CR; lone surrogates; U+FFFE, U+FFFF) and DEL and the C1 controls replaced by U+FFFD, as the
// site's feeds do; tab, LF and CR as character references, so no name can end the attribute or the document.
import { clip } from '../../src/lib/index.ts';

/** One outline: a server's breaking-only RSS feed and its page. */
export interface OpmlFeed {
  name: string;
  xmlUrl: string;
  htmlUrl: string | null;
}

const NOT_XML_TEXT = /[^\t\n\r\x20-\x7e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

function attr(s: string): string {
  return s.replace(NOT_XML_TEXT, '\ufffd').replace(/[&<>"'\t\n\r]/g, (c) => ESCAPES[c]!);
}

/** OPML 2.0 of feeds, one `outline type="rss"` each. */
export function lockOpml(title: string, feeds: readonly OpmlFeed[], now: Date): string {
  const outlines = feeds.map((f) => `    <outline type="rss" text="${attr(clip(f.name, 200))}" title="${attr(clip(f.name, 200))}" xmlUrl="${attr(f.xmlUrl)}"${f.htmlUrl ? ` htmlUrl="${attr(f.htmlUrl)}"` : ''}/>`);
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<opml version="2.0">', '  <head>', `    <title>${attr(title)}</title>`, `    <dateCreated>${now.toUTCString()}</dateCreated>`, '  </head>', '  <body>', ...outlines, '  </body>', '</opml>', ''].join('\n');
}
