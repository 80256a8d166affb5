// The world's eras (MCP 2026-07-28), auth walls and security drift: present in the default demo, in the
// stated shares, and served as the world says — to the real v1 collector (what it records) and to a
// small dual-era probe (what methodology v2 should record: World.expectedV2). Loopback only.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCollector } from '../../collector/run.ts';
import { answerTextFromBody, classifyBody, classifyChange, toolsSha256, type Tool } from '../../src/lib/index.ts';
import { DEMO_DEFAULTS, REPO } from '../../sandbox/demo.ts';
import { startWorld } from '../../sandbox/fleet.ts';
import { startMcpHost, toolsArrayText, type ToolDef } from '../../sandbox/mcp-host.ts';
import { OFFICIAL_META, type RegistryEntry } from '../../sandbox/registry-server.ts';
import { buildWorld, ERA_RATE, GITHUB_NAME, INSTRUCTIONS_RATE, PAYMENT_REQUIRED_RATE, SSE_LEGACY_RATE, type World } from '../../sandbox/world.ts';
import { closeMiniProbe, miniProbe } from './mini-probe.ts';
import { closeV2MiniProbe, v2MiniProbe } from './v2-mini-probe.ts';

const OUT = join(REPO, '.tmp', `test-eras-${process.pid}`);
afterAll(async () => {
  rmSync(OUT, { recursive: true, force: true });
  await closeV2MiniProbe();
  await closeMiniProbe();
});

const DAYS = DEMO_DEFAULTS.days;
const SECURITY_RULES = ['tool-renamed', 'tool-hidden-characters-added', 'tool-prose-link-added', 'tool-description-secret-mentioned'] as const;

/** A served tools/list answer around the world's tools text, as SDK v1 writes it. */
const answer = (toolsText: string) => `{"result":{"tools":${toolsText}},"jsonrpc":"2.0","id":2}`;

/** What happens in the world over days 0..days-1, found by the project's own rules (src/lib). */
function happenings(w: World, days: number) {
  const count = new Map<string, number>();
  const firstDay = new Map<string, number>();
  const add = (k: string, day: number) => {
    count.set(k, (count.get(k) ?? 0) + 1);
    if (!firstDay.has(k)) firstDay.set(k, day);
  };
  for (const t of w.targets) {
    if (t.toolSource === null) continue;
    let repeating = false;
    for (let d = 1; d < days; d++) {
      const before = w.toolsAt(t.index, d - 1)!;
      const after = w.toolsAt(t.index, d)!;
      const changed = toolsSha256(before) !== toolsSha256(after);
      if (changed) for (const f of classifyChange(before as Tool[], after as Tool[]).security) if ((SECURITY_RULES as readonly string[]).includes(f.rule)) add(f.rule, d);
      const [e0, e1] = [w.eraAt(t.index, d - 1), w.eraAt(t.index, d)];
      if (e0 !== e1) {
        add(`migration ${e0} → ${e1}`, d);
        add(changed ? 'migration with a new tool list' : 'migration with the same tool list', d);
      }
      if (w.instructionsAt(t.index, d - 1) !== w.instructionsAt(t.index, d)) add('instructions changed', d);
      const repeats = classifyBody(answer(w.toolsTextAt(t.index, d)!)).security.some((f) => f.rule === 'tools-repeated-member-name');
      if (repeats && !repeating) add('tools-repeated-member-name', d);
      repeating = repeats;
    }
  }
  return { count, firstDay };
}

