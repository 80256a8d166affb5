// The world is a pure function of (seed, size, day), shaped like the real population, and the fleet
// serves exactly what the world says. Loopback only.
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { toolsSha256 } from '../../src/lib/index.ts';
import { startWorld } from '../../sandbox/fleet.ts';
import { OFFICIAL_META, type RegistryEntry } from '../../sandbox/registry-server.ts';
import { buildWorld, GITHUB_NAME, SANDBOX_META, type World } from '../../sandbox/world.ts';
import { closeMiniProbe, miniProbe } from './mini-probe.ts';

afterAll(async () => {
  await closeMiniProbe();
});

// toolsAt returns the same array while nothing changes: hash each distinct array once.
const hashes = new WeakMap<object, string>();
const toolsHash = (tools: readonly unknown[]) => {
  let h = hashes.get(tools);
  if (!h) hashes.set(tools, (h = toolsSha256(tools)));
  return h;
};
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const HOSTS = Array.from({ length: 300 }, (_, i) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}:8080`);

function firstStreamable(e: RegistryEntry): string | null {
  const r = ((e.server.remotes as Array<{ type: string; url: string }> | undefined) ?? []).find((x) => x.type === 'streamable-http');
  return r?.url ?? null;
}

describe('determinism', () => {
  it('same seed and size → the same listing and tool lists every day; another seed differs', () => {
    const digest = (w: World) =>
      sha(
        [0, 1, 7, 30, 59]
          .map((d) => JSON.stringify(w.registryEntries(d, HOSTS)) + w.targets.map((t) => (w.toolsAt(t.index, d) ? toolsSha256(w.toolsAt(t.index, d)!) : '-')).join(','))
          .join('\n'),
      );
    const a = digest(buildWorld({ seed: 42, size: 200 }));
    expect(digest(buildWorld({ seed: 42, size: 200 }))).toBe(a);
    expect(digest(buildWorld({ seed: 43, size: 200 }))).not.toBe(a);
  });

  it('a target keeps its behaviour whatever the size of the world', () => {
    const small = buildWorld({ seed: 5, size: 300 });
    const big = buildWorld({ seed: 5, size: 1055 });
    for (const t of small.targets.slice(0, 60)) {
      const u = big.targets.find((x) => x.name === t.name)!;
      expect({ p: u.profile, d: u.drift, c: u.changes }).toEqual({ p: t.profile, d: t.drift, c: t.changes });
    }
  });

  it('serves byte-identical tools/list bodies for the same seed and day (two separate fleets)', async () => {
    const run = async () => {
      const w = await startWorld({ seed: 'det', size: 120, day: 3 });
      try {
        const out: string[] = [];
        for (const e of w.world.registryEntries(3, w.hostports)) {
          const url = e._meta?.[OFFICIAL_META]?.isLatest ? firstStreamable(e) : null;
          if (!url) continue;
          const r = await miniProbe(url, 800);
          out.push(`${e.server.name} ${r.kind} ${r.status} ${r.bodySha ?? '-'}`);
        }
        return out;
      } finally {
        await w.close();
      }
    };
    const a = await run();
    const b = await run();
    expect(a.filter((l) => / ok /.test(l)).length).toBeGreaterThan(10);
    expect(b).toEqual(a);
  });
});

describe('population shape', () => {
  const world = buildWorld({ seed: 1, size: 2000 });
  const listed = world.targets.filter((t) => world.expected(t.index, 0).listed);
  const share = (pred: (t: (typeof listed)[number]) => boolean) => listed.filter(pred).length / listed.length;

  it('real names, real shapes, synthetic copies say so', () => {
    expect(world.targets).toHaveLength(2000);
    expect(new Set(world.targets.map((t) => t.name)).size).toBe(2000);
    const copies = world.targets.filter((t) => t.synthetic);
    expect(copies.length).toBe(2000 - 1055);
    for (const t of copies.slice(0, 50)) {
      expect(t.name).toMatch(/-sim-\d+$/);
      expect(t.baseRows[0]!.server._meta).toMatchObject({ [SANDBOX_META]: { copy_of: t.realName } });
    }
  });

  it('no_endpoint about half and auth about an eighth of all targets (methodology: 51% and 13%)', () => {
    const noEndpoint = share((t) => world.expected(t.index, 0).outcome === 'no_endpoint');
    const auth = share((t) => world.expected(t.index, 0).errorClass === 'auth');
    const ok = share((t) => world.expected(t.index, 0).outcome === 'ok');
    expect(noEndpoint).toBeGreaterThan(0.45);
    expect(noEndpoint).toBeLessThan(0.62);
    expect(auth).toBeGreaterThan(0.1);
    expect(auth).toBeLessThan(0.17);
    expect(ok).toBeGreaterThan(0.15);
    expect(ok).toBeLessThan(0.35);
    // Every failure class the collector knows is present.
    const classes = new Set(listed.map((t) => world.expected(t.index, 0).errorClass));
    for (const c of ['timeout', 'tls', 'http_4xx', 'http_5xx', 'auth', 'rate_limited', 'no_endpoint', 'parse']) expect(classes, c).toContain(c);
  });

  it('most contracts never change; a volatile minority changes repeatedly', () => {
    const serving = world.targets.filter((t) => t.toolSource !== null);
    const changesOver = (t: (typeof serving)[number], days: number) => {
      let n = 0;
      let prev = toolsHash(world.toolsAt(t.index, 0)!);
      for (let d = 1; d <= days; d++) {
        const h = toolsHash(world.toolsAt(t.index, d)!);
        if (h !== prev) n++;
        prev = h;
      }
      return n;
    };
    const in3 = serving.filter((t) => changesOver(t, 3) > 0).length / serving.length;
    const counts = serving.map((t) => changesOver(t, 60));
    const changed = counts.filter((n) => n > 0).length / serving.length;
    const repeated = counts.filter((n) => n >= 3).length / serving.length;
    // Census: 24 of 474 (5%) in the first 72 hours.
    expect(in3).toBeGreaterThan(0.02);
    expect(in3).toBeLessThan(0.1);
    expect(changed).toBeLessThan(0.3);
    expect(repeated).toBeGreaterThan(0.01);
    expect(repeated).toBeLessThan(0.1);
  });

  it('every kind of change happens, hidden tools return, and a contract reverts now and then', () => {
    const kinds = new Set(world.targets.flatMap((t) => t.changes.filter((c) => c.day <= 120).map((c) => c.kind)));
    for (const k of ['describe', 'add_tool', 'remove_tool', 'add_required', 'narrow_enum', 'destructive', 'hide', 'revert', 'reorder', 'release']) expect(kinds, k).toContain(k);
    let reverts = 0;
    for (const t of world.targets) {
      if (!t.toolSource) continue;
      const seen: string[] = [];
      for (let d = 0; d <= 120; d++) {
        const h = toolsHash(world.toolsAt(t.index, d)!);
        if (seen[seen.length - 1] !== h) {
          if (seen.includes(h)) reverts++;
          seen.push(h);
        }
      }
    }
    expect(reverts).toBeGreaterThan(0);
  });

  it('github-mcp-server steps through its real releases', () => {
    const gh = world.targets.find((t) => t.name === GITHUB_NAME)!;
    const seen = new Set<string>();
    for (let d = 0; d < 60; d++) seen.add(toolsHash(world.toolsAt(gh.index, d)!));
    expect(seen.size).toBeGreaterThanOrEqual(10);
  });
});

describe('the fleet serves what the world says', () => {
  it('every listed target on two days: outcome class and tool count as expected', { timeout: 60_000 }, async () => {
    const w = await startWorld({ seed: 'fleet', size: 250 });
    try {
      for (const day of [0, 9]) {
        w.setDay(day);
        const mismatches: string[] = [];
        const seen = new Set<string>();
        const latest = w.world.registryEntries(day, w.hostports).filter((e) => e._meta?.[OFFICIAL_META]?.isLatest && e._meta?.[OFFICIAL_META]?.status !== 'deleted');
        await Promise.all(
          latest.map(async (e) => {
            const t = w.world.targets.find((x) => x.name === e.server.name)!;
            const exp = w.world.expected(t.index, day);
            const url = firstStreamable(e);
            if (!url) {
              if (exp.outcome !== 'no_endpoint') mismatches.push(`${t.name}: no endpoint, expected ${exp.outcome}`);
              return;
            }
            const r = await miniProbe(url, 1200);
            seen.add(r.kind);
            const want = exp.outcome === 'ok' ? 'ok' : exp.errorClass;
            if (r.kind !== want) mismatches.push(`${t.name} (${t.profile}): got ${r.kind} ${r.detail.slice(0, 60)}, expected ${want}`);
            else if (r.kind === 'ok' && r.tools!.length !== exp.toolsCount) mismatches.push(`${t.name}: ${r.tools!.length} tools, expected ${exp.toolsCount}`);
          }),
        );
        expect(mismatches).toEqual([]);
        expect(seen).toContain('ok');
        expect(seen).toContain('auth');
      }
      expect(w.sessions).toBeLessThanOrEqual(4 * w.world.targets.length);
    } finally {
      await w.close();
    }
  });
});
