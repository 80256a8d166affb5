// src/lib/contract/edition.ts: the contract of a monthly edition's manifest (editions/<id>/edition.json).
// A citation names an edition by id and relies on what the manifest states: which run it was cut from,
// the chain head that pins its rows, who signed it, and each immutable file with its size and hash.
// Each bound is stated with its near miss (the value just inside it is taken, the one just outside refused).
import { describe, expect, it } from 'vitest';
import { Edition, EditionBundle } from '../../../src/lib/contract/edition.ts';

const H = (c: string) => c.repeat(64);

function bundle(): EditionBundle {
  return {
    name: 'observations-2026-01.jsonl.gz',
    resource: 'observations',
    covers: 'the whole month',
    rows: 1200,
    bytes: 34567,
    sha256: H('a'),
    url: 'https://example.org/editions/2026-01/observations-2026-01.jsonl.gz',
    edition: '2026-01',
  };
}

function edition(): Edition {
  return {
    edition: '2026-01',
    month: '2026-01',
    revision: 0,
    revises: null,
    note: null,
    cut_from_run: '2026-02-01T031500Z',
    data_as_of: '2026-02-01T03:15:00Z',
    data_as_of_day: '2026-02-01',
    cut_at: '2026-02-01T04:00:00Z',
    url: 'https://example.org/editions/2026-01/',
    methodology: 'v1',
    simulated: false,
    chain_head: { seq: 31, sha256: H('b'), run_id: '2026-02-01T031500Z', key_id: 'ops-ed25519-0123456789abcdef' },
    signed_by: 'ops-ed25519-0123456789abcdef',
    bundles: [bundle()],
  };
}

const bundleTakes = (change: Record<string, unknown>) => EditionBundle.safeParse({ ...bundle(), ...change }).success;
const editionTakes = (change: Record<string, unknown>) => Edition.safeParse({ ...edition(), ...change }).success;

describe('EditionBundle', () => {
  it('takes a file with its counts, hash and permanent URL, at every bound', () => {
    expect(EditionBundle.parse(bundle())).toEqual(bundle());
    for (const change of [
      { name: 'n' },
      { name: 'n'.repeat(128) },
      { resource: '' },
      { resource: 'r'.repeat(64) },
      { covers: '' },
      { covers: 'c'.repeat(128) },
      { rows: 0 },
      { bytes: 0 },
      { sha256: '0123456789abcdef'.repeat(4) },
      { url: 'u'.repeat(4096) },
      { edition: 'e'.repeat(32) },
      { edition: '' },
    ]) expect(bundleTakes(change), JSON.stringify(change).slice(0, 60)).toBe(true);
  });
  it.each([
    ['an empty name', { name: '' }],
    ['a name of 129 characters', { name: 'n'.repeat(129) }],
    ['a resource of 65 characters', { resource: 'r'.repeat(65) }],
    ['covers of 129 characters', { covers: 'c'.repeat(129) }],
    ['negative rows', { rows: -1 }],
    ['fractional rows', { rows: 1.5 }],
    ['negative bytes', { bytes: -1 }],
    ['fractional bytes', { bytes: 0.5 }],
    ['a hash in upper case', { sha256: H('A') }],
    ['a hash of 63 hex', { sha256: 'a'.repeat(63) }],
    ['a URL of 4097 characters', { url: 'u'.repeat(4097) }],
    ['an edition id of 33 characters', { edition: 'e'.repeat(33) }],
    ['a field it does not define', { month: '2026-01' }],
    ['no hash', { sha256: undefined }],
  ])('refuses %s', (_, change) => {
    expect(bundleTakes(change)).toBe(false);
  });
});

