// The pure rules of the monthly parts (src/outputs/month-parts.ts): which months are closed,
// what a month's files are called, how a part is cut into pieces no larger than a release asset may be,
// which objects a row and a roster name, the descriptor's form, and the site's manifest of parts.
import { describe, expect, it } from 'vitest';
import {
  checkMonth,
  descriptorJson,
  lastDayOf,
  manifestSums,
  MAX_PIECE_BYTES,
  monthStatuses,
  parseDescriptor,
  parseSums,
  partNames,
  partsManifest,
  pieceNames,
  pieceRanges,
  releaseTag,
  rosterPageNames,
  rowObjectNames,
  sumsText,
  type ListedPart,
  type PartDescriptor,
} from '../../src/outputs/month-parts.ts';

const H = (c: string) => c.repeat(64);

describe('months', () => {
  it('knows the last day of every month, leap Februaries included', () => {
    expect(lastDayOf('2026-01')).toBe('2026-01-31');
    expect(lastDayOf('2026-02')).toBe('2026-02-28');
    expect(lastDayOf('2028-02')).toBe('2028-02-29');
    expect(lastDayOf('2100-02')).toBe('2100-02-28');
    expect(lastDayOf('2026-04')).toBe('2026-04-30');
    expect(lastDayOf('2026-12')).toBe('2026-12-31');
    expect(() => checkMonth('2026-13')).toThrow(/not a month/);
    expect(() => lastDayOf('2026-1')).toThrow(/not a month/);
  });

  it('names a month\'s release and files, with the simulated mark when the world is simulated', () => {
    expect(releaseTag('2026-11')).toBe('data-2026-11');
    expect(partNames('2026-11', false)).toEqual({ base: 'mcp-schema-2026-11', tar: 'mcp-schema-2026-11.tar.gz', descriptor: 'mcp-schema-2026-11.json', sums: 'SHA256SUMS' });
    expect(partNames('2026-11', true).tar).toBe('mcp-schema-2026-11-SIMULATED.tar.gz');
  });

  it('a month is closed once its last day is past and every day file of it, in every series, is compacted', () => {
    const gz = (folder: string, day: string) => ({ folder, day, files: [`${folder}/${day}.jsonl.gz`] });
    const days = [gz('observations', '2026-01-30'), gz('observations', '2026-01-31'), gz('observations-v2', '2026-01-31'), gz('observations', '2026-02-28')];
    expect(monthStatuses(days, [], '2026-02-01').map((m) => [m.month, m.closed])).toEqual([
      ['2026-01', true],
      ['2026-02', false],
    ]);
    // The last day itself is not past.
    expect(monthStatuses(days, [], '2026-01-31')[0]).toMatchObject({ month: '2026-01', closed: false, reason: 'its last day (2026-01-31) is not past (today is 2026-01-31)' });
    // A plain file (the day not compacted yet, or a late run's file beside the gz) keeps the month open, in either series.
    const plainV2 = [...days.slice(0, 2), { folder: 'observations-v2', day: '2026-01-31', files: ['observations-v2/2026-01-31.jsonl'] }];
    expect(monthStatuses(plainV2, [], '2026-03-01')[0]).toMatchObject({ closed: false, reason: 'observations-v2/2026-01-31.jsonl is not compacted (npm run compact)' });
    const both = [{ folder: 'observations', day: '2026-01-31', files: ['observations/2026-01-31.jsonl.gz', 'observations/2026-01-31.jsonl'] }];
    expect(monthStatuses(both, [], '2026-03-01')[0]).toMatchObject({ closed: false, reason: 'observations/2026-01-31.jsonl is not compacted (npm run compact)' });
    // A month with runs and no day file is still a month of the archive.
    expect(monthStatuses([], ['2025-12-31'], '2026-01-01')).toEqual([{ month: '2025-12', closed: true, reason: null }]);
    expect(() => monthStatuses([], [], '2026-1-1')).toThrow(/not a day/);
  });
});

