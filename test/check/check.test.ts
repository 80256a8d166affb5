// The check end to end: a collector-made archive's api/ files, written by the site's own
// writers and served on loopback; real SDK MCP servers that kept, compatibly changed and broke their
// archived contract, one behind an auth wall, one gone; and a name the archive never saw.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck, type CheckReport } from '../../collector/check/check.ts';
import { CHECK_HELP, DEFAULT_ARCHIVE, DEFAULT_OPTOUT } from '../../collector/check/cli.ts';
import { renderReport } from '../../collector/check/render.ts';
import { contractSha256, EndpointIndexShard, nameIndexShard, NAME_INDEX_SHARDS, ToolIndexShard, type Tool } from '../../src/lib/index.ts';
import { DEFAULT_SITE_URL } from '../../src/site/settings.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { checkScript } from './action.ts';
import { fileHostIndex } from '../../src/outputs/file-host.ts';
import { HOSTILE_TOOL, INJECTION, NAMES, SHARED_TOOL, serveFolder, startCheckWorld, type CheckWorld } from './world.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const tmp = scratchDirs();
let w: CheckWorld;
let archivedSet: Record<string, string>;

beforeAll(async () => {
  w = await startCheckWorld({ archive: tmp('mcps-check-archive-'), site: tmp('mcps-check-site-') });
  archivedSet = Object.fromEntries(await Promise.all(Object.values(NAMES).map(async (n) => [n, await w.setHashOf(n)] as const)));
  await w.goLive();
}, 120_000);
afterAll(async () => {
  await w?.close();
});

const stopped = (r: CheckReport, code: CheckReport['reason_code'], sentence: RegExp) => {
  expect(r.verdict).toBe('could-not-check');
  expect(r.exit_code).toBe(2);
  expect(r.reason_code).toBe(code);
  expect(r.reason).toMatch(sentence);
};
const check = (target: string, extra: Partial<Parameters<typeof runCheck>[0]> = {}) => runCheck({ target, archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000, ...extra });

describe('the name indexes the site writes', () => {
  it('writes every shard of both indexes, each in its published shape', () => {
    const tools = readdirSync(path.join(w.siteDir, 'api', 'tool-names'));
    const endpoints = readdirSync(path.join(w.siteDir, 'api', 'endpoints'));
    expect(tools).toHaveLength(NAME_INDEX_SHARDS);
    expect(endpoints).toHaveLength(NAME_INDEX_SHARDS);
    for (const f of tools) ToolIndexShard.parse(JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'tool-names', f), 'utf8')));
    for (const f of endpoints) EndpointIndexShard.parse(JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'endpoints', f), 'utf8')));
    const schema = JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'schema', 'tool-names.json'), 'utf8')) as { $id: string };
    expect(schema.$id).toBe(`${w.siteUrl}/api/schema/tool-names.json`);
    // The descriptor's JSON Schema points from a tool's name and the probed URL to the indexes.
    const descriptor = readFileSync(path.join(w.siteDir, 'api', 'schema', 'descriptor.json'), 'utf8');
    expect(descriptor).toContain('/api/tool-names/<shard>.json (the shard: the first 2 hex digits of the SHA-256');
    expect(descriptor).toContain('/api/endpoints/<shard>.json');
  });

  it('finds every server that serves a tool by its name, in the one shard the name hashes to', () => {
    const shard = ToolIndexShard.parse(JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'tool-names', `${nameIndexShard(SHARED_TOOL)}.json`), 'utf8')));
    const servers = shard.tools.find((t) => t.tool === SHARED_TOOL)!.servers.map((s) => s.name);
    // `drifts` dropped nothing called lookup; `gone` and `walled` answered when the archive probed them.
    expect(servers).toEqual(Object.values(NAMES).sort());
    const hostile = ToolIndexShard.parse(JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'tool-names', `${nameIndexShard(HOSTILE_TOOL)}.json`), 'utf8')));
    expect(hostile.tools.find((t) => t.tool === HOSTILE_TOOL)?.servers.map((s) => s.name)).toEqual([NAMES.hostile]);
    // `define` left `drifts` on day 1: the index lists the latest answers only.
    const define = ToolIndexShard.parse(JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'tool-names', `${nameIndexShard('define')}.json`), 'utf8')));
    expect(define.tools.find((t) => t.tool === 'define')!.servers.map((s) => s.name)).not.toContain(NAMES.drifts);
  });
});

