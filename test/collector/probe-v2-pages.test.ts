// collector/probe-v2/pages.ts and tool-set-hash.ts through their real inputs: every tools/list page
// POSTed by a v2 Wire to a raw loopback server that plays one listing, read back as the probe reads
// it (the same request bodies and headers as index.ts). Each rule is stated with its near miss: the
// bounds at their edges, the era's end-of-listing rule in both eras, each way a page can fail.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listAllPages, TOOLS_LIST_ID, type Listing } from '../../collector/probe-v2/pages.ts';
import { legacyToolsListBody, modernHeaders, modernToolsListBody } from '../../collector/probe-v2/requests.ts';
import { toolSetHashOf } from '../../collector/probe-v2/tool-set-hash.ts';
import { Wire, type ProbeV2Limits } from '../../collector/probe-v2/wire.ts';
import { toolSetHash, toolsSha256 } from '../../src/lib/index.ts';
import { json, result, withLoopback, type Handler, type Loopback, type Msg } from './loopback.ts';

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
const FIRST = '(first)';
type PageSpec = { tools: unknown[]; nextCursor?: unknown };

/** tools/list answers `pages[cursor]` (FIRST for none), as JSON; the bodies sent are kept in `sent`. */
function pager(pages: Record<string, PageSpec | ((msg: Msg | undefined, res: ServerResponse) => void)>, sent: string[] = []): Handler {
  return (msg, _req, res) => {
    const c = msg?.params?.cursor;
    const p = pages[typeof c === 'string' ? c : FIRST];
    if (typeof p === 'function') return p(msg, res);
    const body = JSON.stringify(p ? result(msg, p) : { jsonrpc: '2.0', id: msg?.id ?? null, error: { code: -32602, message: 'Invalid cursor' } });
    sent.push(body);
    json(res, 200, body);
  };
}

/** A listing that never ends: page n has tool `t<n>` and nextCursor `c<n+1>`. */
const endless: Handler = (msg, _req, res) => {
  const c = msg?.params?.cursor;
  const n = typeof c === 'string' ? Number(c.slice(1)) : 1;
  json(res, 200, endlessBody(n, msg?.id));
};
const endlessBody = (n: number, id: unknown = TOOLS_LIST_ID) => JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [tool(`t${n}`)], nextCursor: `c${n + 1}` } });

/** List every page as index.ts does (legacy or modern bodies and headers). */
function list(l: Loopback, modern = false): Promise<Listing> {
  return listAllPages(l.wire, modern, (cursor, first) =>
    l.wire.post(first ? 'tools/list' : 'tools/list page', 'tools/list', l.url, modern ? modernToolsListBody(cursor) : legacyToolsListBody(cursor), modern ? modernHeaders('tools/list') : Wire.base(), TOOLS_LIST_ID, l.wire.limits.toolsCap, { counted: first }),
  );
}
const run = (h: Handler, limits: Partial<ProbeV2Limits> = {}, modern = false) => withLoopback(h, limits, async (l) => ({ listing: await list(l, modern), l }));
const names = (x: Listing) => x.tools?.map((t) => t.name) ?? null;
const cursors = (l: Loopback) => l.got.map((g) => g.msg?.params?.cursor);

