// `npm run compact`: gzip closed day files (observations/<day>.jsonl → <day>.jsonl.gz, and the same in
// each series' folder, observations-v2/) and finished runs' rosters (rosters/<day>.json → .json.gz), the answer to
// an archive that outgrows a git repository (~25,000 rows a day; JSONL compresses about tenfold).
// Every reader goes through src/archive/day-files.ts, which reads both forms, so nothing else changes.
//
// A day is closed when it is older than the newest run's day and every run with rows on it has
// finished (a run row of that series exists): the collector will not append to it again, except for a deliberate
// late run with an old --now, whose rows then land in a fresh plain file beside the gz.
//
// Crash safety, under the collector's lock: the gz is written to a temp file, fsynced, read back and
// compared line for line, renamed into place, and only then is the plain file removed. A crash
// between the rename and the removal leaves both files with the same lines; the next Store.open (or
// compact) finds the plain file's whole content at the end of the gz and removes the plain file.
import fs from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync, constants as zlib } from 'node:zlib';
import { fsyncPath, writeAtomic } from '../../src/archive/atomic.ts';
import { listDays } from '../../src/archive/day-files.ts';
import { dayFile, LAYOUT, ROSTER_FILE, rosterPath, SERIES_FOLDER } from '../../src/archive/layout.ts';
import { ROSTER_GZ } from '../../src/archive/rosters.ts';
import { dayFileRows, dayFileRowsV2 } from '../../src/archive/observations.ts';
import { RUN_SERIES } from '../../src/lib/index.ts';
import { Store } from '../store.ts';

export interface CompactSummary {
  /** Days compacted (v1), and days of the other series as `<series>/<day>` (e.g. `v2/2026-12-01`). */
  compacted: string[];
  /** Roster files gzipped in place (rosters/<day>.json → <day>.json.gz): those a finished run names. */
  rosters: string[];
  skipped_open_days: string[];
  bytes_before: number;
  bytes_after: number;
}

export interface CompactOptions {
  /**
   * Also close the newest day once every run with rows on it has finished (the collect job, after its
   * run): git then never carries a plain day file, whose bytes history would keep beside the gz for
   * good. A later run on that day appends to a fresh plain file beside the gz, and the next compaction
   * folds it in. Default false: only days older than the newest run's day.
   */
  finished?: boolean;
}

export function compactArchive(dataDir: string, options: CompactOptions = {}): CompactSummary {
  const store = Store.open(dataDir, new Date().toISOString());
  try {
    const runs = store.readRuns();
    const newestDay = runs.map((r) => r.day).sort().at(-1) ?? null;
    const summary: CompactSummary = { compacted: [], rosters: [], skipped_open_days: [], bytes_before: 0, bytes_after: 0 };
    for (const series of RUN_SERIES) {
    const folder = SERIES_FOLDER[series];
    const finished = new Set(runs.filter((r) => r.methodology_version === series).map((r) => r.run_id));
    const label = (day: string) => (series === 'v1' ? day : `${series}/${day}`);
    const rowsOf = series === 'v1' ? dayFileRows : dayFileRowsV2;
    for (const day of listDays(dataDir, folder)) {
      const plain = day.files.find((f) => !f.endsWith('.gz'));
      if (!plain) continue;
      const plainPath = join(dataDir, plain);
      const text = fs.readFileSync(plainPath);
      // A row compaction cannot read throws: a day is never closed on a guess about its runs.
      const runIds = new Set(rowsOf(plain, text.toString('utf8')).map((r) => r.run_id));
      const open = newestDay === null || (options.finished ? day.day > newestDay : day.day >= newestDay) || [...runIds].some((id) => !finished.has(id));
      if (open) {
        summary.skipped_open_days.push(label(day.day));
        continue;
      }
      const gzPath = join(dataDir, dayFile(day.day, true, folder));
      const before = fs.existsSync(gzPath) ? gunzipSync(fs.readFileSync(gzPath)) : Buffer.alloc(0);
      const whole = Buffer.concat([before, text]);
      const packed = gzipSync(whole, { level: zlib.Z_BEST_COMPRESSION });
      if (!gunzipSync(packed).equals(whole)) throw new Error(`gzip round trip of ${day.day} failed; nothing changed`);
      writeAtomic(gzPath, packed, { durable: true });
      fsyncPath(join(dataDir, folder));
      fs.unlinkSync(plainPath);
      fsyncPath(join(dataDir, folder));
      summary.compacted.push(label(day.day));
      summary.bytes_before += before.length + text.length;
      summary.bytes_after += packed.length;
    }
    }
    compactRosters(dataDir, new Set(runs.map((r) => r.roster_file).filter((f): f is string => f !== null)), summary);
    return summary;
  } finally {
    store.close();
  }
}

/**
 * Gzip the rosters finished runs name (a roster is written once, at a run's start, and never changed):
 * the same crash-safe steps as a day file — temp gz, fsync, read back and compared, rename, then the
 * plain file goes. A roster's name and bytes stay what they were (src/archive/rosters.ts reads both).
 */
function compactRosters(dataDir: string, named: Set<string>, summary: CompactSummary): void {
  const dir = join(dataDir, LAYOUT.rosters);
  for (const file of [...named].sort()) {
    const plain = rosterPath(dataDir, file);
    if (!ROSTER_FILE.test(file) || !fs.existsSync(plain)) continue;
    const text = fs.readFileSync(plain);
    const packed = gzipSync(text, { level: zlib.Z_BEST_COMPRESSION });
    if (!gunzipSync(packed).equals(text)) throw new Error(`gzip round trip of roster ${file} failed; nothing changed`);
    writeAtomic(`${plain}${ROSTER_GZ}`, packed, { durable: true });
    fsyncPath(dir);
    fs.unlinkSync(plain);
    fsyncPath(dir);
    summary.rosters.push(file);
    summary.bytes_before += text.length;
    summary.bytes_after += packed.length;
  }
}
