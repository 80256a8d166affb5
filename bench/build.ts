// `npm run bench:build -- --archive .bench/a-25k-365 [--repeat 3] [--cold] [--keep] [--out DIR]`
//
// Runs the real site build as `npm run build` does (`astro build`, then src/site/search-step.ts) against an archive and reports: wall time, peak RSS of
// the whole process tree (node → workers, polled from /proc every 100 ms), time per stage (the
// loader and the post-build outputs append marks to $MCP_SCHEMA_TIMINGS, see src/site/timings.ts),
// and the published site's size and file count, with the largest folders. `--cold` empties the build
// cache first (the first build of an archive); without it the cache of the previous run is used
// (a rebuild with nothing new). `--daily` measures the daily job: the newest day file and run are
// moved aside (restored afterwards, also on failure), the site is built, then the day comes back and
// the site is built again on that cache — the second figure is the daily rebuild.
// `--kinds` adds the site's size by kind of file (server pages, badges, feeds, patches, descriptors,
// tools and set files, raw bodies, ...), to tell what grows with servers from what grows with time.
// `--repeat N` runs N times and prints each run and the medians. Big bundles go to a release folder
// beside the site (MCP_SCHEMA_RELEASE_DIR), as a deployment does; its size is reported apart.
import { checked, command, exitCodes, integer, script } from '../collector/cli-kit/index.ts';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSteps } from '../src/site/build.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface BuildFigures {
  wall_s: number;
  /** CPU seconds (user + system) of the whole build tree: steadier than wall time on a shared machine. */
  cpu_s: number;
  peak_rss_mb: number;
  /** Peak RSS (MB) of each step, as npm run build runs them one after the other: `astro` (the Astro build, the loaded archive) and `search` (src/site/search-step.ts, Pagefind). */
  peak_rss_mb_by_step: Record<string, number>;
  /** Peak RSS (MB) of the build tree while each stage ran (attributed to the stage after the last ended). */
  peak_rss_mb_by_stage: Record<string, number>;
  stages: Record<string, number>;
  site_mb: number;
  site_files: number;
  largest: Record<string, { mb: number; files: number }>;
  /**
   * With --trace-gc (the build run under node --trace-gc): the largest heap any isolate kept after a
   * mark-compact (MB) — what the build holds at its fullest, the V8 heap's garbage apart — and that
   * isolate's largest heap before one (how far V8 let it grow).
   */
  live_heap_mb?: { after_gc: number; before_gc: number; collections: number };
  ok: boolean;
}