describe('pieces', () => {
  it('keeps a file that fits whole, under its own name', () => {
    expect(pieceRanges(0, 10)).toEqual([{ start: 0, end: 0 }]);
    expect(pieceRanges(10, 10)).toEqual([{ start: 0, end: 10 }]);
    expect(pieceNames('a.tar.gz', 1)).toEqual(['a.tar.gz']);
  });

  it('cuts a file over the limit into numbered pieces, none over it, that cover it once in order', () => {
    expect(pieceRanges(11, 10)).toEqual([
      { start: 0, end: 10 },
      { start: 10, end: 11 },
    ]);
    expect(pieceRanges(30, 10)).toHaveLength(3);
    for (const [bytes, max] of [[1, 1], [7, 3], [1_000_003, 1000], [2 * MAX_PIECE_BYTES + 1, MAX_PIECE_BYTES]] as const) {
      const r = pieceRanges(bytes, max);
      expect(r[0]!.start).toBe(0);
      expect(r.at(-1)!.end).toBe(bytes);
      for (let i = 1; i < r.length; i++) expect(r[i]!.start).toBe(r[i - 1]!.end);
      expect(Math.max(...r.map((p) => p.end - p.start))).toBeLessThanOrEqual(max);
      expect(r.length).toBe(Math.ceil(bytes / max));
    }
    expect(pieceNames('a.tar.gz', 3)).toEqual(['a.tar.gz.001', 'a.tar.gz.002', 'a.tar.gz.003']);
    const many = pieceNames('a', 1200);
    expect(many[0]).toBe('a.0001');
    expect([...many].sort()).toEqual(many);
  });

  it('never publishes a file GitHub refuses (each asset must be under 2 GiB)', () => {
    expect(MAX_PIECE_BYTES).toBeLessThan(2 ** 31);
    // A month of 5 GB: three pieces, each under the limit.
    const r = pieceRanges(5_000_000_000);
    expect(r).toHaveLength(3);
    for (const p of r) expect(p.end - p.start).toBeLessThan(2 ** 31);
    expect(() => pieceRanges(-1)).toThrow();
    expect(() => pieceRanges(10, 0)).toThrow();
  });
});

describe('what the month\'s rows and rosters name', () => {
  it('reads every object field of both series, arrays included, and nothing else', () => {
    expect(rowObjectNames({ body_sha256: H('a'), registry_page_sha256: H('b'), handshake_sha256: H('c'), tools_pages_sha256: [H('a'), H('d')], tools_sha256: H('e') })).toEqual([H('a'), H('b'), H('c'), H('a'), H('d')]);
    expect(rowObjectNames({ body_sha256: null, registry_page_sha256: 'not-a-hash' })).toEqual([]);
    expect(rowObjectNames('text')).toEqual([]);
    expect(rosterPageNames({ pages: [{ sha256: H('1') }, { sha256: 'x' }, null] })).toEqual([H('1')]);
    expect(rosterPageNames({})).toEqual([]);
  });
});

function descriptor(month: string, pieces: { name: string; bytes: number; sha256: string }[], file = { name: `mcp-schema-${month}.tar.gz`, bytes: pieces.reduce((n, p) => n + p.bytes, 0), sha256: H('f') }): PartDescriptor {
  return {
    format: 'mcp-schema/month-part/v1',
    month,
    tag: releaseTag(month),
    simulated: false,
    folder: `mcp-schema-${month}`,
    day_files: [`observations/${month}-01.jsonl.gz`, `observations-v2/${month}-01.jsonl.gz`],
    runs: [{ run_id: `${month}-01T031500Z`, day: `${month}-01`, lines: 2, manifest: { seq: 1, sha256: H('c') } }],
    rosters: [`rosters/${month}-01.json.gz`],
    objects: 3,
    chain: { manifests: 2, head: { seq: 1, sha256: H('c') } },
    file,
    pieces,
  };
}

