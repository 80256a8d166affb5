// Contract families read off a real archive (src/loader/families.ts): the collector ran ten days against
// one hosted template's six tenants and its near misses on loopback hosts (test/helpers/template-tenants.ts).
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArchive, type Archive } from '../../src/loader/load-archive.ts';
import { familiesOf, type FamiliesView } from '../../src/loader/families.ts';
import { volatility } from '../../src/lib/index.ts';
import { collectTemplateArchive, TEMPLATE, tenantName } from '../helpers/template-tenants.ts';

let dir: string;
let a: Archive;
let f: FamiliesView;

beforeAll(async () => {
  dir = await collectTemplateArchive();
  a = await loadArchive(dir);
  f = await familiesOf(a);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('contract families of the template world', () => {
  it('finds the template as one family across its release, and nothing else', () => {
    expect(a.servers.length).toBe(10);
    expect(f.unkeyed).toBe(0);
    expect(f.families.length).toBe(1);
    const fam = f.families[0]!;
    expect(fam.members).toEqual(TEMPLATE.tenants.map(tenantName));
    expect(fam.keys.length).toBe(2);
    expect(fam.platform).toBe('127.0.0.1');
    expect([fam.first_day, fam.last_day, fam.size]).toEqual(['2026-01-01', '2026-01-10', 5]);
    // Six changed together on day 4 (the release), the leaver alone on day 7.
    expect([fam.changes, fam.joint_days, fam.joint_changes]).toEqual([7, 1, 6]);
    expect(f.byId.get(fam.id)).toBe(fam);
  });

  it('near misses: the echo servers on two hosts and the two tenants whose contracts differ are in no family', () => {
    for (const name of [...TEMPLATE.echo, ...Object.keys(TEMPLATE.different)]) expect(f.byTarget.has(name)).toBe(false);
  });

  it('a tenant that leaves the template leaves the family from that day', () => {
    expect(f.byTarget.get(tenantName(TEMPLATE.leaver))!.map((m) => [m.first_day, m.last_day, m.open])).toEqual([['2026-01-01', '2026-01-07', false]]);
    expect(f.byTarget.get(tenantName('acme'))!.map((m) => [m.first_day, m.last_day, m.open])).toEqual([['2026-01-01', '2026-01-10', true]]);
  });

  it('counts the family once beside the per-name figures: half-life 4 days per name, 8 once', () => {
    // Per name: 10 servers, 6 change at 4 days (S = 0.4). Once: acme for the six, the four others: 4, 6, 8 of 5, 4, 3 at risk.
    expect(a.serverIntervals.length).toBe(10);
    expect(a.serverHalfLife!.median).toBe(4);
    expect(f.once.intervals.map((i) => [i.target, i.duration, i.event])).toEqual([
      [tenantName('acme'), 4, true], [TEMPLATE.echo[0], 9, false], [TEMPLATE.echo[1], 9, false], ['io.github.stark/docs', 6, true], ['io.github.wayne/docs', 8, true],
    ]);
    expect(f.once.halfLife!.median).toBe(8);
    expect(f.once.everChanged.at(-1)!.share).toBeCloseTo(0.6, 12);
    expect(a.everChanged.at(-1)!.share).toBeCloseTo(0.8, 12);
    expect(f.once.firstChangeLargest).toMatchObject({ events: 6, total: 8, share: 0.75 });
  });

  it('the volatile subset per name is the leaver; counted once per family, nobody changed twice', () => {
    // The view's drifts give the archive's own volatility back.
    const perName = volatility(a.servers.map((s) => ({ target: s.name, head: null, versions: [], changes: s.changes.map((c) => ({ day: c.day }) as never), repeatMover: false })));
    expect([perName.changes, perName.volatile]).toEqual([a.volatility.changes, a.volatility.volatile]);
    expect(a.volatility.changes).toBe(9);
    expect(a.volatility.volatile).toEqual([{ target: tenantName(TEMPLATE.leaver), changes: 2 }]);
    expect(f.once.volatility.changes).toBe(4);
    expect(f.once.volatility.volatile).toEqual([]);
    expect(f.once.changesLargest).toMatchObject({ events: 6, total: 9 });
  });

  it("the dashboard's changed-in-N-days tiles count the release once: 8 servers, 3 units, one family made 6 of them", () => {
    expect(a.tiles.changed30).toBe(8);
    expect(f.once.changed30).toEqual({ servers: a.tiles.changed30, units: 3, largest: { family: f.families[0]!.id, platform: '127.0.0.1', events: 6, total: 8, share: 0.75 } });
    expect(f.once.changed7.servers).toBe(a.tiles.changed7);
  });
});

describe('template keys kept in the build cache', () => {
  it('a second build keys no contract again (no tools read) and finds the same families; a cache from other src/lib sources is not used', async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const { forgetArchive } = await import('../../src/loader/load-archive.ts');
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'mcps-family-keys-'));
    try {
      const load = async (libPrint?: string) => {
        forgetArchive(dir);
        const b = await loadArchive(dir, { cache: { dir: cacheDir, sourceRoot: process.cwd() } });
        if (libPrint !== undefined) b.memo = { ...b.memo!, libPrint };
        let reads = 0;
        const tools = b.tools.bind(b);
        b.tools = (body, sha) => {
          reads++;
          return tools(body, sha);
        };
        return { view: await familiesOf(b), reads: () => reads, b };
      };
      const first = await load();
      expect(first.reads()).toBe(first.b.intervals.length);
      const second = await load();
      expect(second.reads()).toBe(0);
      expect(second.view.families).toEqual(f.families);
      expect(second.view.once.halfLife).toEqual(f.once.halfLife);
      // Other src/lib sources (another fingerprint): nothing is found, everything is keyed again.
      const other = await load('other sources');
      expect(other.reads()).toBe(other.b.intervals.length);
      expect(other.view.families).toEqual(f.families);
    } finally {
      forgetArchive(dir);
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});
