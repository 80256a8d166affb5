// @mcp-schema/guard against real SDK McpServers on loopback and an archive of them made by the real
// collector: a server that stays the same (not held), changes compatibly (not held), breaks (held),
// changes only a description (not held), changes between two calls of one guarded client (held after
// its list_changed), and hostile tool text that stays data in the error. Then the package itself:
// packed with npm, installed offline into an empty folder, and run there, where the repository is not.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinLock } from '../../collector/check/lock.ts';
import { emptyLock, lockText, lockWith, type McpLock } from '../../src/lib/index.ts';
import { ContractDriftError, guard, type DriftEvent, type GuardOptions } from '../../packages/guard/src/guard.ts';
import pkg from '../../packages/guard/package.json' with { type: 'json' };
import { scratchDirs } from '../helpers/scratch.ts';
import { GUARD_NAMES, HOSTILE_TOOL, INJECTION, startGuardWorld, type GuardKey, type GuardWorld } from './world.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const tmp = scratchDirs();
let w: GuardWorld;
let lock: McpLock;
const clients: Client[] = [];

beforeAll(async () => {
  w = await startGuardWorld({ archive: tmp('mcps-guard-archive-'), site: tmp('mcps-guard-site-') });
  const pinned = await pinLock({ targets: Object.values(GUARD_NAMES), archive: w.siteUrl });
  expect(pinned.failed).toEqual([]);
  lock = lockWith({ ...emptyLock(), archive: w.siteUrl }, pinned.entries);
  w.goLive();
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await w?.close();
});

