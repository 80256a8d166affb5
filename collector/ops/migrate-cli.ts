// npm run migrate -- [--data <dir>] [--json]
import { parseArgs } from 'node:util';
import { isCliError } from '../cli-error.ts';
import { formatReport, verifyArchive } from './verify.ts';
import { migrateArchive } from './migrate.ts';

const HELP = `usage: npm run migrate -- [--data <dir>] [--json]

Moves an archive written before issue 23 to the layout that lasts, in place, losing nothing:
  - every raw listing page stored whole under objects/ is packed as its entries (objects) and a page
    manifest (pages/<aa>/<sha256>.json); the whole copy is removed only after the packed page reads
    back as the same bytes (a page that cannot be split exactly stays whole);
  - finished runs' rosters and finished days are gzipped in place (as npm run compact -- --finished);
  - then the archive is verified: every hash still resolves and the hash chain still matches.
Idempotent. Takes the collector's lock. To move objects/ and pages/ to an S3-compatible store
afterwards: npm run store -- push (see its --help). Exits 1 when verify finds a problem.

  --data <dir>   the archive (default: data/)
  --json         print the summary (and the verify report) as JSON
  -h, --help     this text`;

try {
  const { values } = parseArgs({ options: { data: { type: 'string', default: 'data' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const s = await migrateArchive(values.data);
  const report = await verifyArchive(values.data);
  if (values.json) process.stdout.write(`${JSON.stringify({ migrate: s, verify: report }, null, 2)}\n`);
  else {
    process.stdout.write(
      `packed ${s.packed} of ${s.pages} listing pages (${s.already_packed} already packed, ${s.kept_whole} kept whole): ` +
        `${s.bytes_removed} bytes of whole pages → ${s.bytes_written} bytes of new entries and manifests\n` +
        `compacted ${s.compact.compacted.length} day files and ${s.compact.rosters.length} rosters (${s.compact.bytes_before} → ${s.compact.bytes_after} bytes)\n` +
        `${formatReport(report)}\n`,
    );
  }
  process.exit(report.problems.length === 0 ? 0 : 1);
} catch (e) {
  process.stderr.write(`migrate: ${(e as Error).message}\n`);
  process.exit(isCliError(e) ? e.exitCode : 1);
}