describe('listAllPages follows nextCursor to the end', () => {
  it('three pages: every tool in order, every body as served, one request counted against the budget', async () => {
    const sent: string[] = [];
    const { listing, l } = await run(pager({ [FIRST]: { tools: [tool('a')], nextCursor: 'c2' }, c2: { tools: [tool('b'), tool('c')], nextCursor: 'c3' }, c3: { tools: [tool('d')] } }, sent), { budget: 1 });
    expect(cursors(l)).toEqual([undefined, 'c2', 'c3']);
    expect(names(listing)).toEqual(['a', 'b', 'c', 'd']);
    expect(listing.pages.map((p) => [p.body.toString('utf8'), p.contentType])).toEqual(sent.map((s) => [s, 'application/json']));
    expect(listing).toMatchObject({ toolsSha256: toolsSha256([tool('a'), tool('b'), tool('c'), tool('d')]), truncated: null, failure: null, notSent: false, note: null });
    // Pages after the first are not counted (bounded by maxPages instead): a budget of one reads all three.
    expect(l.wire.log.map((e) => [e.kind, e.counted])).toEqual([
      ['tools/list', true],
      ['tools/list page', false],
      ['tools/list page', false],
    ]);
    expect(l.wire.spent).toBe(1);
  });

  it('the budget spent before the first page: nothing sent, the listing says so (and is no failure)', async () => {
    const { listing, l } = await run(pager({ [FIRST]: { tools: [tool('a')] } }), { budget: 0 });
    expect(l.got).toEqual([]);
    expect(listing).toEqual({ pages: [], tools: null, toolsSha256: null, truncated: null, failure: null, notSent: true, note: null });
  });

  it('an empty tools array is a complete listing of no tools', async () => {
    const { listing } = await run(pager({ [FIRST]: { tools: [] } }));
    expect(listing).toMatchObject({ tools: [], toolsSha256: toolsSha256([]), failure: null, truncated: null });
  });
});

describe('the end of a listing differs by era: nextCursor ""', () => {
  const h = () => pager({ [FIRST]: { tools: [tool('a')], nextCursor: '' }, '': { tools: [tool('b')] } });
  it('2026-07-28: "" is a cursor like any other, so page two is asked for with it', async () => {
    const { listing, l } = await run(h(), {}, true);
    expect(cursors(l)).toEqual([undefined, '']);
    expect(names(listing)).toEqual(['a', 'b']);
    expect(listing.note).toBeNull();
  });
  it('legacy: "" is the end (one page), and the note says how it was read', async () => {
    const { listing, l } = await run(h(), {}, false);
    expect(cursors(l)).toEqual([undefined]);
    expect(names(listing)).toEqual(['a']);
    expect(listing).toMatchObject({ note: 'legacy nextCursor "" read as the end', truncated: null, failure: null });
  });
});

describe('a nextCursor that is not a string ends the listing', () => {
  it.each([
    [5, 'number'],
    [true, 'boolean'],
    [{ page: 2 }, 'object'],
  ])('nextCursor %j: the end, and the note names its type', async (next, type) => {
    const { listing, l } = await run(pager({ [FIRST]: { tools: [tool('a')], nextCursor: next } }));
    expect(l.got).toHaveLength(1);
    expect(names(listing)).toEqual(['a']);
    expect(listing).toMatchObject({ note: `nextCursor of type ${type} read as the end`, truncated: null, failure: null });
  });
  it.each([
    ['null', { tools: [tool('a')], nextCursor: null }],
    ['absent', { tools: [tool('a')] }],
  ])('near miss: nextCursor %s is the plain end, no note', async (_, page) => {
    const { listing } = await run(pager({ [FIRST]: page }));
    expect(names(listing)).toEqual(['a']);
    expect(listing.note).toBeNull();
  });
});

