// npm run demo — the whole product on a local world, in one command:
//   1. start the world (registry + fleet of real SDK MCP servers on loopback, sandbox/fleet.ts);
//   2. run the real collector (collector/run.ts) once per simulated day into <out>/archive, with its
//      default methodology (auto: both series, v1 in observations/ and v2 in observations-v2/, until the
//      bridge is complete, then v2 alone; the demo's bridge lasts all its days unless --bridge-days,
//      which the site's headline then waits for too);
//   2b. sign every run's chain manifest with a generated DEMO key (its public half in
//      <archive>/keys/DEMO-ed25519.pub: the key id and the file say DEMO) and cut the monthly editions
//      as the daily workflow would (npm run edition), simulated;
//   3. build the real site from that archive with the "simulated data" banner
//      (MCP_SCHEMA_DATA=<archive> MCP_SCHEMA_OUT=<out>/site MCP_SCHEMA_SIMULATED=1, as npm run build:
//      src/site/build.ts, the Astro build and then the search step);
//   4. serve <out>/site on 127.0.0.1 and print the URL (until Ctrl-C).
// Nothing is written outside <out> (default .demo/, git-ignored); never data/.
import type { ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, command, EXIT, exitCodes, integer, isEntry, execute, type Parsed } from '../collector/cli-kit/index.ts';
import { startWorld, type RunningWorld } from './fleet.ts';
import { runBuild } from '../src/site/build.ts';
import { DEFAULT_SITE_URL } from '../src/site/settings.ts';

export const REPO = fileURLToPath(new URL('..', import.meta.url));

export interface DemoOptions {
  days: number;
  size: number;
  seed: string;
  /** Output folder (archive/, site/, summary.json); wiped at the start. */
  out: string;
  /** Port for the static server (0 = any free one). */
  port: number;
  serve: boolean;
  build: boolean;
  concurrency: number;
  timeoutMs: number;
  /**
   * Bridge days the collector's `auto` waits for before it records v2 alone, and the site's headline
   * waits for before it moves to v2 (MCP_SCHEMA_BRIDGE_DAYS); null: the collector records both series
   * on every demo day and the site uses the published bridge length (14 days: a demo longer than that
   * shows the headline on the stitched timeline, seam on day 0).
   */
  bridgeDays: number | null;
  /** One line per day and the closing summary; default console.log. */
  log?: (line: string) => void;
}

export const DEMO_DEFAULTS: DemoOptions = {
  days: 60,
  size: 400,
  seed: '1',
  out: '.demo',
  port: 4321,
  serve: true,
  build: true,
  concurrency: 48,
  timeoutMs: 1000,
  bridgeDays: null,
};

export interface DemoDay {
  day: number;
  date: string;
  targets: number;
  ok: number;
  errors: number;
  no_endpoint: number;
  retired: number;
  /** Targets whose canonical tools hash differs from their last successful one. */
  changes: number;
  error_classes: Record<string, number>;
  ms: number;
  /** The series the day's run recorded. */
  series: string[];
  /** v2 rows of the day (0 when v2 was not recorded), ok ones, and ok ones per era. */
  v2_rows: number;
  v2_ok: number;
  v2_eras: Record<string, number>;
}

export interface DemoSummary {
  seed: string;
  size: number;
  days: DemoDay[];
  archive: string;
  site: string | null;
  rows: number;
  distinct_targets: number;
  outcomes: Record<string, number>;
  error_classes: Record<string, number>;
  /** The v2 series: rows, and rows per status (or outcome when a row has none) and per era. */
  rows_v2: number;
  statuses_v2: Record<string, number>;
  eras_v2: Record<string, number>;
  changes: number;
  targets_changed: number;
  collect_ms: number;
  build_ms: number | null;
  /** Build failure (stderr tail) when the site did not build. */
  build_error: string | null;
  /** Monthly editions cut into the archive. */
  editions: string[];
  url: string | null;
}

/** Everything the demo started, closed on success, error and signal alike. */
class Cleanup {
  world: RunningWorld | null = null;
  child: ChildProcess | null = null;
  server: Server | null = null;
  async run(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await new Promise<void>((r) => child.once('exit', () => r()));
      clearTimeout(killer);
    }
    const server = this.server;
    this.server = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
    const world = this.world;
    this.world = null;
    await world?.close();
  }
}

