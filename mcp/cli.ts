// npm run mcp -- [--archive <url|dir>] [--allow-private]  (also the `mcp-schema-mcp` bin): the MCP
// server over a published archive (server.ts) on stdio. stdout is the protocol; everything else goes
// to stderr. Options are parsed as collector/cli.ts does (node:util parseArgs).
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { DEFAULT_ARCHIVE } from '../collector/check/cli.ts';
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
`;

export async function main(argv: string[]): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: { archive: { type: 'string' }, 'allow-private': { type: 'boolean' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message.replace(/\. To specify.*$/s, '').replace(/\.?$/, '.')}\n`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(MCP_HELP);
    return;
  }
  const timeout = values.timeout === undefined ? MCP_CHECK_TIMEOUT_MS : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 100 || timeout > 120_000) {
    process.stderr.write('--timeout must be a whole number of milliseconds between 100 and 120000.\n');
    process.exitCode = 2;
    return;
  }
  let server;
  try {
    server = createArchiveServer({ archive: (values.archive as string | undefined) ?? DEFAULT_ARCHIVE, allowPrivate: values['allow-private'] === true, timeoutMs: timeout });
  } catch (e) {
    if (!(e instanceof ArchiveUnavailable)) throw e;
    process.stderr.write(`${e.message}.\n`);
    process.exitCode = 2;
    return;
  }
  await server.connect(new StdioServerTransport());
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`The MCP server failed on a bug of ours: ${(e as Error).message}\n`);
    process.exitCode = 2;
  });
}