/** The largest heap after (and before) a mark-compact in a --trace-gc log, over every isolate. */
export function liveHeap(log: string): { after_gc: number; before_gc: number; collections: number } | null {
  // e.g. "[123:0x5bd1c40]     4210 ms: Mark-Compact 612.3 (640.1) -> 401.9 (650.2) MB, ..."
  const re = /Mark-Compact(?: \(reduce\))? ([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/g;
  let after = 0;
  let before = 0;
  let n = 0;
  for (const m of log.matchAll(re)) {
    n++;
    after = Math.max(after, Number(m[3]));
    before = Math.max(before, Number(m[1]));
  }
  return n === 0 ? null : { after_gc: after, before_gc: before, collections: n };
}

export async function benchBuild(archive: string, out: string, env: Record<string, string> = {}, opts: { traceGc?: boolean } = {}): Promise<BuildFigures> {
  const timings = path.join(os.tmpdir(), `mcp-schema-timings-${process.pid}-${Date.now()}.jsonl`);
  rmSync(out, { recursive: true, force: true });
  const t0 = Date.now();
  const cpu0 = childCpu();
  // The steps of npm run build (src/site/build.ts buildSteps): the Astro build (the search left to the next
  // step), then src/site/search-step.ts in a process of its own, so the peak is the larger of the two, not
  // their sum. Run here one by one so each step's peak is measured on its own.
  // --trace-gc is a V8 flag Node refuses in NODE_OPTIONS: the Astro step's Node gets it as an argument.
  const steps = buildSteps(opts.traceGc ? { astroNodeArgs: ['--trace-gc'] } : {});
  let log = '';
  let peak = 0;
  // Peak RSS per stage: a sample belongs to the stage after the last one that has ended.
  const stagePeak: Record<string, number> = {};
  // In the order their marks arrive: 'bundles-jsonl' and 'parquet' are the two parts of 'bundles', marked as they end.
  const ORDER = ['startup', 'load', 'fold', 'rows', 'derive', 'render', 'server-files', 'bundles-jsonl', 'parquet', 'bundles', 'chart-zip', 'objects', 'search'];
  // Peak RSS of each step's process tree: the Astro build (the loaded archive) and the search step (Pagefind).
  const stepPeak: Record<string, number> = {};
  for (const { name, command, args, env: stepEnv } of steps) {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, MCP_SCHEMA_DATA: archive, MCP_SCHEMA_OUT: out, MCP_SCHEMA_TIMINGS: timings, ASTRO_TELEMETRY_DISABLED: '1', ...env, ...stepEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (b: Buffer) => (log += b.toString()));
    child.stderr.on('data', (b: Buffer) => (log += b.toString()));
    const poll = setInterval(() => {
      const rss = treeRss(child.pid!);
      peak = Math.max(peak, rss);
      stepPeak[name] = Math.max(stepPeak[name] ?? 0, Math.round(rss / 1024));
      let done = 0;
      try {
        done = readFileSync(timings, 'utf8').split('\n').filter(Boolean).length;
      } catch {
        /* not yet */
      }
      const stage = ORDER[Math.min(done, ORDER.length - 1)]!;
      stagePeak[stage] = Math.max(stagePeak[stage] ?? 0, Math.round(rss / 1024));
    }, 100);
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
    clearInterval(poll);
    if (code !== 0) {
      console.error(log.slice(-4000));
      throw new Error(`the ${name} step (${args.at(-1)}) exited ${code}`);
    }
  }
  const wall = (Date.now() - t0) / 1000;
  const cpu = childCpu() - cpu0;
  const stages: Record<string, number> = {};
  if (existsSync(timings)) {
    for (const line of readFileSync(timings, 'utf8').split('\n').filter(Boolean)) {
      const m = JSON.parse(line) as { stage: string; ms: number };
      stages[m.stage] = +((stages[m.stage] ?? 0) + m.ms / 1000).toFixed(2);
    }
    rmSync(timings, { force: true });
  }
  const { bytes, files, byTop } = treeSize(out);
  const largest = Object.fromEntries(
    [...byTop.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 8).map(([k, v]) => [k, { mb: +(v.bytes / 1e6).toFixed(1), files: v.files }]),
  );
  const heap = liveHeap(log);
  return { wall_s: +wall.toFixed(1), cpu_s: +cpu.toFixed(1), peak_rss_mb: Math.round(peak / 1024), peak_rss_mb_by_step: stepPeak, peak_rss_mb_by_stage: stagePeak, stages, site_mb: +(bytes / 1e6).toFixed(1), site_files: files, largest, ...(heap ? { live_heap_mb: heap } : {}), ok: true };
}

/** CPU seconds of this process's waited-for children (cutime + cstime of /proc/self/stat). */
function childCpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // After ") ": state is field 3, so cutime (16) and cstime (17) are at indexes 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Sum of VmRSS (kB) over a process and all its descendants, from /proc. */
function treeRss(root: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const ppid = Number(/PPid:\s+(\d+)/.exec(status)?.[1]);
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      rss.set(Number(name), kb);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      /* the process ended while we looked */
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

function treeSize(dir: string): { bytes: number; files: number; byTop: Map<string, { bytes: number; files: number }> } {
  let bytes = 0;
  let files = 0;
  const byTop = new Map<string, { bytes: number; files: number }>();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    const size = statSync(full).size;
    bytes += size;
    files++;
    const rel = path.relative(dir, full).split(path.sep);
    const top = rel.length > 1 ? `${rel[0]}/` : '(root files)';
    const t = byTop.get(top) ?? { bytes: 0, files: 0 };
    t.bytes += size;
    t.files++;
    byTop.set(top, t);
  }
  return { bytes, files, byTop };
}

/** The site's bytes and files by kind: a per-server file by its name, the rest by their top folder. */
export function sizeByKind(dir: string): Record<string, { mb: number; files: number }> {
  const kinds = new Map<string, { bytes: number; files: number }>();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    const p = path.relative(dir, full).split(path.sep);
    const kind =
      p[0] === 'servers' && p.length === 3 ? `servers/*/${p[2]}`
      : p[0] === 'servers' && p[2] === 'changes' ? 'servers/*/changes/*.patch.json'
      : p[0] === 'api' && p.length === 3 ? `api/${p[1]}/*`
      : p.length === 1 ? '(root files)'
      : `${p[0]}/**`;
    const k = kinds.get(kind) ?? { bytes: 0, files: 0 };
    k.bytes += statSync(full).size;
    k.files++;
    kinds.set(kind, k);
  }
  return Object.fromEntries([...kinds].sort((a, b) => b[1].bytes - a[1].bytes).map(([k, v]) => [k, { mb: +(v.bytes / 1e6).toFixed(2), files: v.files }]));
}

