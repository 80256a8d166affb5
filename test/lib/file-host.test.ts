// onFileHost / copiedToFileHost: which site paths a configured file host serves. One rule
// decides where the build writes a file and where every link to it points.
import { describe, expect, it } from 'vitest';
import { copiedToFileHost, FILE_HOST_INDEX_PATH, onFileHost } from '../../src/lib/file-host.ts';

describe('onFileHost(sitePath)', () => {
  it.each([
    '/api/servers/io-github-x-y.json',
    '/api/tools/io-github-x-y.json',
    '/api/tool-names/ba.json',
    '/api/sets/',
    '/api/schema/descriptor.json',
    '/objects/ab/abcdef',
    '/objects/',
    '/servers/io-github-x-y/badge.svg',
    '/servers/io-github-x-y/feed.xml',
    '/servers/io-github-x-y/feed.json',
    '/servers/io-github-x-y/breaking.xml',
    '/servers/io-github-x-y/breaking.json',
    '/servers/io-github-x-y/changes/2026-12-01T00-00-00Z.patch.json',
    '/data/observations.jsonl.gz',
    '/data/observations.csv.gz',
    '/data/observations.parquet',
  ])('serves %s from the file host', (p) => {
    expect(onFileHost(p)).toBe(true);
  });

  it.each([
    // the site's note of where its files are stays on the site; a neighbour of it does not
    ['the index note', FILE_HOST_INDEX_PATH],
    ['a page under /api/', '/api/index.html'],
    ['a page under /objects/', '/objects/x.html'],
    ['a server page', '/servers/io-github-x-y/'],
    ['a server page file', '/servers/io-github-x-y/index.html'],
    ['a badge one folder down', '/servers/x/y/badge.svg'],
    ['a badge of no server', '/servers//badge.svg'],
    ['a badge with a suffix', '/servers/x/badge.svg.html'],
    ['a badge with a prefix', '/x/servers/x/badge.svg'],
    ['another svg', '/servers/x/logo.svg'],
    ['a breaking feed one folder down', '/servers/x/y/breaking.xml'],
    ['a breaking feed of another format', '/servers/x/breaking.atom'],
    ['a breaking feed with a suffix', '/servers/x/breaking.json.html'],
    ['a change that is not a patch', '/servers/x/changes/a.json'],
    ['a patch one folder deeper', '/servers/x/changes/a/b.patch.json'],
    ['a patch with no name', '/servers/x/changes/.patch.json'],
    ['a small data file', '/data/SHA256SUMS'],
    ['an uncompressed jsonl', '/data/observations.jsonl'],
    ['a bundle one folder down', '/data/x/observations.parquet'],
    ['a bundle of no name', '/data/.parquet'],
    ['a bundle with a suffix', '/data/observations.parquet.html'],
    ['a bundle with a prefix', '/x/data/observations.parquet'],
    ['/api without its slash', '/api'],
    ['a sibling of /api/', '/apis/x.json'],
    ['a sibling of /objects/', '/objectsx/y'],
    ['the home page', '/'],
  ])('keeps %s on the site', (_about, p) => {
    expect(onFileHost(p)).toBe(false);
  });

  it('keeps the index note on the site while every other /api/ JSON goes', () => {
    expect(FILE_HOST_INDEX_PATH).toBe('/api/index.json');
    expect(onFileHost('/api/index.json')).toBe(false);
    expect(onFileHost('/api/index.json.gz')).toBe(true);
    expect(onFileHost('/api/x/index.json')).toBe(true);
  });
});

describe('copiedToFileHost(sitePath)', () => {
  it('copies the small /data/ files the site keeps, so the file host data/ checks alone', () => {
    expect(copiedToFileHost('/data/SHA256SUMS')).toBe(true);
    expect(copiedToFileHost('/data/README.md')).toBe(true);
    expect(copiedToFileHost('/data/manifest.json')).toBe(true);
  });

  it.each([
    ['a bundle (the file host has it already)', '/data/observations.parquet'],
    ['a page', '/data/index.html'],
    ['the data folder', '/data/'],
    ['a file one folder down', '/data/x/SHA256SUMS'],
    ['a file outside /data/', '/api/manifest.json'],
    ['a file under a /data/ elsewhere', '/x/data/SHA256SUMS'],
  ])('does not copy %s', (_about, p) => {
    expect(copiedToFileHost(p)).toBe(false);
  });
});

describe('onFileHost(sitePath, { serverPages: true }): server pages on the file host', () => {
  it("sends each server's page and change pages there, with or without index.html", () => {
    for (const p of ['/servers/io.example_a/', '/servers/io.example_a/index.html', '/servers/~69ndex.html/', '/servers/io.example_a/changes/2026-01-02-abcdef012345/', '/servers/io.example_a/changes/2026-01-02-abcdef012345/index.html']) {
      expect(onFileHost(p, { serverPages: true }), p).toBe(true);
      // The near miss: the same paths without the option stay the site's.
      expect(onFileHost(p), p).toBe(false);
    }
  });

  it('keeps the server list, its pages and anything that is not a server page on the site', () => {
    for (const p of ['/servers/', '/servers/index.html', '/servers/page-2/', '/servers/page-2/index.html', '/servers/io.example_a/extra/', '/servers/io.example_a/changes/', '/servers/io.example_a/changes/x/y/', '/drift/', '/', '/index.html', '/api/index.json', '/servers/io.example_a']) expect(onFileHost(p, { serverPages: true }), p).toBe(false);
  });

  it("copies the build's assets there only with server pages", () => {
    expect(copiedToFileHost('/_astro/Base.abc123.css', { serverPages: true })).toBe(true);
    expect(copiedToFileHost('/_astro/Base.abc123.css')).toBe(false);
    expect(copiedToFileHost('/_astro/nested/x.css', { serverPages: true })).toBe(false);
    expect(copiedToFileHost('/data/SHA256SUMS', { serverPages: true })).toBe(true);
  });
});
