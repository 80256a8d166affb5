// The pipeline's `day` on a local world, as an operator's machine runs it: the real commands (npm run
// collect, compact, edition, verify, build, months) over loopback, into a temp archive and a temp site,
// with no bucket and no file host. The day's archive verifies (close recorded its head), the site
// builds, and the site carries the manifest of monthly parts; nothing is committed (a temp --data is
// not the repository's data/). One collection of a small world and one site build: the demo test's cost.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../pipeline/cli.ts';
import { startWorld, type RunningWorld } from '../../sandbox/fleet.ts';

let w: RunningWorld;
const root = mkdtempSync(path.join(tmpdir(), 'mcp-schema-pipeline-day-'));
const data = path.join(root, 'archive');
const site = path.join(root, 'site');

beforeAll(async () => {
  w = await startWorld({ seed: 'pipeline', size: 40, day: 0, port: 0 });
});
afterAll(async () => {
  await w?.close();
  rmSync(root, { recursive: true, force: true });
});

/** The environment of a machine with no bucket and no file host (whatever the developer's shell holds). */
function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(e)) if (/^(MCP_SCHEMA_|AWS_|GITHUB_|COMMIT_DAY_|RELEASE_URL$|PARTS_)/.test(k)) delete e[k];
  return { ...e, RUNNER_TEMP: path.join(root, 'runner'), MCP_SCHEMA_OUT: site, MCP_SCHEMA_CACHE: path.join(root, 'cache'), MCP_SCHEMA_SIMULATED: '1', ASTRO_TELEMETRY_DISABLED: '1' };
}

describe('npm run pipeline -- day (a local world, a temp archive, no bucket)', () => {
  it('collects, closes, builds and publishes locally; the archive verifies and the site is built', async () => {
    let out = '';
    let err = '';
    const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (err += t), env: env() };
    const now = `${w.world.date(0)}T03:15:00Z`;
    const code = await main(['day', '--data', data, '--', '--registry', w.registryUrl, '--allow-private', '--now', now, '--timeout', '3000', '--concurrency', '16'], io);
    expect(code, err).toBe(0);
    // What it ran, in order, each printed first; the commit skipped, and said so.
    const ran = [...err.matchAll(/^\$ (npm run (?:--silent )?[\w-]+(?: -- \S+)?)/gm)].map((m) => m[1]);
    expect(ran).toEqual([
      'npm run --silent collect -- --json',
      'npm run compact -- --finished',
      'npm run edition -- --data',
      'npm run verify -- --record',
      'npm run verify -- --data',
      'npm run build',
      'npm run --silent months -- closed',
      // The world's month is past and its days compacted: its part is written once, and checked.
      'npm run months -- write',
      'npm run months -- verify',
      'npm run months -- manifest',
    ]);
    expect(err).toContain(`day: commit skipped (${data} is not the repository's data/)`);
    expect(err).toContain('prepare: no object store (MCP_SCHEMA_STORE unset)');
    // The collector's summary was kept for the commit's message, and is the run's.
    const summary = JSON.parse(readFileSync(path.join(root, 'runner', 'collect-summary.json'), 'utf8')) as { runs: { status: string; day: string }[] };
    expect(summary.runs.map((r) => r.status)).toContain('finished');
    // close recorded the verified head (only after zero problems); the site and its parts manifest exist.
    expect(JSON.parse(readFileSync(path.join(data, 'verify-state.json'), 'utf8'))).toHaveProperty('chain_head');
    expect(existsSync(path.join(site, 'index.html'))).toBe(true);
    const month = w.world.date(0).slice(0, 7);
    expect(existsSync(path.join(root, 'runner', 'parts', `data-${month}`, 'SHA256SUMS'))).toBe(true);
    const manifest = readFileSync(path.join(site, 'data', 'parts', 'manifest.json'), 'utf8');
    expect(manifest).toContain(`mcp-schema-${month}-SIMULATED`);
  }, 600_000);

  it('a failing step stops the day with its name: the next day against a registry that is gone', async () => {
    let err = '';
    const io = { stdout: () => {}, stderr: (t: string) => void (err += t), env: env() };
    const code = await main(['day', '--data', data, '--', '--registry', 'http://127.0.0.1:9/v0.1/servers', '--allow-private', '--now', `${w.world.date(1)}T03:15:00Z`, '--timeout', '500'], io);
    expect(code).toBe(1);
    expect(err).toMatch(/^pipeline: collect: npm run --silent collect -- --json --data \S+ --registry http:\/\/127\.0\.0\.1:9\/v0\.1\/servers .* exited with 1$/m);
    expect(err).not.toContain('== close');
  }, 120_000);
});
