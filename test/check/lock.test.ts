// mcp-lock.json end to end: pinned from a collector-made archive's published files (served on loopback),
// checked against real SDK servers that kept, compatibly changed and broke their contracts, through the
// functions and the bin; its JSON Schema as the site publishes it; the breaking-only feeds and the OPML.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLock, pinLock, type LockReport } from '../../collector/check/lock.ts';
import { renderLockReport } from '../../collector/check/render.ts';
import { emptyLock, lockText, lockWith, MCP_LOCK_SCHEMA_PATH, McpLockError, readLock, setHashOfLines, stableDays, type McpLock } from '../../src/lib/index.ts';
import { breakingOnly } from '../../src/outputs/breaking-feeds.ts';
import { lockOpml } from '../../collector/check/opml.ts';
import type { BodyFindingView, ChangeView, InstructionsChangeView } from '../../src/loader/views.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { HOSTILE_TOOL, INJECTION, NAMES, startCheckWorld, type CheckWorld } from './world.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const tmp = scratchDirs();
let w: CheckWorld;
let archivedSet: Record<string, string>;

beforeAll(async () => {
  w = await startCheckWorld({ archive: tmp('mcps-lock-archive-'), site: tmp('mcps-lock-site-') });
  archivedSet = Object.fromEntries(await Promise.all(Object.values(NAMES).map(async (n) => [n, await w.setHashOf(n)] as const)));
  await w.goLive();
}, 120_000);
afterAll(async () => {
  await w?.close();
});

const run = (args: string[], cwd = ROOT) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'mcp-schema-check.mjs'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });

async function lockOf(names: string[], extra: Partial<McpLock> = {}): Promise<McpLock> {
  const pinned = await pinLock({ targets: names, archive: w.siteUrl });
  expect(pinned.failed).toEqual([]);
  return lockWith({ ...emptyLock(), ...extra }, pinned.entries);
}

describe('pinning from the archive (lock <name…>)', () => {
  it("writes each server's latest archived contract: set hash, every definition hash, endpoint, dates — without contacting any server", async () => {
    const before = w.requests();
    const pinned = await pinLock({ targets: [NAMES.same, w.endpoints.broken], archive: w.siteUrl, now: () => new Date('2026-12-01T00:00:00Z') });
    expect(w.requests()).toBe(before);
    expect(pinned.failed).toEqual([]);
    const [same, broken] = pinned.entries;
    expect(same!.name).toBe(NAMES.same);
    expect(broken!.name).toBe(NAMES.broken); // by URL, through the endpoint index
    expect(same!.set_sha256).toBe(archivedSet[NAMES.same]);
    expect(same!.endpoint).toBe(w.endpoints.same);
    expect(same!.tools.map((t) => t.name)).toEqual(['define', 'lookup']);
    expect(setHashOfLines(same!.tools.map((t) => ({ name: t.name, hash: t.definition_sha256 })))).toBe(same!.set_sha256);
    const tools = JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'tools', 'io.github.example_same.json'), 'utf8')) as { tools: { definition_sha256: string; tool: { name: string } }[] };
    expect(same!.tools.find((t) => t.name === 'lookup')!.definition_sha256).toBe(tools.tools.find((t) => t.tool.name === 'lookup')!.definition_sha256);
    expect(same!.pinned).toMatchObject({ at: '2026-12-01T00:00:00.000Z', from: 'archive', archive: `${w.siteUrl}/` });
    expect(same!.pinned.first_seen).toMatch(/^2026-11-01T03:1/);
    expect(same!.pinned.last_seen).toMatch(/^2026-11-02T03:1/);
    expect(same!.pinned.stable_days).toBe(stableDays(same!.pinned.first_seen, same!.pinned.last_seen));
    expect(same!.pinned.set_url).toBe(`${w.siteUrl}/api/sets/${same!.set_sha256}.json`);
    // `drifts` changed on day 1: its pin is the contract after the change, first seen on day 2.
    const drifts = (await pinLock({ targets: [NAMES.drifts], archive: w.siteUrl })).entries[0]!;
    expect(drifts.tools.map((t) => t.name)).toEqual(['lookup']);
    expect(drifts.pinned.first_seen).toMatch(/^2026-11-02/);
    expect(drifts.pinned.stable_days).toBe(0);
  });

  it('a name the archive never saw is not pinned (one sentence), the others are', async () => {
    const pinned = await pinLock({ targets: ['io.github.nobody/unknown', NAMES.same], archive: w.siteUrl });
    expect(pinned.entries.map((e) => e.name)).toEqual([NAMES.same]);
    expect(pinned.failed).toEqual([{ target: 'io.github.nobody/unknown', reason_code: 'not-in-archive', reason: expect.stringMatching(/^The archive has no server named "io\.github\.nobody\/unknown"/) }]);
  });

  it('is a valid lock by the JSON Schema the site publishes, and a hand-broken one is not', async () => {
    const lock = await lockOf([NAMES.same, NAMES.broken]);
    const schema = JSON.parse(readFileSync(path.join(w.siteDir, ...MCP_LOCK_SCHEMA_PATH.split('/').filter(Boolean)), 'utf8')) as Record<string, unknown>;
    expect(schema.$id).toBe(`${w.siteUrl}${MCP_LOCK_SCHEMA_PATH}`);
    const ajv = new Ajv({ strict: false });
    const validate = ajv.compile(schema);
    expect(validate(JSON.parse(lockText(lock)))).toBe(true);
    const bad = JSON.parse(lockText(lock)) as McpLock;
    bad.servers[0]!.set_sha256 = 'not a hash';
    expect(validate(bad)).toBe(false);
    // readLock holds an entry to its own lines: a hand-edited hash of the right shape is caught too.
    const edited = JSON.parse(lockText(lock)) as McpLock;
    edited.servers[0]!.tools[0]!.definition_sha256 = 'f'.repeat(64);
    expect(() => readLock(JSON.stringify(edited))).toThrow(McpLockError);
    expect(() => readLock(JSON.stringify(edited))).toThrow(/^servers\.0: its set_sha256 is not the set hash of its tools/);
    expect(readLock(lockText(lock))).toEqual(lock);
    expect(() => readLock(JSON.stringify({ ...lock, servers: [lock.servers[0], lock.servers[0]] }))).toThrow(/names "io\.github\.example\/broken" twice/);
    expect(() => readLock(JSON.stringify({ ...lock, lock_version: 2 }))).toThrow(/lock_version is 2; this reader knows version 1/);
    expect(() => readLock('{')).toThrow(/^The lockfile is not JSON/);
  });
});

