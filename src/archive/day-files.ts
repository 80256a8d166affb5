// The archive's files on disk, for every Node reader of an archive (the site's loader, verify, restate,
// compact): one place that knows the layout, so none of them globs on its own.
//
//   observations/<day>.jsonl      the day being written (appended by the collector)
//   observations/<day>.jsonl.gz   a closed day, gzipped by `npm run compact` (same lines, same order)
//   objects/<aa>/<sha256>         raw bytes named by their SHA-256
//
// A day may have both files for a short while (a late run appended to a day that was already
// compacted): its rows are the gzipped lines followed by the plain ones.
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

export const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl(\.gz)?$/;

export interface DayFiles {
  day: string;
  /** Paths relative to the archive, gzipped part first. */
  files: string[];
}

/** The day files of an archive, oldest day first; an archive without observations/ has none. */
export function listDays(dir: string): DayFiles[] {
  const obs = join(dir, 'observations');
  if (!existsSync(obs)) return [];
  const byDay = new Map<string, { gz?: string; plain?: string }>();
  for (const name of readdirSync(obs)) {
    const m = DAY_FILE.exec(name);
    if (!m) continue;
    const entry = byDay.get(m[1]!) ?? {};
    if (m[2]) entry.gz = `observations/${name}`;
    else entry.plain = `observations/${name}`;
    byDay.set(m[1]!, entry);
  }
  return [...byDay.keys()].sort().map((day) => {
    const e = byDay.get(day)!;
    return { day, files: [e.gz, e.plain].filter((f): f is string => f !== undefined) };
  });
}

/** Lines of a .jsonl or .jsonl.gz file, streamed (never the whole file in one string). */
export async function* readLines(path: string): AsyncGenerator<string> {
  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  raw.on('error', (e) => input.destroy(e));
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) yield line;
}

/** Lines of every file of one day, in order, with the file each came from and its line number. */
export async function* readDayLines(dir: string, day: DayFiles): AsyncGenerator<{ line: string; file: string; n: number }> {
  for (const file of day.files) {
    let n = 0;
    for await (const line of readLines(join(dir, file))) yield { line, file, n: ++n };
  }
}

/** Where an object lives; the caller checks the name is a sha256 before using it. */
export function objectPath(dir: string, sha256: string): string {
  return join(dir, 'objects', sha256.slice(0, 2), sha256);
}
