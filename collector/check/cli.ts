// npm run check -- <registry name | endpoint URL> [options]  (also the `mcp-schema-check` bin).
// The shared CLI convention (collector/cli-kit): runs the check once, prints the report (text, or
// --json), exits 0 / 1 / 2. Bad input is exit 2 with one line.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, command, EXIT, EXIT_INTERNAL_LINE, execute, integer, main as entry, oneOf, usage, type Io, type Parsed } from '../cli-kit/index.ts';
import { USER_AGENT } from '../version.ts';
import { emptyLock, lockText, lockWith, McpLockError, MCP_LOCK_SCHEMA_PATH, readLock, type McpLock } from '../../src/lib/index.ts';
import { FAIL_ON_LEVELS, runCheck, type FailOn } from './check.ts';
import { checkLock, lockFeeds, pinLock, type LockReport } from './lock.ts';
import { issueStep, lockIssue } from './lock-issue.ts';
import { lockOpml } from './opml.ts';
import { renderLockReport, renderReport } from './render.ts';
import { quoted, visibleData } from './text.ts';

/** The repository's opt-out list: the check contacts no server the collector would not. */
export const DEFAULT_OPTOUT = fileURLToPath(new URL('../../optout.txt', import.meta.url));

/** The project's public site (src/site/settings.ts DEFAULT_SITE_URL; test/check/cli.test.ts holds them equal). */
export const DEFAULT_ARCHIVE = 'https://mcp-schema.example.org';

export const CHECK_HELP = `mcp-schema check — compare a live remote MCP server with its archived contract

usage: npm run check -- <registry name | endpoint URL> [options]
       npm run check -- --lock mcp-lock.json [options]        check every server the lock pins
       npm run check -- lock <name | URL>… [--lock <file>] [--archive …]   pin servers in the lock
       npm run check -- lock --opml <file | -> [--lock <file>]   their breaking-only feeds as OPML
       npm run check -- lock-issue <lock report.json> <folder>   (the Action's issue step: reads
                       <folder>/open.json, writes title.txt, body.md, closing.md there, prints
                       "create", "update <n>", "close <n>" or "none")
       npx mcp-schema-check … (the same)

Probes the server once with methodology v2's probe (the collector's own: at most 8 requests, the same
size caps, redirects, address policy and User-Agent), computes its contract hash, tool set hash and
per-tool definition hashes, reads its descriptor and tools file from a published archive, and prints
the classified difference: rule ids, levels, the tools they concern, the archived version's dates.
A name is looked up as /api/servers/<slug>.json; a URL through /api/endpoints/ (it must be the
endpoint exactly as the registry lists it).

  --archive <url|dir>  the published archive: a base URL or a local folder holding a built site
                       (default ${DEFAULT_ARCHIVE})
  --pin <set hash>     compare with this tool set hash (/api/sets/<hash>.json and its raw answer)
                       instead of the latest archived contract
  --fail-on <level>    ERR, WARN or INFO (default ERR): exit 1 when a finding is at or above it;
                       security HIGH counts as ERR, security WARN as WARN
  --timeout <ms>       per request (default 15000)
  --allow-private      also permit loopback endpoints (local worlds and tests only; private,
                       link-local and every other non-public range stay refused)
  --lock <file>        mcp-lock.json: without \`lock\`, check every entry against its pinned set (one
                       probe per server, one report, the worst exit code; each entry's fail_on, else
                       the lock's, else --fail-on); with \`lock\`, the file to write or extend
                       (default mcp-lock.json). The lock's "archive" is the default --archive.
  --opml <file|->      with \`lock\`: write the lock's servers' breaking-only feeds (ERR and security
                       HIGH) as one OPML file a feed reader imports (- for stdout)
  --json               print the report as JSON (every server and registry string is data)
  --report <file>      also write the JSON report to this file (the text still goes to stdout)
  -h, --help           this text

exit codes: 0 same, or changed with nothing at the --fail-on level
            1 a change at or above the --fail-on level
            2 could not check: bad input, archive unreadable, not in the archive, no archived
              contract, opted out (the archive's record or optout.txt), an address the address policy
              refuses (never contacted), unreachable, auth required (no credentials are ever sent),
              no tool list — each said in one sentence
            ${EXIT_INTERNAL_LINE}
user-agent: ${USER_AGENT}
`;

export const COMMAND = command({
  name: 'check',
  help: CHECK_HELP,
  /** `lock <name…>` names any number of servers. */
  positionals: Number.MAX_SAFE_INTEGER,
  options: {
    archive: { type: 'string' },
    pin: { type: 'string' },
    'fail-on': { type: 'string' },
    timeout: { type: 'string' },
    'allow-private': { type: 'boolean' },
    json: { type: 'boolean' },
    report: { type: 'string' },
    lock: { type: 'string' },
    opml: { type: 'string' },
  },
});