describe('checking a lock (--lock)', () => {
  it("checks every entry against its pin, each at its own fail-on, and reports the worst", async () => {
    const lock = await lockOf([NAMES.same, NAMES.compatible, NAMES.broken]);
    const r = await checkLock({ lock, lockPath: 'mcp-lock.json', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000, optout: null });
    expect(r.servers.map((s) => [s.name, s.report.verdict])).toEqual([
      [NAMES.broken, 'breaking'],
      [NAMES.compatible, 'compatible'],
      [NAMES.same, 'same'],
    ]);
    expect(r.servers.every((s) => s.report.baseline!.kind === 'pin')).toBe(true);
    expect(r.verdict).toBe('breaking');
    expect(r.exit_code).toBe(1);
    expect(r.counts).toEqual({ same: 1, compatible: 1, breaking: 1, 'could-not-check': 0 });
    // The near miss: the lock without `broken` passes; with `compatible` at fail_on INFO it does not.
    const ok = await checkLock({ lock: { ...lock, servers: lock.servers.filter((s) => s.name !== NAMES.broken) }, lockPath: 'x', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000 });
    expect([ok.verdict, ok.exit_code]).toEqual(['compatible', 0]);
    const strict = await checkLock({ lock: { ...lock, servers: lock.servers.filter((s) => s.name === NAMES.compatible).map((s) => ({ ...s, fail_on: 'INFO' as const })) }, lockPath: 'x', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000 });
    expect([strict.servers[0]!.fail_on, strict.verdict, strict.exit_code]).toEqual(['INFO', 'breaking', 1]);
  });

  it('a server it could not check makes the run exit 2; an opted-out one is never contacted', async () => {
    const lock = await lockOf([NAMES.same, NAMES.walled]);
    const r = await checkLock({ lock, lockPath: 'x', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000 });
    expect(r.servers.find((s) => s.name === NAMES.walled)!.report.reason_code).toBe('auth-required');
    expect([r.verdict, r.exit_code]).toEqual(['could-not-check', 2]);
    const optout = path.join(tmp('mcps-lock-optout-'), 'optout.txt');
    writeFileSync(optout, `${NAMES.same}\n${NAMES.walled}\n`);
    const before = w.requests();
    const refused = await checkLock({ lock, lockPath: 'x', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000, optout });
    expect(refused.servers.map((s) => s.report.reason_code)).toEqual(['opted-out', 'opted-out']);
    expect(w.requests()).toBe(before);
  });

  it('an endpoint the archive no longer probes where the lock pinned it is said in a note', async () => {
    const lock = await lockOf([NAMES.same]);
    const moved = { ...lock, servers: [{ ...lock.servers[0]!, endpoint: 'https://old.example/mcp' }] };
    const r = await checkLock({ lock: moved, lockPath: 'x', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000 });
    expect(r.servers[0]!.report.notes).toContain(`the archive now probes "${w.endpoints.same}"; the lock was pinned at "https://old.example/mcp"`);
    expect(r.servers[0]!.report.verdict).toBe('same');
  });

  it("hostile tool text stays data in the lock's report", async () => {
    const lock = await lockOf([NAMES.hostile]);
    expect(lock.servers[0]!.tools.map((t) => t.name)).toContain(HOSTILE_TOOL); // the lock keeps the exact name (JSON escapes it)
    const pinnedElsewhere = { ...lock, servers: [{ ...(await lockOf([NAMES.same])).servers[0]!, name: NAMES.hostile }] };
    const r = await checkLock({ lock: pinnedElsewhere, lockPath: 'x\u202e', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000 });
    expect(r.servers[0]!.report.diff!.added).toContain(HOSTILE_TOOL);
    const text = renderLockReport(r);
    for (const c of ['\u202e', '\u001b', '\u200b']) expect(text).not.toContain(c);
    expect(text).toContain('"read\\u{202E}fdp.exe\\u{1B}[2J\\u{200B}"');
    expect(text).not.toContain(INJECTION);
  });
});

