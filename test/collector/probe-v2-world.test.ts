// The v2 probe over the local world (the default demo's seed and size) on several simulated days —
// day 0, the first days a legacy → dual-era and a dual-era → modern-only migration happens, and the
// last day — compared, target by target, with what the world says methodology v2 should record
// (World.expectedV2): status, era, revision, supported versions, instructions, the contract of every
// page, pages, the repeated member, the canary and the auth metadata. Loopback only, policy
// public+loopback. Also the courtesy numbers: requests per endpoint (never more than 8).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpContext, type HttpContext } from '../../collector/http.ts';
import { DEFAULT_PROBE_V2_LIMITS, probeV2, TOOLS_LIST_ID, type ProbeV2Result } from '../../collector/probe-v2/index.ts';
import { answerTextFromBody, classifyBody, instructionsHash, toolsSha256 } from '../../src/lib/index.ts';
import { DEMO_DEFAULTS } from '../../sandbox/demo.ts';
import { startWorld, type RunningWorld } from '../../sandbox/fleet.ts';
import { OFFICIAL_META, type RegistryEntry } from '../../sandbox/registry-server.ts';
import { buildWorld, type World } from '../../sandbox/world.ts';

const world: World = buildWorld({ seed: DEMO_DEFAULTS.seed, size: DEMO_DEFAULTS.size });
const LAST = DEMO_DEFAULTS.days - 1;

/** The first day on which some serving target moves from era `from` to era `to`. */
function firstMigration(from: string, to: string): number {
  let first = Infinity;
  for (const t of world.targets) {
    for (let d = 1; d <= LAST; d++) if (world.eraAt(t.index, d - 1) === from && world.eraAt(t.index, d) === to) first = Math.min(first, d);
  }
  return first;
}
const DAYS = [...new Set([0, firstMigration('legacy', 'dual'), firstMigration('dual', 'modern'), LAST])].filter(Number.isFinite).sort((a, b) => a - b);

const firstStreamable = (e: RegistryEntry) => ((e.server.remotes as Array<{ type: string; url: string }> | undefined) ?? []).find((x) => x.type === 'streamable-http')?.url ?? null;

/** Run `f` over `items`, at most `n` at a time (one process plays both the fleet and the probes). */
async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await f(items[next++]!);
    }),
  );
}

interface DayResult {
  day: number;
  mismatches: string[];
  seen: Set<string>;
  requests: number[];
  /** Requests including every page (what a server operator sees). */
  withPages: number[];
  probed: number;
}

let running: RunningWorld;
let ctx: HttpContext;
const days: DayResult[] = [];

beforeAll(async () => {
  running = await startWorld({ world });
  ctx = createHttpContext({ policy: 'public+loopback', timeoutMs: 2500 });
  const limits = { ...DEFAULT_PROBE_V2_LIMITS, timeoutMs: 2500, sseGraceMs: 300, sseDetectMs: 2500 };
  for (const day of DAYS) {
    running.setDay(day);
    const d: DayResult = { day, mismatches: [], seen: new Set(), requests: [], withPages: [], probed: 0 };
    const latest = world.registryEntries(day, running.hostports).filter((e) => e._meta?.[OFFICIAL_META]?.isLatest && e._meta?.[OFFICIAL_META]?.status !== 'deleted');
    await pool(latest, 16, async (e) => {
      const i = world.indexOf(e.server.name);
      const x = world.expectedV2(i, day);
      const url = firstStreamable(e);
      if (url === null) {
        if (x.status !== null) d.mismatches.push(`${e.server.name}: no endpoint, world ${x.status}`);
        return;
      }
      const r = await probeV2(ctx, url, limits);
      d.probed++;
      d.requests.push(r.requests);
      d.withPages.push(r.requestLog.length);
      d.seen.add(`${r.status}/${r.era}`);
      const got = facts(r);
      const want = {
        status: x.status,
        era: x.era,
        protocolVersion: x.protocolVersion,
        supportedVersions: x.supportedVersions,
        instructions: instructionsHash(x.instructions),
        tools: x.tools === null ? null : toolsSha256(x.tools),
        pages: x.pages,
        repeatedMember: x.repeatedMember,
        canary: x.canary,
        authSource: x.authMetadataSource === null ? null : x.authMetadataSource.replace(/-/g, '_'),
        authMatches: x.authResourceMatches,
      };
      if (JSON.stringify(got) !== JSON.stringify(want)) d.mismatches.push(`day ${day} ${e.server.name} (${world.targets[i]!.profile}): probe ${JSON.stringify(got)} vs world ${JSON.stringify(want)}`);
    });
    days.push(d);
  }
}, 600_000);

afterAll(async () => {
  await ctx?.dispatcher.close();
  await running?.close();
});

function facts(r: ProbeV2Result) {
  return {
    status: r.status,
    era: r.era,
    protocolVersion: r.protocolVersion,
    supportedVersions: r.supportedVersions,
    instructions: r.instructionsSha256,
    tools: r.toolsSha256,
    pages: r.status === 'ok' ? r.pages.length : null,
    repeatedMember: r.status === 'ok' && r.pages.some((p) => classifyBody(answerTextFromBody(p.body, p.contentType, TOOLS_LIST_ID)).security.some((f) => f.rule === 'tools-repeated-member-name')),
    canary: r.canary.sent ? { httpStatus: r.canary.httpStatus, inChannel: r.canary.inChannel, jsonrpcCode: r.canary.jsonrpcCode } : null,
    authSource: r.auth?.source ?? null,
    authMatches: r.auth?.resourceMatches ?? null,
  };
}

const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor((s.length - 1) / 2)], max: s.at(-1), n: s.length };
};

describe(`probeV2() over the local world (seed ${DEMO_DEFAULTS.seed}, ${DEMO_DEFAULTS.size} targets), days ${DAYS.join(', ')}`, () => {
  it('probes days that include both kinds of migration', () => {
    expect(DAYS.length).toBeGreaterThanOrEqual(3);
  });

  it('records for every target what World.expectedV2 says, on every day', () => {
    for (const d of days) expect(d.mismatches, `day ${d.day}`).toEqual([]);
  });

  it('meets every status and era the world serves', () => {
    const seen = new Set(days.flatMap((d) => [...d.seen]));
    for (const k of ['ok/modern', 'ok/legacy', 'handshake_only/legacy', 'legacy_sse/legacy_sse', 'auth_compliant/none', 'auth_noncompliant/none', 'payment_required/none', 'modern_rejected/modern', 'unreachable/none', 'server_error/none', 'not_mcp/none', 'jsonrpc_error/none']) {
      expect(seen, k).toContain(k);
    }
  });

  it('never sends more than 8 counted requests to an endpoint (requests per endpoint: min/median/max)', () => {
    const all = days.flatMap((d) => d.requests);
    expect(Math.max(...all)).toBeLessThanOrEqual(8);
    // The courtesy figures the methodology page quotes (printed for the lead's report).
    console.log(`requests per endpoint over ${days.length} days: counted ${JSON.stringify(summary(all))}, with every page ${JSON.stringify(summary(days.flatMap((d) => d.withPages)))}`);
  });
});
