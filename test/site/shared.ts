// Shared artefacts for the site tests: the fixture archive (made by the collector, see
// test/helpers/archive.ts) and built sites. Test files run in separate processes, so each artefact is
// guarded by a lock directory and a completion marker: the first caller builds, the others wait.
//
// Every artefact is keyed by a hash of everything it is made from (the sources the collector, the
// world and the build read, the build's environment), never by a constant: a change to any input
// gives a new key and a fresh build, so a re-run can never pass on an old site (or keep failing on a
// broken one after the revert). Stale artefacts of other keys are removed when a new one is built.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { collectArchive, SITE_FIXTURE } from '../helpers/archive.ts';
import { generateKeyPair, writeKeyFiles } from '../../collector/ops/keys.ts';
import { cutEdition } from '../../src/editions/cut-edition.ts';
import { DEMO_KEY_LABEL } from '../../src/lib/index.ts';
import { DEFAULT_SITE_URL } from '../../src/site/settings.ts';

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TMP = path.join(ROOT, '.tmp', 'site-tests');
export const EMPTY_DIR = path.join(TMP, 'empty-archive');

/** What the fixture archive is made from: the collector, the world it runs against, and this recipe. */
const ARCHIVE_INPUTS = ['collector', 'sandbox', 'src/lib', 'src/archive', 'src/loader', 'src/outputs', 'src/charts', 'src/editions', 'fixtures', 'package-lock.json', 'test/helpers/archive.ts', 'test/site/shared.ts'];
/** What `npm run build` reads besides the archive. */
const BUILD_INPUTS = ['src', 'content', 'public', 'astro.config.mjs', 'tsconfig.json', 'package.json', 'package-lock.json', 'test/site/shared.ts'];
const SKIP = new Set(['node_modules', '.astro', 'dist', '.tmp', '.cache']);

/** sha256 over the relative path and bytes of every file under `inputs` (sorted), plus `extra`. */
export function inputsKey(inputs: readonly string[], extra = '', root = ROOT): string {
  const h = createHash('sha256');
  const files: string[] = [];
  const walk = (rel: string): void => {
    const abs = path.join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      for (const e of readdirSync(abs)) if (!SKIP.has(e)) walk(path.join(rel, e));
    } else files.push(rel);
  };
  for (const i of inputs) walk(i);
  for (const f of files.sort()) h.update(`${f}\0`).update(readFileSync(path.join(root, f))).update('\0');
  return h.update(extra).digest('hex').slice(0, 16);
}

let archiveKey: string | undefined;
function fixtureKey(): string {
  return (archiveKey ??= inputsKey(ARCHIVE_INPUTS));
}

/** The fixture archive's directory for the current sources. */
export function fixtureDir(): string {
  return path.join(TMP, `archive-${fixtureKey()}`);
}

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
      await writeFile(marker, name);
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

/** Removes artefacts named `<prefix><other key>` (and their markers), keeping `keep`. */
async function sweep(prefix: string, keep: string): Promise<void> {
  for (const e of await readdir(TMP).catch(() => [] as string[])) {
    if (!e.startsWith(prefix) || e.startsWith(keep) || e.endsWith('.lock')) continue;
    await rm(path.join(TMP, e), { recursive: true, force: true });
  }
}

export async function fixtureArchive(): Promise<string> {
  const dir = fixtureDir();
  await once(path.basename(dir), async () => {
    await sweep('archive-', path.basename(dir));
    await rm(dir, { recursive: true, force: true });
    // Signed with a DEMO key (its public half in the archive's keys/, as the demo does), and its
    // December edition cut as the daily workflow would: a simulated edition, for a simulated build.
    const key = generateKeyPair(DEMO_KEY_LABEL);
    await collectArchive({ ...SITE_FIXTURE, signer: key.signer }, dir);
    writeKeyFiles(key, DEMO_KEY_LABEL, path.join(dir, 'keys'), null);
    const cut = await cutEdition(dir, { month: '2025-12', pub: { permalink: (p) => `${DEFAULT_SITE_URL}/${p.replace(/^\/+/, '')}`, simulated: true }, signer: key.signer, cache: null, release: null, now: new Date('2025-12-27T00:00:00Z') });
    if (cut.status !== 'cut') throw new Error(`fixture edition not cut: ${cut.status}`);
  });
  return dir;
}