describe('the default demo (seed and size of `npm run demo`) shows every new kind within its 60 days', () => {
  const w = buildWorld({ seed: DEMO_DEFAULTS.seed, size: DEMO_DEFAULTS.size });
  const { count } = happenings(w, DAYS);

  it('security drift: each content rule and the repeated-member body rule fires at least once', () => {
    for (const k of [...SECURITY_RULES, 'tools-repeated-member-name']) expect(count.get(k) ?? 0, k).toBeGreaterThan(0);
  });

  it('migrations legacy → dual-era and dual-era → modern-only, with and without a new tool list; instructions drift', () => {
    expect(count.get('migration legacy → dual') ?? 0, 'legacy → dual').toBeGreaterThan(0);
    expect(count.get('migration dual → modern') ?? 0, 'dual → modern').toBeGreaterThan(0);
    expect(count.get('migration with a new tool list') ?? 0).toBeGreaterThan(0);
    expect(count.get('migration with the same tool list') ?? 0).toBeGreaterThan(0);
    expect(count.get('instructions changed') ?? 0).toBeGreaterThan(0);
  });

  it('every profile the v2 probe must classify is present on day 0', () => {
    const statuses = new Set(w.targets.map((t) => w.expectedV2(t.index, 0).status));
    for (const s of ['ok', 'auth_compliant', 'auth_noncompliant', 'payment_required', 'legacy_sse', 'modern_rejected', 'handshake_only', 'server_error', 'unreachable', 'not_mcp'] as const) {
      expect(statuses, s).toContain(s);
    }
    const eras = new Set(w.targets.map((t) => w.eraAt(t.index, 0)));
    for (const e of ['legacy', 'dual', 'modern'] as const) expect(eras, e).toContain(e);
    expect(w.targets.some((t) => t.pageSize !== null)).toBe(true);
    expect(w.targets.some((t) => t.instructions.length > 0)).toBe(true);
  });
});

describe('shares (seed 1, 2,000 targets; the rates are in sandbox/world.ts and sandbox/README.md)', () => {
  const w = buildWorld({ seed: 1, size: 2000 });
  const serving = w.targets.filter((t) => t.eras.length > 0 && t.name !== GITHUB_NAME);
  const share = (part: number, of: number) => part / of;

  it('eras on day 0: a few % modern-only, some % dual-era, the rest legacy', () => {
    const on0 = (e: string) => serving.filter((t) => t.eras[0]!.era === e).length;
    expect(share(on0('modern'), serving.length)).toBeGreaterThan(ERA_RATE.modern / 3);
    expect(share(on0('modern'), serving.length)).toBeLessThan(ERA_RATE.modern * 2);
    expect(share(on0('dual'), serving.length)).toBeGreaterThan(ERA_RATE.dual / 2);
    expect(share(on0('dual'), serving.length)).toBeLessThan(ERA_RATE.dual * 1.5);
    // Migrations only ever move away from legacy, and each step is on a later day.
    for (const t of serving) {
      const order = t.eras.map((e) => ['legacy', 'dual', 'modern'].indexOf(e.era));
      expect(order, t.name).toEqual([...order].sort());
      expect(t.eras.map((e) => e.day), t.name).toEqual([...new Set(t.eras.map((e) => e.day))].sort((a, b) => a - b));
    }
  });

  it('402 walls, HTTP+SSE-only servers, instructions, pagination', () => {
    const walls = w.targets.filter((t) => t.profile === 'auth' || t.profile === 'payment_required');
    expect(share(walls.filter((t) => t.profile === 'payment_required').length, walls.length)).toBeGreaterThan(PAYMENT_REQUIRED_RATE / 2);
    expect(share(walls.filter((t) => t.profile === 'payment_required').length, walls.length)).toBeLessThan(PAYMENT_REQUIRED_RATE * 1.7);
    const plain = w.targets.filter((t) => t.profile === 'ok' || t.profile === 'sse_legacy');
    expect(share(plain.filter((t) => t.profile === 'sse_legacy').length, plain.length)).toBeGreaterThan(SSE_LEGACY_RATE / 2);
    expect(share(plain.filter((t) => t.profile === 'sse_legacy').length, plain.length)).toBeLessThan(SSE_LEGACY_RATE * 1.8);
    expect(share(serving.filter((t) => t.instructions.length > 0).length, serving.length)).toBeGreaterThan(INSTRUCTIONS_RATE.has * 0.7);
    expect(share(serving.filter((t) => t.instructions.length > 0).length, serving.length)).toBeLessThan(INSTRUCTIONS_RATE.has * 1.3);
    const paged = serving.filter((t) => t.pageSize !== null);
    expect(paged.length).toBeGreaterThan(4);
    expect(share(paged.length, serving.length)).toBeLessThan(0.08);
    for (const t of paged) expect(w.toolsAt(t.index, 0)!.length, t.name).toBeGreaterThan(t.pageSize!);
  });

  it('auth walls: about half lead to valid metadata; every kind of metadata is there', () => {
    const walls = w.targets.filter((t) => t.auth !== null);
    const compliant = walls.filter((t) => w.expectedV2(t.index, 0).status === 'auth_compliant').length;
    expect(share(compliant, walls.length)).toBeGreaterThan(0.35);
    expect(share(compliant, walls.length)).toBeLessThan(0.65);
    const kinds = new Set(walls.map((t) => `${t.auth!.challenge}/${t.auth!.metadata}`));
    for (const k of ['hint/hint', 'hint/well-known', 'hint/mismatch', 'hint/malformed', 'hint/none', 'plain/well-known', 'plain/none', 'scope/well-known', 'scope/none']) expect(kinds, k).toContain(k);
    // The 401/403 split is the draw it always was: 70% hint, 15% plain, 15% scope (403).
    expect(share(walls.filter((t) => t.auth!.status === 403).length, walls.length)).toBeGreaterThan(0.08);
    expect(share(walls.filter((t) => t.auth!.status === 403).length, walls.length)).toBeLessThan(0.22);
  });

  it('the new draws depend on the name and the seed, not on the size of the world', () => {
    const small = buildWorld({ seed: 1, size: 300 });
    for (const t of small.targets) {
      const u = w.targets[w.indexOf(t.name)]!;
      expect({ p: u.profile, e: u.eras, i: u.instructions, s: u.pageSize, x: u.extraChanges, a: u.auth }, t.name).toEqual({ p: t.profile, e: t.eras, i: t.instructions, s: t.pageSize, x: t.extraChanges, a: t.auth });
    }
  });
});

