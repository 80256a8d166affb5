// `npm run bench:years -- [--days 3] [--out .bench/years] [--json FILE] [--no-build] [--aggressive]`
//
// Can the archive run for years at the real registry's size? It measures a few
// consecutive real-sized days (≈ 115,000 listing rows of ≈ 1 KB in ≈ 1,150 pages, ≈ 42,000 targets,
// ≈ 26,000 endpoints; bench/years-registry.ts) in each of two designs, written side by side by the
// project's own writers, then projects to years 1, 3 and 5 and prints a table beside GitHub's limits
// (bench/years-project.ts):
//
//   today's  every raw listing page stored whole (Store.putObject → objects/<aa>/<sha256>), the roster
//            plain (rosters/<day>.json), the newest day plain until the next day's compaction; all in git.
//   new      pages packed as their entries and a manifest (Store.putPage → objects/ + pages/), objects/ and
//            pages/ in an S3-compatible object store (not git); the day's rows and roster gzipped the same
//            day (compact --finished) and put in the store as objects named by stored.jsonl (npm run
//            store -- offload), as collect.yml does with a bucket; git carries runs.jsonl, chain.jsonl,
//            stored.jsonl and verify-state.json.
//
// Per day and design: bytes added to what git carries (the working tree of tracked files), to the
// object store (new design: new keys, which is also its upload), the day's thin pack (`git bundle
// HEAD~1..HEAD`, what a push sends) and the packed repository after `git gc` (or `--aggressive`), split
// by folder (`git cat-file --batch-check` over every object). Verify is timed with its CLI
// (collector/ops/verify-cli.ts) after every day: a full verify's time and memory grow with the archive,
// so its per-day slope is what is projected; the incremental mode, when the CLI has one (`--full` and
// `--record` in its --help), is run every day before the commit, as the jobs will. Then (unless
// --no-build, or with --builds-from an earlier run's figures) small archives
// (bench/archive-gen.ts) are built (bench/build.ts) to get the site's per-server and per-day slopes;
// the 42,000-target site figures are the issue's, labelled as such.
//
// Scratch data goes under --out (default .bench/years, git-ignored; never data/). Loopback only.
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync, constants as zlib } from 'node:zlib';
import { compactArchive } from '../collector/ops/compact.ts';
import { generateKeyPair } from '../collector/ops/keys.ts';
import type { FetchedPage } from '../collector/roster.ts';
import { runRow, type RowContext } from '../collector/rows.ts';
import { Store } from '../collector/store.ts';
import { selectTargets } from '../collector/targets.ts';
import { appendRunManifests } from '../src/archive/chain.ts';
import { dayFile, LAYOUT, rosterPath } from '../src/archive/layout.ts';
import { FsObjectStore, type ObjectStore } from '../src/archive/object-store.ts';
import { offload } from '../src/archive/stored-files.ts';
import type { Observation, Roster, RosterPage } from '../src/lib/index.ts';
import { generateArchive } from './archive-gen.ts';
import { benchBuild } from './build.ts';
import { project, renderTable, zeroParts, type BuildPoint, type ByPart, type DayFigures, type Design, type Kind, type Measured, type Part, type VerifyRun } from './years-project.ts';
import { DayRows } from './years-rows.ts';
import { Registry, realRate, scaledChange } from './years-registry.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REGISTRY_URL = 'https://registry.modelcontextprotocol.io/v0.1/servers';
const DAY_MS = 86_400_000;
const DESIGNS = ['today', 'new'] as const satisfies readonly Design[];