describe('the bounds cut a listing at their edge, and say which one', () => {
  const b1 = Buffer.byteLength(endlessBody(1));
  const b2 = Buffer.byteLength(endlessBody(2));
  it.each<[string, Partial<ProbeV2Limits>, Listing['truncated'], number]>([
    ['maxTools reached exactly', { maxTools: 2 }, 'tools', 2],
    ['maxPages reached exactly', { maxPages: 2 }, 'pages', 2],
    ['pagesTotalCap reached exactly', { pagesTotalCap: b1 + b2 }, 'bytes', 2],
    ['pagesTotalCap one byte above two pages', { pagesTotalCap: b1 + b2 + 1 }, 'bytes', 3],
    ['maxTools and maxPages at once: tools', { maxTools: 2, maxPages: 2 }, 'tools', 2],
    ['maxPages and pagesTotalCap at once: pages', { maxPages: 2, pagesTotalCap: b1 + b2 }, 'pages', 2],
  ])('%s', async (_, limits, truncated, pages) => {
    const { listing, l } = await run(endless, limits);
    expect(l.got).toHaveLength(pages);
    expect(listing.truncated).toBe(truncated);
    // What was read stands: its tools and their hash (the row records the cut).
    const tools = Array.from({ length: pages }, (_, i) => tool(`t${i + 1}`));
    expect(listing).toMatchObject({ tools, toolsSha256: toolsSha256(tools), failure: null });
    expect(listing.pages).toHaveLength(pages);
  });

  it('near miss: a listing that ends exactly at maxTools is complete, not cut', async () => {
    const { listing } = await run(pager({ [FIRST]: { tools: [tool('a')], nextCursor: 'c2' }, c2: { tools: [tool('b')] } }), { maxTools: 2, maxPages: 2 });
    expect(names(listing)).toEqual(['a', 'b']);
    expect(listing.truncated).toBeNull();
  });

  it('a cursor seen before (not only the one just sent) stops the listing: a → b → a', async () => {
    const { listing, l } = await run(pager({ [FIRST]: { tools: [tool('x')], nextCursor: 'a' }, a: { tools: [tool('y')], nextCursor: 'b' }, b: { tools: [tool('z')], nextCursor: 'a' } }));
    expect(cursors(l)).toEqual([undefined, 'a', 'b']);
    expect(names(listing)).toEqual(['x', 'y', 'z']);
    expect(listing.truncated).toBe('repeated cursor');
  });

  it('the cursor just sent, given back: stops after the second page', async () => {
    const { listing, l } = await run(pager({ [FIRST]: { tools: [tool('x')], nextCursor: 'a' }, a: { tools: [tool('y')], nextCursor: 'a' } }));
    expect(cursors(l)).toEqual([undefined, 'a']);
    expect(listing.truncated).toBe('repeated cursor');
  });
});

