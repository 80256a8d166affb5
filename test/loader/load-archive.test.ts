// The loader (src/loader/) on an empty directory, on the collector-made fixture archive, and on
// copies of it damaged the ways real archives get damaged (a torn last line).
import { appendFile, cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { group } from 'd3-array';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveArchive, loadArchive, readRawArchive, type Archive } from '../../src/loader/load-archive.ts';
import { readObject } from '../../src/archive/objects.ts';
import { contractIntervals, detectDrift, everChangedShare, firstChangeIntervals, halfLife, kaplanMeier, servedSetHash, serverHealth, volatility, wilson, type Observation } from '../../src/lib/index.ts';
import { slugFor } from '../../src/lib/slug.ts';
import { HOSTILE_NAME, LIFECYCLE } from '../helpers/archive.ts';
import { fixtureArchive } from '../site/shared.ts';

const scratch: string[] = [];
afterAll(async () => {
  for (const d of scratch) await rm(d, { recursive: true, force: true });
});

async function copyOf(dir: string): Promise<string> {
  const to = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-archive-'));
  scratch.push(to);
  await cp(dir, to, { recursive: true });
  return to;
}

async function allRows(dir: string): Promise<Observation[]> {
  const files = (await readdir(path.join(dir, 'observations'))).sort();
  const texts = await Promise.all(files.map((f) => readFile(path.join(dir, 'observations', f), 'utf8')));
  return texts.flatMap((t) => t.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Observation));
}

describe('loadArchive(dir) on a directory with nothing in it', () => {
  it('yields an empty archive rather than an error', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-empty-'));
    scratch.push(dir);
    const a = await loadArchive(dir);
    expect(a.empty).toBe(true);
    expect([a.servers, a.changes, a.km, a.runs, a.days]).toEqual([[], [], [], [], []]);
    expect([a.halfLife, a.errorShares, a.asOf, a.latestFullRun]).toEqual([null, null, null, null]);
  });
});