describe('Edition', () => {
  it('takes an original edition as cut, and a revision with its note', () => {
    expect(Edition.parse(edition())).toEqual(edition());
    expect(editionTakes({ edition: '2026-01-r1', revision: 1, revises: '2026-01', note: 'restated: a server’s rows were double-counted' })).toBe(true);
  });
  it.each(['2026-01', '2026-01-r1', '2026-01-r9', '2026-01-r10', '2026-12-r109', '0000-00'])('takes the edition id %s', (id) => {
    expect(editionTakes({ edition: id })).toBe(true);
  });
  it.each([
    '2026-01-r0', // revisions count from 1
    '2026-01-r01',
    '2026-01-r',
    '2026-01-',
    '2026-01r1',
    '2026-01-1',
    '2026-1',
    '2026-001',
    '202-01',
    '20260-01',
    'x2026-01',
    '2026-01x',
    '2026-01-r1x',
    '2026-01-R1',
    'abcd-ef',
    '2026-01-ra',
  ])('refuses the edition id %s', (id) => {
    expect(editionTakes({ edition: id })).toBe(false);
  });
  it.each([
    ['a month with a day', { month: '2026-01-01' }],
    ['a month with text before it', { month: 'x2026-01' }],
    ['a month of three-digit year', { month: '202-01' }],
    ['a month of one digit', { month: '2026-1' }],
    ['a month of letters', { month: 'abcd-ef' }],
    ['a negative revision', { revision: -1 }],
    ['a fractional revision', { revision: 0.5 }],
    ['revises of 33 characters', { revises: 'r'.repeat(33) }],
    ['a note of 4097 characters', { note: 'n'.repeat(4097) }],
    ['an empty cut_from_run', { cut_from_run: '' }],
    ['a cut_from_run of 65 characters', { cut_from_run: 'r'.repeat(65) }],
    ['data_as_of that is a day', { data_as_of: '2026-02-01' }],
    ['data_as_of_day with a time', { data_as_of_day: '2026-02-01T03:15:00Z' }],
    ['data_as_of_day with text before it', { data_as_of_day: 'x2026-02-01' }],
    ['data_as_of_day with text after it', { data_as_of_day: '2026-02-011' }],
    ['data_as_of_day of letters', { data_as_of_day: 'abcd-ef-gh' }],
    ['data_as_of_day with a short year', { data_as_of_day: '226-02-01' }],
    ['cut_at that is no timestamp', { cut_at: 'soon' }],
    ['a URL of 4097 characters', { url: 'u'.repeat(4097) }],
    ['a methodology of 65 characters', { methodology: 'm'.repeat(65) }],
    ['simulated as text', { simulated: 'false' }],
    ['a chain head with a negative seq', { chain_head: { ...edition().chain_head, seq: -1 } }],
    ['a chain head with a fractional seq', { chain_head: { ...edition().chain_head, seq: 1.5 } }],
    ['a chain head whose hash is not SHA-256', { chain_head: { ...edition().chain_head, sha256: 'b'.repeat(65) } }],
    ['a chain head without its run', { chain_head: { seq: 1, sha256: H('b'), key_id: null } }],
    ['a chain head with a numeric run id', { chain_head: { ...edition().chain_head, run_id: 7 } }],
    ['a chain head with an extra field', { chain_head: { ...edition().chain_head, signed: true } }],
    ['signed_by of 129 characters', { signed_by: 's'.repeat(129) }],
    ['a bundle that breaks its contract', { bundles: [{ ...bundle(), rows: -1 }] }],
    ['bundles that are not a list', { bundles: bundle() }],
    ['a field it does not define', { sha256sums: H('c') }],
    ['no chain head field at all', { chain_head: undefined }],
  ])('refuses %s', (_, change) => {
    expect(editionTakes(change)).toBe(false);
  });
  it('near misses of those bounds are taken', () => {
    for (const change of [
      { revision: 0 },
      { revision: 3 },
      { revises: 'r'.repeat(32) },
      { note: 'n'.repeat(4096) },
      { cut_from_run: 'r' },
      { cut_from_run: 'ab' },
      { cut_from_run: 'r'.repeat(64) },
      { data_as_of: '2026-02-01T04:15:00+01:00' },
      { data_as_of: '2026-02-01T03:15:00.123Z' },
      { cut_at: '2026-01-31T23:00:00-05:00' },
      { data_as_of_day: '0019-12-31' },
      { url: 'u'.repeat(4096) },
      { url: '' },
      { methodology: 'm'.repeat(64) },
      { methodology: 'v2, stitched onto v1 before 2026-03-01' },
      { simulated: true },
      { chain_head: null },
      { chain_head: { seq: 0, sha256: H('0'), run_id: '', key_id: null } },
      { signed_by: null },
      { signed_by: 's'.repeat(128) },
      { bundles: [] },
      { revises: null, note: null },
    ]) expect(editionTakes(change), JSON.stringify(change).slice(0, 60)).toBe(true);
  });
});
