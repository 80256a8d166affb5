// Every page of tools/list (methodology v2, "Probe", step 2/3): follow `nextCursor` to the end, bounded
// by pages, tools, bytes and a repeated-cursor check; a bound that cuts the listing is recorded
// (`truncated`), an answer that fails is the listing's failure. Every body received is kept for the
// store, the failing one included, so restate can re-derive from raw bytes.
//
// The end of a listing differs by era: on 2026-07-28 "an empty string is a valid cursor and thus MUST
// NOT be treated as the end of results" (Pagination; a `while (cursor)` loop stops a page early), while
// no legacy revision says so — a legacy `nextCursor: ""` is read as the end (following it would re-ask
// for the first page, or get -32602 and lose the whole listing), and the note says so.
import { CanonicalError, parseToolsList, ToolsListError, toolsSha256, type Tool } from '../../src/lib/index.ts';
import { classify } from '../errors.ts';
import { NOT_SENT, type Exchange, type Wire } from './wire.ts';

export const TOOLS_LIST_ID = 2;

export interface Page {
  body: Buffer;
  contentType: string | null;
}

export type Truncation = 'pages' | 'tools' | 'bytes' | 'repeated cursor';

export interface Listing {
  /** Every tools/list body received, in order (a failing last one included). */
  pages: Page[];
  /** The tools of every page, when every page read gave a tools array. */
  tools: Tool[] | null;
  toolsSha256: string | null;
  truncated: Truncation | null;
  /** The page answer that failed (the listing is then incomplete), or null. */
  failure: Exchange | null;
  /** The first page was not sent (request budget spent). */
  notSent: boolean;
  note: string | null;
}

/**
 * List every page. `request(cursor)` sends one page (`first` says whether it is the counted one) and
 * returns its exchange; `modern` selects the era's end-of-listing rule.
 */
export async function listAllPages(w: Wire, modern: boolean, request: (cursor: string | undefined, first: boolean) => Promise<Exchange | typeof NOT_SENT>): Promise<Listing> {
  const out: Listing = { pages: [], tools: null, toolsSha256: null, truncated: null, failure: null, notSent: false, note: null };
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  let cursor: string | undefined;
  for (;;) {
    const x = await request(cursor, cursor === undefined);
    if (x === NOT_SENT) {
      out.notSent = true;
      return out;
    }
    if (x.read && x.read.raw.length > 0) {
      out.pages.push({ body: x.read.raw, contentType: x.read.contentType });
      bytes += x.read.raw.length;
    }
    if (!x.result) {
      out.failure = x;
      return out;
    }
    if (x.read?.note) out.note = x.read.note;
    try {
      // The one reading of result.tools (src/lib parseToolsList), shared with the site and restate.
      tools.push(...parseToolsList({ result: x.result }));
    } catch (e) {
      if (!(e instanceof ToolsListError)) throw e;
      out.failure = { ...x, result: null, error: classify({ kind: 'not-jsonrpc', step: 'tools/list', status: x.status, detail: e.message }) };
      return out;
    }
    const next = x.result.nextCursor;
    if (typeof next !== 'string') {
      if (next !== undefined && next !== null) out.note = `nextCursor of type ${typeof next} read as the end`;
      break;
    }
    if (next === '' && !modern) {
      out.note = 'legacy nextCursor "" read as the end';
      break;
    }
    if (tools.length >= w.limits.maxTools) out.truncated = 'tools';
    else if (out.pages.length >= w.limits.maxPages) out.truncated = 'pages';
    else if (bytes >= w.limits.pagesTotalCap) out.truncated = 'bytes';
    else if (seen.has(next) || next === cursor) out.truncated = 'repeated cursor';
    if (out.truncated) break;
    seen.add(next);
    cursor = next;
  }
  try {
    out.toolsSha256 = toolsSha256(tools);
  } catch (e) {
    if (!(e instanceof CanonicalError)) throw e;
    const last = out.pages.length;
    out.failure = {
      step: 'tools/list',
      status: 200,
      headers: {},
      url: null,
      redirects: 0,
      read: null,
      message: undefined,
      result: null,
      rpc: null,
      answered: true,
      error: classify({ kind: 'not-jsonrpc', step: 'tools/list', status: 200, detail: `tools cannot be canonicalised (${last} pages): ${e.message}` }),
    };
    return out;
  }
  out.tools = tools;
  return out;
}
