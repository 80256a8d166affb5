// Listing and reading the archive's line files, for every Node reader of an archive (the site's
// loader and bundles, verify, restate, compact, the collector's store): one place that knows how a
// day is split over files and what a line is, so none of them globs or splits on its own.
//
//   - a day is observations/<day>.jsonl.gz (closed) followed by observations/<day>.jsonl (open), and
//     the same in each series' folder (observations-v2/);
//   - lines end at LF, CR or CRLF, as node:readline reads them, and a last line without its newline
//     is still a line (the loader reports it when it does not parse; see tornLastLine);
//   - day files are streamed or read a day at a time, never the whole archive at once.
import { closeSync, createReadStream, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip, gunzipSync } from 'node:zlib';
import { DAY_FILE, dayFile, LAYOUT } from './layout.ts';

export interface DayFiles {
  day: string;
  /** Paths relative to the archive, gzipped part first. */
  files: string[];
}

/**
 * The day files of an archive, oldest day first; an archive without observations/ has none. `folder`:
 * another folder of row files laid out the same way (a series folder: layout.ts SERIES_FOLDER, ROW_SERIES_DIR).
 */
export function listDays(dir: string, folder: string = LAYOUT.observations): DayFiles[] {
  const obs = join(dir, folder);
  if (!existsSync(obs)) return [];
  const byDay = new Map<string, { gz?: string; plain?: string }>();
  for (const name of readdirSync(obs)) {
    const m = DAY_FILE.exec(name);
    if (!m) continue;
    const entry = byDay.get(m[1]!) ?? {};
    if (m[2]) entry.gz = dayFile(m[1]!, true, folder);
    else entry.plain = dayFile(m[1]!, false, folder);
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

/**
 * The lines of a day, numbered across its files as readDayLines numbers them; a line nobody asked for
 * is yielded as null without being decoded (a whole day is one buffer: a day file is tens of MB at
 * most). A file holding a CR falls back to readDayLines, whose line breaks we would otherwise have to
 * mimic.
 */
export async function* scanDayLines(dir: string, day: DayFiles, wanted: (line: number) => boolean): AsyncGenerator<string | null> {
  const buffers = day.files.map((f) => {
    const raw = readFileSync(join(dir, f));
    return f.endsWith('.gz') ? gunzipSync(raw) : raw;
  });
  if (buffers.some((b) => b.includes(0x0d))) {
    for await (const { line } of readDayLines(dir, day)) yield line;
    return;
  }
  let n = 0;
  for (const buf of buffers) {
    let start = 0;
    while (start < buf.length) {
      let end = buf.indexOf(0x0a, start);
      if (end < 0) end = buf.length;
      n++;
      yield wanted(n) ? buf.toString('utf8', start, end) : null;
      start = end + 1;
    }
  }
}

/** The lines of a small file held whole (runs.jsonl), split as node:readline splits them. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * The torn-line rule: a line file whose last byte is not a newline ends in a torn line (a writer died
 * mid-append). The collector cuts such a tail into quarantine/ on its next start; verify reports it.
 */
export function tornLastLine(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return false;
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, size - 1);
    return b[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}
