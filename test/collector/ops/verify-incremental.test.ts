// The incremental verify on archives the collector wrote against the local world,
// signed with a test key: a state recorded after three runs, then a fourth run. The daily verify must
// check the new run (its chain manifest, run rows, rows, roster and every object they reference) and a
// rotating slice of every stored object, and nothing else — an edit to an old day file that still
// validates is left to the full verify, and these tests show that trade-off as it is.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, writeKeyFiles } from '../../../collector/ops/keys.ts';
import { loadKeys } from '../../../collector/ops/verify-chain.ts';
import { readVerifyState, scrubSlice, SHARDS, verifyArchive, type VerifyOptions, type VerifyReport } from '../../../collector/ops/verify.ts';
import { Store } from '../../../collector/store.ts';
import { readChain } from '../../../src/archive/chain.ts';
import { objectPath, pagePath } from '../../../src/archive/layout.ts';
import { FsObjectStore } from '../../../src/archive/object-store.ts';
import { manifestObjects, OBJECT_FIELDS, parseManifest } from '../../../src/lib/index.ts';
import { collectArchive } from '../../helpers/archive.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const key = generateKeyPair('test');
const WORLD = { seed: 'verify-incremental', size: 40, methodology: 'v1,v2' as const, signer: key.signer };
/** A day whose UTC day number is a multiple of 28: cycle day 1 of the default cycle. */
const CYCLE_START = '2026-01-15';
let keyFile: string;
/** Three runs, verified and recorded at their head. */
let recorded: string;
/** The same, plus a fourth run after the recorded head. */
let grown: string;
let newRun: { id: string; day: string };
const scratch: string[] = [];

beforeAll(async () => {
  const keys = mkdtempSync(join(tmpdir(), 'mcps-incr-keys-'));
  scratch.push(keys);
  keyFile = writeKeyFiles(key, 'test', keys, null).publicFile;
  recorded = await collectArchive({ ...WORLD, days: 3 });
  scratch.push(recorded);
  const first = await verify(recorded, { mode: 'full', record: true });
  expect(first.problems).toEqual([]);
  expect(first.recorded).toBe(true);
  grown = copyOf(recorded);
  await collectArchive({ ...WORLD, days: 1, firstDay: 3 }, grown, true);
  const runs = readFileSync(join(grown, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { run_id: string; day: string });
  newRun = { id: runs.at(-1)!.run_id, day: runs.at(-1)!.day };
}, 240_000);

afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

function copyOf(dir: string): string {
  const to = mkdtempSync(join(tmpdir(), 'mcps-incr-'));
  scratch.push(to);
  cpSync(dir, to, { recursive: true });
  return to;
}

const verify = (dir: string, opts: VerifyOptions = {}) => verifyArchive(dir, { keys: loadKeys([keyFile]), mode: 'auto', today: CYCLE_START, ...opts });
const kinds = (r: VerifyReport) => [...new Set(r.problems.map((p) => p.kind))].sort();
const lines = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);
const dayFiles = (day: string) => [`observations/${day}.jsonl`, `observations-v2/${day}.jsonl`];

/** The objects the rows of `day` and its roster name, read here without the verifier's code. */
function referencedBy(dir: string, day: string, rosterFile: string): Set<string> {
  const out = new Set<string>();
  for (const file of dayFiles(day)) {
    for (const line of lines(dir, file)) {
      const row = JSON.parse(line) as Record<string, unknown>;
      for (const f of OBJECT_FIELDS) for (const v of [row[f]].flat()) if (typeof v === 'string') out.add(v);
    }
  }
  const roster = JSON.parse(readFileSync(join(dir, 'rosters', rosterFile), 'utf8')) as { pages: { sha256: string | null }[] };
  for (const p of roster.pages) if (p.sha256) out.add(p.sha256);
  return out;
}

/** Flip the last digit of a latency's integer part: the row still validates, only the chain can tell (as chain.test.ts does). */
function flipLatency(file: string): void {
  const text = readFileSync(file, 'utf8');
  let at = text.search(/"latency_ms":\d/) + '"latency_ms":'.length;
  while (/\d/.test(text[at + 1] ?? '')) at++;
  writeFileSync(file, text.slice(0, at) + String((Number(text[at]) + 1) % 10) + text.slice(at + 1));
}

function flipByte(path: string): void {
  const bytes = readFileSync(path);
  bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
  writeFileSync(path, bytes);
}