describe('the commands (lock, --lock) through the bin', () => {
  it('lock writes and extends the file; --lock checks it; a broken lockfile is left as it is', async () => {
    const dir = tmp('mcps-lock-cli-');
    const file = path.join(dir, 'mcp-lock.json');
    const first = await run(['lock', NAMES.same, '--lock', file, '--archive', w.siteUrl]);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^pinned "io\.github\.example\/same": set [0-9a-f]{64}, 2 tools, stable \d+ days/m);
    const one = readLock(readFileSync(file, 'utf8'));
    expect(one.archive).toBe(w.siteUrl);
    expect(one.$schema).toBe(`${w.siteUrl}${MCP_LOCK_SCHEMA_PATH}`);
    // A per-server fail_on set by hand survives a re-pin; a second server is added beside it.
    writeFileSync(file, lockText({ ...one, servers: [{ ...one.servers[0]!, fail_on: 'WARN' }] }));
    const second = await run(['lock', NAMES.broken, NAMES.same, 'io.github.nobody/unknown', '--lock', file]);
    expect(second.status).toBe(2);
    expect(second.stderr).toMatch(/^not pinned "io\.github\.nobody\/unknown": The archive has no server named/m);
    const two = readLock(readFileSync(file, 'utf8'));
    expect(two.servers.map((s) => [s.name, s.fail_on])).toEqual([[NAMES.broken, undefined], [NAMES.same, 'WARN']]);

    const checked = await run(['--lock', file, '--allow-private', '--timeout', '3000', '--json']);
    expect(checked.status).toBe(1);
    const report = JSON.parse(checked.stdout) as LockReport;
    expect(report.servers.map((s) => s.report.verdict)).toEqual(['breaking', 'same']);
    const text = await run(['--lock', file, '--allow-private', '--timeout', '3000']);
    expect(text.stdout).toMatch(/^ {2}BREAKING {8}"io\.github\.example\/broken" \(fail-on ERR, pinned set [0-9a-f]{12}…\)$/m);
    expect(text.stdout).toMatch(/^result: BREAKING \(same 1, compatible 0, breaking 1, could not check 0\); exit 1$/m);

    writeFileSync(file, '{"lock_version":1,"servers":[}');
    const broken = await run(['lock', NAMES.same, '--lock', file]);
    expect(broken.status).toBe(2);
    expect(broken.stderr).toMatch(/^check: The lockfile is not JSON .* It was left as it is\.\n$/);
    expect(readFileSync(file, 'utf8')).toBe('{"lock_version":1,"servers":[}');
    const missing = await run(['--lock', path.join(dir, 'none.json')]);
    expect([missing.status, missing.stderr]).toEqual([2, expect.stringMatching(/^check: There is no lockfile at /)]);
    const both = await run([NAMES.same, '--lock', file]);
    expect([both.status, both.stderr]).toEqual([2, 'check: With --lock, name no server: the lock names them (npm run check -- --help).\n']);
    expect(existsSync(path.join(dir, 'mcp-lock.json'))).toBe(true);
  }, 60_000);
});