function safeOut(out: string): string {
  const abs = resolve(REPO, out);
  const rel = relative(REPO, abs);
  if (rel === '' || rel === 'data' || rel.startsWith(`data${sep}`) || abs === dirname(abs)) {
    throw new Error(`refusing --out ${out}: the demo never writes to the repository root or data/`);
  }
  for (const inside of ['src', 'collector', 'sandbox', 'fixtures', 'content', 'public', 'test', 'node_modules']) {
    if (rel === inside || rel.startsWith(`${inside}${sep}`)) throw new Error(`refusing --out ${out}: inside ${inside}/`);
  }
  return abs;
}

/** Run the demo; on error everything it started is closed before the error propagates. */
export async function runDemo(partial: Partial<DemoOptions> = {}, cleanup = new Cleanup()): Promise<DemoSummary> {
  try {
    return await demo(partial, cleanup);
  } catch (err) {
    await cleanup.run();
    throw err;
  }
}

async function demo(partial: Partial<DemoOptions>, cleanup: Cleanup): Promise<DemoSummary> {
  const o: DemoOptions = { ...DEMO_DEFAULTS, ...Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) };
  const log = o.log ?? ((l: string) => console.log(l));
  const out = safeOut(o.out);
  const archive = join(out, 'archive');
  const site = join(out, 'site');
  rmSync(archive, { recursive: true, force: true });
  rmSync(site, { recursive: true, force: true });
  mkdirSync(archive, { recursive: true });

  // Imported here so `--help` and option errors never load the collector.
  const { runCollector } = await import('../collector/run.ts');
  const { generateKeyPair, writeKeyFiles } = await import('../collector/ops/keys.ts');
  const { DEMO_KEY_LABEL } = await import('../src/lib/index.ts');
  // A demo signs its chain with a key of its own, labelled DEMO in its file name and in every key id.
  const demoKey = generateKeyPair(DEMO_KEY_LABEL);
  const keyFile = writeKeyFiles(demoKey, DEMO_KEY_LABEL, join(archive, 'keys'), null).publicFile;

  const t0 = performance.now();
  const world = await startWorld({ seed: o.seed, size: o.size });
  cleanup.world = world;
  log(`world  seed ${o.seed}, ${world.world.targets.length} targets on ${world.hostports.length} loopback hosts, registry ${world.registryUrl}`);
  log(`collect ${o.days} simulated days from ${world.world.date(0)} into ${relative(process.cwd(), archive) || archive}`);

  const lastOk = new Map<string, string>();
  const changedTargets = new Set<string>();
  const days: DemoDay[] = [];
  const outcomes: Record<string, number> = {};
  const errorClasses: Record<string, number> = {};
  const allTargets = new Set<string>();
  let rows = 0;
  let rowsV2 = 0;
  const statusesV2: Record<string, number> = {};
  const erasV2: Record<string, number> = {};
  const bridgeDays = o.bridgeDays ?? o.days;
  for (let d = 0; d < o.days; d++) {
    const td = performance.now();
    world.setDay(d);
    const date = world.world.date(d);
    const summary = await runCollector({
      registry: world.registryUrl,
      data: archive,
      now: new Date(`${date}T06:00:00.000Z`),
      allowPrivate: true,
      concurrency: o.concurrency,
      timeoutMs: o.timeoutMs,
      optout: null,
      probeLimits: { sseGraceMs: Math.min(500, o.timeoutMs) },
      // The world's registry has bad days (429, 502, an outage): retry quickly, it is all local.
      rosterLimits: { backoffMs: 200 },
      // Hundreds of simulated servers share a few loopback hosts: a host's Retry-After (up to an hour
      // in the world) is honoured on the demo's own time scale.
      scheduleLimits: { retryAfterCapMs: 200, backoffBaseMs: 20 },
      bridgeDays,
      signer: demoKey.signer,
    });
    // The day's figures are v1's (the v2 series is summarised on its own below).
    const run = summary.run;
    let changes = 0;
    const dayRows = summary.series.includes('v1') ? readJsonl(join(archive, 'observations', `${run.day}.jsonl`)).filter((r) => r.run_id === run.run_id) : [];
    const v2Rows = summary.series.includes('v2') ? readJsonl(join(archive, 'observations-v2', `${run.day}.jsonl`)).filter((r) => r.run_id === run.run_id) : [];
    const v2Eras: Record<string, number> = {};
    for (const r of v2Rows) {
      rowsV2++;
      const label = String(r.status ?? r.outcome);
      statusesV2[label] = (statusesV2[label] ?? 0) + 1;
      erasV2[String(r.era)] = (erasV2[String(r.era)] ?? 0) + 1;
      if (r.outcome === 'ok') v2Eras[String(r.era)] = (v2Eras[String(r.era)] ?? 0) + 1;
    }
    for (const r of dayRows) {
      rows++;
      allTargets.add(String(r.target));
      outcomes[String(r.outcome)] = (outcomes[String(r.outcome)] ?? 0) + 1;
      if (r.error_class) errorClasses[String(r.error_class)] = (errorClasses[String(r.error_class)] ?? 0) + 1;
      if (r.outcome !== 'ok' || typeof r.tools_sha256 !== 'string') continue;
      const prev = lastOk.get(String(r.target));
      if (prev !== undefined && prev !== r.tools_sha256) {
        changes++;
        changedTargets.add(String(r.target));
      }
      lastOk.set(String(r.target), r.tools_sha256);
    }
    const ec = Object.fromEntries(Object.entries(run.error_classes).filter(([k, v]) => v > 0 && k !== 'no_endpoint'));
    const dayInfo: DemoDay = {
      day: d,
      date,
      targets: run.targets,
      ok: run.outcomes.ok,
      errors: run.outcomes.error,
      no_endpoint: run.outcomes.no_endpoint,
      retired: run.outcomes.retired,
      changes,
      error_classes: ec,
      ms: Math.round(performance.now() - td),
      series: summary.series,
      v2_rows: v2Rows.length,
      v2_ok: v2Rows.filter((r) => r.outcome === 'ok').length,
      v2_eras: v2Eras,
    };
    days.push(dayInfo);
    const top = Object.entries(ec)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    log(
      `day ${String(d + 1).padStart(String(o.days).length)}/${o.days} ${date}  ok ${pad(dayInfo.ok)}  errors ${pad(dayInfo.errors)}${top ? ` (${top})` : ''}  no_endpoint ${pad(dayInfo.no_endpoint)}` +
        `${dayInfo.retired ? `  retired ${dayInfo.retired}` : ''}  changes ${changes}  ${(dayInfo.ms / 1000).toFixed(1)}s` +
        `${run.roster_complete ? '' : '  registry listing cut short'}${run.degraded ? '  DEGRADED' : ''}` +
        `  [${summary.series.join('+')}${dayInfo.v2_rows ? `: v2 ok ${dayInfo.v2_ok} (${Object.entries(v2Eras).map(([e, n]) => `${e} ${n}`).join(', ')})` : ''}]`,
    );
  }
  const collectMs = Math.round(performance.now() - t0);
  cleanup.world = null;
  await world.close();
  const totalChanges = days.reduce((s, d) => s + d.changes, 0);
  log(`collected ${rows} rows for ${allTargets.size} targets over ${o.days} days in ${(collectMs / 1000).toFixed(1)}s: ${totalChanges} contract changes on ${changedTargets.size} servers`);

  const summary: DemoSummary = {
    seed: o.seed,
    size: o.size,
    days,
    archive,
    site: null,
    rows,
    distinct_targets: allTargets.size,
    outcomes,
    error_classes: errorClasses,
    rows_v2: rowsV2,
    statuses_v2: statusesV2,
    eras_v2: erasV2,
    changes: totalChanges,
    targets_changed: changedTargets.size,
    collect_ms: collectMs,
    build_ms: null,
    build_error: null,
    url: null,
    editions: [],
  };

  let server: Server | null = null;
  let port = o.port;
  if (o.serve) {
    // Bind before building, so the site's absolute URLs name the port it will be served on.
    server = await listenStatic(site, o.port);
    cleanup.server = server;
    port = (server.address() as AddressInfo).port;
  }
  // The monthly editions, cut after the collection as the daily workflow cuts them (each from its
  // month's first full run; the cut reads the archive as it stood then), with the URL the site is served at.
  const siteUrl = o.serve ? `http://127.0.0.1:${port}` : DEFAULT_SITE_URL;
  const { cutEdition } = await import('../src/editions/cut-edition.ts');
  for (const month of [...new Set(days.map((d) => d.date.slice(0, 7)))]) {
    const cut = await cutEdition(archive, { month, pub: { permalink: (p) => `${siteUrl}/${p.replace(/^\/+/, '')}`, simulated: true }, signer: demoKey.signer, cache: null, release: null, now: new Date(`${days.at(-1)!.date}T12:00:00Z`), ...(o.bridgeDays !== null ? { bridgeDays: o.bridgeDays } : {}) });
    if (cut.status === 'cut') log(`edition ${cut.id} cut (${cut.files.length} files, signed by ${demoKey.keyId})`);
  }
  summary.editions = readdirSafe(join(archive, 'editions')).filter((e) => !e.startsWith('.'));
  if (o.build) {
    const tb = performance.now();
    log(`build  the site from the simulated archive (MCP_SCHEMA_SIMULATED=1) into ${relative(process.cwd(), site) || site}`);
    const result = await buildSite(archive, site, o.serve ? `http://127.0.0.1:${port}` : null, cleanup, keyFile, o.bridgeDays);
    summary.build_ms = Math.round(performance.now() - tb);
    if (result.ok) {
      summary.site = site;
      log(`built  ${countFiles(site)} files in ${(summary.build_ms / 1000).toFixed(1)}s`);
    } else {
      summary.build_error = result.tail;
      log(`build FAILED (exit ${result.code}); last lines:\n${result.tail}`);
    }
  }
  if (server && summary.site) summary.url = `http://127.0.0.1:${port}/`;
  writeFileSync(join(out, 'summary.json'), `${JSON.stringify({ ...summary, archive: relative(REPO, archive), site: summary.site && relative(REPO, summary.site) }, null, 2)}\n`);
  return summary;
}

