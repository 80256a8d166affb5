// The sealed-months record (src/lib/sealed-bundles.ts): every field it checks, with the near miss
// that passes beside each refusal, the merge month by month, and the check against a host's manifest.
import { describe, expect, it } from 'vitest';
import { mergeSealedBundles, parseSealedBundles, unpublishedSealedFiles, type SealedBundles } from '../../src/lib/sealed-bundles.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const file = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ name: 'observations-2026-01.jsonl.gz', resource: 'observations', rows: 3, sha256: A, bytes: 10, ...over });
const record = (files: unknown[], month = '2026-01', key: unknown = B): unknown => ({ format: 1, months: { [month]: { key, files } } });
const one = (f: Record<string, unknown>) => parseSealedBundles(record([f]));

describe('parseSealedBundles', () => {
  it('reads a record as it was written, months in order, and keeps an optional url only when given', () => {
    const r = parseSealedBundles({ format: 1, months: { '2026-02': { key: A, files: [file({ url: 'https://files.example.org/data/x' })] }, '2025-12': { key: B, files: [file()] } } })!;
    expect(Object.keys(r.months)).toEqual(['2025-12', '2026-02']);
    expect(r.months['2026-02']!.files[0]).toEqual({ name: 'observations-2026-01.jsonl.gz', url: 'https://files.example.org/data/x', resource: 'observations', rows: 3, sha256: A, bytes: 10 });
    expect('url' in r.months['2025-12']!.files[0]!).toBe(false);
    expect(r.format).toBe(1);
    // Fields it does not know are left behind, not carried.
    expect(one(file({ extra: 'x' }))!.months['2026-01']!.files[0]).not.toHaveProperty('extra');
  });

  it('an empty record and a month without files are records', () => {
    expect(parseSealedBundles({ format: 1, months: {} })).toEqual({ format: 1, months: {} });
    expect(parseSealedBundles(record([]))!.months['2026-01']!.files).toEqual([]);
  });

  it('refuses what is not a record at all', () => {
    for (const v of [null, undefined, 1, 'x', [], [record([])], { months: {} }, { format: 2, months: {} }, { format: '1', months: {} }, { format: 1 }, { format: 1, months: null }, { format: 1, months: [] }, { format: 1, months: 'x' }]) expect(parseSealedBundles(v), JSON.stringify(v)).toBeNull();
  });

  it('refuses a month that is not YYYY-MM or not an object, and a key that is not a SHA-256 (near misses pass)', () => {
    for (const month of ['2026-1', '2026-13', '2026-00', '26-01', '2026-01-01', 'x2026-01', '2026-01x']) expect(parseSealedBundles(record([], month)), month).toBeNull();
    for (const month of ['2026-01', '2026-09', '2026-10', '2026-12']) expect(parseSealedBundles(record([], month)), month).not.toBeNull();
    for (const m of [null, [], 'x', 1]) expect(parseSealedBundles({ format: 1, months: { '2026-01': m } }), JSON.stringify(m)).toBeNull();
    for (const key of [null, 1, 'A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 'g'.repeat(64), [A]]) expect(parseSealedBundles(record([], '2026-01', key)), String(key)).toBeNull();
    expect(parseSealedBundles({ format: 1, months: { '2026-01': { key: B, files: 'x' } } })).toBeNull();
    expect(parseSealedBundles({ format: 1, months: { '2026-01': { key: B } } })).toBeNull();
  });

  it('refuses a file whose name could be a path, a dot-file or too long (near misses pass)', () => {
    for (const name of ['../x', 'a/b', '.hidden', '', 'a b', 'x'.repeat(202), 'ü.gz', 1, null]) expect(one(file({ name })), String(name)).toBeNull();
    for (const name of ['x', 'observations-v2-2026-01.csv.gz', 'A_b-1.parquet', 'x'.repeat(201)]) expect(one(file({ name })), name).not.toBeNull();
  });

  it('refuses a bad SHA-256, size, row count, resource or url (near misses pass)', () => {
    // An array whose text is a SHA-256 is still not a string.
    for (const sha256 of ['', 'A'.repeat(64), 'a'.repeat(63), 'z'.repeat(64), 1, null, [A]]) expect(one(file({ sha256 })), String(sha256)).toBeNull();
    for (const bytes of [-1, 1.5, '10', null, Number.MAX_SAFE_INTEGER + 1]) expect(one(file({ bytes })), String(bytes)).toBeNull();
    for (const bytes of [0, 1, Number.MAX_SAFE_INTEGER]) expect(one(file({ bytes })), String(bytes)).not.toBeNull();
    for (const rows of [-1, 0.5, '3', undefined]) expect(one(file({ rows })), String(rows)).toBeNull();
    for (const rows of [0, null, 7]) expect(one(file({ rows })), String(rows)).not.toBeNull();
    for (const resource of [1, undefined, {}]) expect(one(file({ resource })), String(resource)).toBeNull();
    expect(one(file({ resource: null }))!.months['2026-01']!.files[0]!.resource).toBeNull();
    for (const url of ['ftp://x', 'files.example.org/x', 'javascript:alert(1)', 'javascript:https://x', 1, null, ['https://x']]) expect(one(file({ url })), String(url)).toBeNull();
    for (const url of ['http://x', 'https://files.example.org/data/x']) expect(one(file({ url })), url).not.toBeNull();
    for (const f of [null, 'x', 1, []]) expect(parseSealedBundles(record([f])), JSON.stringify(f)).toBeNull();
  });

  it('refuses a month that names one file twice, and a record with one bad file among good ones', () => {
    expect(parseSealedBundles(record([file(), file()]))).toBeNull();
    expect(parseSealedBundles(record([file(), file({ name: 'observations-2026-01.csv.gz' })]))!.months['2026-01']!.files).toHaveLength(2);
    expect(parseSealedBundles(record([file(), file({ name: '../x' })]))).toBeNull();
    expect(parseSealedBundles({ format: 1, months: { '2026-01': { key: B, files: [file()] }, '2026-02': { key: 'x', files: [] } } })).toBeNull();
  });
});

describe('mergeSealedBundles', () => {
  const m = (key: string, name = 'x.gz'): SealedBundles['months'][string] => ({ key, files: [{ name, resource: null, rows: null, sha256: A, bytes: 1 }] });
  it("lays the build's months over the published ones, month by month, sorted", () => {
    const published: SealedBundles = { format: 1, months: { '2026-01': m(A), '2026-02': m(A) } };
    const merged = mergeSealedBundles(published, { format: 1, months: { '2026-02': m(B, 'y.gz'), '2025-12': m(B) } });
    expect(Object.keys(merged.months)).toEqual(['2025-12', '2026-01', '2026-02']);
    expect(merged.months['2026-02']).toEqual(m(B, 'y.gz'));
    expect(merged.months['2026-01']).toEqual(m(A));
    expect(merged.format).toBe(1);
    // The published record is not changed.
    expect(published.months['2026-02']).toEqual(m(A));
  });
  it('with nothing published, the build\'s record alone', () => {
    expect(mergeSealedBundles(null, { format: 1, months: { '2026-03': m(A), '2026-01': m(B) } })).toEqual({ format: 1, months: { '2026-01': m(B), '2026-03': m(A) } });
  });
});

describe('unpublishedSealedFiles', () => {
  const r: SealedBundles = {
    format: 1,
    months: {
      '2026-01': { key: B, files: [{ name: 'a.gz', resource: null, rows: 1, sha256: A, bytes: 1 }, { name: 'b.gz', resource: null, rows: 1, sha256: B, bytes: 1 }] },
      '2026-02': { key: B, files: [{ name: 'c.gz', resource: null, rows: 1, sha256: A, bytes: 1 }] },
    },
  };
  it('names every file the host lacks or holds with other bytes, under data/', () => {
    expect(unpublishedSealedFiles(r, {})).toEqual(['data/a.gz', 'data/b.gz', 'data/c.gz']);
    expect(unpublishedSealedFiles(r, { 'data/a.gz': A, 'data/b.gz': A, 'data/c.gz': A })).toEqual(['data/b.gz']);
    // The same name outside data/ is not the file.
    expect(unpublishedSealedFiles(r, { 'a.gz': A, 'data/b.gz': B, 'data/c.gz': A })).toEqual(['data/a.gz']);
  });
  it('none when the host holds every file with its bytes', () => {
    expect(unpublishedSealedFiles(r, { 'data/a.gz': A, 'data/b.gz': B, 'data/c.gz': A, 'data/other': B })).toEqual([]);
    expect(unpublishedSealedFiles({ format: 1, months: {} }, {})).toEqual([]);
  });
});
