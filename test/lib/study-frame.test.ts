// The study's population: every row in exactly one bucket, in the study's order,
// each bucket with a near miss that stays in the frame; URLs merged as the study normalised them.
import { describe, expect, it } from 'vitest';
import { FRAME_EXCLUSIONS, normaliseEndpointUrl, studyFrame, type FrameRow } from '../../src/lib/study-frame.ts';

let n = 0;
const row = (over: Partial<FrameRow> = {}): FrameRow => ({
  target: `io.example/s${String(n++).padStart(3, '0')}`,
  endpoint: `https://h${n}.example/mcp`,
  outcome: 'ok',
  registry_status: 'active',
  step: null,
  detail: null,
  redirects: 0,
  ...over,
});
const bucketOf = (r: FrameRow): string => {
  const { frame } = studyFrame([r]);
  const hit = FRAME_EXCLUSIONS.filter((k) => frame.excluded[k] === 1);
  expect(hit.length + frame.endpoints).toBe(1);
  return hit[0] ?? 'frame';
};

describe('normaliseEndpointUrl', () => {
  it('lower-cases scheme and host, drops query, fragment, trailing slashes, default port and credentials', () => {
    expect(normaliseEndpointUrl('HTTPS://Api.Example.COM/mcp/')).toBe('https://api.example.com/mcp');
    expect(normaliseEndpointUrl('https://api.example.com:443/mcp?x=1#y')).toBe('https://api.example.com/mcp');
    expect(normaliseEndpointUrl('https://user:secret@api.example.com/mcp//')).toBe('https://api.example.com/mcp');
    expect(normaliseEndpointUrl(' https://api.example.com ')).toBe('https://api.example.com');
    expect(normaliseEndpointUrl('https://api.example.com/')).toBe('https://api.example.com');
  });
  it('keeps what tells two endpoints apart: path case, port, scheme', () => {
    expect(normaliseEndpointUrl('https://api.example.com/MCP')).toBe('https://api.example.com/MCP');
    expect(normaliseEndpointUrl('https://api.example.com:8443/mcp')).toBe('https://api.example.com:8443/mcp');
    expect(normaliseEndpointUrl('http://api.example.com/mcp')).toBe('http://api.example.com/mcp');
  });
  it('trims any white space around the URL, not only what the URL parser drops (a no-break space, a BOM)', () => {
    expect(normaliseEndpointUrl('\u00a0https://api.example.com/mcp\u00a0')).toBe('https://api.example.com/mcp');
    expect(normaliseEndpointUrl('\ufeffhttps://api.example.com/mcp')).toBe('https://api.example.com/mcp');
  });
  it('is null for what is not an absolute URL', () => {
    expect(normaliseEndpointUrl('')).toBeNull();
    expect(normaliseEndpointUrl('/mcp')).toBeNull();
    expect(normaliseEndpointUrl('api.example.com/mcp')).toBeNull();
  });
});

describe('studyFrame: one bucket per row, in the study order', () => {
  it('retired first, whatever its status', () => {
    expect(bucketOf(row({ outcome: 'retired', registry_status: 'active', endpoint: null }))).toBe('retired');
    expect(bucketOf(row({ outcome: 'retired', registry_status: 'deprecated' }))).toBe('retired');
  });
  it('any status but active (none recorded included) is not active, before any endpoint reason', () => {
    expect(bucketOf(row({ registry_status: 'deprecated' }))).toBe('not_active');
    expect(bucketOf(row({ registry_status: 'deleted' }))).toBe('not_active');
    expect(bucketOf(row({ registry_status: null }))).toBe('not_active');
    expect(bucketOf(row({ registry_status: 'Active' }))).toBe('not_active');
    expect(bucketOf(row({ registry_status: 'deprecated', outcome: 'no_endpoint', endpoint: null, detail: 'templated_url' }))).toBe('not_active');
    expect(bucketOf(row({ registry_status: 'active' }))).toBe('frame');
  });
  it('no endpoint by the reason the roster step recorded; an unknown reason is an invalid URL', () => {
    for (const reason of ['no_streamable_http', 'templated_url', 'invalid_url', 'no_latest_entry']) expect(bucketOf(row({ outcome: 'no_endpoint', endpoint: null, detail: reason }))).toBe(reason);
    expect(bucketOf(row({ outcome: 'no_endpoint', endpoint: null, detail: 'something new' }))).toBe('invalid_url');
    expect(bucketOf(row({ outcome: 'no_endpoint', endpoint: null, detail: null }))).toBe('invalid_url');
  });
  it('opted out, and a private address refused before any redirect; after a redirect, or at another step, it stays', () => {
    expect(bucketOf(row({ outcome: 'excluded' }))).toBe('opted_out');
    expect(bucketOf(row({ outcome: 'error', step: 'address', redirects: 0 }))).toBe('private_address');
    expect(bucketOf(row({ outcome: 'error', step: 'address', redirects: 1 }))).toBe('frame');
    expect(bucketOf(row({ outcome: 'error', step: 'discover', redirects: 0 }))).toBe('frame');
    expect(bucketOf(row({ outcome: 'not_attempted' }))).toBe('frame');
  });
});