describe('a page that fails is the listing failure; what was received is kept', () => {
  const two = (second: (msg: Msg | undefined, res: ServerResponse) => void) => pager({ [FIRST]: { tools: [tool('a')], nextCursor: 'c2' }, c2: second });

  it('HTTP 500 on page two: the 500 is the failure, both bodies kept, no tools', async () => {
    const { listing } = await run(two((_m, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom')));
    expect(listing.failure).toMatchObject({ status: 500, step: 'tools/list', result: null });
    expect(listing.failure?.error?.errorClass).toBe('http_5xx');
    expect(listing.pages.map((p) => [p.body.toString('utf8'), p.contentType])).toEqual([
      [expect.stringContaining('"name":"a"'), 'application/json'],
      ['boom', 'text/plain'],
    ]);
    expect(listing).toMatchObject({ tools: null, toolsSha256: null, truncated: null });
  });

  it('near miss: a failing page with an empty body adds no page', async () => {
    const { listing } = await run(two((_m, res) => res.writeHead(502).end()));
    expect(listing.failure?.status).toBe(502);
    expect(listing.pages).toHaveLength(1);
  });

  it('the connection dropped on page two: no answer, one page kept', async () => {
    const { listing } = await run(two((_m, res) => res.socket?.destroy()));
    expect(listing.failure).toMatchObject({ status: null, read: null, result: null });
    expect(listing.failure?.error).not.toBeNull();
    expect(listing.pages).toHaveLength(1);
    expect(listing.tools).toBeNull();
  });

  it.each([
    ['no tools array', { nextCursor: 'x' }, 'tools/list result.tools is not an array'],
    ['a tool without a string name', { tools: [tool('a'), { name: 7 }] }, 'tools/list result.tools[1] has no string name'],
  ])('a 200 result with %s: a parse failure of tools/list, the body kept', async (_, r, detail) => {
    const sent: string[] = [];
    const { listing, l } = await run(pager({ [FIRST]: r as PageSpec }, sent));
    expect(l.got).toHaveLength(1);
    expect(listing.failure).toMatchObject({ status: 200, result: null, answered: true });
    expect(listing.failure?.error).toMatchObject({ errorClass: 'parse', payload: { step: 'tools/list', httpStatus: 200, detail } });
    expect(listing.pages.map((p) => p.body.toString('utf8'))).toEqual(sent);
    expect(listing).toMatchObject({ tools: null, toolsSha256: null });
  });

  const nested = (depth: number): unknown => (depth === 0 ? { type: 'string' } : { type: 'array', items: nested(depth - 1) });
  it('tools that cannot be canonicalised (nested past 256 levels): the failure names the pages read', async () => {
    const { listing } = await run(pager({ [FIRST]: { tools: [tool('a')], nextCursor: 'c2' }, c2: { tools: [{ name: 'deep', inputSchema: nested(300) }] } }));
    expect(listing.pages).toHaveLength(2);
    expect(listing).toMatchObject({ tools: null, toolsSha256: null });
    const f = listing.failure!;
    expect({ ...f, error: null }).toEqual({ step: 'tools/list', status: 200, headers: {}, url: null, redirects: 0, read: null, message: undefined, result: null, rpc: null, answered: true, error: null });
    expect(f.error).toMatchObject({ errorClass: 'parse', payload: { step: 'tools/list', httpStatus: 200, jsonrpcCode: null, detail: 'tools cannot be canonicalised (2 pages): json nested deeper than 256 levels' } });
  });
  it('near miss: nested 200 levels is canonicalised', async () => {
    const { listing } = await run(pager({ [FIRST]: { tools: [{ name: 'deep', inputSchema: nested(200) }] } }));
    expect(listing.failure).toBeNull();
    expect(listing.toolsSha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('an oddity of the answer is kept in the note', () => {
  it('an event stream left open after page one: the note says so, and page two (JSON) does not erase it', async () => {
    const { listing } = await run(
      pager({
        [FIRST]: (msg, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`event: message\ndata: ${JSON.stringify(result(msg, { tools: [tool('a')], nextCursor: 'c2' }))}\n\n`);
        },
        c2: { tools: [tool('b')] },
      }),
    );
    expect(names(listing)).toEqual(['a', 'b']);
    expect(listing.pages.map((p) => p.contentType)).toEqual(['text/event-stream', 'application/json']);
    expect(listing.note).toBe('sse stream left open after the answer; body kept up to that point');
  });
});

describe('toolSetHashOf: the tool definition set hash of the served pages', () => {
  it('is the set hash over each page’s result.tools text as served', async () => {
    const { listing } = await run(pager({ [FIRST]: { tools: [{ name: 'a' }], nextCursor: 'x' }, x: { tools: [{ name: 'b' }] } }));
    expect(toolSetHashOf(listing.pages, TOOLS_LIST_ID)).toEqual({ hash: toolSetHash(['[{"name":"a"}]', '[{"name":"b"}]']), problem: null });
  });

  it('near miss: a page whose answer has another id has no hash, and the problem says why', () => {
    const body = Buffer.from('{"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"a"}]}}');
    expect(toolSetHashOf([{ body, contentType: 'application/json' }], TOOLS_LIST_ID)).toEqual({ hash: null, problem: 'json is not the json-rpc answer with id 2' });
  });

  it('a listing with a repeated member name has no hash; the problem is cut to 200 characters for the note', async () => {
    // A name of 100 zero-width spaces: the problem prints each escaped (\u{200B}), well past 200 characters.
    const key = '\u200b'.repeat(100);
    // JSON.parse keeps the last of two equal names, so the listing itself is complete; its set hash has no canonical form.
    const text = `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"${key}":1,"${key}":2}}]}}`;
    const { listing } = await run((_m, _req, res) => json(res, 200, text));
    expect(names(listing)).toEqual(['a']);
    const set = toolSetHashOf(listing.pages, TOOLS_LIST_ID);
    expect(set.hash).toBeNull();
    expect(set.problem).toHaveLength(200);
    expect(set.problem).toMatch(/^repeated member name at "\/result\/tools\/0\/inputSchema\/(\\u\{200B\}){10}/);
  });
});
