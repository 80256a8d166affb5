// The product runs on a supported Node LTS: .nvmrc names it, the workflows and .ci/run install
// it, package.json's engines admit it, and a wrong Node is told in one sentence which Node to install.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const nvmrc = read('.nvmrc').trim();
const check = join(root, 'scripts/require-node.cjs');

/** What scripts/require-node.cjs says when it believes it runs on `version`. */
function checkAs(version: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['-e', `Object.defineProperty(process, 'version', { value: ${JSON.stringify(version)} }); require(${JSON.stringify(check)})`], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('the Node runtime', () => {
  it('.nvmrc names a supported LTS major, and this suite runs on a Node the engines admit', () => {
    expect(nvmrc).toBe('26');
    expect(JSON.parse(read('package.json')).engines.node).toBe('^24.11.0 || >=26.0.0');
    expect(checkAs(process.version).status).toBe(0);
  });

  it('every workflow takes its Node from .nvmrc', () => {
    const dir = join(root, '.github/workflows');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yml'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      if (!text.includes('actions/setup-node')) continue;
      expect(text, file).toContain('node-version-file: .nvmrc');
      expect(text, file).not.toMatch(/node-version:\s*'?\d/);
    }
  });

  it('.ci/run and the README put the .nvmrc Node on PATH before npm ci', () => {
    const ci = read('.ci/run');
    expect(ci).toContain('. scripts/use-node.sh');
    expect(ci.indexOf('. scripts/use-node.sh')).toBeLessThan(ci.indexOf('npm ci'));
    const first = read('README.md').split('```sh\n')[1]!.split('\n').slice(0, 2);
    for (const line of first) expect(line.startsWith('. scripts/use-node.sh && npm ci && ')).toBe(true);
  });

  it('scripts/use-node.sh puts the installed .nvmrc Node first when the machine runs another (no download once installed)', () => {
    const home = mkdtempSync(join(tmpdir(), 'use-node-'));
    const fake = join(home, 'fake-bin');
    const prefixBin = join(home, `.cache/mcp-schema-node-${nvmrc}/bin`);
    mkdirSync(fake, { recursive: true });
    mkdirSync(prefixBin, { recursive: true });
    writeFileSync(join(fake, 'node'), '#!/bin/sh\necho 20\n', { mode: 0o755 }); // a machine's Node 20
    symlinkSync(process.execPath, join(prefixBin, 'node'));
    const npmDir = dirname(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
    const run = (path: string) =>
      execFileSync('bash', ['-c', '. scripts/use-node.sh >/dev/null 2>&1 && command -v node'], { cwd: root, encoding: 'utf8', env: { HOME: home, PATH: path } }).trim();
    expect(run(`${fake}:${npmDir}:/usr/bin:/bin`)).toBe(join(prefixBin, 'node'));
    // A machine already on the .nvmrc major keeps its own Node.
    const own = join(home, 'own-bin');
    mkdirSync(own);
    symlinkSync(process.execPath, join(own, 'node'));
    if (process.versions.node.split('.')[0] === nvmrc) expect(run(`${own}:${npmDir}:/usr/bin:/bin`)).toBe(join(own, 'node'));
  });

  it.each(['v20.20.2', 'v22.22.0', 'v24.10.0', 'v25.2.1'])('a wrong Node (%s) gets one sentence naming the Node to install', (version) => {
    const r = checkAs(version);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`this is Node ${version}`);
    expect(r.stderr).toContain('install Node 26');
    expect(r.stderr).toContain(`engines "${JSON.parse(read('package.json')).engines.node}"`);
  });

  it.each(['v24.11.0', 'v24.21.0', 'v26.0.0', 'v26.10.0', 'v28.1.0'])('a supported Node (%s) passes silently', (version) => {
    expect(checkAs(version)).toEqual({ status: 0, stderr: '' });
  });

  it('package.json runs the check as its preinstall script, and it is silent on this Node', () => {
    const scripts = JSON.parse(read('package.json')).scripts;
    expect(scripts.preinstall).toBe('node scripts/require-node.cjs');
    expect(execFileSync(process.execPath, [check], { encoding: 'utf8' })).toBe('');
  });
});
