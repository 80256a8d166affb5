// `npm run bench:archive -- --targets 25000 --days 365 --out .bench/archive-25k-365`
//
// Writes a valid archive of N targets × D daily runs into a throwaway folder (never data/), through
// the collector's own writer: collector/store.ts `Store` (putObject, appendObservation — every row
// validated by the zod contract —, writeRoster, appendRun) and the row builders of collector/rows.ts
// (noEndpointRow, probeRow, retiredRow, runRow). Then it compacts closed days with
// collector/ops/compact.ts, as the daily workflow does. The Store is opened with `{ durable: false }`
// (bench only: no fsync per 256 rows, per object, per roster), the one concession to speed.
//
// The world (rates from sandbox/world.ts, so the bench looks like the local world at scale):
//   - ~54% of targets list no streamable-http remote (no_endpoint); ~28% of the rest are auth-walled
//     (~13% of all); the others get a profile by sandbox PROFILE_WEIGHTS (ok, flapping, dies,
//     redirect serve a contract; 4xx, 5xx, parse, tls, timeout, rate-limited fail every day);
//   - serving targets answer a real tool list from fixtures/tools/real (sandbox/fixtures.ts), as JSON
//     (30%) or SSE, 70% with a per-target edit so bodies differ between targets;
//   - drift: 8% volatile (a change every 5–30 days), 15% occasional (one or two changes), the rest
//     never change; changes are description edits, tools added/removed, a required property added,
//     an enum narrowed, a destructive flip, a revert; each change bumps the registry version;
//   - flapping servers fail a quarter of days, every server 0.5%; 8% join late, 3% leave (one
//     retired row, then nothing); the registry listing is stored page by page (100 entries) as raw
//     objects referenced by every row, and a roster file per day.
import { checked, command, day, exitCodes, integer, script } from '../collector/cli-kit/index.ts';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compactArchive } from '../collector/ops/compact.ts';
import { Http4xxError, Http5xxError, AuthError, ParseError, RateLimitedError, TimeoutError, TlsError, type ProbeError } from '../collector/errors.ts';
import type { ProbeResult } from '../collector/probe.ts';
import { noEndpointRow, probeRow, retiredRow, runRow, type RowContext } from '../collector/rows.ts';
import { Store } from '../collector/store.ts';
import { loadRealToolLists } from '../sandbox/fixtures.ts';
import { rng, type Rng } from '../sandbox/prng.ts';
import { AUTH_RATE, DRIFT_RATE, PROFILE_WEIGHTS, type Profile } from '../sandbox/world.ts';
import { OFFICIAL_META, toolsSha256, type Observation, type Roster, type RosterPage, type RosterTarget } from '../src/lib/index.ts';
import type { ToolDef } from '../sandbox/mcp-host.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REGISTRY = 'https://registry.bench.invalid/v0.1/servers';
const PAGE = 100;
const DAY_MS = 86_400_000;

export interface GenOptions {
  targets: number;
  days: number;
  out: string;
  seed?: string;
  start?: string;
  compact?: boolean;
  log?: (line: string) => void;
}

export interface GenSummary {
  targets: number;
  days: number;
  rows: number;
  objects: number;
  changes: number;
  write_ms: number;
  compact_ms: number;
  bytes: number;
}

type Fail = 'auth' | 'http_4xx' | 'http_5xx' | 'parse' | 'tls' | 'timeout' | 'rate_limited';
const PROFILE_FAIL: Partial<Record<Profile, Fail>> = {
  http_404: 'http_4xx', http_405: 'http_4xx', modern_only: 'http_4xx', session_lost: 'http_4xx',
  http_5xx: 'http_5xx', html_200: 'parse', broken_json: 'parse', broken_tools: 'parse',
  tls: 'tls', hang: 'timeout', sse_stall: 'timeout', rate_limited: 'rate_limited',
};

interface Contract {
  tools: ToolDef[];
  toolsSha: string;
  bodySha: string;
  contentType: string;
}

interface Target {
  i: number;
  name: string;
  host: number;
  endpoint: string | null;
  profile: Profile | 'no_endpoint' | 'auth';
  json: boolean;
  joinDay: number;
  leaveDay: number | null;
  dieDay: number | null;
  changeDays: Map<number, string>;
  version: [number, number, number];
  history: ToolDef[][];
  contract: Contract | null;
  entry: string | null;
  r: Rng;
}

