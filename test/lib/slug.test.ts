import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SLUG_LENGTH, nameFromSlug, slugFor } from '../../src/lib/slug.ts';

describe('slugFor(name)', () => {
  it.each([
    ['io.github.user/server', 'io.github.user_server'],
    ['com.example/my_server', 'com.example_my~5fserver'],
    ['io.github.JohnDoe/X', 'io.github.~4aohn~44oe_~58'],
    ['../../etc/passwd', '~2e._.._etc_passwd'],
    ['.hidden/x', '~2ehidden_x'],
    ['a~b', 'a~7eb'],
    ['ü/ß', '~c3~bc_~c3~9f'],
    ['<script>/x', '~3cscript~3e_x'],
  ])('maps %j to %j and back', (name, slug) => {
    expect(slugFor(name)).toBe(slug);
    expect(nameFromSlug(slug)).toBe(name);
  });

  // Names equal to what the site writes under /servers/ and /api/servers/, or at its root: each
  // gets its first character escaped, so /servers/<slug>/ is never the server list or a site file.
  it.each([
    ['index.html', '~69ndex.html'],
    ['index', '~69ndex'],
    ['feed.xml', '~66eed.xml'],
    ['feed.json', '~66eed.json'],
    ['404.html', '~34' + '04.html'],
    ['data', '~64ata'],
    ['api', '~61pi'],
    ['servers', '~73ervers'],
    ['pagefind', '~70agefind'],
    ['drift.xml', '~64rift.xml'],
    ['_astro', '~5fastro'],
    ['.', '~2e'],
    ['..', '~2e.'],
    ['', '~~e3b0c44298fc1c14'],
  ])('keeps %j apart from the site: %j', (name, slug) => {
    expect(slugFor(name)).toBe(slug);
    if (name !== '') expect(nameFromSlug(slug)).toBe(name);
  });

  it('always holds `_` or `~`, which no file or folder the site writes under /servers/ or /api/servers/ does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40, unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789.-'.split('')) }), fc.string({ maxLength: 300, unit: 'binary' })), (name) => {
        expect(slugFor(name)).toMatch(/[_~]/);
      }),
    );
  });

  it('never yields a path that escapes its folder, a dot-segment or a hidden file', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: 'binary' }), (name) => {
        const slug = slugFor(name);
        expect(slug).toMatch(/^[a-z0-9_~-][a-z0-9._~-]*$/);
        expect(slug.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
      }),
    );
  });

  it('is injective: names that differ (case included) never share a slug', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: 'binary' }), fc.string({ maxLength: 60, unit: 'binary' }), (a, b) => {
        fc.pre(a !== b);
        expect(slugFor(a)).not.toBe(slugFor(b));
      }),
    );
    expect(slugFor('Foo/bar')).not.toBe(slugFor('foo/bar'));
    // Short names over the characters the mapping treats specially, so near-misses are frequent.
    const near = fc.string({ maxLength: 6, unit: fc.constantFrom('a', 'i', '.', '-', '_', '~', '/', '6', '9') });
    fc.assert(
      fc.property(near, near, (a, b) => {
        fc.pre(a !== b);
        expect(slugFor(a)).not.toBe(slugFor(b));
      }),
      { numRuns: 2000 },
    );
  });

  // Up to 60 graphemes of astral characters encode to more than MAX_SLUG_LENGTH characters (each byte
  // of a 4-byte character is `~xx`): such a slug is hashed and, as documented, not reversible.
  it('round-trips through nameFromSlug for well-formed unicode names, unless the slug had to be hashed', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }), (name) => {
        const slug = slugFor(name);
        expect(nameFromSlug(slug)).toBe(/~~[0-9a-f]{16}$/.test(slug) ? null : name);
      }),
    );
    const astral = '\u{1F600}'.repeat(30);
    expect(slugFor(astral)).toMatch(/~~[0-9a-f]{16}$/);
    expect(nameFromSlug(slugFor(astral))).toBeNull();
  });

  it('keeps a slug of exactly MAX_SLUG_LENGTH characters and hashes one character more', () => {
    const name = (n: number) => `io.github.x/${'a'.repeat(n - 12)}`;
    expect(slugFor(name(MAX_SLUG_LENGTH))).toBe(name(MAX_SLUG_LENGTH).replace('/', '_'));
    expect(slugFor(name(MAX_SLUG_LENGTH + 1))).toMatch(/^io\.github\.x_a{148}~~[0-9a-f]{16}$/);
  });
  it('hashes over-long names into a bounded, distinct slug', () => {
    const a = slugFor(`io.github.x/${'a'.repeat(500)}`);
    const b = slugFor(`io.github.x/${'a'.repeat(499)}b`);
    expect(a.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
    expect(a).toMatch(/~~[0-9a-f]{16}$/);
    expect(a).not.toBe(b);
    expect(nameFromSlug(a)).toBeNull();
  });
});

describe('nameFromSlug(slug)', () => {
  // Slugs come back from URLs anyone can type: each name has one slug, and nothing else resolves.
  it.each([
    ['a letter escaped that needs no escape', 'a~62_c'],
    ['an upper-case letter', 'io.github.A_x'],
    ['bytes that are not UTF-8', 'x_~ff'],
    ['a cut UTF-8 sequence', 'x_~c3'],
    ['a broken escape', 'x_~zz'],
    ['a lone-surrogate escape outside the surrogates', 'x_~u0041'],
    ['a hashed slug', 'io.github.x_a~~0123456789abcdef'],
  ])('is null for %s (%j)', (_what, slug) => {
    expect(nameFromSlug(slug)).toBeNull();
  });
});

describe('slugFor(name) with lone surrogates', () => {
  it('keeps names that differ only in a lone surrogate apart, and round-trips them', () => {
    expect(slugFor('a\ud800')).toBe('a~ud800');
    expect(slugFor('a\udfff')).toBe('a~udfff');
    expect(slugFor('a\ud800')).not.toBe(slugFor('a\udfff'));
    expect(nameFromSlug('a~ud800')).toBe('a\ud800');
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }), (name) => {
      expect(nameFromSlug(slugFor(name))).toBe(name);
    }));
  });
});