describe('check against the latest archived contract', () => {
  it('an unchanged server: same, exit 0, the same hashes as the archive', async () => {
    const r = await check(NAMES.same);
    expect(r.reason).toBeNull();
    expect(r.verdict).toBe('same');
    expect(r.exit_code).toBe(0);
    expect(r.live!.set_sha256).toBe(archivedSet[NAMES.same]);
    expect(r.live!.set_sha256).toBe(r.baseline!.set_sha256);
    expect(r.live!.contract_sha256).toBe(r.baseline!.contract_sha256);
    expect(r.live!.tools.map((t) => t.name)).toEqual(['lookup', 'define']);
    expect(r.live!.tools.every((t) => /^[0-9a-f]{64}$/.test(t.definition_sha256!))).toBe(true);
    expect(r.findings).toEqual([]);
    expect(r.notes).toEqual([]); // the archive's v2 probe recorded its (absent) instructions: they were compared
    expect(r.baseline!.observed_at).toMatch(/^2026-11-02T03:1/);
    expect(r.baseline!.first_seen).toMatch(/^2026-11-01T03:1/);
    // The text report shows the whole set hash, to copy into --pin.
    expect(renderReport(r)).toMatch(new RegExp(`^ {13}set ${r.live!.set_sha256}$`, 'm'));
    // The archive's date comes from the server's status file (descriptor format 2 names no latest run):
    // the archive's last run, day 2, and the last ok answer that day.
    expect(r.baseline!.archive_generated_at).toMatch(/^2026-11-02T03:1/);
    expect(r.baseline!.last_seen).toMatch(/^2026-11-02T03:1/);
    expect(renderReport(r)).toMatch(/\(archive as of 2026-11-02T03:1[\d:.]+Z\)$/m);
  });

  it('a compatible change: findings below ERR, exit 0; --fail-on INFO makes it exit 1', async () => {
    const r = await check(NAMES.compatible);
    expect(r.verdict).toBe('compatible');
    expect(r.exit_code).toBe(0);
    expect(r.diff!.added).toEqual(['synonyms']);
    expect(r.diff!.changed.map((c) => c.name)).toEqual(['lookup']);
    const rules = r.findings.map((f) => `${f.level} ${f.rule} ${f.tool}`);
    expect(rules).toContain('INFO input-optional-property-added lookup');
    expect(rules).toContain('INFO tool-added synonyms');
    expect(rules).toContain('WARN server-instructions-changed ');
    expect(r.findings.every((f) => f.level !== 'ERR' && f.level !== 'HIGH')).toBe(true);
    expect(r.live!.set_sha256).not.toBe(r.baseline!.set_sha256);
    expect(r.live!.contract_sha256).not.toBe(r.baseline!.contract_sha256);
    const strict = await check(NAMES.compatible, { failOn: 'INFO' });
    expect(strict.verdict).toBe('breaking');
    expect(strict.exit_code).toBe(1);
    expect(strict.failing).toBeGreaterThan(0);
  });

  it('a broken contract: ERR findings naming the rule and the tool, exit 1', async () => {
    const r = await check(NAMES.broken);
    expect(r.verdict).toBe('breaking');
    expect(r.exit_code).toBe(1);
    expect(r.highest!.compatibility).toBe('ERR');
    const errs = r.findings.filter((f) => f.level === 'ERR').map((f) => `${f.rule} ${f.tool}`);
    expect(errs).toEqual(expect.arrayContaining(['tool-removed define', 'input-required-property-added lookup']));
    expect(r.diff!.removed).toEqual(['define']);
    const text = renderReport(r);
    expect(text).toMatch(/BREAKING/);
    expect(text).toMatch(/ERR {2}tool-removed {2}tool "define"/);
    expect(text).toMatch(/exit 1\n$/);
  });

  it('by endpoint URL: the endpoint index names the server', async () => {
    const r = await check(w.endpoints.broken);
    expect(r.target.name).toBe(NAMES.broken);
    expect(r.verdict).toBe('breaking');
  });

  it('reads a local folder archive as it reads the served one', async () => {
    const r = await check(NAMES.broken, { archive: w.siteDir });
    expect(r.verdict).toBe('breaking');
    expect(r.archive.descriptor_url).toBe(path.join(w.siteDir, 'api', 'servers', 'io.github.example_broken.json'));
  });

  it('follows a site built with a file host to it (its /api/index.json), by name and by endpoint', async () => {
    // The site holds the pages and /api/index.json; its machine-readable files are on the file host
    // (here the world's served folder). A site without the index is the near miss: nothing there.
    const siteDir = tmp('mcps-check-pages-');
    mkdirSync(path.join(siteDir, 'api'));
    const site = await serveFolder(siteDir);
    try {
      stopped(await check(NAMES.broken, { archive: site.url }), 'not-in-archive', /no server named/);
      const asked = site.requests.length;
      writeFileSync(path.join(siteDir, 'api', 'index.json'), fileHostIndex({ permalink: (p) => `${site.url}/${p.replace(/^\/+/, '')}`, simulated: false, fileHost: { dir: w.siteDir, url: `${w.siteUrl}/` } }, null));
      const byName = await check(NAMES.broken, { archive: site.url });
      expect(byName.verdict).toBe('breaking');
      expect(byName.archive.descriptor_url).toBe(`${w.siteUrl}/api/servers/io.github.example_broken.json`);
      const byEndpoint = await check(w.endpoints.broken, { archive: site.url });
      expect(byEndpoint.target.name).toBe(NAMES.broken);
      // After the index, only the index is read from the site: every file comes from the file host.
      expect(site.requests.slice(asked).filter((r) => r !== '/api/index.json')).toEqual([]);
      // A folder of such a site cannot reach its files by itself: it says where they are.
      stopped(await check(NAMES.broken, { archive: siteDir }), 'archive-unavailable', new RegExp(`^Could not read the archive: this site folder was built with a file host, ${w.siteUrl}/, which holds its descriptors`));
    } finally {
      await site.close();
    }
  });
});

