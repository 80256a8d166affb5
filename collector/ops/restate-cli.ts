// npm run restate -- --methodology <series> [--data <dir>] [--json]
import { V1_SERIES } from '../../src/lib/index.ts';
import { command, exitCodes, expected, main, oneOf, required } from '../cli-kit/index.ts';
import { restate } from './restate.ts';
import { reproduceV2 } from './restate-v2.ts';

export const HELP = `usage: npm run restate -- --methodology <series> [--data <dir>] [--json]

Re-derives a whole series from the raw objects under a methodology series and writes it to
<data>/restatements/<series>/ (observations/<day>.jsonl + manifest.json). The recorded v1 rows are
never rewritten. Restating under v1 itself checks that every recorded hash is reproduced.

Under v2 (the series in observations-v2/) it is that check for v2: every ok row's contract hash is
re-derived from all its stored tools/list pages and its instructions hash from the stored handshake;
nothing is written (v2 has no derived series yet).

  --methodology <series>  one of: ${V1_SERIES.join(', ')}, v2
  --data <dir>            the archive (default: data/)
  --json                  print the manifest as JSON
  -h, --help              this text

${exitCodes({ 0: 'every recorded hash reproduced (v1, v2), or the series restated', 1: 'a body unreadable, or a recorded hash not reproduced', 2: 'bad usage, or no observations in --data' })}`;

export const COMMAND = command({
  name: 'restate',
  help: HELP,
  options: { methodology: { type: 'string' }, data: { type: 'string', default: 'data' }, json: { type: 'boolean', default: false } },
});

main(import.meta.url, COMMAND, async ({ values }, io) => {
  const series = oneOf('methodology', required('methodology', values.methodology, `the series to restate, one of ${[...V1_SERIES, 'v2'].join(', ')}`), [...V1_SERIES, 'v2'])!;
  if (series === 'v2') {
    const r = await expected(reproduceV2(values.data));
    if (values.json) io.stdout(`${JSON.stringify(r, null, 2)}\n`);
    else {
      io.stdout(
        [
          `checked ${r.source_rows} v2 rows (${r.ok_rows} ok) over ${r.days.length} days: ${r.differing_rows} contract hashes, ${r.differing_instructions} instructions hashes and ${r.differing_caching} rows' caching fields differ from the recorded ones, ${r.unreadable_rows} rows with bodies unreadable`,
          ...r.examples,
        ].join('\n') + '\n',
      );
    }
    return r.unreadable_rows + r.differing_rows + r.differing_instructions + r.differing_caching > 0 ? 1 : 0;
  }
  const m = await expected(restate(values.data, series));
  if (values.json) io.stdout(`${JSON.stringify(m, null, 2)}\n`);
  else {
    const hl = (s: typeof m.original) => (s.half_life ? `${s.half_life.median} d (at risk ${s.half_life.atRisk})` : '— (insufficient observation window)');
    io.stdout(
      [
        `restated ${m.source_rows} rows (${m.ok_rows} ok) over ${m.days.length} days under ${m.series}: ${m.differing_rows} hashes differ from v1, ${m.unreadable_rows} bodies unreadable`,
        `v1:          ${m.original.changes} changes in ${m.original.targets_changed} targets, ${m.original.intervals} intervals, half-life ${hl(m.original)}`,
        `${m.series.padEnd(12)} ${m.restated.changes} changes in ${m.restated.targets_changed} targets, ${m.restated.intervals} intervals, half-life ${hl(m.restated)}`,
        `written to ${values.data}/restatements/${m.series}/ — note: ${m.note}`,
      ].join('\n') + '\n',
    );
  }
  return m.unreadable_rows > 0 || (m.series === 'v1' && m.differing_rows > 0) ? 1 : 0;
});
