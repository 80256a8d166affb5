// Writing a file so that its name only ever points at complete bytes: write a temp file beside it,
// fsync it when durability is asked for, rename it into place (and, when durable, fsync the folder, so
// the new name itself survives a power cut). Used for objects, the compaction's gz, the build cache and
// the bundle members; the collector's rosters use tempName and writeDurably, then link (a roster is
// never overwritten). Temp names carry `.tmp-<pid>-`: Store.open sweeps what a killed writer left
// (layout.ts TEMP_MARK), and verify reports it.
//
// The file-system calls that make bytes durable go through `FsEffects` (default: node:fs), so a test
// can record which files were fsynced, and in what order, without mocking the code under test.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { dirname } from 'node:path';

/** An open file as writeAtomicAsync uses it. */
export interface FileLike {
  writeFile(bytes: Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The writes and syncs of the archive's writers (src/archive/atomic.ts, collector/store.ts). */
export interface FsEffects {
  openSync(path: string, flags: string): number;
  writeSync(fd: number, data: Uint8Array | string): number;
  fsyncSync(fd: number): void;
  fdatasyncSync(fd: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  linkSync(existing: string, to: string): void;
  open(path: string, flags: string): Promise<FileLike>;
  rename(from: string, to: string): Promise<void>;
}

export const nodeFs: FsEffects = {
  openSync: (path, flags) => fs.openSync(path, flags),
  writeSync: (fd, data) => (typeof data === 'string' ? fs.writeSync(fd, data) : fs.writeSync(fd, data)),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  fdatasyncSync: (fd) => fs.fdatasyncSync(fd),
  closeSync: (fd) => fs.closeSync(fd),
  renameSync: (from, to) => fs.renameSync(from, to),
  linkSync: (existing, to) => fs.linkSync(existing, to),
  open: (path, flags) => fs.promises.open(path, flags),
  rename: (from, to) => fs.promises.rename(from, to),
};

/** A fresh temp name beside `file` (same folder, so the rename is atomic). */
export function tempName(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export interface WriteOptions {
  /** fsync the bytes before the rename (the record); the build cache can be rebuilt and skips it. */
  durable?: boolean;
  fx?: FsEffects;
}

export function writeAtomic(file: string, bytes: Uint8Array, opts: WriteOptions = {}): void {
  const fx = opts.fx ?? nodeFs;
  fs.mkdirSync(dirname(file), { recursive: true });
  const tmp = tempName(file);
  writeDurably(tmp, bytes, opts.durable ?? false, fx);
  fx.renameSync(tmp, file);
  if (opts.durable) fsyncPath(dirname(file), fx);
}

/** writeAtomic without blocking the event loop (the collector stores bodies while other probes run). */
export async function writeAtomicAsync(file: string, bytes: Uint8Array, opts: WriteOptions = {}): Promise<void> {
  const fx = opts.fx ?? nodeFs;
  await fs.promises.mkdir(dirname(file), { recursive: true });
  const tmp = tempName(file);
  const fh = await fx.open(tmp, 'wx');
  try {
    await fh.writeFile(bytes);
    if (opts.durable) await fh.sync();
  } finally {
    await fh.close();
  }
  await fx.rename(tmp, file);
  if (opts.durable) {
    const dir = await fx.open(dirname(file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}

/** Create `path` (never overwrite) with `bytes`, fsynced when `durable`. */
export function writeDurably(path: string, bytes: Uint8Array, durable = true, fx: FsEffects = nodeFs): void {
  const fd = fx.openSync(path, 'wx');
  try {
    fx.writeSync(fd, bytes);
    if (durable) fx.fsyncSync(fd);
  } finally {
    fx.closeSync(fd);
  }
}

/** fsync a file or a folder (after a rename or unlink in it, so the entry itself is durable). */
export function fsyncPath(path: string, fx: FsEffects = nodeFs): void {
  const fd = fx.openSync(path, 'r');
  try {
    fx.fsyncSync(fd);
  } finally {
    fx.closeSync(fd);
  }
}
