// npm run verify -- [--data <dir>] [--json]
import { parseArgs } from 'node:util';
import { formatReport, verifyArchive } from './verify.ts';

const HELP = `usage: npm run verify -- [--data <dir>] [--json]

Checks an archive: every row validates, every referenced object exists and hashes to its name,
one row per target per run, run rows agree with their rows and rosters, no torn line or temp file.
Exits 1 on any problem, 2 on bad usage.

  --data <dir>   the archive (default: data/)
  --json         print the report as JSON
  -h, --help     this text`;

let args;
try {
  args = parseArgs({ options: { data: { type: 'string', default: 'data' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } });
} catch (e) {
  process.stderr.write(`verify: ${(e as Error).message}\n${HELP}\n`);
  process.exit(2);
}
if (args.values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const report = await verifyArchive(args.values.data);
process.stdout.write(args.values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
process.exit(report.problems.length === 0 ? 0 : 1);
