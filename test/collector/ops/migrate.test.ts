// npm run migrate: an archive whose listing pages are stored whole becomes one whose pages
// are packed and whose finished rosters and days are gzipped — every page's SHA-256 still reads back as
// the same bytes, every other object is untouched, verify and the chain stay green, and a second run
// finds nothing to do.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateArchive } from '../../../collector/ops/migrate.ts';
import { verifyArchive } from '../../../collector/ops/verify.ts';
import { objectPath, pagePath } from '../../../src/archive/layout.ts';
import { readObject } from '../../../src/archive/objects.ts';
import { listRosterFiles, readRoster } from '../../../src/archive/rosters.ts';
import { splitPage } from '../../../src/lib/index.ts';
import { collectArchive } from '../../helpers/archive.ts';

let base: string;
const scratch: string[] = [];
const copy = () => {
  const d = mkdtempSync(join(tmpdir(), 'mcps-migrate-'));
  scratch.push(d);
  cpSync(base, d, { recursive: true });
  return d;
};
beforeAll(async () => {
  base = await collectArchive({ seed: 'migrate', size: 40, days: 3 });
  // As an archive written before page manifests: every listing page stored whole, no page manifests, and
  // no page entries (the collector packs pages now; a migration starts from whole ones).
  const entries = new Set<string>();
  for (const sha of pageShas(base)) {
    const bytes = (await readObject(base, sha))!;
    for (const e of splitPage(bytes)!.entries) entries.add(e.sha256);
    mkdirSync(join(objectPath(base, sha), '..'), { recursive: true });
    writeFileSync(objectPath(base, sha), bytes);
    rmSync(pagePath(base, sha));
  }
  for (const e of entries) rmSync(objectPath(base, e), { force: true });
  rmSync(join(base, 'pages'), { recursive: true, force: true });
});
afterAll(() => {
  for (const d of [base, ...scratch]) rmSync(d, { recursive: true, force: true });
});

function pageShas(dir: string): string[] {
  const out = new Set<string>();
  for (const f of listRosterFiles(dir)) {
    const r = readRoster(dir, f);
    if (!r.ok) throw new Error(r.message);
    for (const p of r.value.pages) if (p.sha256) out.add(p.sha256);
  }
  return [...out].sort();
}

function objectNames(dir: string): Set<string> {
  const root = join(dir, 'objects');
  return new Set(readdirSync(root).flatMap((s) => readdirSync(join(root, s))));
}

describe('migrateArchive(dir)', () => {
  it('packs every whole page, keeps every other object, and every page reads back byte for byte', async () => {
    const dir = copy();
    const pages = pageShas(dir);
    const before = new Map(await Promise.all(pages.map(async (sha) => [sha, (await readObject(dir, sha))!] as const)));
    const chainBefore = (await verifyArchive(dir)).chain;
    const objectsBefore = objectNames(dir);
    for (const sha of pages) expect(existsSync(objectPath(dir, sha))).toBe(true); // stored whole before

    const s = await migrateArchive(dir);
    expect(s.pages).toBe(pages.length);
    expect(s.packed).toBe(pages.length);
    expect(s.kept_whole + s.already_packed).toBe(0);
    expect(s.bytes_written).toBeLessThan(s.bytes_removed);
    for (const sha of pages) {
      expect(existsSync(objectPath(dir, sha))).toBe(false);
      expect(existsSync(pagePath(dir, sha))).toBe(true);
      expect((await readObject(dir, sha))!.equals(before.get(sha)!)).toBe(true);
    }
    // Every object that is not a page (tool bodies, handshakes: what the site links to) is still there.
    const after = objectNames(dir);
    for (const name of objectsBefore) if (!pages.includes(name)) expect(after.has(name)).toBe(true);
    expect(readdirSync(join(dir, 'rosters')).every((f) => f.endsWith('.json.gz'))).toBe(true);
    expect(readdirSync(join(dir, 'observations')).every((f) => f.endsWith('.jsonl.gz'))).toBe(true);
    const report = await verifyArchive(dir);
    expect(report.problems).toEqual([]);
    expect(report.chain).toEqual(chainBefore);
  });

  it('is idempotent: a second run packs nothing and changes nothing', async () => {
    const dir = copy();
    await migrateArchive(dir);
    const again = await migrateArchive(dir);
    expect(again).toMatchObject({ packed: 0, kept_whole: 0, bytes_removed: 0 });
    expect(again.already_packed).toBe(again.pages);
    expect(again.compact.compacted).toEqual([]);
    expect(again.compact.rosters).toEqual([]);
    expect((await verifyArchive(dir)).problems).toEqual([]);
  });

  it('keeps a page it cannot split whole, and stops on an unreadable roster without touching pages', async () => {
    const dir = copy();
    const firstRoster = readRoster(dir, listRosterFiles(dir)[0]!);
    if (!firstRoster.ok) throw new Error(firstRoster.message);
    const first = firstRoster.value.pages[0]!.sha256;
    // A page the scanner will not split: make its roster point at an object holding an odd body.
    const odd = Buffer.from('{"servers":[1]}');
    const { sha256Hex } = await import('../../../src/lib/index.ts');
    const oddSha = sha256Hex(odd);
    const rosterFile = listRosterFiles(dir)[0]!;
    const rosterText = readFileSync(join(dir, 'rosters', rosterFile), 'utf8');
    writeFileSync(join(dir, 'rosters', rosterFile), rosterText.replaceAll(first!, oddSha));
    const p = objectPath(dir, oddSha);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, odd);
    const s = await migrateArchive(dir);
    expect(s.kept_whole).toBe(1);
    expect(readFileSync(p).equals(odd)).toBe(true);

    const broken = copy();
    writeFileSync(join(broken, 'rosters', listRosterFiles(broken)[0]!), '{"day":');
    await expect(migrateArchive(broken)).rejects.toThrow(/nothing after it was migrated/);
    for (const sha of pageShas(base)) expect(existsSync(objectPath(broken, sha))).toBe(true);
  });
});