describe('incremental verify after a recorded head', () => {
  it('checks only the run after the head: its manifest, run rows, rows of both series, roster and referenced objects', async () => {
    const r = await verify(copyOf(grown));
    expect(r.problems).toEqual([]);
    expect(r.mode).toBe('incremental');
    expect(r.fallback).toBeNull();
    expect(r.since!.seq).toBe(3);
    expect(r.scope.runs).toEqual([newRun.id]);
    expect(r.scope.days).toEqual([newRun.day]);
    expect(r.runs).toBe(2); // its v1 and v2 run rows
    expect(r.dayFiles).toBe(2);
    expect(r.rows).toBe(dayFiles(newRun.day).reduce((n, f) => n + lines(grown, f).length, 0));
    const run = JSON.parse(lines(grown, 'runs.jsonl').at(-1)!) as { roster_file: string };
    expect(r.rosters).toBe(1);
    const refs = referencedBy(grown, newRun.day, run.roster_file);
    expect(r.referenced).toBe(refs.size);
    expect(r.objects).toBeGreaterThanOrEqual(refs.size); // plus the scrub's slice
    expect(r.chain).toMatchObject({ manifests: 5, checked: 1 });
    expect(r.scrub).toMatchObject({ cycleDay: 1, cycleDays: 28, first: 0, last: 8 });

    const full = await verify(copyOf(grown), { mode: 'full' });
    expect(full.problems).toEqual([]);
    expect(full.mode).toBe('full');
    expect(full.runs).toBe(8);
    expect(full.rows).toBeGreaterThan(3 * r.rows);
    expect(full.chain).toMatchObject({ manifests: 5, checked: 5 });
    expect(full.scrub).toMatchObject({ first: 0, last: SHARDS - 1 });
  });

  it('does not see an edit to an OLD day file that still validates; --full does, and names the run', async () => {
    const dir = copyOf(grown);
    const old = readChain(dir).manifests[1]!.manifest;
    flipLatency(join(dir, `observations/${old.day}.jsonl`));
    const r = await verify(dir);
    expect(r.mode).toBe('incremental');
    expect(r.problems).toEqual([]);
    const full = await verify(dir, { mode: 'full' });
    expect(kinds(full)).toEqual(['chain-digest']);
    expect(full.problems[0]!.message).toContain(`run ${old.run_id}`);
  });

  it('reports a damaged new row, with the chain naming the new run', async () => {
    const dir = copyOf(grown);
    const file = join(dir, `observations/${newRun.day}.jsonl`);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace(/"outcome":"(\w+)"/, '"outcome":"$1x"'));
    const r = await verify(dir);
    expect(r.mode).toBe('incremental');
    expect(kinds(r)).toEqual(expect.arrayContaining(['row-invalid', 'run-counts', 'chain-digest']));
    expect(r.problems.find((p) => p.kind === 'row-invalid')!.where).toBe(`observations/${newRun.day}.jsonl:1`);
    expect(r.problems.find((p) => p.kind === 'chain-digest')!.message).toContain(`run ${newRun.id}`);
  });

  it('reports a corrupt and a missing object that only the new run references', async () => {
    const dir = copyOf(grown);
    const run = JSON.parse(lines(dir, 'runs.jsonl').at(-1)!) as { roster_file: string };
    const before = new Set<string>();
    for (const m of readChain(dir).manifests.slice(1, 4)) before.add(m.manifest.day!);
    const older = [...before].flatMap((d) => [...referencedBy(dir, d, `${d}.json`)]);
    const only = [...referencedBy(dir, newRun.day, run.roster_file)].filter((s) => !older.includes(s) && existsSync(objectPath(dir, s)));
    expect(only.length).toBeGreaterThanOrEqual(2);
    flipByte(objectPath(dir, only[0]!));
    unlinkSync(objectPath(dir, only[1]!));
    const r = await verify(dir);
    expect(r.mode).toBe('incremental');
    expect(kinds(r)).toEqual(['object-corrupt', 'object-missing']);
    expect(r.problems.find((p) => p.kind === 'object-corrupt')!.message).toContain(only[0]!.slice(0, 12));
    expect(r.problems.find((p) => p.kind === 'object-missing')!.message).toContain(only[1]!.slice(0, 12));
  });

  it("reports a damaged new roster", async () => {
    const dir = copyOf(grown);
    const run = JSON.parse(lines(dir, 'runs.jsonl').at(-1)!) as { roster_file: string };
    writeFileSync(join(dir, 'rosters', run.roster_file), '{"day":');
    const r = await verify(dir);
    expect(r.mode).toBe('incremental');
    expect(kinds(r)).toEqual(expect.arrayContaining(['roster-invalid', 'roster-missing', 'chain-digest']));
    expect(r.problems.find((p) => p.kind === 'roster-invalid')!.where).toBe(`rosters/${run.roster_file}`);
  });

  it('reports a new manifest whose signature does not verify', async () => {
    const dir = copyOf(grown);
    const chain = lines(dir, 'chain.jsonl');
    const head = JSON.parse(chain.at(-1)!) as { signature: { value: string } };
    head.signature.value = `${head.signature.value.startsWith('A') ? 'B' : 'A'}${head.signature.value.slice(1)}`;
    writeFileSync(join(dir, 'chain.jsonl'), [...chain.slice(0, -1), JSON.stringify(head)].map((l) => `${l}\n`).join(''));
    const r = await verify(dir);
    expect(r.mode).toBe('incremental');
    expect(kinds(r)).toEqual(['chain-signature']);
    expect(r.problems[0]!.message).toContain(`run ${newRun.id}`);
  });
});