describe('mcp-host serves each era as the real SDKs do (every combination, not only those the default world draws)', () => {
  const tools: ToolDef[] = [1, 2, 3, 4, 5].map((i) => ({
    name: `tool_${i}`,
    description: `Tool ${i}.`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    ...(i === 2 ? { execution: { taskSupport: 'forbidden' } } : {}),
  }));
  const withoutExecution = tools.map(({ execution: _e, ...t }) => t);

  it('modern-only and dual-era (SDK v2), legacy (SDK v1): pages, instructions, what v1 sees', async () => {
    const host = await startMcpHost();
    try {
      const modern = host.mount('/m/mcp', { kind: 'mcp', tools, era: 'modern', pageSize: 2, instructions: 'Modern.' });
      const dual = host.mount('/d/mcp', { kind: 'mcp', tools, era: 'dual', pageSize: 2, instructions: 'Dual.' });
      const legacy = host.mount('/l/mcp', { kind: 'mcp', tools, pageSize: 3, instructions: 'Legacy.', json: true });
      const m = await v2MiniProbe(modern, 5000);
      expect({ status: m.status, era: m.era, pages: m.pages, instructions: m.instructions, tools: m.tools }).toEqual({ status: 'ok', era: 'modern', pages: 3, instructions: 'Modern.', tools: withoutExecution });
      expect(m.canary).toEqual({ httpStatus: 200, inChannel: true, jsonrpcCode: -32602 });
      const d = await v2MiniProbe(dual, 5000);
      expect({ status: d.status, era: d.era, supported: d.supportedVersions, pages: d.pages, instructions: d.instructions }).toEqual({ status: 'ok', era: 'modern', supported: ['2026-07-28'], pages: 3, instructions: 'Dual.' });
      const l = await v2MiniProbe(legacy, 5000);
      expect({ status: l.status, era: l.era, version: l.protocolVersion, pages: l.pages, instructions: l.instructions, tools: l.tools }).toEqual({ status: 'ok', era: 'legacy', version: '2025-11-25', pages: 2, instructions: 'Legacy.', tools });
      expect(l.canary).toEqual({ httpStatus: 200, inChannel: true, jsonrpcCode: null });
      // The v1 view: page 1 through initialize; the modern-only server is dark to it.
      expect((await miniProbe(dual, 5000)).tools).toEqual(tools.slice(0, 2));
      expect((await miniProbe(legacy, 5000)).tools).toEqual(tools.slice(0, 3));
      expect((await miniProbe(modern, 5000)).kind).toBe('http_4xx');
    } finally {
      await host.close();
    }
  });

  it('a legacy answer repeating a member, in JSON and SSE, on every page', async () => {
    const host = await startMcpHost();
    const repeat = { tool: 'tool_4', member: 'description', first: 'What was approved.' };
    try {
      for (const json of [true, false]) {
        const url = host.mount(`/r${json}/mcp`, { kind: 'mcp', tools, pageSize: 3, repeat, json, stateful: !json });
        const r = await v2MiniProbe(url, 5000);
        expect(r.tools).toEqual(tools); // JSON.parse keeps the last copy: the tool as listed
        expect(r.pageTexts[1]).toContain(`{"name":"tool_4","description":"What was approved.","description":"Tool 4."`);
        expect(r.pageTexts.map((p) => classifyBody(p).security.map((f) => `${f.rule} ${f.tool}`))).toEqual([[], ['tools-repeated-member-name tool_4']]);
      }
      expect(toolsArrayText(tools.slice(3, 4), repeat)).toBe('[{"name":"tool_4","description":"What was approved.","description":"Tool 4.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}]');
    } finally {
      await host.close();
    }
  });

  it('HTTP+SSE only: POST is a 404 page, GET opens the stream with the endpoint event; an auth wall serves its metadata on the origin asked', async () => {
    const host = await startMcpHost();
    try {
      const sse = host.mount('/s/0/mcp', { kind: 'http-sse', tools, messagesPath: '/s/0/messages' });
      const r = await v2MiniProbe(sse, 5000);
      expect(r.status).toBe('legacy_sse');
      expect(r.sseEndpoint).toMatch(/^\/s\/0\/messages\?sessionId=[0-9a-f-]{36}$/);
      const docs = { '/a/mcp/meta': { status: 200, contentType: 'application/json', body: '{"resource":"{origin}/a/mcp","authorization_servers":["{origin}/as"]}' } };
      const wall = host.mount('/a/mcp', { kind: 'auth', status: 401, challenge: 'Bearer resource_metadata="{origin}/a/mcp/meta"', contentType: 'application/json', body: '{}', docs });
      host.mount('/a/mcp/meta', { kind: 'auth', status: 401, challenge: 'Bearer', contentType: 'application/json', body: '{}', docs }); // the fleet routes both paths to one wall
      const a = await v2MiniProbe(wall, 5000);
      expect(a.status).toBe('auth_compliant');
      expect(a.auth).toMatchObject({ httpStatus: 401, bearer: true, source: 'hint', resourceMatches: true, challenge: `Bearer resource_metadata="${host.origin}/a/mcp/meta"` });
    } finally {
      await host.close();
    }
  });
});