async function connect(key: GuardKey): Promise<Client> {
  const c = new Client({ name: 'guard-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(w.endpoints[key])));
  clients.push(c);
  return c;
}

async function guarded(key: GuardKey, o: Partial<GuardOptions> = {}) {
  const c = await connect(key);
  return { c, g: await guard(c, { lock, server: GUARD_NAMES[key], ...o }) };
}

const call = (c: Client, name: string, args: Record<string, unknown> = { word: 'w' }) => c.callTool({ name, arguments: args });

describe('guard(client, { lock })', () => {
  it('a server that stays the same: nothing held, calls go through', async () => {
    const { c, g } = await guarded('stable');
    expect(g.report()).toMatchObject({ server: GUARD_NAMES.stable, baseline: 'lock', archive_saw: 'no-change', held: [], findings: [] });
    expect(g.report().live_set_sha256).toBe(lock.servers.find((s) => s.name === GUARD_NAMES.stable)!.set_sha256);
    expect(await call(c, 'lookup')).toMatchObject({ content: [{ type: 'text', text: 'looked up' }] });
  });

  it('a compatible change: classified (INFO), not held; the archive records another list', async () => {
    const { c, g } = await guarded('compat');
    expect(g.report().findings.map((f) => `${f.level} ${f.rule} ${f.tool}`)).toContain('INFO input-optional-property-added lookup');
    expect(g.report().held).toEqual([]);
    expect(g.report().archive_saw).toBe('different-list');
    expect(await call(c, 'lookup')).toMatchObject({ content: [{ text: 'looked up' }] });
  });

  it('a breaking change: the changed tool is held with its findings, an unchanged one is not, an unknown one is held unless allowed', async () => {
    const { c, g } = await guarded('breaks');
    const e = await call(c, 'lookup').then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(ContractDriftError);
    const err = e as ContractDriftError;
    expect(err.tool).toBe('lookup');
    expect(err.reason).toBe('changed');
    expect(err.findings.map((f) => `${f.level} ${f.rule}`)).toContain('ERR input-required-property-added');
    expect(err.message).toMatch(/^Held a call to a tool whose contract changed since it was pinned \(\d+ findings? at or above ERR\): "lookup" on "io\.github\.example\/breaks"; the archive records another list \(this caller sees a different one\)\./);
    expect(await call(c, 'define')).toMatchObject({ content: [{ text: 'defined' }] });
    await expect(call(c, 'extra', {})).rejects.toMatchObject({ name: 'ContractDriftError', reason: 'unknown' });
    const allowed = await guarded('breaks', { allowUnknown: true });
    expect(await call(allowed.c, 'extra', {})).toMatchObject({ content: [{ text: 'extra' }] });
    // fail-on WARN holds what ERR holds; mode 'warn' calls through and reports.
    const events: DriftEvent[] = [];
    const warn = await guarded('breaks', { mode: 'warn', onDrift: (x) => events.push(x) });
    expect(await call(warn.c, 'lookup', { word: 'w', dictionary: 'd' })).toMatchObject({ content: [{ text: 'looked up' }] });
    expect(events.map((x) => x.kind)).toEqual(['checked', 'called-through']);
  });

  it('a description-only change is not breaking: classified, not held', async () => {
    const { c, g } = await guarded('desc');
    expect(g.report().findings.length).toBeGreaterThan(0);
    expect(g.report().findings.every((f) => f.tool === 'lookup' && f.level !== 'ERR' && f.level !== 'HIGH')).toBe(true);
    expect(g.report().held).toEqual([]);
    expect(await call(c, 'lookup')).toMatchObject({ content: [{ text: 'looked up' }] });
    // The near miss: held when the product asks to fail on INFO (the description rule's level or above).
    const strict = await guarded('desc', { failOn: 'INFO' });
    expect(strict.g.report().held.map((h) => h.tool)).toEqual(['lookup']);
  });

  it('says when the archive saw the same change (the server changed for everyone)', async () => {
    // `already` changed before the archive saw it; a lock pinned to `stable`'s contract sees the change.
    const stable = lock.servers.find((s) => s.name === GUARD_NAMES.stable)!;
    const old = { ...lock, servers: [{ ...stable, name: GUARD_NAMES.already }] };
    const c = await connect('already');
    const g = await guard(c, { lock: old });
    expect(g.report().archive_saw).toBe('same-change');
    await expect(call(c, 'lookup')).rejects.toThrow(/the archive saw the same change \(the server changed for everyone\)/);
  });

  it('a server the lock has no entry for is compared with the archive\'s latest record', async () => {
    const only = { ...lock, servers: lock.servers.filter((s) => s.name === GUARD_NAMES.stable) };
    const { c, g } = await guarded('breaks', { lock: only });
    expect(g.report().baseline).toBe('archive');
    expect(g.report().notes).toContain("the lock has no entry for this server: compared with the archive's latest record");
    await expect(call(c, 'lookup')).rejects.toBeInstanceOf(ContractDriftError);
  });

  it('a change between two calls of one guarded client: held after its tools/list_changed', async () => {
    const checked: DriftEvent[] = [];
    let next: (() => void) | null = null;
    const { c, g } = await guarded('moving', {
      onDrift: (e) => {
        checked.push(e);
        next?.();
      },
    });
    expect(await call(c, 'lookup')).toMatchObject({ content: [{ text: 'looked up' }] });
    await w.streamOpen('moving');
    const rechecked = new Promise<void>((resolve) => (next = resolve));
    w.move();
    await rechecked;
    expect(checked).toHaveLength(2);
    expect(g.report().held.map((h) => h.tool)).toEqual(['lookup']);
    await expect(call(c, 'lookup')).rejects.toMatchObject({ name: 'ContractDriftError', tool: 'lookup' });
    expect(await call(c, 'define')).toMatchObject({ content: [{ text: 'defined' }] });
  });

  it('hostile tool text stays data in the error: quoted with hidden characters escaped, its description never in our sentence', async () => {
    const { c } = await guarded('hostile');
    const err = (await call(c, HOSTILE_TOOL, { file: 'x' }).then(() => null, (x: unknown) => x)) as ContractDriftError;
    expect(err).toBeInstanceOf(ContractDriftError);
    expect(err.tool).toBe(HOSTILE_TOOL); // the exact name, as data
    expect(err.message).toContain('"read\\u{202E}fdp.exe\\u{1B}[2J\\u{200B}"');
    for (const ch of ['\u202e', '\u001b', '\u200b']) expect(err.message).not.toContain(ch);
    expect(err.message).not.toContain(INJECTION);
    expect(err.findings.some((f) => f.level === 'ERR')).toBe(true);
  });

  it('refuses a lock it cannot use, in one sentence', async () => {
    const c = await connect('stable');
    await expect(guard(c, { lock })).rejects.toThrow(/^Name the server: the lock pins 7 servers/);
    const edited = JSON.parse(lockText(lock)) as McpLock;
    edited.servers[0]!.set_sha256 = 'f'.repeat(64);
    await expect(guard(c, { lock: edited, server: edited.servers[0]!.name })).rejects.toThrow(/its set_sha256 is not the set hash of its tools/);
  });
});

describe('the package', () => {
  it('packs with npm, installs offline from the tarball into an empty folder, and guards a client there', async () => {
    expect(pkg.peerDependencies).toEqual({ '@modelcontextprotocol/sdk': expect.any(String) });
    expect((pkg as { dependencies?: unknown }).dependencies).toBeUndefined();
    const out = tmp('mcps-guard-pack-');
    execFileSync('npm', ['pack', '--pack-destination', out, '--silent'], { cwd: path.join(ROOT, 'packages', 'guard'), stdio: ['ignore', 'pipe', 'inherit'] });
    const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'))!;
    expect(tarball).toBe(`mcp-schema-guard-${pkg.version}.tgz`);
    const app = tmp('mcps-guard-app-');
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--legacy-peer-deps', '--no-audit', '--no-fund', '--ignore-scripts', path.join(out, tarball)], { cwd: app, stdio: ['ignore', 'pipe', 'inherit'] });
    // The peer: the SDK the repository has (no network), linked in as an app's own install would be.
    mkdirSync(path.join(app, 'node_modules', '@modelcontextprotocol'), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk'), path.join(app, 'node_modules', '@modelcontextprotocol', 'sdk'), 'dir');
    writeFileSync(path.join(app, 'lock.json'), lockText(lock));
    writeFileSync(
      path.join(app, 'main.js'),
      `import { guard, ContractDriftError } from '@mcp-schema/guard';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
const out = { exports: Object.keys(await import('@mcp-schema/guard')).sort() };
for (const [key, name] of [['stable', ${JSON.stringify(GUARD_NAMES.stable)}], ['breaks', ${JSON.stringify(GUARD_NAMES.breaks)}]]) {
  const client = new Client({ name: 'app', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(process.env[key.toUpperCase()])));
  await guard(client, { lock: './lock.json', server: name });
  try {
    await client.callTool({ name: 'lookup', arguments: { word: 'w' } });
    out[key] = 'called';
  } catch (e) {
    out[key] = e instanceof ContractDriftError ? 'held: ' + e.findings.map((f) => f.rule).join(',') : 'error: ' + e.message;
  }
  await client.close();
}
console.log(JSON.stringify(out));
`,
    );
    const result = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['main.js'], { cwd: app, env: { PATH: process.env.PATH ?? '', STABLE: w.endpoints.stable, BREAKS: w.endpoints.breaks }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const got = JSON.parse(result.stdout) as Record<string, string>;
    // What the bundle exports is what index.d.ts declares.
    expect(got.exports).toEqual(['ContractDriftError', 'DEFAULT_ARCHIVE', 'guard']);
    const declared = [...readFileSync(path.join(ROOT, 'packages', 'guard', 'index.d.ts'), 'utf8').matchAll(/^export declare (?:class|const|function) (\w+)/gm)].map((m) => m[1]).sort();
    expect(declared).toEqual(got.exports);
    expect(got.stable).toBe('called');
    expect(got.breaks).toMatch(/^held: .*input-required-property-added/);
    // Nothing of the repository is reachable from there: the installed package is the bundle alone.
    expect(readdirSync(path.join(app, 'node_modules', '@mcp-schema', 'guard')).sort()).toEqual(['README.md', 'dist', 'index.d.ts', 'package.json']);
  }, 120_000);
});
