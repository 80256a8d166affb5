// The demo end to end, small: the real collector over a few simulated days of the local world, the real
// site built from that archive, served, and cleaned up on Ctrl-C. Plus determinism of the archive's
// content-bearing fields. Loopback only; a few seconds of collection and one Astro build.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runDemo } from '../../sandbox/demo.ts';
import { buildWorld } from '../../sandbox/world.ts';

const OUT = join('.tmp', `test-demo-${process.pid}`);
afterAll(() => {
  rmSync(join(REPO, OUT), { recursive: true, force: true });
});

/** target|day → the fields that must not depend on timing (rows also carry latencies and clocks). */
function contentOf(archive: string): Map<string, string> {
  const out = new Map<string, string>();
  const dir = join(archive, 'observations');
  for (const f of readdirSync(dir).sort()) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as Record<string, unknown>;
      out.set(`${String(r.target)}|${String(r.day)}`, [r.outcome, r.error_class, r.http_status, r.tools_sha256, r.body_sha256, r.tool_count, r.registry_version, r.tools_set_hash].join(' '));
    }
  }
  return out;
}

describe('npm run demo (short)', () => {
  it('same seed → the same archive contents (outcomes, tools and body hashes per target per day)', { timeout: 120_000 }, async () => {
    const quiet = () => {};
    const a = await runDemo({ size: 80, days: 3, seed: 'det', out: join(OUT, 'a'), serve: false, build: false, log: quiet });
    const b = await runDemo({ size: 80, days: 3, seed: 'det', out: join(OUT, 'b'), serve: false, build: false, log: quiet });
    const ca = contentOf(a.archive);
    const cb = contentOf(b.archive);
    expect(ca.size).toBeGreaterThan(150);
    expect([...ca.values()].filter((v) => v.startsWith('ok ')).length).toBeGreaterThan(20);
    expect(Object.fromEntries(cb)).toEqual(Object.fromEntries(ca));
    const c = await runDemo({ size: 80, days: 1, seed: 'other', out: join(OUT, 'c'), serve: false, build: false, log: quiet });
    expect([...contentOf(c.archive).keys()].sort()).not.toEqual([...ca.keys()].filter((k) => k.endsWith('2025-12-15')).sort());
  });

  it("the real collector's outcome for every target agrees with what the world says it serves", { timeout: 120_000 }, async () => {
    const s = await runDemo({ size: 400, days: 2, seed: 'agree', out: join(OUT, 'agree'), serve: false, build: false, log: () => {} });
    const world = buildWorld({ seed: 'agree', size: 400 });
    const byName = new Map(world.targets.map((t) => [t.name, t]));
    const mismatches: string[] = [];
    const seen = new Set<string>();
    for (const [key, content] of contentOf(s.archive)) {
      const [name, date] = key.split('|') as [string, string];
      const t = byName.get(name)!;
      const e = world.expected(t.index, date === world.date(0) ? 0 : 1);
      const [outcome, errorClass] = content.split(' ');
      const got = outcome === 'error' ? errorClass : outcome;
      const want = e.outcome === 'error' ? e.errorClass : e.outcome;
      seen.add(String(got));
      if (got !== want) mismatches.push(`${key} (${t.profile}): collector ${got}, world ${want}`);
    }
    expect(mismatches).toEqual([]);
    for (const c of ['ok', 'no_endpoint', 'auth', 'timeout', 'tls', 'http_4xx', 'http_5xx', 'parse']) expect(seen, c).toContain(c);
  });

  it('collects drift over a few days, builds the site with the simulated banner, serves it, and stops on SIGINT', { timeout: 180_000 }, async () => {
    const out = join(OUT, 'cli');
    const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/demo.ts', '--days', '4', '--size', '60', '--port', '0', '--out', out], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const t = setInterval(() => {
          const m = /site: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
          if (m) {
            clearInterval(t);
            resolve(m[1]!);
          } else if (child.exitCode !== null) {
            clearInterval(t);
            reject(new Error(`demo exited early:\n${output}`));
          }
        }, 200);
      });
      // A line per day, with drift found by the real collector (github-mcp-server releases on day 2).
      expect(output.match(/^day +\d\/4 /gm)).toHaveLength(4);
      const summary = JSON.parse(readFileSync(join(REPO, out, 'summary.json'), 'utf8')) as { changes: number; rows: number; rows_v2: number; days: { series: string[] }[]; build_error: string | null };
      expect(summary.build_error).toBeNull();
      expect(summary.changes).toBeGreaterThan(0);
      // The default methodology records both series on every demo day, and the site builds; with four
      // days of a 14-day bridge its headline is still v1 (test/loader/mid-bridge.test.ts, headline.test.ts).
      expect(summary.days.map((d) => d.series)).toEqual(Array(4).fill(['v1', 'v2']));
      expect(summary.rows_v2).toBe(summary.rows);
      expect(readdirSync(join(REPO, out, 'archive', 'observations-v2'))).toHaveLength(4);
      // The v2 series shows on its own page: the statistics of the latest full v2 run.
      expect(await (await fetch(new URL('statistics/', url))).text()).toMatch(/data-testid="figures-RQ1"/);
      const home = await (await fetch(url)).text();
      expect(home).toMatch(/Simulated data/i);
      // Either a half-life or the honest tile.
      expect(home).toMatch(/half-life/i);
      expect(home).toMatch(/data-testid="half-life-value"/);
      const drift = await fetch(new URL('drift.json', url));
      expect(drift.status).toBe(200);
      expect(await drift.text()).toContain('github-mcp-server');
      // Every built page carries the banner.
      const pages: string[] = [];
      const walk = (d: string, depth: number) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          if (e.isDirectory() && depth < 12) walk(join(d, e.name), depth + 1);
          else if (e.name.endsWith('.html')) pages.push(join(d, e.name));
        }
      };
      walk(join(REPO, out, 'site'), 0);
      expect(pages.length).toBeGreaterThan(10);
      for (const p of pages) expect(readFileSync(p, 'utf8'), p).toMatch(/Simulated data/i);
      // Built as npm run build builds (src/site/build.ts): the Astro step leaves the index to the search step, so an index means that step ran.
      expect(readdirSync(join(REPO, out, 'site', 'pagefind')).length).toBeGreaterThan(0);

      child.kill('SIGINT');
      expect(await exited).toBe(130);
      await expect(fetch(url)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('Ctrl-C during collection stops the world and exits promptly', { timeout: 60_000 }, async () => {
    const out = join(OUT, 'interrupt');
    const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/demo.ts', '--days', '200', '--size', '60', '--no-serve', '--out', out], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          if (/^day +2\/200/m.test(output)) {
            clearInterval(t);
            resolve();
          } else if (child.exitCode !== null) {
            clearInterval(t);
            reject(new Error(output));
          }
        }, 100);
      });
      const t0 = Date.now();
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(output).toMatch(/SIGINT: stopping/);
      expect(existsSync(join(REPO, out, 'site'))).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
