// A zip of small files with fixed bytes for the same input (fflate): entries in the order given, each
// with the same fixed modification time, so a chart's zip and its checksum change only when a file does.
import { zipSync } from 'fflate';

/** 1980-01-01, the earliest time a zip (DOS date) can hold: no clock enters the bytes. */
const FIXED_MTIME = new Date(Date.UTC(1980, 0, 1, 12));

export function zipFiles(files: readonly (readonly [name: string, bytes: Uint8Array | string])[]): Buffer {
  const entries = Object.fromEntries(files.map(([name, bytes]) => [name, [typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes, { mtime: FIXED_MTIME, level: 9 }] as const]));
  return Buffer.from(zipSync(entries as Parameters<typeof zipSync>[0], { mtime: FIXED_MTIME }));
}