describe('studyFrame: duplicate URLs merged', () => {
  it('merges URLs equal once normalised, keeps a probed row over one not attempted, then the first name', () => {
    const rows = [
      row({ target: 'c', endpoint: 'https://one.example/mcp', outcome: 'not_attempted' }),
      row({ target: 'b', endpoint: 'HTTPS://ONE.example/mcp/' }),
      row({ target: 'd', endpoint: 'https://one.example/mcp?session=2', outcome: 'error' }),
      row({ target: 'a', endpoint: 'https://two.example/mcp' }),
      row({ target: 'e', endpoint: 'https://two.example/mcp2' }),
    ];
    const { frame, rows: kept } = studyFrame(rows);
    expect(kept.map((r) => r.target)).toEqual(['b', 'a', 'e']); // the run's order
    expect(frame.excluded.duplicate_url).toBe(2);
    expect(frame.endpoints).toBe(3);
    expect(frame.probed).toBe(3);
    expect(frame.notAttempted).toBe(0);
  });
  it('a probed row wins its URL whatever its name; between two probed rows (ok or error) the first name wins', () => {
    const keptOf = (rows: FrameRow[]) => studyFrame(rows).rows.map((r) => r.target);
    const u = 'https://same.example/mcp';
    // Probed (ok, then error) against not attempted, the probed one named after it, in both input orders.
    expect(keptOf([row({ target: 'a', endpoint: u, outcome: 'not_attempted' }), row({ target: 'b', endpoint: u, outcome: 'ok' })])).toEqual(['b']);
    expect(keptOf([row({ target: 'b', endpoint: u, outcome: 'ok' }), row({ target: 'a', endpoint: u, outcome: 'not_attempted' })])).toEqual(['b']);
    expect(keptOf([row({ target: 'a', endpoint: u, outcome: 'not_attempted' }), row({ target: 'b', endpoint: u, outcome: 'error' })])).toEqual(['b']);
    expect(keptOf([row({ target: 'b', endpoint: u, outcome: 'error' }), row({ target: 'a', endpoint: u, outcome: 'not_attempted' })])).toEqual(['b']);
    // Near miss: both probed, or both not attempted: the first name, in both input orders.
    expect(keptOf([row({ target: 'b', endpoint: u, outcome: 'ok' }), row({ target: 'a', endpoint: u, outcome: 'error' })])).toEqual(['a']);
    expect(keptOf([row({ target: 'a', endpoint: u, outcome: 'error' }), row({ target: 'b', endpoint: u, outcome: 'ok' })])).toEqual(['a']);
    expect(keptOf([row({ target: 'b', endpoint: u, outcome: 'not_attempted' }), row({ target: 'a', endpoint: u, outcome: 'not_attempted' })])).toEqual(['a']);
    const three = studyFrame([row({ target: 'c', endpoint: u, outcome: 'ok' }), row({ target: 'a', endpoint: u, outcome: 'not_attempted' }), row({ target: 'b', endpoint: u, outcome: 'error' })]);
    expect(three.rows.map((r) => r.target)).toEqual(['b']);
    expect(three.frame).toMatchObject({ endpoints: 1, probed: 1, notAttempted: 0, excluded: { duplicate_url: 2 } });
  });
  it('a URL only not-attempted rows have stays in the frame once, not attempted', () => {
    const { frame, rows: kept } = studyFrame([row({ target: 'y', endpoint: 'https://x.example/', outcome: 'not_attempted' }), row({ target: 'x', endpoint: 'https://x.example', outcome: 'not_attempted' })]);
    expect(kept.map((r) => r.target)).toEqual(['x']);
    expect(frame).toMatchObject({ endpoints: 1, probed: 0, notAttempted: 1 });
  });
  it('an excluded row does not take a URL from a frame row', () => {
    const { frame, rows: kept } = studyFrame([row({ target: 'a', endpoint: 'https://x.example/mcp', registry_status: 'deprecated' }), row({ target: 'b', endpoint: 'https://x.example/mcp' })]);
    expect(kept.map((r) => r.target)).toEqual(['b']);
    expect(frame.excluded).toMatchObject({ not_active: 1, duplicate_url: 0 });
  });
});