/** Run `f` over `items`, at most `n` at a time (one process plays both the fleet and the probes). */
async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await f(items[next++]!);
  }));
}

describe('the fleet serves it', () => {
  const world = buildWorld({ seed: DEMO_DEFAULTS.seed, size: DEMO_DEFAULTS.size });
  const firstStreamable = (e: RegistryEntry) => ((e.server.remotes as Array<{ type: string; url: string }> | undefined) ?? []).find((x) => x.type === 'streamable-http')?.url ?? null;

  it('to the real v1 collector, on the days things happen: outcome, first-page tool count and hash, the repeated member in the stored body', { timeout: 180_000 }, async () => {
    const { firstDay } = happenings(world, DAYS);
    // Day 0 (modern-only, dual-era, paginated from the start) and the first day of the kinds v1 can see.
    const kinds = ['tools-repeated-member-name', 'migration legacy → dual', 'migration dual → modern', 'migration with a new tool list'];
    const days = [...new Set([0, ...kinds.map((k) => firstDay.get(k)!)])].sort((a, b) => a - b);
    const w = await startWorld({ world });
    const dir = join(OUT, 'v1');
    const mismatches: string[] = [];
    const seen = { modern: 0, paged: 0, repeated: 0, dual: 0 };
    try {
      for (const day of days) {
        w.setDay(day);
        const date = world.date(day);
        const s = await runCollector({ registry: w.registryUrl, data: dir, now: new Date(`${date}T06:00:00.000Z`), methodology: 'v1', allowPrivate: true, concurrency: 48, timeoutMs: 1000, optout: null, probeLimits: { sseGraceMs: 500 }, rosterLimits: { backoffMs: 200 }, scheduleLimits: { retryAfterCapMs: 200, backoffBaseMs: 20 } });
        const rows = readFileSync(join(dir, 'observations', `${date}.jsonl`), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((r) => r.run_id === s.run.run_id && r.outcome !== 'retired');
        expect(rows.length).toBeGreaterThan(100);
        for (const r of rows) {
          const i = world.indexOf(String(r.target));
          const t = world.targets[i]!;
          const e = world.expected(i, day);
          const got = r.outcome === 'error' ? r.error_class : r.outcome;
          const want = e.outcome === 'error' ? e.errorClass : e.outcome;
          const era = world.eraAt(i, day);
          if (got !== want) {
            mismatches.push(`day ${day} ${t.name} (${t.profile}, ${era}): collector ${String(got)} ${String(r.detail)}, world ${want}`);
            continue;
          }
          if (era === 'modern' && t.profile !== 'flapping') seen.modern++;
          if (r.outcome !== 'ok') continue;
          if (era === 'dual') seen.dual++;
          const page1 = world.toolsAt(i, day)!.slice(0, t.pageSize ?? undefined);
          if (t.pageSize !== null) seen.paged++;
          if (r.tool_count !== e.toolsCount || r.tools_sha256 !== toolsSha256(page1)) mismatches.push(`day ${day} ${t.name}: ${String(r.tool_count)} tools ${String(r.tools_sha256).slice(0, 12)}, world ${e.toolsCount}`);
          const sha = String(r.body_sha256);
          const body = readFileSync(join(dir, 'objects', sha.slice(0, 2), sha));
          const repeated = classifyBody(answerTextFromBody(body, (r.body_content_type as string | null) ?? null)).security.some((f) => f.rule === 'tools-repeated-member-name');
          if (repeated) seen.repeated++;
          if (repeated !== (world.repeatAt(i, day) !== null)) mismatches.push(`day ${day} ${t.name}: repeated member ${repeated}, world ${!repeated}`);
        }
      }
    } finally {
      await w.close();
    }
    expect(mismatches).toEqual([]);
    // The new profiles were really exercised (modern-only servers are dark to v1: http_4xx).
    expect(seen.modern).toBeGreaterThan(0);
    expect(seen.dual).toBeGreaterThan(0);
    expect(seen.paged).toBeGreaterThan(0);
    expect(seen.repeated).toBeGreaterThan(0);
  });

  it('to a dual-era probe: status, era, revision, instructions, every page, canary and auth metadata as World.expectedV2 says', { timeout: 120_000 }, async () => {
    const w = await startWorld({ world });
    const seen = new Set<string>();
    try {
      for (const day of [0, DAYS - 1]) {
        w.setDay(day);
        const mismatches: string[] = [];
        const latest = world.registryEntries(day, w.hostports).filter((e) => e._meta?.[OFFICIAL_META]?.isLatest && e._meta?.[OFFICIAL_META]?.status !== 'deleted');
        await pool(latest, 16, async (e) => {
            const i = world.indexOf(e.server.name);
            const x = world.expectedV2(i, day);
            const url = firstStreamable(e);
            if (url === null) {
              if (x.status !== null) mismatches.push(`${e.server.name}: no endpoint, world ${x.status}`);
              return;
            }
            const r = await v2MiniProbe(url, 2500);
            seen.add(`${r.status}/${r.era}`);
            const got = {
              status: r.status,
              era: r.era,
              protocolVersion: r.protocolVersion,
              supportedVersions: r.supportedVersions,
              instructions: r.instructions,
              tools: r.tools === null ? null : toolsSha256(r.tools),
              pages: r.pages,
              repeatedMember: r.pageTexts.some((p) => classifyBody(p).security.some((f) => f.rule === 'tools-repeated-member-name')),
              canary: r.canary,
              authSource: r.auth?.source ?? null,
              authMatches: r.auth?.resourceMatches ?? null,
            };
            const want = {
              status: x.status,
              era: x.era,
              protocolVersion: x.protocolVersion,
              supportedVersions: x.supportedVersions,
              instructions: x.instructions,
              tools: x.tools === null ? null : toolsSha256(x.tools),
              pages: x.pages,
              repeatedMember: x.repeatedMember,
              canary: x.canary,
              authSource: x.authMetadataSource,
              authMatches: x.authResourceMatches,
            };
            if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${e.server.name} (${world.targets[i]!.profile}): ${JSON.stringify(got)} vs world ${JSON.stringify(want)}`);
        });
        expect(mismatches, `day ${day}`).toEqual([]);
      }
    } finally {
      await w.close();
    }
    for (const k of ['ok/modern', 'ok/legacy', 'legacy_sse/legacy_sse', 'auth_compliant/none', 'auth_noncompliant/none', 'payment_required/none', 'modern_rejected/modern']) expect(seen, k).toContain(k);
  });
});