/**
 * The headline archive (methodology v2, "Bridge and headline"): the world of test/loader/headline.test.ts
 * (seed headline-34, days 41–49), v1 alone for three days, then `auto` with a three-day bridge, then
 * v2 alone — a series seam, a protocol migration and an instructions change. Built with
 * MCP_SCHEMA_BRIDGE_DAYS=3 (HEADLINE_ENV).
 */
export const HEADLINE_ARCHIVE = { seed: 'headline-34', size: 60, firstDay: 41, v1Days: 3, autoDays: 6, bridgeDays: 3 } as const;
export const HEADLINE_ENV = { MCP_SCHEMA_BRIDGE_DAYS: String(HEADLINE_ARCHIVE.bridgeDays) };

export async function headlineArchive(): Promise<string> {
  const dir = path.join(TMP, `headline-archive-${fixtureKey()}`);
  await once(path.basename(dir), async () => {
    await sweep('headline-archive-', path.basename(dir));
    await rm(dir, { recursive: true, force: true });
    const h = HEADLINE_ARCHIVE;
    await collectArchive({ seed: h.seed, size: h.size, days: h.v1Days, firstDay: h.firstDay, methodology: 'v1' }, dir);
    await collectArchive({ seed: h.seed, size: h.size, days: h.autoDays, firstDay: h.firstDay + h.v1Days, methodology: 'auto', bridgeDays: h.bridgeDays }, dir, true);
  });
  return dir;
}

/** The fixture archive's DEMO public key (for MCP_SCHEMA_PUBLIC_KEY). */
export function fixtureKeyFile(dir: string): string {
  return path.join(dir, 'keys', `${DEMO_KEY_LABEL}-ed25519.pub`);
}

export async function emptyArchive(): Promise<string> {
  await mkdir(EMPTY_DIR, { recursive: true });
  return EMPTY_DIR;
}

export interface BuiltSite {
  out: string;
  ms: number;
  log: string;
  /** The file host's folder (MCP_SCHEMA_FILES_DIR), when extraEnv names a MCP_SCHEMA_FILES_URL. */
  files?: string;
}

/**
 * `npm run build` against an archive into .tmp/site-tests/dist-<name>-<key>, where the key covers the
 * build's sources, the archive's key and `extraEnv`: two callers asking for different environments
 * get different sites.
 */
export async function builtSite(name: 'empty' | 'fixture' | 'headline', extraEnv: Record<string, string> = {}): Promise<BuiltSite> {
  const sources = inputsKey(BUILD_INPUTS, name === 'empty' ? 'empty' : `${name}-${fixtureKey()}`);
  const env = createHash('sha256').update(JSON.stringify(Object.entries(extraEnv).sort())).digest('hex').slice(0, 8);
  const out = path.join(TMP, `dist-${name}-${sources}-${env}`);
  const logFile = `${out}.log`;
  // With a file host, its folder is the build's own (it must start empty) and goes with it.
  const files = extraEnv.MCP_SCHEMA_FILES_URL ? `${out}.files` : undefined;
  await once(path.basename(out), async () => {
    const data = name === 'empty' ? await emptyArchive() : name === 'headline' ? await headlineArchive() : await fixtureArchive();
    // Sites of older sources go; sites of the same sources in another environment may be in use.
    await sweep(`dist-${name}-`, `dist-${name}-${sources}`);
    await rm(out, { recursive: true, force: true });
    if (files) await rm(files, { recursive: true, force: true });
    const t0 = Date.now();
    const { stdout, stderr } = await run('npm', ['run', 'build'], {
      cwd: ROOT,
      // A fresh loader cache per build: a cached day summary must not stand in for the code under test.
      env: { ...process.env, MCP_SCHEMA_DATA: data, MCP_SCHEMA_OUT: out, MCP_SCHEMA_CACHE: `${out}.cache`, ASTRO_TELEMETRY_DISABLED: '1', ...(name === 'fixture' ? { MCP_SCHEMA_PUBLIC_KEY: fixtureKeyFile(data) } : {}), ...(name === 'headline' ? HEADLINE_ENV : {}), ...extraEnv, ...(files ? { MCP_SCHEMA_FILES_DIR: files } : {}) },
      maxBuffer: 64 << 20,
    });
    await writeFile(logFile, `${Date.now() - t0}\n${stdout}${stderr}`);
  });
  const [ms, ...log] = readFileSync(logFile, 'utf8').split('\n');
  return { out, ms: Number(ms), log: log.join('\n'), ...(files ? { files } : {}) };
}
