// action.yml over a lockfile: the check step with `lock`, and the issue step run by bash as the runner
// would, with a stand-in `gh` on PATH that keeps the repository's issues in a file and records what it
// was asked. The lock reports come from the real check of real SDK servers on loopback (the loopback
// world needs --allow-private, which the action never passes: so the reports are made by checkLock
// here, and the action's own check step is shown refusing loopback, as it would on a runner).
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLock, pinLock, type LockReport } from '../../collector/check/lock.ts';
import { fenced, issueMarker, lockIssue } from '../../collector/check/lock-issue.ts';
import { visibleData } from '../../collector/check/text.ts';
import { emptyLock, lockText, lockWith, type McpLock } from '../../src/lib/index.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { checkScript, stepScript } from './action.ts';
import { HOSTILE_TOOL, NAMES, startCheckWorld, type CheckWorld } from './world.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const tmp = scratchDirs();
let w: CheckWorld;

beforeAll(async () => {
  w = await startCheckWorld({ archive: tmp('mcps-lact-archive-'), site: tmp('mcps-lact-site-') });
  await w.goLive();
}, 120_000);
afterAll(async () => {
  await w?.close();
});

interface Issue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  comments: string[];
}

/** A stand-in gh: issue list / create / edit / close against a JSON file of issues; every call logged. */
function standInGh(dir: string, issues: Issue[] = []): { env: Record<string, string>; issues(): Issue[]; calls(): string[][] } {
  const state = path.join(dir, 'issues.json');
  const log = path.join(dir, 'gh-calls.jsonl');
  writeFileSync(state, JSON.stringify(issues));
  writeFileSync(log, '');
  writeFileSync(
    path.join(dir, 'gh'),
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(process.env.GH_LOG, JSON.stringify(args) + '\\n');
const issues = JSON.parse(fs.readFileSync(process.env.GH_STATE, 'utf8'));
const opt = (name) => { const i = args.indexOf(name); return i < 0 ? undefined : args[i + 1]; };
const save = () => fs.writeFileSync(process.env.GH_STATE, JSON.stringify(issues));
if (args[0] !== 'issue' || opt('--repo') !== 'owner/product') { console.error('unexpected: ' + args.join(' ')); process.exit(3); }
if (args[1] === 'list') {
  if (opt('--state') !== 'open' || opt('--json') !== 'number,body') process.exit(4);
  process.stdout.write(JSON.stringify(issues.filter((i) => i.state === 'open').map((i) => ({ number: i.number, body: i.body }))));
} else if (args[1] === 'create') {
  issues.push({ number: issues.length + 1, title: opt('--title'), body: fs.readFileSync(opt('--body-file'), 'utf8'), state: 'open', comments: [] });
  save();
} else if (args[1] === 'edit') {
  const i = issues.find((x) => x.number === Number(args[2]));
  i.title = opt('--title'); i.body = fs.readFileSync(opt('--body-file'), 'utf8');
  save();
} else if (args[1] === 'close') {
  const i = issues.find((x) => x.number === Number(args[2]));
  i.state = 'closed'; i.comments.push(opt('--comment'));
  save();
} else process.exit(5);
`,
  );
  chmodSync(path.join(dir, 'gh'), 0o755);
  return {
    env: { PATH: `${dir}:${process.env.PATH}`, GH_STATE: state, GH_LOG: log, GITHUB_REPOSITORY: 'owner/product', GH_TOKEN: 'not-a-token' },
    issues: () => JSON.parse(readFileSync(state, 'utf8')) as Issue[],
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]),
  };
}

function bash(script: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function lockOf(names: string[]): Promise<McpLock> {
  const pinned = await pinLock({ targets: names, archive: w.siteUrl });
  expect(pinned.failed).toEqual([]);
  return lockWith(emptyLock(), pinned.entries);
}

/** The lock's report as the check step writes it (--report: visibleData JSON). */
async function reportFile(dir: string, lock: McpLock, name: string): Promise<string> {
  const r = await checkLock({ lock, lockPath: '/repo/mcp-lock.json', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000 });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(visibleData(r), null, 2)}\n`);
  return file;
}