function pad(n: number): string {
  return String(n).padStart(4);
}

function readJsonl(file: string): Array<Record<string, unknown> & { run_id?: unknown; target?: unknown; outcome?: unknown; error_class?: unknown; tools_sha256?: unknown }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function countFiles(dir: string): number {
  let n = 0;
  const walk = (d: string, depth: number) => {
    if (depth > 20) return;
    for (const e of readdirSafe(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p, depth + 1);
      else n++;
    }
  };
  walk(dir, 0);
  return n;
}

function readdirSafe(d: string): string[] {
  try {
    return readdirSync(d).sort();
  } catch {
    return [];
  }
}

async function buildSite(archive: string, outDir: string, siteUrl: string | null, cleanup: Cleanup, publicKey: string, bridgeDays: number | null): Promise<{ ok: boolean; code: number | null; tail: string }> {
  // As npm run build builds (src/site/build.ts): the Astro build, then the search step, so the demo's site ends as the deployed one does.
  const env: NodeJS.ProcessEnv = { ...process.env, MCP_SCHEMA_DATA: archive, MCP_SCHEMA_OUT: outDir, MCP_SCHEMA_SIMULATED: '1', MCP_SCHEMA_PUBLIC_KEY: publicKey, ASTRO_TELEMETRY_DISABLED: '1' };
  // The site's headline waits for the bridge the collector was given (--bridge-days), else the published 14 days.
  if (bridgeDays !== null) env.MCP_SCHEMA_BRIDGE_DAYS = String(bridgeDays);
  if (siteUrl) env.MCP_SCHEMA_SITE_URL = siteUrl;
  let tail = '';
  const r = await runBuild(env, {
    stdio: 'pipe',
    onOutput: (chunk) => (tail = (tail + chunk.toString('utf8')).slice(-4000)),
    onChild: (child) => (cleanup.child = child),
  });
  return { ok: r.ok, code: r.code, tail: tail.split('\n').slice(-25).join('\n') };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.atom': 'application/atom+xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.gz': 'application/gzip',
  '.zst': 'application/zstd',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
};

