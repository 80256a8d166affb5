// npm run verify -- [--data <dir>] [--key <file>]... [--json]
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { formatReport, verifyArchive } from './verify.ts';
import { loadKeys } from './verify-chain.ts';

/** The project's public key, committed beside the code (keys/README.md). */
const REPO_KEY = fileURLToPath(new URL('../../keys/mcp-schema-ed25519.pub', import.meta.url));

const HELP = `usage: npm run verify -- [--data <dir>] [--key <file>]... [--json]

Checks an archive, each series (observations/ v1, observations-v2/ v2) by its own contract: every row
validates, every referenced object exists and hashes to its name (v2: the handshake and every
tools/list page), one row per target per run, run rows agree with their rows and rosters (and the two
rows of a run that recorded both series with each other), no torn line or temp file, and the hash
chain (chain.jsonl): each manifest names the one before it, still matches the rows, runs lines,
roster and objects of its run, and its signature verifies. The first broken link is named by its
run. Exits 1 on any problem, 2 on bad usage.

  --data <dir>   the archive (default: data/)
  --key <file>   an Ed25519 public key (PEM) the chain may be signed with; repeatable
                 (default: keys/mcp-schema-ed25519.pub when it exists). Demo keys are read from
                 the archive's own keys/ folder and say so.
  --json         print the report as JSON
  -h, --help     this text`;

let args;
try {
  args = parseArgs({ options: { data: { type: 'string', default: 'data' }, key: { type: 'string', multiple: true }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } });
} catch (e) {
  process.stderr.write(`verify: ${(e as Error).message}\n${HELP}\n`);
  process.exit(2);
}
if (args.values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
let keys;
try {
  keys = loadKeys(args.values.key ?? (existsSync(REPO_KEY) ? [REPO_KEY] : []));
} catch (e) {
  process.stderr.write(`verify: --key: ${(e as Error).message}\n`);
  process.exit(2);
}
const report = await verifyArchive(args.values.data, { keys });
process.stdout.write(args.values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
process.exit(report.problems.length === 0 ? 0 : 1);