describe('studyFrame: the counts', () => {
  it('adds up to the rows listed, counts statuses (most first, ties by code unit, none last) and http:// endpoints', () => {
    const rows = [
      row({ registry_status: 'deprecated' }),
      row({ registry_status: 'deleted' }),
      row({ registry_status: null }),
      row({ registry_status: null }),
      row({ outcome: 'retired', registry_status: 'deprecated' }),
      row({ endpoint: 'http://plain.example/mcp' }),
      row({ endpoint: 'HTTP://plain2.example/mcp' }),
      row({}),
      row({ outcome: 'excluded' }),
    ];
    const { frame } = studyFrame(rows);
    expect(frame.listed).toBe(9);
    expect(frame.endpoints + Object.values(frame.excluded).reduce((a, b) => a + b, 0)).toBe(9);
    expect(frame.registryStatus).toEqual([
      { status: 'active', count: 4 },
      { status: 'deprecated', count: 2 },
      { status: null, count: 2 },
      { status: 'deleted', count: 1 },
    ]);
    expect(frame.excluded).toMatchObject({ retired: 1, not_active: 4, opted_out: 1 });
    expect(frame.endpoints).toBe(3);
    expect(frame.nonHttps).toBe(2);
  });
  it('counts http:// by the scheme only, and ties of status counts in code-unit order', () => {
    const { frame } = studyFrame([
      row({ endpoint: 'https://a.example/r?next=http://b.example' }),
      row({ endpoint: 'http://c.example/' }),
      row({ registry_status: 'zombie' }),
      row({ registry_status: 'deleted' }),
      row({ registry_status: 'Zed' }),
    ]);
    expect(frame.nonHttps).toBe(1);
    expect(frame.registryStatus.map((s) => s.status)).toEqual(['active', 'Zed', 'deleted', 'zombie']);
  });
  it('statuses recorded for no row (none recorded) sort after a tie, whichever was met first', () => {
    const order = (statuses: (string | null)[]) => studyFrame(statuses.map((registry_status) => row({ registry_status }))).frame.registryStatus;
    expect(order([null, 'deleted'])).toEqual([{ status: 'deleted', count: 1 }, { status: null, count: 1 }]);
    expect(order(['deleted', null])).toEqual([{ status: 'deleted', count: 1 }, { status: null, count: 1 }]);
    expect(order([null, 'b', 'a', null])).toEqual([{ status: null, count: 2 }, { status: 'a', count: 1 }, { status: 'b', count: 1 }]);
    expect(order(['b', 'a', 'b'])).toEqual([{ status: 'b', count: 2 }, { status: 'a', count: 1 }]);
    // Ties met already in code-unit order stay so; a status that reads as a number is still a string after null.
    expect(order(['a', 'b', 'c']).map((x) => x.status)).toEqual(['a', 'b', 'c']);
    expect(order(['c', 'b', 'a']).map((x) => x.status)).toEqual(['a', 'b', 'c']);
    expect(order(['1', null]).map((x) => x.status)).toEqual(['1', null]);
    expect(order([null, '1']).map((x) => x.status)).toEqual(['1', null]);
  });
  it('only an error row refused at the address step counts as a private address', () => {
    expect(bucketOf(row({ outcome: 'not_attempted', step: 'address', redirects: 0 }))).toBe('frame');
    expect(bucketOf(row({ outcome: 'ok', step: 'address', redirects: 0 }))).toBe('frame');
    expect(bucketOf(row({ outcome: 'error', step: 'address', redirects: 0, endpoint: null }))).toBe('private_address');
  });
  it('an excluded or not-active row is counted in its bucket, never in the frame, even when its URL is unique', () => {
    const { frame, rows: kept } = studyFrame([row({ target: 'a', outcome: 'excluded' }), row({ target: 'b', registry_status: 'deprecated' }), row({ target: 'c', outcome: 'retired' }), row({ target: 'd' })]);
    expect(kept.map((r) => r.target)).toEqual(['d']);
    expect(frame).toMatchObject({ listed: 4, endpoints: 1, probed: 1, excluded: { opted_out: 1, not_active: 1, retired: 1, duplicate_url: 0 } });
  });
  it('a row with no endpoint, or one no URL parser reads, is counted, and two unreadable ones are not merged', () => {
    const { frame, rows: kept } = studyFrame([row({ target: 'n', outcome: 'error', endpoint: null }), row({ target: 'x', endpoint: 'not a url' }), row({ target: 'y', endpoint: 'also not' }), row({ target: 'z', endpoint: 'not a url' })]);
    expect(frame.excluded.invalid_url).toBe(1);
    expect(kept.map((r) => r.target)).toEqual(['x', 'y']);
    expect(frame.excluded.duplicate_url).toBe(1);
  });
  it('an empty run has an empty frame', () => {
    expect(studyFrame([]).frame).toEqual({ listed: 0, registryStatus: [], excluded: Object.fromEntries(FRAME_EXCLUSIONS.map((k) => [k, 0])), endpoints: 0, probed: 0, notAttempted: 0, nonHttps: 0 });
  });
});