describe('loadArchive(dir) on the fixture archive', () => {
  let dir: string;
  let a: Archive;
  beforeAll(async () => {
    dir = await fixtureArchive();
    a = await loadArchive(dir);
  }, 300_000);

  it('reads every row once and groups them by target, each group in time order', async () => {
    const rows = await allRows(dir);
    expect(a.rowCount).toBe(rows.length);
    expect(a.problems).toEqual([]);
    expect(a.servers.map((s) => s.name).sort()).toEqual([...new Set(rows.map((r) => r.target))].sort());
    const byTarget = group(rows, (r) => r.target);
    for (const s of a.servers) {
      const mine = byTarget.get(s.name)!;
      const times = mine.map((r) => Date.parse(r.observed_at)).sort((x, y) => x - y);
      // The compact state keeps counts, the first and latest instants, and the strip's runs.
      expect(s.observations).toBe(mine.length);
      expect(s.strip.reduce((n, g) => n + g.count, 0)).toBe(mine.length);
      expect(Date.parse(s.firstObserved)).toBe(times[0]);
      expect(Date.parse(s.lastObserved)).toBe(times.at(-1));
      expect(s.latest.observed_at).toBe(s.lastObserved);
      expect(a.bySlug.get(slugFor(s.name))).toBe(s);
    }
  });

  it('takes intervals, the survival table and the half-life from src/lib over the same rows', async () => {
    const rows = await allRows(dir);
    const byTarget = group(rows, (r) => r.target);
    const intervals = [...byTarget.values()].flatMap((r) => contractIntervals(r));
    expect(a.intervals.length).toBe(intervals.length);
    const km = kaplanMeier(intervals.map((i) => i.duration), intervals.map((i) => i.event));
    expect(a.km).toEqual(km);
    expect(a.halfLife).toEqual(halfLife(km));
  });

  it('takes the server-level curve, the ever-changed share and volatility from src/lib over the same rows', async () => {
    const byTarget = group(await allRows(dir), (r) => r.target);
    const first = [...byTarget.values()].flatMap((r) => firstChangeIntervals(r));
    expect(a.serverIntervals.map((i) => i.target).sort()).toEqual(first.map((i) => i.target).sort());
    const km = kaplanMeier(first.map((i) => i.duration), first.map((i) => i.event));
    expect(a.serverKm).toEqual(kaplanMeier(a.serverIntervals.map((i) => i.duration), a.serverIntervals.map((i) => i.event)));
    expect(a.serverKm.map((r) => [r.time, r.atRisk, r.events])).toEqual(km.map((r) => [r.time, r.atRisk, r.events]));
    expect(a.serverHalfLife).toEqual(halfLife(km));
    expect(a.everChanged).toEqual(everChangedShare(a.serverIntervals));
    const v = volatility([...byTarget.values()].map((r) => detectDrift(r)));
    expect(a.volatility.changes).toBe(a.changes.length);
    expect(a.volatility.volatile).toEqual(v.volatile);
    expect(a.volatility.answering).toBe(v.answering);
  });

  it('starts every strip segment on a day of its own: the rest of a run after a change starts at its second observation', () => {
    let afterChange = 0;
    for (const s of a.servers) {
      for (let i = 1; i < s.strip.length; i++) {
        // One run a day in the fixture, so two segments never share a day.
        expect(s.strip[i]!.firstDay > s.strip[i - 1]!.lastDay, `${s.name} segment ${i}`).toBe(true);
        if (s.strip[i - 1]!.kind === 'changed' && s.strip[i]!.kind === 'ok') afterChange++;
      }
    }
    expect(afterChange).toBeGreaterThan(0);
  });

  it('builds the views over time from the run rows, the changes and the fold', () => {
    const t = a.timelines;
    expect(t.runs.map((r) => r.run_id)).toEqual(a.runs.map((r) => r.run_id));
    expect(t.weeks.reduce((n, w) => n + w.total, 0)).toBe(a.changes.length);
    for (const w of t.weeks) expect(Object.values(w.levels).reduce((x, y) => x + y, 0)).toBe(w.total);
    expect(new Date(`${t.weeks[0]!.week}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(t.roster.reduce((n, d) => n + d.joined, 0)).toBe(a.servers.length);
    expect(t.roster[0]!.first).toBe(true);
    expect(t.roster.map((d) => d.day)).toEqual(a.days);
    const full = a.runs.filter((r) => r.status === 'finished' && !r.partial);
    expect(t.errorShares.map((p) => p.run_id)).toEqual(full.map((r) => r.run_id));
    const last = t.errorShares.at(-1)!;
    expect(last.classes.ok).toEqual({ count: full.at(-1)!.outcomes.ok, ...wilson(full.at(-1)!.outcomes.ok, full.at(-1)!.attempts) });
    expect(Object.values(last.classes).reduce((n, c) => n + c.count, 0)).toBe(last.attempts);
  });

  it('lists changes newest first with their diff and classification', () => {
    const times = a.changes.map((c) => Date.parse(c.observedAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    const hostile = a.bySlug.get(slugFor(HOSTILE_NAME))!;
    expect(hostile.changes).toHaveLength(1);
    const [c] = hostile.changes;
    expect(c!.compatibility).toBe('ERR');
    expect(c!.security).toBe('HIGH');
    // The description stayed byte-identical while inputSchema and annotations changed: one contract label each.
    expect(c!.findings.map((f) => f.rule).sort()).toEqual(['input-required-property-added', 'read-only-hint-dropped', 'tool-contract-changed-description-identical', 'tool-contract-changed-description-identical']);
    expect(c!.diff?.changed.map((t) => t.name)).toEqual(['render_page']);
  });

  it('takes error-class shares from the latest full run only', () => {
    expect(a.latestFullRun?.partial).toBe(false);
    expect(a.errorShares?.run_id).toBe(a.latestFullRun?.run_id);
    expect(a.errorShares!.attempted.n).toBe(a.latestFullRun!.attempts);
  });

  it('reads tools/list bodies sent as SSE and as JSON', async () => {
    const rows = (await allRows(dir)).filter((r) => r.outcome === 'ok');
    const types = new Set(rows.map((r) => r.body_content_type?.split(';')[0]));
    expect(types).toContain('text/event-stream');
    for (const type of types) {
      const row = rows.find((r) => r.body_content_type?.startsWith(type!))!;
      const tools = await a.tools(row.body_sha256!);
      expect(Array.isArray(tools), String(tools)).toBe(true);
      expect((tools as unknown[]).length).toBe(row.tool_count);
    }
  });

  it('derives the set hash of every ok row from its raw body, agreeing with every row that recorded one, into the set index', async () => {
    const ok = (await allRows(dir)).filter((r) => r.outcome === 'ok');
    const seen = new Map<string, Map<string, number[]>>();
    let recorded = 0;
    for (const r of ok) {
      const derived = servedSetHash((await readObject(dir, r.body_sha256!))!, r.body_content_type);
      if (r.tools_set_hash !== undefined) {
        recorded++;
        expect(r.tools_set_hash, r.target).toBe(derived.setHash);
      }
      if (derived.setHash === null) continue;
      const byTarget = seen.get(derived.setHash) ?? new Map<string, number[]>();
      seen.set(derived.setHash, byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), Date.parse(r.observed_at)]));
    }
    expect(recorded).toBe(ok.length); // the fixture is collected by today's collector
    expect(a.sets.map((x) => x.setHash)).toEqual([...seen.keys()].sort());
    for (const set of a.sets) {
      const want = seen.get(set.setHash)!;
      expect(set.servers.map((x) => x.target).sort()).toEqual([...want.keys()].sort());
      for (const x of set.servers) {
        const times = want.get(x.target)!;
        expect([Date.parse(x.firstSeen), Date.parse(x.lastSeen), x.observations]).toEqual([Math.min(...times), Math.max(...times), times.length]);
      }
    }
  });

  it('gives each server its health from its own rows: probes of the last 30 days, consecutive failures, the latest probe', async () => {
    const byTarget = group(await allRows(dir), (r) => r.target);
    for (const s of a.servers) {
      const rows = byTarget.get(s.name)!.sort((x, y) => Date.parse(x.observed_at) - Date.parse(y.observed_at));
      const probes = rows.filter((r) => r.outcome === 'ok' || r.outcome === 'error');
      expect(s.health, s.name).toEqual(serverHealth(probes.map((r) => ({ ms: Date.parse(r.observed_at), ok: r.outcome === 'ok', latencyMs: r.latency_ms })), { asOfDay: a.asOfDay! }));
      const sinceOk = probes.length - 1 - probes.map((r) => r.outcome).lastIndexOf('ok');
      expect(s.consecutiveFailures, s.name).toBe(sinceOk);
      expect(s.lastProbe, s.name).toBe(probes.at(-1)?.observed_at ?? null);
    }
    expect(a.servers.some((s) => s.consecutiveFailures > 1)).toBe(true);
  });

  it('reports a body finding the first time a server serves it, not again while it goes on serving it', () => {
    const repeats = a.bodyFindings.filter((b) => b.target === LIFECYCLE.repeats);
    expect(repeats.map((b) => [b.day, b.findings.map((f) => f.rule)])).toEqual([[a.days[LIFECYCLE.repeatsFromDay], ['tools-repeated-member-name']]]);
    const s = a.servers.find((x) => x.name === LIFECYCLE.repeats)!;
    expect([s.changes.length, s.current?.setHash, s.current?.findings.length]).toEqual([0, null, 1]);
  });

  it('finds the verbatim registry entry a row points at', async () => {
    const s = a.bySlug.get(slugFor(HOSTILE_NAME))!;
    const entry = (await a.registryEntry(s.latest)) as { server: { name: string; websiteUrl: string } };
    expect(entry.server.name).toBe(HOSTILE_NAME);
    expect(entry.server.websiteUrl).toBe('javascript:alert(1)');
  });
});

describe('the loader on damaged archives', () => {
  it('skips a torn last line and says so, without losing the other rows', async () => {
    const dir = await copyOf(await fixtureArchive());
    const before = (await readRawArchive(dir)).rowCount;
    const last = (await readdir(path.join(dir, 'observations'))).sort().at(-1)!;
    const text = await readFile(path.join(dir, 'observations', last), 'utf8');
    const firstLine = text.split('\n')[0]!;
    await appendFile(path.join(dir, 'observations', last), firstLine.slice(0, firstLine.length >> 1));
    const raw = await readRawArchive(dir);
    expect(raw.rowCount).toBe(before);
    expect(raw.problems).toEqual([{ file: `observations/${last}`, line: text.split('\n').length, message: 'not json (torn or corrupt line)' }]);
    const derived = await deriveArchive(raw);
    expect(derived.problems).toHaveLength(1);
  });

});