export async function generateArchive(o: GenOptions): Promise<GenSummary> {
  const log = o.log ?? (() => {});
  const out = path.resolve(o.out);
  if (out === path.join(ROOT, 'data') || out.startsWith(path.join(ROOT, 'data') + path.sep)) throw new Error('refusing to write a benchmark archive into data/');
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty (pass --force to replace it)`);
  mkdirSync(out, { recursive: true });
  const seed = o.seed ?? 'bench';
  const start = Date.parse(`${o.start ?? '2025-01-01'}T00:00:00Z`);
  const lists = loadRealToolLists();
  const targets: Target[] = [];
  const bigHosts = Math.max(1, Math.round(o.targets / 1000));
  for (let i = 0; i < o.targets; i++) {
    const r = rng(`${seed}|t|${i}`);
    const host = r.chance(0.3) ? r.int(0, bigHosts - 1) : bigHosts + i;
    const name = `io.github.bench-${host.toString(36)}/server-${i.toString(36).padStart(4, '0')}`;
    let profile: Target['profile'] = 'no_endpoint';
    if (!r.chance(0.54)) profile = r.chance(AUTH_RATE.required * 0.33) ? 'auth' : PROFILE_WEIGHTS[r.weighted(PROFILE_WEIGHTS.map((p) => p[1]))]![0];
    const serves = profile === 'ok' || profile === 'flapping' || profile === 'dies' || profile === 'redirect';
    const changeDays = new Map<number, string>();
    if (serves) {
      const x = r.next();
      if (x < DRIFT_RATE.volatile) {
        const rate = 1 / (5 + r.next() * 25);
        for (let d = r.int(1, 20); d < o.days; d += Math.max(1, Math.ceil(-Math.log(1 - r.next()) / rate))) changeDays.set(d, pickKind(r));
      } else if (x < DRIFT_RATE.volatile + DRIFT_RATE.occasional) {
        for (let k = r.chance(0.7) ? 1 : 2; k > 0; k--) changeDays.set(r.int(1, Math.max(1, o.days - 1)), pickKind(r));
      }
    }
    const joinDay = r.chance(0.08) ? r.int(1, Math.max(1, Math.min(90, o.days - 1))) : 0;
    const leaveDay = r.chance(0.03) && o.days > joinDay + 4 ? r.int(joinDay + 3, o.days - 1) : null;
    let tools: ToolDef[] = [];
    if (serves) {
      const base = lists[r.int(0, lists.length - 1)]!.tools;
      tools = r.chance(0.7) && base.length > 0 ? [{ ...base[0]!, description: `${base[0]!.description ?? ''} [instance ${i}]` }, ...base.slice(1)] : base;
    }
    targets.push({
      i, name, host, profile, r, joinDay, leaveDay, changeDays,
      endpoint: profile === 'no_endpoint' ? null : `https://h${host}.bench.invalid/mcp/${i}`,
      json: r.chance(0.3),
      dieDay: profile === 'dies' ? r.int(3, Math.max(3, o.days)) : null,
      version: [1, 0, r.int(0, 9)],
      history: serves ? [tools] : [],
      contract: null,
      entry: null,
    });
  }

  const t0 = Date.now();
  const store = Store.open(out, new Date(start).toISOString(), { durable: false });
  let rows = 0;
  let changes = 0;
  const objects = new Set<string>();
  const pageShas: string[] = [];
  const pageTexts: string[] = [];
  let previous: { file: string; listed: Map<string, RosterTarget> } | null = null;
  try {
    for (let d = 0; d < o.days; d++) {
      const dayStart = start + d * DAY_MS + 3 * 3600_000;
      const day = new Date(dayStart).toISOString().slice(0, 10);
      const runId = `${day}T030000Z`;
      // 1. Today's listing (sorted by name, as the registry pages it) and contract changes.
      const listed = targets.filter((t) => d >= t.joinDay && (t.leaveDay === null || d < t.leaveDay));
      let dirty = false;
      for (const t of listed) {
        const kind = t.changeDays.get(d);
        if (kind && t.history.length > 0) {
          t.history.push(mutate(t, kind, lists));
          t.contract = null;
          t.version = [t.version[0], t.version[1], t.version[2] + 1];
          t.entry = null;
          changes++;
        }
        if (t.entry === null) {
          t.entry = JSON.stringify(registryEntry(t, start));
          dirty = true;
        }
      }
      void dirty;
      const rosterTargets: RosterTarget[] = [];
      const pages: RosterPage[] = [];
      for (let p = 0; p * PAGE < listed.length; p++) {
        const slice = listed.slice(p * PAGE, (p + 1) * PAGE);
        const cursor = p === 0 ? null : `${listed[p * PAGE - 1]!.name}:${verOf(listed[p * PAGE - 1]!)}`;
        const next = (p + 1) * PAGE < listed.length ? `${slice.at(-1)!.name}:${verOf(slice.at(-1)!)}` : null;
        const text = `{"servers":[${slice.map((t) => t.entry).join(',')}],"metadata":{${next ? `"nextCursor":${JSON.stringify(next)},` : ''}"count":${slice.length}}}`;
        let sha = pageShas[p];
        if (pageTexts[p] !== text) {
          sha = await store.putObject(Buffer.from(text));
          objects.add(sha);
          pageTexts[p] = text;
          pageShas[p] = sha;
        }
        pages.push({ cursor, url: `${REGISTRY}?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, http_status: 200, sha256: sha!, count: slice.length, next_cursor: next, attempts: 1, error: null });
        slice.forEach((t, k) => rosterTargets.push({ name: t.name, version: verOf(t), status: 'active', endpoint: t.endpoint, endpoint_problem: t.endpoint ? null : 'no_streamable_http', page_sha256: sha!, page_index: k }));
      }
      const roster: Roster = {
        day, run_id: runId, fetched_at: new Date(dayStart + 60_000).toISOString(), source: REGISTRY, complete: true, incomplete_reason: null, pages,
        counts: { pages: pages.length, entries: rosterTargets.length, targets: rosterTargets.length, with_endpoint: rosterTargets.filter((t) => t.endpoint).length },
        targets: rosterTargets,
      };
      const rosterFile = store.writeRoster(roster);
      // 2. One row per listed target (probe or no_endpoint), one retired row per target that left.
      const dayRows: Observation[] = [];
      let clock = dayStart + 90_000;
      const byName = new Map(rosterTargets.map((rt) => [rt.name, rt]));
      for (const t of listed) {
        clock += 7 + t.r.int(0, 40);
        const ctx: RowContext = { runId, day, observedAt: new Date(clock).toISOString() };
        const rt = byName.get(t.name)!;
        let row: Observation;
        if (t.endpoint === null) row = noEndpointRow(ctx, rt);
        else {
          const result = t.contract ? probe(t, d) : await firstProbe(t, d, store, objects);
          row = probeRow(ctx, rt, result, result.ok ? t.contract!.bodySha : null);
        }
        store.appendObservation(row);
        dayRows.push(row);
      }
      if (previous) {
        for (const [name, rt] of previous.listed) {
          if (byName.has(name)) continue;
          clock += 5;
          const row = retiredRow({ runId, day, observedAt: new Date(clock).toISOString() }, rt, previous.file);
          store.appendObservation(row);
          dayRows.push(row);
        }
      }
      rows += dayRows.length;
      store.appendRun(
        runRow({
          runId, day, startedAt: new Date(dayStart).toISOString(), finishedAt: new Date(clock + 1000).toISOString(), registry: REGISTRY, rosterFile, rosterComplete: true, limit: null,
          eligible: rosterTargets.filter((t) => t.endpoint).length, rows: dayRows, message: null, scheduling: null,
        }),
      );
      previous = { file: rosterFile, listed: byName };
      if (d % 10 === 9 || d === o.days - 1) log(`day ${d + 1}/${o.days} ${day}: ${rows.toLocaleString('en')} rows, ${changes} changes, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  } finally {
    store.close();
  }
  const writeMs = Date.now() - t0;
  const t1 = Date.now();
  if (o.compact !== false) {
    const s = compactArchive(out);
    log(`compacted ${s.compacted.length} closed days: ${(s.bytes_before / 1e6).toFixed(0)} MB → ${(s.bytes_after / 1e6).toFixed(0)} MB`);
  }
  return { targets: o.targets, days: o.days, rows, objects: objects.size, changes, write_ms: writeMs, compact_ms: Date.now() - t1, bytes: dirBytes(out) };
}

/** Today's probe outcome of one target whose current contract is known (no I/O, no await per row). */
function probe(t: Target, d: number): ProbeResult {
  const facts = { finalUrl: null, redirects: t.profile === 'redirect' ? 1 : 0, protocolVersion: '2025-03-26', serverName: `bench-${t.i}`, serverVersion: verOf(t), session: t.i % 5 < 2, latencyMs: 40 + t.r.int(0, 900) };
  let fail: Fail | undefined = t.profile === 'auth' ? 'auth' : PROFILE_FAIL[t.profile as Profile];
  if (!fail && t.dieDay !== null && d >= t.dieDay) fail = 'timeout';
  if (!fail && t.profile === 'flapping' && t.r.chance(0.25)) fail = t.r.chance(0.5) ? 'timeout' : 'http_5xx';
  if (!fail && t.r.chance(0.005)) fail = 'timeout';
  if (fail) {
    return { ...facts, protocolVersion: null, serverName: null, serverVersion: null, session: null, ok: false, error: ERRORS[fail], body: null, bodyContentType: null };
  }
  const c = t.contract!;
  return { ...facts, ok: true, body: EMPTY, bodyContentType: c.contentType, toolsSha256: c.toolsSha, toolCount: c.tools.length, nextCursor: false, note: null };
}

const EMPTY = Buffer.alloc(0);

/** The same, after storing the body of a contract not seen yet (the first day, or after a change). */
async function firstProbe(t: Target, d: number, store: Store, objects: Set<string>): Promise<ProbeResult> {
  if (t.history.length > 0) {
    const tools = t.history.at(-1)!;
    const rpc = JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools } });
    const body = t.json ? rpc : `event: message\ndata: ${rpc}\n\n`;
    const contentType = t.json ? 'application/json' : 'text/event-stream';
    const bodySha = await store.putObject(Buffer.from(body));
    objects.add(bodySha);
    t.contract = { tools, toolsSha: toolsSha256(tools), bodySha, contentType };
  }
  return probe(t, d);
}

