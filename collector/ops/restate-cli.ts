// npm run restate -- --methodology <series> [--data <dir>] [--json]
import { parseArgs } from 'node:util';
import { V1_SERIES } from '../../src/lib/index.ts';
import { isCliError } from '../cli-error.ts';
import { restate } from './restate.ts';
import { reproduceV2 } from './restate-v2.ts';

const HELP = `usage: npm run restate -- --methodology <series> [--data <dir>] [--json]

Re-derives a whole series from the raw objects under a methodology series and writes it to
<data>/restatements/<series>/ (observations/<day>.jsonl + manifest.json). The recorded v1 rows are
never rewritten. Restating under v1 itself checks that every recorded hash is reproduced.

Under v2 (the series in observations-v2/) it is that check for v2: every ok row's contract hash is
re-derived from all its stored tools/list pages and its instructions hash from the stored handshake;
nothing is written (v2 has no derived series yet).

  --methodology <series>  one of: ${V1_SERIES.join(', ')}, v2
  --data <dir>            the archive (default: data/)
  --json                  print the manifest as JSON
  -h, --help              this text`;

try {
  const { values } = parseArgs({
    options: { methodology: { type: 'string' }, data: { type: 'string', default: 'data' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  if (!values.methodology) throw Object.assign(new Error('--methodology is required'), { exitCode: 2 });
  if (values.methodology === 'v2') {
    const r = await reproduceV2(values.data);
    if (values.json) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    else {
      process.stdout.write(
        [
          `checked ${r.source_rows} v2 rows (${r.ok_rows} ok) over ${r.days.length} days: ${r.differing_rows} contract hashes, ${r.differing_instructions} instructions hashes and ${r.differing_caching} rows' caching fields differ from the recorded ones, ${r.unreadable_rows} rows with bodies unreadable`,
          ...r.examples,
        ].join('\n') + '\n',
      );
    }
    process.exit(r.unreadable_rows + r.differing_rows + r.differing_instructions + r.differing_caching > 0 ? 1 : 0);
  }
  const m = await restate(values.data, values.methodology);
  if (values.json) process.stdout.write(`${JSON.stringify(m, null, 2)}\n`);
  else {
    const hl = (s: typeof m.original) => (s.half_life ? `${s.half_life.median} d (at risk ${s.half_life.atRisk})` : '— (insufficient observation window)');
    process.stdout.write(
      [
        `restated ${m.source_rows} rows (${m.ok_rows} ok) over ${m.days.length} days under ${m.series}: ${m.differing_rows} hashes differ from v1, ${m.unreadable_rows} bodies unreadable`,
        `v1:          ${m.original.changes} changes in ${m.original.targets_changed} targets, ${m.original.intervals} intervals, half-life ${hl(m.original)}`,
        `${m.series.padEnd(12)} ${m.restated.changes} changes in ${m.restated.targets_changed} targets, ${m.restated.intervals} intervals, half-life ${hl(m.restated)}`,
        `written to ${values.data}/restatements/${m.series}/ — note: ${m.note}`,
      ].join('\n') + '\n',
    );
  }
  process.exit(m.unreadable_rows > 0 || (m.series === 'v1' && m.differing_rows > 0) ? 1 : 0);
} catch (e) {
  process.stderr.write(`restate: ${(e as Error).message}\n`);
  if (!isCliError(e) && (e as { exitCode?: number }).exitCode === undefined) process.stderr.write(`${HELP}\n`);
  process.exit(isCliError(e) ? e.exitCode : ((e as { exitCode?: number }).exitCode ?? 1));
}