describe('could not check: exit 2, said plainly', () => {

  it('an auth-gated server (401 with WWW-Authenticate)', async () => {
    const r = await check(NAMES.walled);
    stopped(r, 'auth-required', /^Auth required: the server answered HTTP 401 with a WWW-Authenticate challenge \("bearer"\); the check sends no credentials/);
    expect(r.live!.status).toMatch(/^auth_/);
  });

  it('an unreachable server', async () => {
    stopped(await check(NAMES.gone), 'unreachable', /^Unreachable: no HTTP answer from the endpoint/);
  });

  it('a name the archive never saw, and an endpoint it never probed', async () => {
    stopped(await check('io.github.nobody/unknown'), 'not-in-archive', /^The archive has no server named "io\.github\.nobody\/unknown"/);
    stopped(await check('http://127.0.0.1:9/not-listed'), 'not-in-archive', /^The archive probes no server at "http:\/\/127\.0\.0\.1:9\/not-listed"/);
    // A URL the archive does not probe is never contacted, even on a live host.
    const before = w.requests();
    stopped(await check(w.endpoints.same.replace('/same/', '/unlisted/')), 'not-in-archive', /probes no server at/);
    expect(w.requests()).toBe(before);
  });

  it('an endpoint two servers share: name one', async () => {
    stopped(await check(w.endpoints.twinA), 'ambiguous', /^The archive probes 2 servers at that URL \("io\.github\.example\/twin-a", "io\.github\.example\/twin-b"\)/);
  });

  it('an archive that is not there', async () => {
    stopped(await check(NAMES.same, { archive: 'http://127.0.0.1:9/' }), 'archive-unavailable', /^Could not read the archive: the archive at http:\/\/127\.0\.0\.1:9\/ could not be reached/);
    stopped(await check(NAMES.same, { archive: path.join(w.siteDir, 'nothing-here') }), 'not-in-archive', /no server named/);
  });

  it('a server in optout.txt (by name, or by host): refused before any request, as the collector refuses it', async () => {
    const dir = tmp('mcps-optout-');
    const before = w.requests();
    writeFileSync(path.join(dir, 'by-name.txt'), `# test\n${NAMES.same}\n`);
    stopped(await check(NAMES.same, { optout: path.join(dir, 'by-name.txt') }), 'opted-out', /^Not checked: its operator asked the archive never to contact "io\.github\.example\/same"/);
    writeFileSync(path.join(dir, 'by-host.txt'), `${new URL(w.endpoints.broken).host}\n`);
    stopped(await check(w.endpoints.broken, { optout: path.join(dir, 'by-host.txt') }), 'opted-out', /^Not checked/);
    expect(w.requests()).toBe(before);
    // The check's default is the repository's list, which the collector reads too.
    expect(DEFAULT_OPTOUT).toBe(path.join(ROOT, 'optout.txt'));
  });

  it('a loopback endpoint without --allow-private: refused by the address policy, never contacted, and said so (not "unreachable")', async () => {
    const before = w.requests();
    const r = await check(NAMES.same, { allowPrivate: false });
    stopped(r, 'address-refused', /^Not contacted: the check's address policy refuses "127\.0\.0\.1:\d+" \(127\.0\.0\.1 is loopback/);
    expect(r.live).toBeNull();
    expect(renderReport(r)).not.toMatch(/tls|Unreachable/i);
    expect(w.requests()).toBe(before);
    // The near miss: the same server with loopback admitted is contacted and compared.
    expect((await check(NAMES.same, { allowPrivate: true })).verdict).toBe('same');
    expect(w.requests()).toBeGreaterThan(before);
  });
});

describe('--pin', () => {
  it('the pinned set itself: same; a set the server has since left: the classified difference with its dates', async () => {
    const same = await check(NAMES.same, { pin: archivedSet[NAMES.same] });
    expect(same.verdict).toBe('same');
    expect(same.baseline!.kind).toBe('pin');
    // `compatible` served the same tools as `same` when archived: pin the set both served.
    expect(archivedSet[NAMES.compatible]).toBe(archivedSet[NAMES.same]);
    const r = await check(NAMES.broken, { pin: archivedSet[NAMES.same] });
    expect(r.verdict).toBe('breaking');
    expect(r.findings.map((f) => f.rule)).toContain('tool-removed');
    expect(r.baseline!.first_seen).toMatch(/^2026-11-01/);
    expect(r.baseline!.contract_sha256).toBe(contractSha256(JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'tools', 'io.github.example_same.json'), 'utf8')).tools.map((t: { tool: Tool }) => t.tool)));
  });

  it('a set hash the archive never saw', async () => {
    const r = await check(NAMES.same, { pin: 'f'.repeat(64) });
    expect(r.reason_code).toBe('pin-unusable');
    expect(r.exit_code).toBe(2);
  });
});