/** A tiny static server for the built site: directory → index.html, 404.html for misses, no traversal. */
export async function listenStatic(root: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad path');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let file = resolve(root, `.${path}`);
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    try {
      if (existsSync(file) && statSync(file).isDirectory()) {
        if (!path.endsWith('/')) {
          res.writeHead(301, { location: `${path}/` }).end();
          return;
        }
        file = join(file, 'index.html');
      }
      let status = 200;
      if (!existsSync(file) || !statSync(file).isFile()) {
        status = 404;
        file = join(root, '404.html');
        if (!existsSync(file)) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end(existsSync(root) ? 'not found' : 'the site is still being built');
          return;
        }
      }
      res.writeHead(status, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).pipe(res);
    } catch {
      if (!res.headersSent) res.writeHead(500).end('error');
    }
  });
  const tryListen = (p: number) =>
    new Promise<void>((ok, fail) => {
      const onErr = (e: Error) => fail(e);
      server.once('error', onErr);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', onErr);
        ok();
      });
    });
  for (let i = 0; i < 10; i++) {
    try {
      await tryListen(port === 0 ? 0 : port + i);
      return server;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw e;
    }
  }
  await tryListen(0);
  return server;
}

// ---------------------------------------------------------------------------------------------------
// CLI

export const HELP = `usage: npm run demo -- [options]

Runs the whole product on a local world: a registry speaking the official list API and a fleet of
real MCP servers (official SDK) on loopback, drifting over simulated days. The real collector runs
once per simulated day into <out>/archive, the real site is built from it with a "simulated data"
banner into <out>/site and served on 127.0.0.1. Nothing leaves this machine; nothing touches data/.

Options:
  --days N          simulated days (default ${DEMO_DEFAULTS.days})
  --size N          targets in the world, 50..25000 (default ${DEMO_DEFAULTS.size}); not all are
                    listed on day one (some join later, some never within --days), so the site
                    shows fewer: the server list counts every name observed, the dashboard the
                    names in the latest roster
  --seed S          world seed (default ${DEMO_DEFAULTS.seed}); same seed, same archive contents
  --out DIR         output folder, wiped first (default ${DEMO_DEFAULTS.out}/)
  --port P          port for the site (default ${DEMO_DEFAULTS.port}, next free one if busy)
  --concurrency N   collector concurrency (default ${DEMO_DEFAULTS.concurrency})
  --timeout MS      collector per-request timeout (default ${DEMO_DEFAULTS.timeoutMs})
  --bridge-days N   bridge days before the collector records v2 alone and the site's headline moves
                    to v2 (default: the collector records both series every day, and the site's
                    headline moves after the published 14 bridge days)
  --no-serve        build, print the summary and exit instead of serving
  --no-build        stop after collecting (no site)
  -h, --help        this text

${exitCodes({ 0: 'done (--no-serve), or stopped after serving', 1: 'the demo failed (the collection or the site build)', 2: 'bad usage', 130: 'stopped by Ctrl-C (SIGTERM: 143)' })}`;