/** Error values are built once per kind (an Error per row would capture a stack per row). */
const ERRORS: Record<Fail, ProbeError> = Object.fromEntries((['auth', 'http_4xx', 'http_5xx', 'parse', 'tls', 'timeout', 'rate_limited'] as const).map((k) => [k, probeError(k)])) as Record<Fail, ProbeError>;

function probeError(kind: Fail): ProbeError {
  const p = (step: 'initialize' | 'tools/list', detail: string, httpStatus: number | null) => ({ step, detail, httpStatus, jsonrpcCode: null });
  switch (kind) {
    case 'auth': return new AuthError({ ...p('initialize', 'HTTP 401', 401), wwwAuthenticate: 'Bearer realm="mcp"' });
    case 'http_4xx': return new Http4xxError(p('initialize', 'HTTP 404', 404));
    case 'http_5xx': return new Http5xxError(p('initialize', 'HTTP 502', 502));
    case 'parse': return new ParseError(p('initialize', 'not JSON-RPC: text/html body', 200));
    case 'tls': return new TlsError(p('initialize', 'DEPTH_ZERO_SELF_SIGNED_CERT', null));
    case 'timeout': return new TimeoutError(p('initialize', 'no answer within 20000 ms', null));
    case 'rate_limited': return new RateLimitedError({ ...p('initialize', 'HTTP 429', 429), retryAfter: '3600' });
  }
}