export async function run({ values, positionals }: Parsed<typeof COMMAND.options>, io: Io): Promise<number> {
  if (positionals[0] === 'lock') return lockCommand(positionals.slice(1), values);
  if (positionals[0] === 'lock-issue') return lockIssueCommand(positionals.slice(1));
  if (values.opml !== undefined) throw usage('--opml goes with the lock subcommand: npm run check -- lock --opml <file>');
  if (values.lock !== undefined) return lockCheck(positionals, values);
  if (positionals.length !== 1) throw usage(positionals.length === 0 ? 'name one server: a registry name or its endpoint URL (see --help)' : `name one server, not ${positionals.length}`);
  const failOn = oneOf('fail-on', values['fail-on'], FAIL_ON_LEVELS) ?? 'ERR';
  if (values.pin !== undefined && !/^[0-9a-f]{64}$/.test(values.pin)) throw usage(`--pin must be a tool set hash (64 lowercase hex digits), got ${JSON.stringify(values.pin.slice(0, 70))}`);
  const timeout = integer('timeout', values.timeout, { min: 100, max: 120_000 }) ?? 15_000;
  const report = await runCheck({
    target: positionals[0]!,
    archive: values.archive ?? DEFAULT_ARCHIVE,
    pin: values.pin ?? null,
    failOn: failOn as FailOn,
    allowPrivate: values['allow-private'] === true,
    timeoutMs: timeout,
    optout: DEFAULT_OPTOUT,
  });
  const json = await reportJson(report, values.report);
  io.stdout(values.json ? json : renderReport(report));
  return report.exit_code;
}