/**
 * The site split by what drives its size (the years projection, bench/years-project.ts FILE_HOST_SITE):
 * what grows with servers — every file under servers/, the rows of the lookup's prefix pages (their
 * <tbody>), Pagefind's fragments and index — and what does not: a prefix page's frame (256 pages at
 * most), Pagefind's scripts, and the rest of the site. Files: servers/ grows with servers; Pagefind's
 * files are capped (MAX_SEARCH_FRAGMENTS) and the lookup has at most 257, so both count as constant.
 */
export function siteShares(dir: string): { per_server: { bytes: number; files: number }; constant: { bytes: number; files: number }; parts: Record<string, number> } {
  const parts = { server_pages: 0, change_pages: 0, server_other: 0, lookup_rows: 0, lookup_frame: 0, search_per_server: 0, search_assets: 0, rest: 0 };
  let serverFiles = 0;
  let otherFiles = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    const p = path.relative(dir, full).split(path.sep);
    const size = statSync(full).size;
    if (p[0] === 'servers') {
      serverFiles++;
      if (p.length === 3 && p[2] === 'index.html') parts.server_pages += size;
      else if (p[2] === 'changes' && p.at(-1) === 'index.html') parts.change_pages += size;
      else parts.server_other += size;
      continue;
    }
    otherFiles++;
    if (p[0] === 'lookup' && p.length === 3 && p[2] === 'index.html') {
      const bytes = readFileSync(full);
      const i = bytes.indexOf('<tbody>');
      const j = bytes.indexOf('</tbody>');
      const rows = i >= 0 && j > i ? j - (i + '<tbody>'.length) : 0;
      parts.lookup_rows += rows;
      parts.lookup_frame += size - rows;
    } else if (p[0] === 'pagefind' && (p[1] === 'fragment' || p[1] === 'index' || p[1]!.endsWith('.pf_meta'))) parts.search_per_server += size;
    else if (p[0] === 'pagefind') parts.search_assets += size;
    else if (p[0] === 'lookup') parts.lookup_frame += size;
    else parts.rest += size;
  }
  const perServer = parts.server_pages + parts.change_pages + parts.server_other + parts.lookup_rows + parts.search_per_server;
  return { per_server: { bytes: perServer, files: serverFiles }, constant: { bytes: parts.lookup_frame + parts.search_assets + parts.rest, files: otherFiles }, parts };
}