const KINDS: Array<[string, number]> = [['describe', 26], ['add_tool', 14], ['remove_tool', 11], ['add_required', 14], ['narrow_enum', 10], ['destructive', 8], ['revert', 3]];
function pickKind(r: Rng): string {
  return KINDS[r.weighted(KINDS.map((k) => k[1]))]![0];
}

/** The next tool list of a target after one change (new arrays; only touched tools are copied). */
function mutate(t: Target, kind: string, lists: { tools: ToolDef[] }[]): ToolDef[] {
  const cur = t.history.at(-1)!;
  const r = t.r;
  const k = cur.length === 0 ? -1 : r.int(0, cur.length - 1);
  const n = t.history.length;
  switch (kind) {
    case 'revert':
      if (n >= 2) return t.history[n - 2]!;
      break;
    case 'add_tool': {
      const donor = r.pick(lists).tools;
      if (donor.length > 0) return [...cur, { ...donor[r.int(0, donor.length - 1)]!, name: `added_tool_${n}` }];
      break;
    }
    case 'remove_tool':
      if (cur.length > 1) return cur.filter((_, j) => j !== k);
      break;
    case 'add_required':
    case 'narrow_enum':
      if (k >= 0) {
        const tool = cur[k]!;
        const schema = (tool.inputSchema ?? { type: 'object' }) as { properties?: Record<string, unknown>; required?: string[] };
        const prop = kind === 'add_required' ? { type: 'string', description: 'Required since this version.' } : { type: 'string', enum: ['a', 'b'] };
        const next = { ...schema, type: 'object', properties: { ...(schema.properties ?? {}), [`p${n}`]: prop }, required: kind === 'add_required' ? [...(schema.required ?? []), `p${n}`] : schema.required };
        return cur.map((x, j) => (j === k ? { ...x, inputSchema: next } : x));
      }
      break;
    case 'destructive':
      if (k >= 0) return cur.map((x, j) => (j === k ? { ...x, annotations: { ...((x.annotations as object) ?? {}), readOnlyHint: false, destructiveHint: true } } : x));
      break;
  }
  // describe (and every fallback): a description rewritten.
  if (k < 0) return [{ name: `tool_${n}`, description: 'First tool.', inputSchema: { type: 'object', properties: {} } }];
  return cur.map((x, j) => (j === k ? { ...x, description: `${x.description ?? ''} Revision ${n}.` } : x));
}

