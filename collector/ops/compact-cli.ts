// npm run compact -- [--data <dir>] [--finished] [--json]
import { command, exitCodes, expected, main } from '../cli-kit/index.ts';
import { compactArchive } from './compact.ts';

export const HELP = `usage: npm run compact -- [--data <dir>] [--finished] [--json]

Gzips closed day files: observations/<day>.jsonl → <day>.jsonl.gz, same lines in the same order, and
the same in each series folder (observations-v2/); and the rosters finished runs name:
rosters/<day>.json → <day>.json.gz, same bytes, same roster name.
A day is closed when it is older than the newest run's day and all its runs have finished. Every
reader (site, verify, restate, the chain) reads both forms. Takes the collector's lock.

  --data <dir>   the archive (default: data/)
  --finished     close the newest day too once all its runs have finished (the collect job, so git
                 never carries a plain day file; a later run that day starts a plain file beside it)
  --json         print the summary as JSON
  -h, --help     this text

${exitCodes({ 0: 'compacted (or nothing to compact)', 1: 'a day or roster could not be read or gzipped back to the same bytes (nothing changed)', 2: 'an unusable --data', 3: 'another collector holds the lock' })}`;

export const COMMAND = command({
  name: 'compact',
  help: HELP,
  options: { data: { type: 'string', default: 'data' }, finished: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
});

main(import.meta.url, COMMAND, async ({ values }, io) => {
  // A day compaction cannot read (a torn row) is a failure of the archive, exit 1: never closed on a guess.
  const s = await expected(() => compactArchive(values.data, { finished: values.finished }));
  io.stdout(
    values.json
      ? `${JSON.stringify(s, null, 2)}\n`
      : `compacted ${s.compacted.length} day files and ${s.rosters.length} rosters (${s.bytes_before} → ${s.bytes_after} bytes); left open: ${s.skipped_open_days.join(', ') || 'none'}\n`,
  );
});