/** Lines of Markdown outside fenced code blocks (the fence closes only on the same fence). */
function outsideFences(md: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of md.split('\n')) {
    if (fence === null) {
      const m = /^(`{3,})text$/.exec(line);
      if (m) fence = m[1]!;
      else out.push(line);
    } else if (line === fence) fence = null;
  }
  expect(fence).toBeNull();
  return out;
}

describe("the Action's lockfile issue", () => {
  it('opens one issue on a breaking change, updates it (never a duplicate), leaves it while a server cannot be checked, closes it when all are back', async () => {
    const dir = tmp('mcps-lact-');
    const gh = standInGh(dir, [{ number: 1, title: 'unrelated', body: `someone quoting ${issueMarker('/repo/mcp-lock.json')} in an issue of their own`, state: 'open', comments: [] }]);
    const env = (report: string) => ({ ...gh.env, REPORT: report, RUNNER_TEMP: dir, GITHUB_OUTPUT: path.join(dir, 'output') });
    const broken = await reportFile(dir, await lockOf([NAMES.same, NAMES.broken]), 'broken');

    const first = await bash(stepScript('issue'), env(broken));
    expect(first.status).toBe(0);
    const opened = gh.issues().filter((i) => i.number !== 1);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ number: 2, state: 'open', title: 'mcp-schema: 1 pinned MCP server changed at or above fail-on' });
    expect(opened[0]!.body.startsWith(issueMarker('/repo/mcp-lock.json'))).toBe(true);
    expect(opened[0]!.body).toContain('mcp-schema check of "io.github.example/broken"');
    expect(opened[0]!.body).toMatch(/ERR {2}tool-removed {2}tool "define"/);
    expect(opened[0]!.body).toContain(`The archive's page for it: ${w.siteUrl}/servers/io.github.example_broken/`);
    expect(opened[0]!.body).not.toContain('io.github.example/same"\n  endpoint'); // only the breaking server's report
    expect(readFileSync(path.join(dir, 'output'), 'utf8')).toMatch(/^step=create$/m);

    const again = await bash(stepScript('issue'), env(broken));
    expect(again.status).toBe(0);
    expect(gh.issues().filter((i) => i.state === 'open')).toHaveLength(2); // the unrelated one and ours: no duplicate
    expect(gh.calls().map((c) => c.slice(0, 3).join(' '))).toEqual(['issue list --repo', 'issue create --repo', 'issue list --repo', 'issue edit 2']);

    // `walled` cannot be checked and nothing broke: nothing is known to be fixed, so the issue stays.
    const unknown = await reportFile(dir, await lockOf([NAMES.same, NAMES.walled]), 'unknown');
    await bash(stepScript('issue'), env(unknown));
    expect(gh.issues().find((i) => i.number === 2)!.state).toBe('open');
    expect(gh.calls().at(-1)!.slice(0, 2)).toEqual(['issue', 'list']);

    // The pin updated (here: `broken` dropped from the lock): every server back, so it closes, once.
    const back = await reportFile(dir, await lockOf([NAMES.same]), 'back');
    await bash(stepScript('issue'), env(back));
    const closed = gh.issues().find((i) => i.number === 2)!;
    expect(closed.state).toBe('closed');
    expect(closed.comments).toEqual([expect.stringMatching(/serves its pinned contract, or one compatible with it, again \(same 1, compatible 0\): closing\.$/)]);
    expect(gh.issues().find((i) => i.number === 1)!.state).toBe('open');
    await bash(stepScript('issue'), env(back));
    expect(gh.calls().at(-1)!.slice(0, 2)).toEqual(['issue', 'list']); // nothing open of ours: nothing to close
  }, 60_000);

  it("the action's check step with a lock: the lock's servers on loopback are refused (as on a runner), and the issue step then leaves everything alone", async () => {
    const dir = tmp('mcps-lact-step-');
    writeFileSync(path.join(dir, 'mcp-lock.json'), lockText({ ...(await lockOf([NAMES.broken])), archive: w.siteUrl }));
    const gh = standInGh(dir);
    const files = { GITHUB_OUTPUT: path.join(dir, 'output'), GITHUB_STEP_SUMMARY: path.join(dir, 'summary'), RUNNER_TEMP: dir, GITHUB_WORKSPACE: dir };
    const check = await bash(checkScript(), { ...files, SERVER: '', PIN: '', FAIL_ON: 'ERR', ARCHIVE: '', LOCK: 'mcp-lock.json' });
    expect(check.status).toBe(2);
    expect(check.stdout).toMatch(/^ {2}COULD-NOT-CHECK "io\.github\.example\/broken" \(fail-on ERR, pinned set [0-9a-f]{12}…\) address-refused$/m);
    const report = /^report=(.+)$/m.exec(readFileSync(files.GITHUB_OUTPUT, 'utf8'))![1]!;
    expect((JSON.parse(readFileSync(report, 'utf8')) as LockReport).lock).toBe(path.join(dir, 'mcp-lock.json'));
    const issue = await bash(stepScript('issue'), { ...gh.env, ...files, REPORT: report });
    expect(issue.status).toBe(0);
    expect(issue.stdout).toBe("The lockfile's issue is left as it is.\n");
    expect(gh.issues()).toEqual([]);
  }, 60_000);

  it('hostile server text in the body stays inert: inside fences no line can close, no @mention or Markdown outside them', async () => {
    const lock = await lockOf([NAMES.hostile]);
    const r = await checkLock({ lock: { ...lock, servers: [{ ...(await lockOf([NAMES.same])).servers[0]!, name: NAMES.hostile }] }, lockPath: '/repo/mcp-lock.json', archive: w.siteUrl, allowPrivate: true, timeoutMs: 3000 });
    expect(r.servers[0]!.report.diff!.added).toContain(HOSTILE_TOOL);
    // A server whose text tries to close the fence, ping a team and link out.
    const attack = '````\n@everyone [click](https://evil.example) <img src=x onerror=alert(1)> ```';
    r.servers[0]!.report.verdict = 'breaking';
    r.servers[0]!.report.diff!.added.push(attack);
    r.servers[0]!.report.findings.push({ rule: 'tool-added', axis: 'compatibility', level: 'INFO', tool: attack, path: '', fingerprint: 'x', message: `Tool ${attack} was added.` });
    const issue = lockIssue({ ...r, counts: { ...r.counts, breaking: 1 } });
    const outside = outsideFences(issue.body).join('\n');
    expect(outside).not.toMatch(/@everyone|evil\.example|<img|\u202e|fdp\.exe/);
    expect(outside).not.toContain(NAMES.hostile);
    expect(issue.body).toContain('@everyone'); // it is there, fenced, as data
    expect(issue.body).not.toContain('\u202e');
    expect(issue.body).toMatch(/^`{5}text$/m); // longer than the server's four backticks
    // The fence rule itself: a run of backticks inside makes a longer fence.
    expect(fenced('a ``` b')).toBe('````text\na ``` b\n````');
    expect(fenced('plain')).toBe('```text\nplain\n```');
  });
});