/** The object store a Store writes through, counting the keys it adds (their bytes are the upload). */
class CountingStore implements ObjectStore {
  readonly description: string;
  kind: Kind = 'body';
  added: Record<Kind, { keys: number; bytes: number }> = zeroKinds();
  constructor(readonly inner: FsObjectStore) {
    this.description = inner.description;
  }
  async put(key: string, bytes: Uint8Array): Promise<void> {
    if (await this.inner.has(key)) return;
    await this.inner.put(key, bytes);
    const k: Kind = key.startsWith(`${LAYOUT.pages}/`) ? 'manifest' : this.kind;
    this.added[k].keys++;
    this.added[k].bytes += bytes.length;
  }
  get(key: string) {
    return this.inner.get(key);
  }
  has(key: string) {
    return this.inner.has(key);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
}

function zeroKinds(): Record<Kind, { keys: number; bytes: number }> {
  return { page: { keys: 0, bytes: 0 }, entry: { keys: 0, bytes: 0 }, manifest: { keys: 0, bytes: 0 }, body: { keys: 0, bytes: 0 }, closed: { keys: 0, bytes: 0 } };
}

interface Args {
  days: number;
  out: string;
  json: string | null;
  seed: string;
  start: string;
  rows: number;
  names: number;
  endpoints: number;
  build: boolean;
  onlyBuilds: boolean;
  buildsFrom: string | null;
  projectFrom: string | null;
  aggressive: boolean;
  buildSizes: Array<[number, number]>;
}

function parseArgs(argv: string[]): Args {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm run bench:years -- [--days D] [--out DIR] [--json FILE] [--no-build] [--aggressive]
  --days D          consecutive real-sized days to write (default 3; day 1 is the first-day cost, 2..D the steady state)
  --out DIR         scratch folder (default .bench/years; emptied first when bench:years made it; never data/)
  --json FILE       also write every figure and the projections as JSON
  --rows N --names N --endpoints N   the listing's size (default 115000, 42000, 26000)
  --seed S --start YYYY-MM-DD        (default years, 2026-12-02)
  --aggressive      git gc --aggressive instead of plain git gc after each day
  --no-build        skip the small site builds (the site's slopes)
  --only-builds     only the small site builds (with --json: their figures, for --builds-from)
  --builds-from F   take the small builds' figures from an earlier run's --json file instead of building
  --project-from F  measure nothing: print the projections of an earlier run's --json file again (with
                    the model as it is now; --builds-from replaces its builds)
  --build-sizes T×D,T×D,T×D   archives built for the site's slopes (default 2500x10,5000x10,5000x30: ≥ 8 days each, so every build reads its days in worker threads)
`);
    process.exit(0);
  }
  const sizes = (get('--build-sizes') ?? '2500x10,5000x10,5000x30').split(',').map((s) => s.split(/[x×]/).map(Number) as [number, number]);
  return {
    days: Number(get('--days') ?? 3),
    out: path.resolve(get('--out') ?? path.join(ROOT, '.bench', 'years')),
    json: get('--json') ? path.resolve(get('--json')!) : null,
    seed: get('--seed') ?? 'years',
    start: get('--start') ?? '2026-12-02',
    rows: Number(get('--rows') ?? 115_000),
    names: Number(get('--names') ?? 42_000),
    endpoints: Number(get('--endpoints') ?? 26_000),
    build: !argv.includes('--no-build'),
    onlyBuilds: argv.includes('--only-builds'),
    buildsFrom: get('--builds-from') ? path.resolve(get('--builds-from')!) : null,
    projectFrom: get('--project-from') ? path.resolve(get('--project-from')!) : null,
    aggressive: argv.includes('--aggressive'),
    buildSizes: sizes,
  };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
}

function timed<T>(acc: Record<string, number>, key: string, f: () => T): T {
  const t = performance.now();
  try {
    return f();
  } finally {
    acc[key] = (acc[key] ?? 0) + (performance.now() - t) / 1000;
  }
}

async function timedAsync<T>(acc: Record<string, number>, key: string, f: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await f();
  } finally {
    acc[key] = (acc[key] ?? 0) + (performance.now() - t) / 1000;
  }
}

/** Which part of the archive a tracked path is. */
function partOf(rel: string, pageShas: Set<string>): Part {
  if (rel.startsWith(`${LAYOUT.objects}/`)) return pageShas.has(path.basename(rel)) ? 'pages' : 'bodies';
  if (rel.startsWith(`${LAYOUT.pages}/`)) return 'pages';
  if (rel.startsWith(`${LAYOUT.rosters}/`)) return 'rosters';
  if (rel.startsWith('observations')) return 'observations';
  if (rel === LAYOUT.runs || rel === LAYOUT.chain || rel === LAYOUT.stored) return 'runs+chain';
  return 'other';
}

function worktree(dir: string, tracked: (rel: string) => boolean, pageShas: Set<string>): ByPart {
  const out = zeroParts();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const rel = path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/');
    if (rel.startsWith('.git/') || !tracked(rel)) continue;
    out[partOf(rel, pageShas)] += statSync(path.join(dir, rel)).size;
  }
  return out;
}

function dirBytes(dir: string): number {
  let n = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += statSync(path.join(e.parentPath, e.name)).size;
  return n;
}

/** On-disk bytes of every object in the repository (after gc: packed, deltas included), by part. */
function packByPart(repo: string, pageShas: Set<string>): ByPart {
  const out = zeroParts();
  const list = spawnSync('sh', ['-c', "git rev-list --objects --all | git cat-file --batch-check='%(objecttype) %(objectsize:disk) %(rest)'"], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 30 });
  for (const line of list.stdout.split('\n')) {
    if (!line) continue;
    const [type, size, rel] = [line.slice(0, line.indexOf(' ')), Number(line.split(' ')[1]), line.split(' ').slice(2).join(' ')];
    out[type === 'blob' ? partOf(rel, pageShas) : 'trees+commits'] += size;
  }
  return out;
}

function sizePack(repo: string): number {
  const m = /size-pack: (\d+)/.exec(git(repo, 'count-objects', '-v'));
  return Number(m?.[1] ?? 0) * 1024;
}

/** gzip a plain day file or roster in place as compact.ts does (level 9, read back, then the plain file goes). */
function gzipInPlace(file: string): void {
  const text = readFileSync(file);
  const packed = gzipSync(text, { level: zlib.Z_BEST_COMPRESSION });
  if (!gunzipSync(packed).equals(text)) throw new Error(`gzip round trip of ${file} failed`);
  writeFileSync(`${file}.gz`, packed);
  unlinkSync(file);
}

function verifyModes(): { incremental: boolean } {
  const r = spawnSync('npx', ['tsx', 'collector/ops/verify-cli.ts', '--help'], { cwd: ROOT, encoding: 'utf8' });
  return { incremental: /--full\b/.test(r.stdout) && /--record\b/.test(r.stdout) };
}

/**
 * `npx tsx collector/ops/verify-cli.ts --data <dir>` timed by /usr/bin/time (wall of the whole command,
 * max RSS of its largest process). Full: `--full` (when the CLI has an incremental default). Incremental:
 * `--record --today <day>` (checks the runs after the recorded head plus the day's scrub slice, then
 * records the new head in verify-state.json; without a state it runs a full verify and says so).
 */
function runVerify(dir: string, key: string, mode: 'full' | 'incremental', hasIncremental: boolean, day: string): VerifyRun {
  const extra = !hasIncremental ? [] : mode === 'full' ? ['--full'] : ['--record', '--today', day];
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %M', 'npx', 'tsx', 'collector/ops/verify-cli.ts', '--data', dir, '--key', key, ...extra], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
  const m = /TIME ([\d.]+) (\d+)/.exec(r.stderr);
  const lines = r.stdout.trim().split('\n');
  const own = /^time: ([\d.]+) s/m.exec(r.stdout);
  const said = /^mode: (\w+)/m.exec(r.stdout)?.[1];
  return {
    mode: said === 'incremental' ? 'incremental' : mode === 'incremental' && said ? 'full' : mode,
    wall_s: Number(m?.[1] ?? NaN),
    own_s: own ? Number(own[1]) : null,
    max_rss_mb: Math.round(Number(m?.[2] ?? 0) / 1024),
    ok: r.status === 0,
    summary: (lines.find((l) => l.startsWith('covered:')) ?? lines[0] ?? '').slice(0, 300) + ' | ' + (lines.find((l) => /^(ok|FAILED)/.test(l)) ?? r.stderr.slice(-300)),
  };
}

function machine(): string {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}, node ${process.version}`;
}

const mb = (n: number) => (n / 1e6).toFixed(1);

async function measureDays(a: Args, log: (s: string) => void) {
  const rate = realRate();
  const reg = new Registry({ rows: a.rows, names: a.names, endpoints: a.endpoints, seed: a.seed });
  const change = scaledChange(rate, a.rows);
  log(`registry: ${reg.entries.length.toLocaleString('en')} rows, ${reg.names.toLocaleString('en')} names; real rate ${rate.new_rows_per_day.toFixed(1)} rows/day, ${rate.new_names_per_day.toFixed(2)} names/day over ${rate.days} days at a mean of ${rate.mean_rows} rows → scaled to ${a.rows.toLocaleString('en')} rows: ${change.newNames.toFixed(0)} new servers + ${change.newVersions.toFixed(0)} new versions a day`);
  const rows = new DayRows(a.seed);
  const pair = generateKeyPair('BENCH');
  const keyFile = path.join(a.out, 'BENCH-ed25519.pub');
  writeFileSync(keyFile, pair.publicPem);
  const dirs = { today: path.join(a.out, 'today'), new: path.join(a.out, 'new') } as const;
  // The new design's git leaves out what collect.yml's COMMIT_DAY_EXCLUDE leaves out with a bucket.
  const ignored = { today: [LAYOUT.lock, `${LAYOUT.quarantine}/`], new: [LAYOUT.lock, `${LAYOUT.quarantine}/`, `${LAYOUT.objects}/`, `${LAYOUT.pages}/`, `${LAYOUT.observations}/`, `${LAYOUT.observationsV2}/`, `${LAYOUT.rosters}/`] };
  for (const d of DESIGNS) {
    mkdirSync(dirs[d], { recursive: true });
    git(dirs[d], 'init', '-q');
    git(dirs[d], 'config', 'user.name', 'bench');
    git(dirs[d], 'config', 'user.email', 'bench@example.invalid');
    git(dirs[d], 'config', 'gc.auto', '0');
    writeFileSync(path.join(dirs[d], '.gitignore'), ignored[d].map((l) => `/${l}\n`).join(''));
  }
  const tracked = { today: (rel: string) => !rel.startsWith(`${LAYOUT.quarantine}/`) && rel !== LAYOUT.lock, new: (rel: string) => !/^(objects|pages|quarantine|rosters|observations(-[\w.-]+)?)\//.test(rel) && rel !== LAYOUT.lock };
  const modes = verifyModes();
  log(`verify: ${modes.incremental ? 'the CLI has --full and an incremental default: both are timed' : 'the CLI has no incremental mode (no --full in its --help): the full verify is timed'}`);
  const pageShas = new Set<string>();
  const days: DayFigures[] = [];
  const verifyFull: Record<Design, VerifyRun[]> = { today: [], new: [] };
  const start = Date.parse(`${a.start}T00:00:00Z`);
  for (let d = 0; d < a.days; d++) {
    const seconds: Record<string, number> = {};
    const dayStart = start + d * DAY_MS + 3 * 3600_000;
    const day = new Date(dayStart).toISOString().slice(0, 10);
    const at = new Date(dayStart).toISOString();
    const runId = `${day}T030000Z`;
    const changed = d === 0 ? null : timed(seconds, 'registry', () => reg.advance(change, at));
    const counting = { today: new CountingStore(new FsObjectStore(dirs.today, { durable: false })), new: new CountingStore(new FsObjectStore(dirs.new, { durable: false })) };
    const stores = { today: Store.open(dirs.today, at, { durable: false, objects: counting.today }), new: Store.open(dirs.new, at, { durable: false, objects: counting.new }) };
    let listingBytes = 0;
    const rosterPages: RosterPage[] = [];
    const fetched: FetchedPage[] = [];
    try {
      // 1. The listing, page by page, into both stores: whole (today's) and packed (new).
      const pages = reg.pages();
      for (;;) {
        const next = timed(seconds, 'serialize', () => pages.next());
        if (next.done) break;
        const p = next.value;
        listingBytes += p.bytes.length;
        counting.today.kind = 'page';
        const sha = await timedAsync(seconds, 'today:putObject', () => stores.today.putObject(p.bytes));
        counting.new.kind = 'entry';
        const packed = await timedAsync(seconds, 'new:putPage', () => stores.new.putPage(p.bytes));
        if (packed !== sha) throw new Error(`putPage named page ${p.index} ${packed}, putObject ${sha}`);
        pageShas.add(sha);
        const url = new URL(REGISTRY_URL);
        url.searchParams.set('limit', '100');
        if (p.cursor !== null) url.searchParams.set('cursor', p.cursor);
        rosterPages.push({ cursor: p.cursor, url: url.toString(), http_status: 200, sha256: sha, count: p.entries.length, next_cursor: p.next, attempts: 1, error: null });
        fetched.push({ sha256: sha, servers: p.entries });
      }
      // 2. The roster (collector/targets.ts selectTargets), written by each store's writeRoster.
      const { targets, entries } = timed(seconds, 'targets', () => selectTargets(fetched));
      fetched.length = 0;
      const roster: Roster = {
        day, run_id: runId, fetched_at: new Date(dayStart + 8 * 60_000).toISOString(), source: REGISTRY_URL, complete: true, incomplete_reason: null, pages: rosterPages,
        counts: { pages: rosterPages.length, entries, targets: targets.length, with_endpoint: targets.filter((t) => t.endpoint !== null).length },
        targets,
      };
      const rosterFile = { today: timed(seconds, 'today:writeRoster', () => stores.today.writeRoster(roster)), new: timed(seconds, 'new:writeRoster', () => stores.new.writeRoster(roster)) };
      // 3. One row per target (collector/rows.ts), bodies stored first, in both archives.
      const dayRows: Observation[] = [];
      let clock = dayStart + 10 * 60_000;
      let newBodies = 0;
      for (const t of targets) {
        clock += 20 + (dayRows.length % 17);
        const ctx: RowContext = { runId, day, observedAt: new Date(clock).toISOString() };
        const { row, body } = timed(seconds, 'rows', () => rows.row(ctx, t, d));
        if (body) {
          newBodies++;
          for (const k of DESIGNS) {
            counting[k].kind = 'body';
            await timedAsync(seconds, `${k}:putObject`, () => stores[k].putObject(body.bytes));
          }
        }
        for (const k of DESIGNS) timed(seconds, `${k}:appendObservation`, () => stores[k].appendObservation(row));
        dayRows.push(row);
      }
      for (const k of DESIGNS) {
        const run = runRow({ runId, day, startedAt: at, finishedAt: new Date(clock + 1000).toISOString(), registry: REGISTRY_URL, rosterFile: rosterFile[k], rosterComplete: true, limit: null, eligible: roster.counts.with_endpoint, rows: dayRows, message: null, scheduling: null });
        timed(seconds, `${k}:appendRun`, () => stores[k].appendRun(run));
        await timedAsync(seconds, `${k}:chain`, () => appendRunManifests(dirs[k], runId, { signer: pair.signer, sealedAt: new Date(clock + 2000).toISOString(), durable: false }));
      }
      const fig: DayFigures = {
        day, listing_rows: reg.entries.length, pages: rosterPages.length, targets: targets.length, endpoints: roster.counts.with_endpoint, change: changed, listing_bytes: listingBytes,
        rows: dayRows.length, new_bodies: newBodies, seconds, design: {} as DayFigures['design'],
      };
      for (const k of DESIGNS) stores[k].close();
      // 4. Compaction: today's closes yesterday's day file (rosters stay plain); the new one closes today's
      // day and gzips the roster (compact.ts with `finished`, when it has it; else the same gzip here).
      const compaction = { today: '', new: '' };
      timed(seconds, 'today:compact', () => {
        if (d === 0) return void (compaction.today = 'nothing closed yet');
        const prev = new Date(dayStart - DAY_MS).toISOString().slice(0, 10);
        gzipInPlace(path.join(dirs.today, dayFile(prev)));
        compaction.today = `closed ${prev} (gzip -9 as compact.ts does; rosters stay plain, as before rosters were compressed)`;
      });
      timed(seconds, 'new:compact', () => {
        const s = compactArchive(dirs.new, { finished: true });
        const notes: string[] = [];
        if (!s.compacted.includes(day)) {
          gzipInPlace(path.join(dirs.new, dayFile(day)));
          notes.push(`day ${day} gzipped here (compact.ts did not close the newest day)`);
        } else notes.push(`compact.ts (finished) closed ${day}`);
        if (existsSync(rosterPath(dirs.new, rosterFile.new))) {
          gzipInPlace(rosterPath(dirs.new, rosterFile.new));
          notes.push('roster gzipped here (node:zlib level 9: compact.ts does not gzip rosters yet)');
        } else notes.push('roster gzipped by compact.ts');
        compaction.new = notes.join('; ');
      });
      // The closed files into the store, named by stored.jsonl (what collect.yml runs with a bucket).
      counting.new.kind = 'closed';
      const offloaded = await timedAsync(seconds, 'new:offload', () => offload(dirs.new, counting.new));
      compaction.new += `; offloaded ${offloaded.length} closed files (${offloaded.map((l) => l.path).join(', ')})`;
      for (const k of DESIGNS) {
        // The daily verify as the jobs will run it: incremental from the recorded head (verify-state.json,
        // committed with the day), the first day a full one that records the head.
        const incremental = modes.incremental ? timed(seconds, `${k}:verify-incremental`, () => runVerify(dirs[k], keyFile, 'incremental', true, day)) : null;
        const gs = { add_commit: 0, bundle: 0, gc: 0 };
        let t = performance.now();
        git(dirs[k], 'add', '-A');
        git(dirs[k], 'commit', '-q', '-m', `day ${day}`);
        gs.add_commit = (performance.now() - t) / 1000;
        t = performance.now();
        const bundle = path.join(a.out, `${k}.bundle`);
        git(dirs[k], 'bundle', 'create', '-q', bundle, d === 0 ? 'HEAD' : 'HEAD~1..HEAD');
        const push = statSync(bundle).size;
        rmSync(bundle);
        gs.bundle = (performance.now() - t) / 1000;
        t = performance.now();
        git(dirs[k], 'gc', '-q', ...(a.aggressive ? ['--aggressive'] : []));
        gs.gc = (performance.now() - t) / 1000;
        fig.design[k] = {
          worktree: worktree(dirs[k], tracked[k], pageShas),
          store_added: counting[k].added,
          store_bytes: k === 'new' ? dirBytes(path.join(dirs.new, LAYOUT.objects)) + dirBytes(path.join(dirs.new, LAYOUT.pages)) : 0,
          push_bytes: push,
          pack_bytes: sizePack(dirs[k]),
          pack_by_part: packByPart(dirs[k], pageShas),
          git_seconds: gs,
          compaction: compaction[k],
          verify_incremental: incremental,
        };
      }
      days.push(fig);
      const t0 = fig.design.today;
      const n0 = fig.design.new;
      log(
        `day ${d + 1}/${a.days} ${day}: ${fig.listing_rows.toLocaleString('en')} rows in ${fig.pages} pages (${mb(listingBytes)} MB), ${fig.targets.toLocaleString('en')} targets, ${fig.endpoints.toLocaleString('en')} endpoints, ${newBodies} new bodies` +
          `\n  today's: worktree ${mb(sum(t0.worktree))} MB, push ${mb(t0.push_bytes)} MB, pack ${mb(t0.pack_bytes)} MB (gc ${t0.git_seconds.gc.toFixed(1)} s)` +
          `\n  new:     worktree ${mb(sum(n0.worktree))} MB, push ${mb(n0.push_bytes)} MB, pack ${mb(n0.pack_bytes)} MB; store +${mb(sum(Object.values(n0.store_added).map((x) => x.bytes)))} MB (${Object.entries(n0.store_added).map(([k2, v]) => `${k2} ${v.keys}/${mb(v.bytes)} MB`).join(', ')})` +
          (n0.verify_incremental ? `\n  daily verify: today's ${t0.verify_incremental!.mode} ${t0.verify_incremental!.wall_s} s (own ${t0.verify_incremental!.own_s} s) ${t0.verify_incremental!.max_rss_mb} MB; new ${n0.verify_incremental.mode} ${n0.verify_incremental.wall_s} s (own ${n0.verify_incremental.own_s} s) ${n0.verify_incremental.max_rss_mb} MB` : '') +
          `\n  seconds: ${Object.entries(seconds).map(([k2, v]) => `${k2} ${v.toFixed(1)}`).join(', ')}`,
      );
    } finally {
      for (const k of DESIGNS) stores[k].close();
    }
    {
      for (const k of DESIGNS) {
        const v = runVerify(dirs[k], keyFile, 'full', modes.incremental, new Date(start + d * DAY_MS).toISOString().slice(0, 10));
        verifyFull[k].push(v);
        log(`  full verify (${k}) after day ${d + 1}: ${v.wall_s} s (own ${v.own_s} s), ${v.max_rss_mb} MB max RSS, ${v.ok ? 'ok' : 'FAILED'}: ${v.summary}`);
      }
    }
  }
  return { rate, change, days, verifyFull, verifyHasIncremental: modes.incremental };
}

function sum(x: Record<string, number> | number[]): number {
  return (Array.isArray(x) ? x : Object.values(x)).reduce((s, v) => s + v, 0);
}

async function buildSlopes(a: Args, log: (s: string) => void): Promise<BuildPoint[]> {
  const points: BuildPoint[] = [];
  for (const [targets, days] of a.buildSizes) {
    const archive = path.join(a.out, `build-${targets}x${days}`);
    rmSync(archive, { recursive: true, force: true });
    const g = await generateArchive({ targets, days, out: archive, seed: a.seed });
    const site = path.join(a.out, `site-${targets}x${days}`);
    const release = `${site}-release`;
    const cache = path.join(a.out, `cache-${targets}x${days}`);
    rmSync(cache, { recursive: true, force: true });
    rmSync(release, { recursive: true, force: true });
    const f = await benchBuild(archive, site, { MCP_SCHEMA_CACHE: cache, MCP_SCHEMA_RELEASE_DIR: release, MCP_SCHEMA_RELEASE_URL: 'https://github.com/OWNER/mcp-schema/releases/download/data/' });
    let largest = { name: '', bytes: 0 };
    let relBytes = 0;
    let relFiles = 0;
    const byFile: Record<string, number> = {};
    for (const e of existsSync(release) ? readdirSync(release, { withFileTypes: true, recursive: true }) : []) {
      if (!e.isFile()) continue;
      const size = statSync(path.join(e.parentPath, e.name)).size;
      relBytes += size;
      relFiles++;
      byFile[path.relative(release, path.join(e.parentPath, e.name))] = +(size / 1e6).toFixed(2);
      if (size > largest.bytes) largest = { name: e.name, bytes: size };
    }
    const dayGz = dirBytes(path.join(archive, LAYOUT.observations));
    const p: BuildPoint = {
      targets, days, rows: g.rows, wall_s: f.wall_s, cpu_s: f.cpu_s, peak_rss_mb: f.peak_rss_mb, site_mb: f.site_mb, site_files: f.site_files, largest: f.largest,
      release_mb: +(relBytes / 1e6).toFixed(1), release_files: relFiles, release_largest_mb: +(largest.bytes / 1e6).toFixed(1), release_largest: largest.name, release_by_file: byFile, day_gz_mb: +(dayGz / 1e6).toFixed(1),
    };
    points.push(p);
    log(`build ${targets} × ${days}: ${p.wall_s} s wall, ${p.cpu_s} s CPU, peak RSS ${p.peak_rss_mb} MB, site ${p.site_mb} MB in ${p.site_files} files; release ${p.release_mb} MB in ${p.release_files} (${Object.entries(p.release_by_file).map(([f, v]) => `${f} ${v} MB`).join(', ')}); day files ${p.day_gz_mb} MB`);
    for (const dir of [site, release, cache, archive]) rmSync(dir, { recursive: true, force: true });
  }
  return points;
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  if (a.projectFrom) {
    const saved = JSON.parse(readFileSync(a.projectFrom, 'utf8')) as { command: string; machine: string; date: string; wall_s: number; measured: Measured };
    const measured: Measured = a.buildsFrom ? { ...saved.measured, builds: (JSON.parse(readFileSync(a.buildsFrom, 'utf8')) as { measured: { builds: BuildPoint[] } }).measured.builds } : saved.measured;
    const projections = project(measured);
    const header = [`measured by: ${saved.command}`, `machine: ${saved.machine}`, `date: ${saved.date}`, `bench wall: ${saved.wall_s} s`, `projected again by: npm run bench:years -- ${process.argv.slice(2).join(' ')}`];
    console.log([...header, '', renderTable(measured, projections)].join('\n'));
    if (a.json) writeFileSync(a.json, JSON.stringify({ ...saved, projected_by: `npm run bench:years -- ${process.argv.slice(2).join(' ')}`, measured, projections }, null, 1) + '\n');
    return;
  }
  const data = path.join(ROOT, 'data');
  if (a.out === data || a.out.startsWith(data + path.sep)) throw new Error('refusing to write benchmark data into data/');
  // Only a folder this bench made (its marker inside) is emptied: never someone's folder by a typo.
  const MARK = '.bench-years';
  if (existsSync(a.out) && readdirSync(a.out).length > 0 && !existsSync(path.join(a.out, MARK))) throw new Error(`${a.out} is not empty and was not made by bench:years: pick another --out`);
  rmSync(a.out, { recursive: true, force: true });
  mkdirSync(a.out, { recursive: true });
  writeFileSync(path.join(a.out, MARK), 'scratch folder of npm run bench:years: emptied by the next run\n');
  const t0 = Date.now();
  const command = `npm run bench:years -- ${process.argv.slice(2).join(' ')}`.trim();
  const log = (s: string) => console.error(s);
  log(`$ ${command}`);
  log(`machine: ${machine()}; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  if (a.onlyBuilds) {
    const builds = await buildSlopes(a, log);
    const wall = (Date.now() - t0) / 1000;
    console.log(JSON.stringify({ command, machine: machine(), builds, wall_s: Math.round(wall) }, null, 1));
    if (a.json) writeFileSync(a.json, JSON.stringify({ command, machine: machine(), date: new Date().toISOString(), wall_s: Math.round(wall), measured: { builds } }, null, 1) + '\n');
    return;
  }
  const m = await measureDays(a, log);
  const builds = a.buildsFrom
    ? (JSON.parse(readFileSync(a.buildsFrom, 'utf8')) as { measured: { builds: BuildPoint[] } }).measured.builds
    : a.build
      ? await buildSlopes(a, log)
      : [];
  if (a.buildsFrom) log(`site slopes: the small builds of ${path.relative(process.cwd(), a.buildsFrom)} (${builds.map((b) => `${b.targets}×${b.days}`).join(', ')})`);
  const nodeModules = Number(spawnSync('du', ['-sb', path.join(ROOT, 'node_modules')], { encoding: 'utf8' }).stdout.split('\t')[0]) || 0;
  const measured: Measured = { ...m, builds, node_modules_bytes: nodeModules, shape: { rows: a.rows, names: a.names, endpoints: a.endpoints }, gc: a.aggressive ? 'git gc --aggressive' : 'git gc' };
  const projections = project(measured);
  const wall = (Date.now() - t0) / 1000;
  const header = [`command: ${command}`, `machine: ${machine()}; load at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`, `date: ${new Date().toISOString()}`, `bench wall: ${wall.toFixed(0)} s`];
  console.log([...header, '', renderTable(measured, projections)].join('\n'));
  if (a.json) writeFileSync(a.json, JSON.stringify({ command, machine: machine(), date: new Date().toISOString(), wall_s: Math.round(wall), measured, projections }, null, 1) + '\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  });
}
