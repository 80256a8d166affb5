// src/archive/objects.ts and layout.ts: an object is read only by a name that is a sha256, and only
// while its bytes still hash to that name.
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isObjectName, objectKey, objectPath } from '../../src/archive/layout.ts';
import { hashFile, readObject, readObjectSync } from '../../src/archive/objects.ts';
import { readRoster } from '../../src/archive/rosters.ts';
import { cleanUp, GOLDEN, goldenCopy } from '../helpers/golden-archive.ts';

afterAll(cleanUp);

const page = (() => {
  const r = readRoster(GOLDEN, '2025-12-15.json');
  if (!r.ok) throw new Error(r.message);
  return r.value.pages[0]!.sha256!;
})();

describe('objectKey(sha), objectPath(dir, sha), isObjectName(name)', () => {
  it('shards by the first two hex digits, and takes only a sha256 for a name', () => {
    expect(objectKey(page)).toBe(`objects/${page.slice(0, 2)}/${page}`);
    expect(objectPath('/a', page)).toBe(`/a/objects/${page.slice(0, 2)}/${page}`);
    expect([isObjectName(page), isObjectName(page.toUpperCase()), isObjectName(`../${page.slice(3)}`)]).toEqual([true, false, false]);
  });
});

describe('readObject(dir, sha), readObjectSync(dir, sha)', () => {
  it('reads an object whose bytes hash to its name', async () => {
    expect((await readObject(GOLDEN, page))!.equals(readObjectSync(GOLDEN, page)!)).toBe(true);
    expect(await hashFile(objectPath(GOLDEN, page))).toBe(page);
  });
  it('refuses names that are not a sha256, and objects that are missing or whose bytes no longer match', async () => {
    const dir = await goldenCopy();
    expect(await readObject(dir, '../runs.jsonl')).toBeNull();
    expect(await readObject(dir, `../../${'a'.repeat(62)}`)).toBeNull();
    expect(await readObject(dir, 'f'.repeat(64))).toBeNull();
    writeFileSync(objectPath(dir, page), 'tampered');
    expect(await readObject(dir, page)).toBeNull();
    expect(readObjectSync(dir, page)).toBeNull();
  });
});