describe('descriptors, checksums and the manifest', () => {
  const whole = descriptor('2026-01', [{ name: 'mcp-schema-2026-01.tar.gz', bytes: 100, sha256: H('f') }]);
  const split = descriptor('2026-02', [
    { name: 'mcp-schema-2026-02.tar.gz.001', bytes: 10, sha256: H('1') },
    { name: 'mcp-schema-2026-02.tar.gz.002', bytes: 5, sha256: H('2') },
  ]);
  const listed: ListedPart[] = [
    { descriptor: split, descriptorFile: { bytes: 900, sha256: H('8') } },
    { descriptor: whole, descriptorFile: { bytes: 800, sha256: H('9') } },
  ];
  const url = (tag: string, name: string) => `https://github.com/o/r/releases/download/${tag}/${name}`;

  it('reads a descriptor back as written, and refuses one that is not', () => {
    expect(parseDescriptor(descriptorJson(whole), 'd')).toEqual(whole);
    expect(() => parseDescriptor('{', 'd.json')).toThrow('d.json: not JSON');
    expect(() => parseDescriptor(JSON.stringify({ ...whole, month: '2026-13' }), 'd.json')).toThrow(/d\.json: month/);
    expect(() => parseDescriptor(JSON.stringify({ ...whole, pieces: [{ name: '../x', bytes: 1, sha256: H('1') }] }), 'd.json')).toThrow(/pieces\.0\.name/);
    expect(() => parseDescriptor(JSON.stringify({ ...whole, extra: 1 }), 'd.json')).toThrow(/Unrecognized key/);
  });

  it('writes SHA256SUMS as sha256sum reads it, and reads it back', () => {
    const text = sumsText([{ name: 'b', sha256: H('2') }, { name: 'a', sha256: H('1') }]);
    expect(text).toBe(`${H('1')}  a\n${H('2')}  b\n`);
    expect([...parseSums(text, 's')]).toEqual([['a', H('1')], ['b', H('2')]]);
    expect(() => parseSums('nope\n', 'SHA256SUMS')).toThrow('SHA256SUMS:1: not a SHA256SUMS line');
  });

  it('lists every part oldest first, with each published file\'s URL, size and SHA-256, and how to join pieces', () => {
    const m = partsManifest(listed, { assetUrl: url, notInParts: { months: ['2026-03'], url: 'https://site/data/' }, simulated: false }) as { parts: Record<string, unknown>[]; not_in_parts: unknown; format: string };
    expect(m.format).toBe('mcp-schema/parts-manifest/v1');
    expect(m.parts.map((p) => p.month)).toEqual(['2026-01', '2026-02']);
    expect(m.parts[0]).toMatchObject({
      tag: 'data-2026-01',
      days: 1,
      runs: 1,
      file: { name: 'mcp-schema-2026-01.tar.gz', bytes: 100, sha256: H('f'), url: url('data-2026-01', 'mcp-schema-2026-01.tar.gz') },
      pieces: [],
      descriptor: { name: 'mcp-schema-2026-01.json', url: url('data-2026-01', 'mcp-schema-2026-01.json'), bytes: 800, sha256: H('9') },
      sums_url: url('data-2026-01', 'SHA256SUMS'),
    });
    expect(m.parts[0]).not.toHaveProperty('join');
    // A split part: the whole file has no URL (it is not published), its pieces do.
    expect(m.parts[1]!.file).toEqual({ name: 'mcp-schema-2026-02.tar.gz', bytes: 15, sha256: H('f') });
    expect(m.parts[1]!.pieces).toEqual([
      { name: 'mcp-schema-2026-02.tar.gz.001', bytes: 10, sha256: H('1'), url: url('data-2026-02', 'mcp-schema-2026-02.tar.gz.001') },
      { name: 'mcp-schema-2026-02.tar.gz.002', bytes: 5, sha256: H('2'), url: url('data-2026-02', 'mcp-schema-2026-02.tar.gz.002') },
    ]);
    expect(m.parts[1]!.join).toBe('cat mcp-schema-2026-02.tar.gz.001 mcp-schema-2026-02.tar.gz.002 > mcp-schema-2026-02.tar.gz');
    expect(m.not_in_parts).toEqual({ months: ['2026-03'], url: 'https://site/data/' });
    expect(() => partsManifest([...listed, listed[0]!], { assetUrl: url, notInParts: { months: [], url: '' }, simulated: false })).toThrow(/listed twice/);
  });

  it("the manifest's SHA256SUMS holds every published file of every part, once", () => {
    const sums = parseSums(manifestSums(listed), 'm');
    expect([...sums.keys()].sort()).toEqual(['mcp-schema-2026-01.json', 'mcp-schema-2026-01.tar.gz', 'mcp-schema-2026-02.json', 'mcp-schema-2026-02.tar.gz.001', 'mcp-schema-2026-02.tar.gz.002']);
    expect(sums.get('mcp-schema-2026-02.json')).toBe(H('8'));
  });
});
