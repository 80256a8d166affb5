// npm run migrate -- [--data <dir>] [--json]
import { command, existing, exitCodes, expected, main } from '../cli-kit/index.ts';
import { formatReport, verifyArchive } from './verify.ts';
import { migrateArchive } from './migrate.ts';

export const HELP = `usage: npm run migrate -- [--data <dir>] [--json]

Moves an archive written before the packed-page layout (2026-12-01: listing pages stored as their
entries and a page manifest, finished days and rosters gzipped) to that layout, in place, losing nothing:
  - every raw listing page stored whole under objects/ is packed as its entries (objects) and a page
    manifest (pages/<aa>/<sha256>.json); the whole copy is removed only after the packed page reads
    back as the same bytes (a page that cannot be split exactly stays whole);
  - finished runs' rosters and finished days are gzipped in place (as npm run compact -- --finished);
  - then the archive is verified: every hash still resolves and the hash chain still matches.
Idempotent. Takes the collector's lock. To move objects/ and pages/ to an S3-compatible store
afterwards: npm run store -- push (see its --help).

  --data <dir>   the archive (default: data/)
  --json         print the summary (and the verify report) as JSON
  -h, --help     this text

${exitCodes({ 0: 'migrated and verified', 1: 'verify found a problem, or a page or day could not be moved (nothing lost)', 2: 'no archive at --data', 3: 'another collector holds the lock' })}`;

export const COMMAND = command({
  name: 'migrate',
  help: HELP,
  options: { data: { type: 'string', default: 'data' }, json: { type: 'boolean', default: false } },
});

main(import.meta.url, COMMAND, async ({ values }, io) => {
  const data = existing('data', values.data, 'dir')!;
  const s = await expected(migrateArchive(data));
  const report = await expected(verifyArchive(data));
  if (values.json) io.stdout(`${JSON.stringify({ migrate: s, verify: report }, null, 2)}\n`);
  else {
    io.stdout(
      `packed ${s.packed} of ${s.pages} listing pages (${s.already_packed} already packed, ${s.kept_whole} kept whole): ` +
        `${s.bytes_removed} bytes of whole pages → ${s.bytes_written} bytes of new entries and manifests\n` +
        `compacted ${s.compact.compacted.length} day files and ${s.compact.rosters.length} rosters (${s.compact.bytes_before} → ${s.compact.bytes_after} bytes)\n` +
        `${formatReport(report)}\n`,
    );
  }
  return report.problems.length === 0 ? 0 : 1;
});