describe('the verified head and its state', () => {
  it('a rewritten old chain line makes incremental fall back to full, which fails, and says why', async () => {
    const dir = copyOf(grown);
    const chain = lines(dir, 'chain.jsonl');
    const m = JSON.parse(chain[1]!) as { sealed_at: string };
    m.sealed_at = m.sealed_at.replace(/:15:/, ':16:');
    writeFileSync(join(dir, 'chain.jsonl'), [chain[0], JSON.stringify(m), ...chain.slice(2)].map((l) => `${l}\n`).join(''));
    const r = await verify(dir);
    expect(r.mode).toBe('full');
    expect(r.fallback).toMatch(/lines before the verified head .* changed .*history was rewritten/);
    expect(kinds(r)).toEqual(expect.arrayContaining(['chain-link', 'chain-signature']));
  });

  it('a changed head line, a cut chain or an unreadable state fall back to full too', async () => {
    const changed = copyOf(grown);
    const chain = lines(changed, 'chain.jsonl');
    const head = JSON.parse(chain[3]!) as { note: string | null };
    head.note = 'rewritten';
    writeFileSync(join(changed, 'chain.jsonl'), [...chain.slice(0, 3), JSON.stringify(head), ...chain.slice(4)].map((l) => `${l}\n`).join(''));
    expect((await verify(changed)).fallback).toMatch(/line 4 of chain.jsonl is manifest 3 .*the verified head was manifest 3/);

    const cut = copyOf(grown);
    writeFileSync(join(cut, 'chain.jsonl'), chain.slice(0, 2).map((l) => `${l}\n`).join(''));
    const c = await verify(cut);
    expect(c.fallback).toMatch(/fewer than the 4 lines verified/);
    expect(c.problems.length).toBeGreaterThan(0);

    const unreadable = copyOf(grown);
    writeFileSync(join(unreadable, 'verify-state.json'), '{"format":');
    const u = await verify(unreadable);
    expect(u.mode).toBe('full');
    expect(u.fallback).toMatch(/not JSON/);
    expect(u.problems).toEqual([]);

    const none = copyOf(grown);
    unlinkSync(join(none, 'verify-state.json'));
    expect((await verify(none)).fallback).toMatch(/no verified head recorded yet/);
  });

  it('a failing verify never advances the state; a passing one with --record does, and the next day has nothing new', async () => {
    const dir = copyOf(grown);
    const state = readFileSync(join(dir, 'verify-state.json'));
    const file = join(dir, `observations-v2/${newRun.day}.jsonl`);
    const good = readFileSync(file);
    writeFileSync(file, good.toString('utf8').replace(/"outcome":"(\w+)"/, '"outcome":"$1x"'));
    for (const mode of ['auto', 'full'] as const) {
      const r = await verify(dir, { mode, record: true });
      expect(r.problems.length).toBeGreaterThan(0);
      expect(r.recorded).toBe(false);
      expect(r.notRecorded).toMatch(/problems?: the verified head stays/);
      expect(readFileSync(join(dir, 'verify-state.json')).equals(state)).toBe(true);
    }
    writeFileSync(file, good);
    const ok = await verify(dir, { record: true, now: () => new Date('2026-01-15T04:00:00Z') });
    expect(ok.problems).toEqual([]);
    expect(ok.recorded).toBe(true);
    expect(readVerifyState(dir).state).toMatchObject({ chain_seq: 4, chain_lines: 5, verified_at: '2026-01-15T04:00:00.000Z', scrub_cycle_days: 28 });
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    const next = await verify(dir, { today: '2026-01-16' });
    expect(next).toMatchObject({ mode: 'incremental', problems: [], runs: 0, rows: 0, dayFiles: 0, referenced: 0 });
    expect(next.scope.runs).toEqual([]);
    expect(next.chain!.checked).toBe(0);
  });

  it('--full checks the whole archive even with a state, and records its head', async () => {
    const dir = copyOf(grown);
    const r = await verify(dir, { mode: 'full', record: true });
    expect(r).toMatchObject({ mode: 'full', fallback: null, recorded: true });
    expect(readVerifyState(dir).state!.chain_seq).toBe(4);
  });

  it('walks objects through the store: an archive whose objects live elsewhere passes, and an empty local objects/ hides nothing', async () => {
    const dir = copyOf(grown);
    const bucket = mkdtempSync(join(tmpdir(), 'mcps-incr-bucket-'));
    scratch.push(bucket);
    for (const folder of ['objects', 'pages', 'scrub']) if (existsSync(join(dir, folder))) renameSync(join(dir, folder), join(bucket, folder));
    const store = new FsObjectStore(bucket);
    const full = await verify(dir, { mode: 'full', objects: store });
    const local = await verify(copyOf(grown), { mode: 'full' });
    expect(full.problems).toEqual([]);
    expect(full.objects).toBe(local.objects);
    expect(full.scrub.keys).toBe(local.scrub.keys);
    expect((await verify(dir, { objects: store })).problems).toEqual([]);
    flipByte(join(bucket, 'objects', readdirSync(join(bucket, 'objects'))[0]!, readdirSync(join(bucket, 'objects', readdirSync(join(bucket, 'objects'))[0]!))[0]!));
    expect(kinds(await verify(dir, { mode: 'full', objects: store }))).toEqual(['object-corrupt']);
  });
});