/** The report as JSON (every server and registry string as data), also written to `file` when one is given. */
async function reportJson(report: unknown, file: unknown): Promise<string> {
  const json = `${JSON.stringify(visibleData(report), null, 2)}\n`;
  if (typeof file === 'string') {
    try {
      await writeFile(file, json);
    } catch (e) {
      throw new CliError(`could not write the report to ${JSON.stringify(file)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.usage, { cause: e });
    }
  }
  return json;
}

type Values = Record<string, string | boolean | undefined>;

/** The lockfile at `file`, or null when there is none; a file that is there but unreadable is an error (never overwritten). */
async function loadLock(file: string): Promise<McpLock | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new McpLockError(`Could not read the lockfile ${quoted(file)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
  return readLock(text);
}

function timeoutOf(values: Values): number | null {
  const timeout = values.timeout === undefined ? 15_000 : Number(values.timeout);
  return Number.isInteger(timeout) && timeout >= 100 && timeout <= 120_000 ? timeout : null;
}

/** `--lock <file>`: every entry checked, one report. */
async function lockCheck(positionals: string[], values: Values): Promise<number> {
  if (positionals.length > 0) throw usage('With --lock, name no server: the lock names them (npm run check -- --help).');
  if (values.pin !== undefined) throw usage('--pin does not go with --lock: each entry is its own pin.');
  const failOn = (values['fail-on'] as string | undefined) ?? 'ERR';
  if (!(FAIL_ON_LEVELS as readonly string[]).includes(failOn)) throw usage(`--fail-on must be ERR, WARN or INFO, not ${JSON.stringify(failOn.slice(0, 40))}.`);
  const timeout = timeoutOf(values);
  if (timeout === null) throw usage('--timeout must be a whole number of milliseconds between 100 and 120000.');
  const file = values.lock as string;
  let lock: McpLock | null;
  try {
    lock = await loadLock(file);
  } catch (e) {
    if (e instanceof McpLockError) throw usage(e.message);
    throw e;
  }
  if (lock === null) throw usage(`There is no lockfile at ${quoted(file)}: write one with npm run check -- lock <name…> --lock ${file}.`);
  if (lock.servers.length === 0) throw usage(`The lockfile ${quoted(file)} pins no server: add one with npm run check -- lock <name…>.`);
  const report = await checkLock({ lock, lockPath: file, archive: (values.archive as string | undefined) ?? lock.archive ?? DEFAULT_ARCHIVE, allowPrivate: values['allow-private'] === true, timeoutMs: timeout, optout: DEFAULT_OPTOUT, failOn: failOn as FailOn });
  const json = await reportJson(report, values.report);
  process.stdout.write(values.json ? json : renderLockReport(report));
  return report.exit_code;
}

/** `lock <name…>`: pin servers from the archive's record; `lock --opml <file>`: the lock's breaking-only feeds. */
async function lockCommand(targets: string[], values: Values): Promise<number> {
  const file = (values.lock as string | undefined) ?? 'mcp-lock.json';
  let lock: McpLock | null;
  try {
    lock = await loadLock(file);
  } catch (e) {
    if (e instanceof McpLockError) throw usage(`${e.message} It was left as it is.`);
    throw e;
  }
  const archive = (values.archive as string | undefined) ?? lock?.archive ?? DEFAULT_ARCHIVE;
  if (values.opml !== undefined) {
    if (targets.length > 0) throw usage('lock --opml writes the feeds of the servers the lock already pins: name no server.');
    if (lock === null || lock.servers.length === 0) throw usage(`The lockfile ${quoted(file)} pins no server, so there are no feeds to list.`);
    const feeds = await lockFeeds({ lock, archive });
    for (const f of feeds.failed) process.stderr.write(`${f.reason}\n`);
    const opml = lockOpml(`mcp-schema: breaking changes of the servers in ${file}`, feeds.feeds, new Date());
    if (values.opml === '-') process.stdout.write(opml);
    else {
      try {
        await writeFile(values.opml as string, opml);
      } catch (e) {
        throw usage(`Could not write the OPML to ${quoted(values.opml as string)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
      }
      process.stdout.write(`Wrote ${feeds.feeds.length} breaking-only feed${feeds.feeds.length === 1 ? '' : 's'} to ${quoted(values.opml as string)}.\n`);
    }
    return feeds.failed.length > 0 ? 2 : 0;
  }
  if (targets.length === 0) throw usage('Name the servers to pin: npm run check -- lock <registry name | endpoint URL>… (or --opml <file>).');
  const pinned = await pinLock({ targets, archive });
  const base = lock ?? emptyLock(/^https?:\/\//i.test(archive) ? new URL(MCP_LOCK_SCHEMA_PATH.slice(1), archive.replace(/\/*$/, '/')).href : `${DEFAULT_ARCHIVE}${MCP_LOCK_SCHEMA_PATH}`);
  const next = lockWith(values.archive !== undefined && /^https?:\/\//i.test(archive) ? { ...base, archive } : base, pinned.entries);
  if (pinned.entries.length > 0) {
    try {
      await writeFile(file, lockText(next));
    } catch (e) {
      throw usage(`Could not write the lockfile ${quoted(file)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
    }
  }
  for (const e of pinned.entries) process.stdout.write(`pinned ${quoted(e.name)}: set ${e.set_sha256}, ${e.tools.length} tool${e.tools.length === 1 ? '' : 's'}, stable ${e.pinned.stable_days ?? '?'} days (first seen ${e.pinned.first_seen ?? '?'}, last seen ${e.pinned.last_seen ?? '?'})\n`);
  for (const f of pinned.failed) process.stderr.write(`not pinned ${quoted(f.target)}: ${f.reason}\n`);
  if (pinned.entries.length > 0) process.stdout.write(`wrote ${quoted(file)} (${next.servers.length} server${next.servers.length === 1 ? '' : 's'})\n`);
  return pinned.failed.length > 0 ? 2 : 0;
}

/** `lock-issue <report> <folder>`: what the Action does with the lock's issue (lock-issue.ts). */
async function lockIssueCommand(args: string[]): Promise<number> {
  if (args.length !== 2) throw usage('lock-issue takes the lock report (--report of --lock) and a folder: npm run check -- lock-issue <report.json> <folder>.');
  const [reportFile, dir] = args as [string, string];
  let report: LockReport;
  let open: unknown = [];
  try {
    report = JSON.parse(await readFile(reportFile, 'utf8')) as LockReport;
    if (report?.lock_report_version !== 1 || !Array.isArray(report.servers)) throw usage(`${quoted(reportFile)} is not a lock report (npm run check -- --lock <file> --report <file>).`);
  } catch (e) {
    throw usage(`Could not read the lock report ${quoted(reportFile)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
  try {
    open = JSON.parse(await readFile(path.join(dir, 'open.json'), 'utf8')) as unknown;
  } catch (e) {
    throw usage(`Could not read the open issues ${quoted(path.join(dir, 'open.json'))} (gh issue list --json number,body): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
  const issue = lockIssue(report);
  const step = issueStep(issue, open);
  await writeFile(path.join(dir, 'title.txt'), issue.title);
  await writeFile(path.join(dir, 'body.md'), issue.body);
  await writeFile(path.join(dir, 'closing.md'), issue.closing);
  process.stdout.write(`${step.step}${step.number === null ? '' : ` ${step.number}`}\n`);
  return 0;
}

/** The command on argv, its exit code returned (the bin's entry). */
export function main(argv: string[], io?: Io): Promise<number> {
  return execute(COMMAND, run, argv, io);
}

entry(import.meta.url, COMMAND, run);
