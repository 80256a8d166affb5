// npm run check -- <registry name | endpoint URL> [options]  (also the `mcp-schema-check` bin).
// The shared CLI convention (collector/cli-kit): runs the check once, prints the report (text, or
// --json), exits 0 / 1 / 2. Bad input is exit 2 with one line.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CliError, command, EXIT, EXIT_INTERNAL_LINE, execute, integer, main as entry, oneOf, usage, type Io, type Parsed } from '../cli-kit/index.ts';
import { USER_AGENT } from '../version.ts';
import { FAIL_ON_LEVELS, runCheck, type FailOn } from './check.ts';
import { renderReport } from './render.ts';
import { visibleData } from './text.ts';

/** The repository's opt-out list: the check contacts no server the collector would not. */
export const DEFAULT_OPTOUT = fileURLToPath(new URL('../../optout.txt', import.meta.url));

/** The project's public site (src/site/settings.ts DEFAULT_SITE_URL; test/check/cli.test.ts holds them equal). */
export const DEFAULT_ARCHIVE = 'https://mcp-schema.example.org';

export const CHECK_HELP = `mcp-schema check — compare a live remote MCP server with its archived contract

usage: npm run check -- <registry name | endpoint URL> [options]
       npx mcp-schema-check <registry name | endpoint URL> [options]

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
  --json               print the report as JSON (every server and registry string is data)
  --report <file>      also write the JSON report to this file (the text still goes to stdout)
  -h, --help           this text

exit codes: 0 same, or changed with nothing at the --fail-on level
            1 a change at or above the --fail-on level
            2 could not check: bad input, archive unreadable, not in the archive, no archived
              contract, opted out (the archive's record or optout.txt), unreachable, auth required (no credentials are ever sent),
              no tool list — each said in one sentence
            ${EXIT_INTERNAL_LINE}
user-agent: ${USER_AGENT}
`;

export const COMMAND = command({
  name: 'check',
  help: CHECK_HELP,
  positionals: 1,
  options: {
    archive: { type: 'string' },
    pin: { type: 'string' },
    'fail-on': { type: 'string' },
    timeout: { type: 'string' },
    'allow-private': { type: 'boolean' },
    json: { type: 'boolean' },
    report: { type: 'string' },
  },
});

export async function run({ values, positionals }: Parsed<typeof COMMAND.options>, io: Io): Promise<number> {
  if (positionals.length !== 1) throw usage('name one server: a registry name or its endpoint URL (see --help)');
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
  const json = `${JSON.stringify(visibleData(report), null, 2)}\n`;
  if (typeof values.report === 'string') {
    try {
      await writeFile(values.report, json);
    } catch (e) {
      throw new CliError(`could not write the report to ${JSON.stringify(values.report)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.usage, { cause: e });
    }
  }
  io.stdout(values.json ? json : renderReport(report));
  return report.exit_code;
}

/** The command on argv, its exit code returned (the bin's entry). */
export function main(argv: string[], io?: Io): Promise<number> {
  return execute(COMMAND, run, argv, io);
}

entry(import.meta.url, COMMAND, run);
