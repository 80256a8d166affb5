// Writing a file so that its name only ever points at complete bytes: write a temp file beside it,
// fsync it when durability is asked for, rename it into place. Used for objects, the compaction's gz,
// the build cache and the bundle members; the collector's rosters use tempName and writeDurably, then
// link (a roster is never overwritten). Temp names carry `.tmp-<pid>-`: Store.open sweeps what a
// killed writer left (layout.ts TEMP_MARK), and verify reports it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { dirname } from 'node:path';

/** A fresh temp name beside `file` (same folder, so the rename is atomic). */
export function tempName(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export interface WriteOptions {
  /** fsync the bytes before the rename (the record); the build cache can be rebuilt and skips it. */
  durable?: boolean;
}

export function writeAtomic(file: string, bytes: Uint8Array, opts: WriteOptions = {}): void {
  fs.mkdirSync(dirname(file), { recursive: true });
  const tmp = tempName(file);
  writeDurably(tmp, bytes, opts.durable ?? false);
  fs.renameSync(tmp, file);
}

/** writeAtomic without blocking the event loop (the collector stores bodies while other probes run). */
export async function writeAtomicAsync(file: string, bytes: Uint8Array, opts: WriteOptions = {}): Promise<void> {
  await fs.promises.mkdir(dirname(file), { recursive: true });
  const tmp = tempName(file);
  const fh = await fs.promises.open(tmp, 'wx');
  try {
    await fh.writeFile(bytes);
    if (opts.durable) await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, file);
}

/** Create `path` (never overwrite) with `bytes`, fsynced when `durable`. */
export function writeDurably(path: string, bytes: Uint8Array, durable = true): void {
  const fd = fs.openSync(path, 'wx');
  try {
    fs.writeSync(fd, bytes);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** fsync a file or a folder (after a rename or unlink in it, so the entry itself is durable). */
export function fsyncPath(path: string): void {
  const fd = fs.openSync(path, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