describe('hostile text is data', () => {
  it('tool names and descriptions come back quoted and escaped, never raw', async () => {
    const r = await check(NAMES.hostile, { pin: archivedSet[NAMES.same] });
    expect(r.diff!.added).toContain(HOSTILE_TOOL);
    const text = renderReport(r);
    expect(text).not.toContain('\u202e');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u200b');
    expect(text).toContain('"read\\u{202E}fdp.exe\\u{1B}[2J\\u{200B}"');
    expect(text).not.toContain(INJECTION);
  });
});

describe('the command', () => {
  // Asynchronously: the servers the child talks to live in this process's event loop.
  const run = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'mcp-schema-check.mjs'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  it('through the bin: exit codes 1 and 0, --json a report, bad input one line and exit 2', async () => {
    const broken = await run([NAMES.broken, '--archive', w.siteUrl, '--allow-private', '--timeout', '3000']);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/result: BREAKING/);
    const same = await run([NAMES.same, '--archive', w.siteDir, '--allow-private', '--json']);
    expect(same.status).toBe(0);
    expect((JSON.parse(same.stdout) as CheckReport).verdict).toBe('same');
    const bad = await run([NAMES.same, '--fail-on', 'LOUD']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('check: --fail-on must be one of ERR, WARN, INFO, got "LOUD"\n');
    const pin = await run([NAMES.same, '--pin', 'nope']);
    expect(pin.status).toBe(2);
    expect(pin.stderr).toBe('check: --pin must be a tool set hash (64 lowercase hex digits), got "nope"\n');
    const none = await run([]);
    expect(none.status).toBe(2);
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    const help = await run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(CHECK_HELP);
  }, 60_000);

  it("action.yml's check step, run by bash as the runner would: exit code, outputs and job summary", async () => {
    const dir = tmp('mcps-action-');
    const files = { GITHUB_OUTPUT: path.join(dir, 'output'), GITHUB_STEP_SUMMARY: path.join(dir, 'summary') };
    const step = (env: Record<string, string>) =>
      new Promise<{ status: number | null; stdout: string }>((resolve, reject) => {
        // The step runs in the action's folder (working-directory: github.action_path): the repository root here.
        const child = spawn('bash', ['-e', '-c', checkScript()], { cwd: ROOT, env: { ...process.env, RUNNER_TEMP: dir, ...files, PIN: '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
        let stdout = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, stdout }));
      });
    // The action passes no --allow-private: a loopback endpoint is refused by the address policy, as on a runner for a private address.
    const refused = await step({ SERVER: NAMES.broken, FAIL_ON: 'ERR', ARCHIVE: w.siteUrl });
    expect(refused.status).toBe(2);
    expect(refused.stdout).toMatch(/Not contacted: the check's address policy refuses/);
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toMatch(/^verdict=could-not-check$/m);
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toMatch(/^### mcp-schema check\n\n {4}mcp-schema check of "io\.github\.example\/broken"\n/);
    expect(summary.split('\n').slice(2).filter(Boolean).every((l) => l.startsWith('    '))).toBe(true);
    const unknown = await step({ SERVER: 'io.github.nobody/unknown', FAIL_ON: 'ERR', ARCHIVE: w.siteUrl, PIN: archivedSet[NAMES.same]! });
    expect(unknown.status).toBe(2);
    expect(unknown.stdout).toMatch(/no server named "io\.github\.nobody\/unknown"/);
    const report = /^report=(.+)$/m.exec(readFileSync(files.GITHUB_OUTPUT, 'utf8'))![1]!;
    expect((JSON.parse(readFileSync(report, 'utf8')) as CheckReport).reason_code).toBe('not-in-archive');
  }, 60_000);

  it('defaults to the public site the build publishes', () => {
    expect(DEFAULT_ARCHIVE).toBe(DEFAULT_SITE_URL);
  });
});