export const COMMAND = command({
  name: 'demo',
  help: HELP,
  options: {
    days: { type: 'string' },
    size: { type: 'string' },
    seed: { type: 'string' },
    out: { type: 'string' },
    port: { type: 'string' },
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    'bridge-days': { type: 'string' },
    'no-serve': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
  },
});

async function run({ values }: Parsed<typeof COMMAND.options>): Promise<number> {
  const opts: Partial<DemoOptions> = {
    days: integer('days', values.days, { min: 1, max: 3650 }),
    size: integer('size', values.size, { min: 1, max: 100_000 }),
    seed: values.seed,
    out: values.out,
    port: integer('port', values.port, { min: 0, max: 65535 }),
    concurrency: integer('concurrency', values.concurrency, { min: 1, max: 1024 }),
    timeoutMs: integer('timeout', values.timeout, { min: 100, max: 120_000 }),
    bridgeDays: integer('bridge-days', values['bridge-days'], { min: 1, max: 3650 }),
    serve: !values['no-serve'] && !values['no-build'],
    build: !values['no-build'],
  };
  try {
    safeOut(opts.out ?? DEMO_DEFAULTS.out);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage, { cause: e });
  }

  const cleanup = new Cleanup();
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the demo (world, build, server)…`);
    void cleanup.run().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const t0 = performance.now();
  try {
    const s = await runDemo(opts, cleanup);
    const total = (performance.now() - t0) / 1000;
    const share = (k: string) => `${(((s.outcomes[k] ?? 0) / Math.max(1, s.rows)) * 100).toFixed(0)}%`;
    console.log(
      `\ndone in ${total.toFixed(0)}s: ${s.distinct_targets} targets × ${s.days.length} days = ${s.rows} rows ` +
        `(ok ${share('ok')}, error ${share('error')}, no_endpoint ${share('no_endpoint')}), ${s.changes} contract changes on ${s.targets_changed} servers; ` +
        `v2 series ${s.rows_v2} rows (${Object.entries(s.statuses_v2).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}). Summary: ${relative(process.cwd(), join(resolve(REPO, opts.out ?? DEMO_DEFAULTS.out), 'summary.json'))}`,
    );
    if (s.build_error !== null) {
      await cleanup.run();
      return 1;
    }
    if (s.url) {
      console.log(`\n  the simulated archive's site: ${s.url}\n\n  Ctrl-C to stop.`);
      await new Promise<void>(() => {}); // serve until a signal
    }
    await cleanup.run();
    return 0;
  } catch (e) {
    console.error(`demo failed: ${(e as Error).stack ?? String(e)}`);
    await cleanup.run();
    return 1;
  }
}

// process.exit, not exitCode: the world's and the site server's sockets would keep the process alive.
if (isEntry(import.meta.url)) void execute(COMMAND, run, process.argv.slice(2)).then((code) => process.exit(code));