describe('the rotating scrub', () => {
  it('slices the 256 shards into consecutive parts, each shard once per cycle', () => {
    for (const n of [1, 7, 28, 300]) {
      // Any n consecutive days are one whole cycle: each day the next slice, every shard exactly once.
      const seen: number[] = [];
      const start = scrubSlice(CYCLE_START, n).cycleDay;
      for (let d = 0; d < n; d++) {
        const day = new Date(Date.parse(`${CYCLE_START}T00:00:00Z`) + d * 86_400_000).toISOString().slice(0, 10);
        const s = scrubSlice(day, n);
        expect(s.cycleDay).toBe((start + d) % n);
        for (let shard = s.first; shard <= s.last; shard++) seen.push(shard);
      }
      expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: SHARDS }, (_, i) => i));
    }
    expect(() => scrubSlice('2026-02-30', 28)).toThrow(/not a day/);
    expect(() => scrubSlice('2026-01-15', 0)).toThrow(/1 to 366 days/);
  });

  /** For each day of one cycle, the problems an incremental verify (no new run) reports. */
  async function cycle(dir: string): Promise<{ day: string; first: number; last: number; problems: VerifyReport['problems'] }[]> {
    const out = [];
    for (let d = 0; d < 28; d++) {
      const day = new Date(Date.parse(`${CYCLE_START}T00:00:00Z`) + d * 86_400_000).toISOString().slice(0, 10);
      const r = await verify(dir, { today: day });
      expect(r.mode).toBe('incremental');
      expect(r.scope.runs).toEqual([]);
      out.push({ day, first: r.scrub.first, last: r.scrub.last, problems: r.problems });
    }
    return out;
  }

  /** The days of the cycle a finding at `where` was reported on; each must be a day whose slice holds `shard`. */
  function reportedOn(days: Awaited<ReturnType<typeof cycle>>, where: string, shard: number): string[] {
    const on = days.filter((d) => d.problems.some((p) => p.where === where));
    for (const d of on) expect(shard >= d.first && shard <= d.last, `${where} reported on ${d.day}, whose slice is ${d.first}..${d.last}`).toBe(true);
    for (const d of days.filter((x) => !on.includes(x))) expect(shard >= d.first && shard <= d.last, `${where} not reported on ${d.day}, whose slice holds it`).toBe(false);
    return on.map((d) => d.day);
  }

  it('finds a corrupt old object on the one day of the cycle its shard is scrubbed, and on no other', async () => {
    const dir = copyOf(recorded);
    const run1 = readChain(dir).manifests[1]!.manifest;
    const victim = [...referencedBy(dir, run1.day!, `${run1.day}.json`)].find((s) => existsSync(objectPath(dir, s)))!;
    flipByte(objectPath(dir, victim));
    const days = await cycle(dir);
    const where = `objects/${victim.slice(0, 2)}/${victim}`;
    expect(reportedOn(days, where, parseInt(victim.slice(0, 2), 16))).toHaveLength(1);
    expect(days.flatMap((d) => d.problems.map((p) => [p.kind, p.where]))).toEqual([['object-corrupt', where]]);
    expect(kinds(await verify(dir, { mode: 'full' }))).toEqual(['object-corrupt']);
  });

  it("finds a packed page's damaged entry on its entry's shard day and on its page's shard day, and nowhere else", async () => {
    const dir = copyOf(recorded);
    const real = JSON.parse(readFileSync(join(ROOT, 'fixtures/registry/real/official-v0-listing-2025-12-12.json'), 'utf8')) as { servers: unknown[] };
    const raw = Buffer.from(`{"servers":[${real.servers.slice(0, 100).map((s) => JSON.stringify(s)).join(',')}],"metadata":{"nextCursor":"n:1","count":100}}`);
    const store = Store.open(dir, new Date().toISOString(), { durable: false });
    let page: string;
    try {
      page = await store.putPage(raw);
    } finally {
      store.close();
    }
    expect(existsSync(pagePath(dir, page))).toBe(true);
    expect((await verify(dir, { mode: 'full' })).problems).toEqual([]);
    const entry = manifestObjects(parseManifest(readFileSync(pagePath(dir, page)))!)[7]!;
    writeFileSync(objectPath(dir, entry), '{"tampered":true}');
    const days = await cycle(dir);
    const entryAt = `objects/${entry.slice(0, 2)}/${entry}`;
    const pageAt = `pages/${page.slice(0, 2)}/${page}.json`;
    expect(reportedOn(days, entryAt, parseInt(entry.slice(0, 2), 16))).toHaveLength(1);
    expect(reportedOn(days, pageAt, parseInt(page.slice(0, 2), 16))).toHaveLength(1);
    expect(days.flatMap((d) => d.problems.map((p) => p.where)).sort()).toEqual([entryAt, pageAt].sort());
    expect(days.flatMap((d) => d.problems.map((p) => p.kind))).toEqual(['object-corrupt', 'object-corrupt']);
  });
});

