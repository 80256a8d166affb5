// npm run check -- <registry name | endpoint URL> [options]  (also the `mcp-schema-check` bin).
// Parses options as collector/cli.ts does (node:util parseArgs), runs the check once, prints the
// report (text, or --json), exits 0 / 1 / 2. Bad input is exit 2 with one plain sentence.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
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
              contract, opted out (the archive's record or optout.txt), an address the address policy
              refuses (never contacted), unreachable, auth required (no credentials are ever sent),
              no tool list — each said in one sentence
user-agent: ${USER_AGENT}
`;

export async function main(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        archive: { type: 'string' },
        pin: { type: 'string' },
        'fail-on': { type: 'string' },
        timeout: { type: 'string' },
        'allow-private': { type: 'boolean' },
        json: { type: 'boolean' },
        report: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    return usage((e as Error).message.replace(/\. To specify.*$/s, '').replace(/\.?$/, '.'));
  }
  if (values.help) {
    process.stdout.write(CHECK_HELP);
    return 0;
  }
  if (positionals.length !== 1) return usage(positionals.length === 0 ? 'Name one server: a registry name or its endpoint URL (npm run check -- --help).' : `Name one server, not ${positionals.length}.`);
  const failOn = (values['fail-on'] as string | undefined) ?? 'ERR';
  if (!(FAIL_ON_LEVELS as readonly string[]).includes(failOn)) return usage(`--fail-on must be ERR, WARN or INFO, not ${JSON.stringify(failOn.slice(0, 40))}.`);
  if (values.pin !== undefined && !/^[0-9a-f]{64}$/.test(values.pin as string)) return usage('--pin must be a tool set hash: 64 lowercase hex digits.');
  const timeout = values.timeout === undefined ? 15_000 : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 100 || timeout > 120_000) return usage('--timeout must be a whole number of milliseconds between 100 and 120000.');
  const report = await runCheck({
    target: positionals[0]!,
    archive: (values.archive as string | undefined) ?? DEFAULT_ARCHIVE,
    pin: (values.pin as string | undefined) ?? null,
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
      process.stderr.write(`Could not write the report to ${JSON.stringify(values.report)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.\n`);
      return 2;
    }
  }
  process.stdout.write(values.json ? json : renderReport(report));
  return report.exit_code;

  function usage(sentence: string): number {
    process.stderr.write(`${sentence}\n`);
    return 2;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`The check failed on a bug of ours: ${(e as Error).message}\n`);
      process.exitCode = 2;
    },
  );
}