/** Run `work` with the newest day file(s) and its run row moved aside; always restores them. */
/** Every file under a folder: its SHA-256 and size, by relative path. */
function hashTree(dir: string): Map<string, { sha: string; bytes: number }> {
  const out = new Map<string, { sha: string; bytes: number }>();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    const bytes = readFileSync(file);
    out.set(path.relative(dir, file), { sha: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
  }
  return out;
}

async function withoutNewestDay<T>(archive: string, work: () => Promise<T>): Promise<T> {
  const obs = path.join(archive, 'observations');
  const newest = readdirSync(obs).filter((f) => /^\d{4}-\d{2}-\d{2}\.jsonl(\.gz)?$/.test(f)).sort().at(-1)!.slice(0, 10);
  const files = readdirSync(obs).filter((f) => f.startsWith(newest));
  const runsFile = path.join(archive, 'runs.jsonl');
  const runs = readFileSync(runsFile, 'utf8');
  const aside = path.join(archive, '.bench-held-back');
  rmSync(aside, { recursive: true, force: true });
  mkdirSync(aside, { recursive: true });
  for (const f of files) renameSync(path.join(obs, f), path.join(aside, f));
  writeFileSync(runsFile, runs.split('\n').filter((l) => l && !l.includes(`"day":"${newest}"`)).map((l) => `${l}\n`).join(''));
  try {
    return await work();
  } finally {
    for (const f of files) renameSync(path.join(aside, f), path.join(obs, f));
    writeFileSync(runsFile, runs);
    rmSync(aside, { recursive: true, force: true });
  }
}


function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const COMMAND = command({
  name: 'bench:build',
  help: `usage: npm run bench:build -- --archive DIR [--repeat N] [--cold] [--daily] [--kinds] [--files] [--trace-gc] [--keep] [--out DIR] [--cache DIR]
  --archive DIR  the archive to build (default: data/, which holds real observations: pass a bench archive)
  --repeat N     build N times; prints each run and the medians
  --cold         empty the build cache first (the first build of an archive)
  --daily        the daily job: build without the newest day, then with it on that cache
  --kinds        the site's size by kind of file
  --out DIR      where the site goes (default: a temp folder); --keep keeps it
  --cache DIR    the build cache (default .cache/bench-build)
  --files        build with a file host (MCP_SCHEMA_FILES_DIR <out>-files, MCP_SCHEMA_FILES_URL
                 https://files.example.org/mcp-schema/), as deploy.yml does with a bucket: the site is
                 then what Pages holds; the file host's folder is measured apart (file_host_mb, _files)
  --trace-gc     run the build under node --trace-gc and report live_heap_mb: the largest heap
                 an isolate kept after a mark-compact (what the build holds), and before one
The build's own settings pass through the environment: e.g. MCP_SCHEMA_RELEASE=parts and
MCP_SCHEMA_OBJECTS_URL=<base> build as deploy.yml does with a bucket.

${exitCodes({ 0: 'measured', 1: 'a build failed', 2: 'bad usage' })}`,
  options: {
    archive: { type: 'string' },
    repeat: { type: 'string', default: '1' },
    cold: { type: 'boolean', default: false },
    daily: { type: 'boolean', default: false },
    kinds: { type: 'boolean', default: false },
    files: { type: 'boolean', default: false },
    'trace-gc': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    out: { type: 'string' },
    cache: { type: 'string' },
  },
});

async function main(): Promise<void> {
  const { values } = script(COMMAND);
  const has = (flag: 'cold' | 'daily' | 'kinds' | 'files' | 'trace-gc' | 'keep') => values[flag];
  const archive = path.resolve(values.archive ?? path.join(ROOT, 'data'));
  const repeat = checked(COMMAND, () => integer('repeat', values.repeat, { min: 1, max: 100 })!);
  const cold = has('cold');
  const out = path.resolve(values.out ?? mkdtempSync(path.join(os.tmpdir(), 'mcp-schema-bench-site-')));
  const cache = path.resolve(values.cache ?? path.join(ROOT, '.cache', 'bench-build'));
  const cmd = `npm run bench:build -- --archive ${path.relative(process.cwd(), archive) || archive}${repeat > 1 ? ` --repeat ${repeat}` : ''}${cold ? ' --cold' : ''}${has('kinds') ? ' --kinds' : ''}${has('files') ? ' --files' : ''}${has('trace-gc') ? ' --trace-gc' : ''}`;
  console.error(`$ ${cmd}`);
  console.error(`  = MCP_SCHEMA_DATA=${archive} MCP_SCHEMA_OUT=${out} MCP_SCHEMA_CACHE=${cache} npm run build (src/site/build.ts: astro build, then src/site/search-step.ts, measured step by step)`);
  console.error(`  machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const release = `${out}-release`;
  const files = has('files') ? `${out}-files` : null;
  const env: Record<string, string> = { MCP_SCHEMA_CACHE: cache, MCP_SCHEMA_RELEASE_DIR: release, MCP_SCHEMA_RELEASE_URL: 'https://github.com/OWNER/mcp-schema/releases/download/data-latest/', ...(files ? { MCP_SCHEMA_FILES_DIR: files, MCP_SCHEMA_FILES_URL: 'https://files.example.org/mcp-schema/' } : {}) };
  // The file host's folder must be empty for each build (the build refuses a stale one).
  const build = () => {
    if (files) rmSync(files, { recursive: true, force: true });
    return benchBuild(archive, out, env, { traceGc: has('trace-gc') });
  };
  const runs: BuildFigures[] = [];
  let yesterday: BuildFigures | null = null;
  let published: Map<string, { sha: string; bytes: number }> | null = null;
  let upload: { files: number; mb: number; of_files: number } | null = null;
  for (let i = 0; i < repeat; i++) {
    if (cold) rmSync(cache, { recursive: true, force: true });
    if (has('daily')) {
      yesterday = await withoutNewestDay(archive, build);
      // What the daily publish-files would upload: the file host's files that differ from yesterday's.
      if (files) published = hashTree(files);
    }
    if (yesterday) console.error(`run ${i + 1}/${repeat}, newest day held back: ${JSON.stringify(yesterday)}`);
    const f = await build();
    runs.push(f);
    if (files && published) {
      const today = hashTree(files);
      const changed = [...today].filter(([p, h]) => published!.get(p)?.sha !== h.sha);
      upload = { files: changed.length, mb: +(changed.reduce((n, [, h]) => n + h.bytes, 0) / 1e6).toFixed(1), of_files: today.size };
    }
    console.error(`run ${i + 1}/${repeat}: ${JSON.stringify(f)}`);
  }
  const rel = existsSync(release) ? treeSize(release) : { bytes: 0, files: 0 };
  rmSync(release, { recursive: true, force: true });
  const stages = Object.fromEntries(Object.keys(runs[0]!.stages).map((k) => [k, +median(runs.map((r) => r.stages[k] ?? 0)).toFixed(2)]));
  const summary = {
    command: cmd,
    archive,
    cold,
    daily: has('daily'),
    ...(yesterday ? { newest_day_held_back: { wall_s: yesterday.wall_s, cpu_s: yesterday.cpu_s, peak_rss_mb: yesterday.peak_rss_mb, peak_rss_mb_by_stage: yesterday.peak_rss_mb_by_stage, stages: yesterday.stages } } : {}),
    runs: runs.length,
    wall_s_median: +median(runs.map((r) => r.wall_s)).toFixed(1),
    cpu_s_median: +median(runs.map((r) => r.cpu_s)).toFixed(1),
    peak_rss_mb_median: Math.round(median(runs.map((r) => r.peak_rss_mb))),
    peak_rss_mb_by_stage: runs.at(-1)!.peak_rss_mb_by_stage,
    ...(runs.at(-1)!.live_heap_mb ? { live_heap_mb: runs.at(-1)!.live_heap_mb } : {}),
    stages_median: stages,
    site_mb: runs.at(-1)!.site_mb,
    site_files: runs.at(-1)!.site_files,
    largest: runs.at(-1)!.largest,
    ...(has('kinds') ? { kinds: sizeByKind(out), shares: siteShares(out) } : {}),
    release_mb: +(rel.bytes / 1e6).toFixed(1),
    release_files: rel.files,
    ...(files ? { file_host_mb: +(treeSize(files).bytes / 1e6).toFixed(1), file_host_files: treeSize(files).files, ...(has('kinds') ? { file_host_kinds: sizeByKind(files) } : {}), ...(upload ? { file_host_daily_upload: upload } : {}) } : {}),
    out,
  };
  console.log(JSON.stringify(summary, null, 2));
  if (!has('keep')) {
    rmSync(out, { recursive: true, force: true });
    if (files) rmSync(files, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