describe('breaking-only feeds', () => {
  it("are written beside each server's feeds, linked from its descriptor, and hold only its ERR / security HIGH items", () => {
    const read = (slug: string, f: string) => readFileSync(path.join(w.siteDir, 'servers', slug, f), 'utf8');
    // `drifts` removed a tool and required a new input on day 1: an ERR change.
    const full = JSON.parse(read('io.github.example_drifts', 'feed.json')) as { items: { tags: string[] }[] };
    const breaking = JSON.parse(read('io.github.example_drifts', 'breaking.json')) as { title: string; feed_url: string; items: { tags: string[] }[] };
    expect(full.items.length).toBeGreaterThan(0);
    expect(breaking.items).toEqual(full.items.filter((i) => i.tags.includes('ERR') || i.tags.includes('security-HIGH')));
    expect(breaking.items.length).toBeGreaterThan(0);
    expect(breaking.title).toBe('mcp-schema: breaking changes of io.github.example/drifts');
    expect(breaking.feed_url).toBe(`${w.siteUrl}/servers/io.github.example_drifts/breaking.json`);
    expect(read('io.github.example_drifts', 'breaking.xml')).toContain(`<atom:link href="${w.siteUrl}/servers/io.github.example_drifts/breaking.xml" rel="self"`);
    const d = JSON.parse(readFileSync(path.join(w.siteDir, 'api', 'servers', 'io.github.example_drifts.json'), 'utf8')) as { _meta: Record<string, { breaking_feed_url?: string }> };
    expect(d._meta['org.mcp-schema/schema-history']!.breaking_feed_url).toBe(`${w.siteUrl}/servers/io.github.example_drifts/breaking.xml`);
    // A server that never changed has an empty one.
    expect((JSON.parse(read('io.github.example_same', 'breaking.json')) as { items: unknown[] }).items).toEqual([]);
  });

  it('the filter: ERR or security HIGH is breaking, WARN / INFO / security WARN are not', () => {
    const change = (compatibility: ChangeView['compatibility'], security: ChangeView['security']) => ({ compatibility, security }) as ChangeView;
    const changes = [change('ERR', null), change('WARN', null), change('INFO', 'HIGH'), change(null, 'WARN'), change('INFO', null)];
    const body = [{ findings: [{ level: 'WARN' }] }, { findings: [{ level: 'WARN' }, { level: 'HIGH' }] }] as BodyFindingView[];
    const instr = [{ findings: [{ level: 'WARN' }] }] as InstructionsChangeView[];
    const b = breakingOnly(changes, body, instr);
    expect(b.changes).toEqual([changes[0], changes[2]]);
    expect(b.bodyFindings).toEqual([body[1]]);
    expect(b.instructions).toEqual([]);
  });

  it("lock --opml writes the lock's breaking-only feeds as OPML a strict XML parser reads", async () => {
    const dir = tmp('mcps-lock-opml-');
    const file = path.join(dir, 'mcp-lock.json');
    writeFileSync(file, lockText(await lockOf([NAMES.drifts, NAMES.hostile], { archive: w.siteUrl })));
    const r = await run(['lock', '--opml', path.join(dir, 'feeds.opml'), '--lock', file]);
    expect([r.status, r.stdout]).toEqual([0, `Wrote 2 breaking-only feeds to "${path.join(dir, 'feeds.opml')}".\n`]);
    const outlines = opmlOutlines(readFileSync(path.join(dir, 'feeds.opml'), 'utf8'));
    expect(outlines).toEqual([
      { type: 'rss', text: NAMES.drifts, title: NAMES.drifts, xmlUrl: `${w.siteUrl}/servers/io.github.example_drifts/breaking.xml`, htmlUrl: `${w.siteUrl}/servers/io.github.example_drifts/` },
      { type: 'rss', text: NAMES.hostile, title: NAMES.hostile, xmlUrl: `${w.siteUrl}/servers/io.github.example_hostile/breaking.xml`, htmlUrl: `${w.siteUrl}/servers/io.github.example_hostile/` },
    ]);
    // A name that would end an attribute, open a tag or break XML stays one attribute value.
    const hostile = lockOpml('t', [{ name: `a" onload="x<b>&\u0001\n`, xmlUrl: 'https://x/f.xml', htmlUrl: null }], new Date(0));
    expect(opmlOutlines(hostile)).toEqual([{ type: 'rss', text: 'a" onload="x<b>&\ufffd\n', title: 'a" onload="x<b>&\ufffd\n', xmlUrl: 'https://x/f.xml' }]);
  }, 30_000);
});

function opmlOutlines(xml: string): Record<string, string>[] {
  const parser = new SaxesParser();
  const out: Record<string, string>[] = [];
  parser.on('error', (e) => {
    throw e;
  });
  parser.on('opentag', (t) => {
    if (t.name === 'outline') out.push(t.attributes as Record<string, string>);
  });
  parser.write(xml).close();
  return out;
}
