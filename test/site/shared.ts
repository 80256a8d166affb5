// Shared, once-per-machine artefacts for the site tests: the fixture archive (made by the collector,
// see fixture-archive.ts) and built sites. Test files run in separate processes, so each artefact is
// guarded by a lock directory and a completion marker: the first caller builds, the others wait.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeFixtureArchive } from './fixture-archive.ts';

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TMP = path.join(ROOT, '.tmp', 'site-tests');
export const FIXTURE_DIR = path.join(TMP, 'archive');
export const EMPTY_DIR = path.join(TMP, 'empty-archive');
/** Bump when the fixture recipe changes, so stale local copies are rebuilt. */
const RECIPE = 'v2';
/** Bump when what a build writes changes (v2: compact loader, per-server files written after the pages). */
const SITE_RECIPE = 'v2';

async function once(name: string, make: () => Promise<unknown>): Promise<void> {
  const marker = path.join(TMP, `${name}.done`);
  const lock = path.join(TMP, `${name}.lock`);
  await mkdir(TMP, { recursive: true });
  for (;;) {
    if (existsSync(marker)) return;
    try {
      await mkdir(lock);
    } catch {
      await sleep(250);
      continue;
    }
    try {
      await make();
      await writeFile(marker, RECIPE);
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

export async function fixtureArchive(): Promise<string> {
  await once(`archive-${RECIPE}`, () => makeFixtureArchive(FIXTURE_DIR, { days: 12, size: 50 }));
  return FIXTURE_DIR;
}

export async function emptyArchive(): Promise<string> {
  await mkdir(EMPTY_DIR, { recursive: true });
  return EMPTY_DIR;
}

export interface BuiltSite {
  out: string;
  ms: number;
  log: string;
}

/** `npm run build` against an archive into .tmp/site-tests/dist-<name>. */
export async function builtSite(name: 'empty' | 'fixture', extraEnv: Record<string, string> = {}): Promise<BuiltSite> {
  const out = path.join(TMP, `dist-${name}`);
  let result: BuiltSite = { out, ms: 0, log: '' };
  await once(`dist-${name}-${SITE_RECIPE}`, async () => {
    const data = name === 'empty' ? await emptyArchive() : await fixtureArchive();
    const t0 = Date.now();
    const { stdout, stderr } = await run('npm', ['run', 'build'], {
      cwd: ROOT,
      env: { ...process.env, MCP_SCHEMA_DATA: data, MCP_SCHEMA_OUT: out, MCP_SCHEMA_CACHE: path.join(TMP, `cache-${name}`), ASTRO_TELEMETRY_DISABLED: '1', ...extraEnv },
      maxBuffer: 64 << 20,
    });
    result = { out, ms: Date.now() - t0, log: stdout + stderr };
    await writeFile(path.join(TMP, `dist-${name}.log`), `${result.ms}\n${result.log}`);
  });
  return result;
}