function verOf(t: Target): string {
  return t.version.join('.');
}

function registryEntry(t: Target, start: number): unknown {
  const at = new Date(start + t.joinDay * DAY_MS).toISOString();
  return {
    server: {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json',
      name: t.name,
      description: `Benchmark server ${t.i} (generated).`,
      version: verOf(t),
      ...(t.endpoint ? { remotes: [{ type: 'streamable-http', url: t.endpoint }] } : { packages: [{ registryType: 'npm', identifier: `@bench/server-${t.i}`, version: verOf(t) }] }),
    },
    _meta: { [OFFICIAL_META]: { status: 'active', publishedAt: at, updatedAt: at, isLatest: true } },
  };
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) total += statSize(path.join(e.parentPath, e.name));
  return total;
}

function statSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
const COMMAND = command({
  name: 'bench:archive',
  help: `usage: npm run bench:archive -- [--targets N] [--days D] [--out DIR] [--force] [--no-compact] [--seed S] [--start YYYY-MM-DD]
  --targets N    targets of the world (default 25000)
  --days D       daily runs (default 365)
  --out DIR      the archive (default .bench/archive-<N>x<D>; never data/); --force empties it first
  --no-compact   leave closed days plain (default: gzip them, as the daily workflow does)
  --seed S, --start YYYY-MM-DD   the world's seed and first day

${exitCodes({ 0: 'written', 1: 'the archive could not be written', 2: 'bad usage' })}`,
  options: {
    targets: { type: 'string', default: '25000' },
    days: { type: 'string', default: '365' },
    out: { type: 'string' },
    force: { type: 'boolean', default: false },
    'no-compact': { type: 'boolean', default: false },
    seed: { type: 'string' },
    start: { type: 'string' },
  },
});

async function main(): Promise<void> {
  const { values } = script(COMMAND);
  const targets = checked(COMMAND, () => integer('targets', values.targets, { min: 1, max: 1_000_000 })!);
  const days = checked(COMMAND, () => integer('days', values.days, { min: 1, max: 3650 })!);
  const start = checked(COMMAND, () => day('start', values.start));
  const out = path.resolve(values.out ?? path.join(ROOT, '.bench', `archive-${targets}x${days}`));
  if (values.force) rmSync(out, { recursive: true, force: true });
  const cmd = `npm run bench:archive -- --targets ${targets} --days ${days} --out ${path.relative(process.cwd(), out) || out}`;
  console.error(`$ ${cmd}`);
  const s = await generateArchive({ targets, days, out, seed: values.seed, start, compact: !values['no-compact'], log: (l) => console.error(l) });
  const rate = s.rows / (s.write_ms / 1000);
  console.log(JSON.stringify({ command: cmd, ...s, rows_per_s: Math.round(rate), gb: +(s.bytes / 1e9).toFixed(2) }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  });
}
