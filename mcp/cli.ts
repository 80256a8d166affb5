// npm run mcp -- [--archive <url|dir>] [--allow-private]  (also the `mcp-schema-mcp` bin): the MCP
// server over a published archive (server.ts) on stdio. stdout is the protocol; everything else goes
// to stderr. The shared CLI convention (collector/cli-kit).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { DEFAULT_ARCHIVE } from '../collector/check/cli.ts';
import { CliError, command, EXIT, execute, exitCodes, integer, main as entry, type Io, type Parsed } from '../collector/cli-kit/index.ts';
import { ArchiveUnavailable } from '../collector/check/archive.ts';
import { createArchiveServer } from './server.ts';

/** check_server's per-request deadline: 8 × 6 s stays under the SDK client's default 60 s request timeout. */
export const MCP_CHECK_TIMEOUT_MS = 6_000;

export const MCP_HELP = `mcp-schema MCP server — the archive of remote MCP contracts, as tools for an MCP client

usage: npm run -s mcp -- [options]   (-s: without it npm prints a banner on stdout, the protocol's channel)
       npx mcp-schema-mcp [options]

Speaks MCP over stdio. Tools: get_server, changes, find_servers_by_tool, lookup_set_hash (read the
archive's static files only) and check_server (probes one live server once, as npm run check does).
Registry and server text comes back inside each answer's \`data\`, as quoted JSON strings, never in
its \`summary\`; the server's instructions tell the client so.

  --archive <url|dir>  the published archive: a base URL or a local folder holding a built site
                       (default ${DEFAULT_ARCHIVE})
  --allow-private      check_server may probe loopback endpoints (local worlds and tests only)
  --timeout <ms>       check_server's per-request deadline (default ${MCP_CHECK_TIMEOUT_MS}: the probe's 8 requests then
                       stay under the 60 s an SDK client waits for an answer by default)
  -h, --help           this text

${exitCodes({ 0: 'the client closed the connection', 2: 'bad usage, or the archive is unusable (not a URL, no built site in the folder)' })}
`;

export const COMMAND = command({
  name: 'mcp',
  help: MCP_HELP,
  options: { archive: { type: 'string' }, 'allow-private': { type: 'boolean' }, timeout: { type: 'string' } },
});

export async function run({ values }: Parsed<typeof COMMAND.options>, _io: Io): Promise<number> {
  const timeout = integer('timeout', values.timeout, { min: 100, max: 120_000 }) ?? MCP_CHECK_TIMEOUT_MS;
  let server;
  try {
    server = createArchiveServer({ archive: values.archive ?? DEFAULT_ARCHIVE, allowPrivate: values['allow-private'] === true, timeoutMs: timeout });
  } catch (e) {
    if (!(e instanceof ArchiveUnavailable)) throw e;
    throw new CliError(e.message, EXIT.usage, { cause: e });
  }
  await server.connect(new StdioServerTransport());
  return EXIT.ok;
}

/** The command on argv (the bin's entry): the server runs until the client closes stdin. */
export async function main(argv: string[], io?: Io): Promise<void> {
  const code = await execute(COMMAND, run, argv, io);
  if (code !== EXIT.ok) process.exitCode = code;
}

entry(import.meta.url, COMMAND, run);