describe('npm run verify (the CLI)', () => {
  const cli = (args: string[]) => {
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('MCP_SCHEMA_STORE')) delete env[k];
    return spawnSync(process.execPath, ['--import', 'tsx', 'collector/ops/verify-cli.ts', ...args], { cwd: ROOT, env, encoding: 'utf8' });
  };

  it('says which mode ran and what it covered; --json keeps the old fields and adds the new ones', () => {
    const dir = copyOf(grown);
    const text = cli(['--data', dir, '--key', keyFile, '--today', CYCLE_START, '--record']);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^mode: incremental, from the head verified on .* \(manifest 3, [0-9a-f]{12}…\)$/m);
    expect(text.stdout).toMatch(new RegExp(`^covered: 1 new run \\(${newRun.id}\\): 2 run rows, 2 day files, \\d+ rows, 1 roster; \\d+ objects hashed`, 'm'));
    expect(text.stdout).toMatch(/^scrub: shards 00\.\.08 of 256 \(cycle day 1\/28\), \d+ keys? listed$/m);
    expect(text.stdout).toMatch(/^state: recorded verify-state\.json at manifest 4$/m);
    expect(text.stdout).toMatch(/^time: \d+\.\d\d s$/m);
    const json = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', 'collector/ops/verify-cli.ts', '--data', dir, '--key', keyFile, '--full', '--json'], { cwd: ROOT, encoding: 'utf8' })) as Record<string, unknown>;
    for (const f of ['dir', 'dayFiles', 'rows', 'runs', 'rosters', 'objects', 'problems', 'warnings', 'chain', 'editions', 'mode', 'scope', 'scrub', 'ms']) expect(json).toHaveProperty(f);
    expect(json).toMatchObject({ mode: 'full', fallback: null, runs: 8, problems: [] });
  });

  it('falls back to full with a line saying why, and refuses a bad --today', () => {
    const dir = copyOf(grown);
    unlinkSync(join(dir, 'verify-state.json'));
    const r = cli(['--data', dir, '--key', keyFile]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^mode: full, not incremental: no verified head recorded yet/m);
    const bad = cli(['--data', dir, '--today', '2026-13-01']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('verify: --today must be a day, YYYY-MM-DD, got "2026-13-01"\n');
  });
});
