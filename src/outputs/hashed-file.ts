// A file written through a stream, hashed as it is written (SHA-256 is never computed by reading a
// file back): the /data/ bundles (bundles.ts) and the bulk descriptors (server-files.ts).
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * A file written through a stream that honours backpressure, hashed as it is written. Gzip members
 * are written whole (gzipChunk: one member per call, Node's header carries mtime 0, so the same input
 * gives the same bytes).
 */
export class HashedFile {
  private readonly out: WriteStream | null;
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private pendingText: string[] = [];
  /** `file` null: only hash what is written (a file another writer made, read back through copy: the Parquet bundles). */
  constructor(file: string | null) {
    if (file) mkdirSync(path.dirname(file), { recursive: true });
    this.out = file ? createWriteStream(file) : null;
  }

  async write(chunk: Buffer): Promise<void> {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    if (this.out && !this.out.write(chunk)) await once(this.out, 'drain');
  }

  async gzipChunk(text: string): Promise<void> {
    await this.write(gzipSync(text));
  }

  /** Lines gzipped as one member, in chunks so memory stays flat (each chunk is its own member). */
  async gzipLines(lines: Iterable<string>): Promise<void> {
    let size = 0;
    for (const line of lines) {
      this.pendingText.push(line);
      size += line.length;
      if (size > 1 << 20) {
        await this.gzipChunk(this.pendingText.join(''));
        this.pendingText = [];
        size = 0;
      }
    }
    if (this.pendingText.length) await this.gzipChunk(this.pendingText.join(''));
    this.pendingText = [];
  }

  async copy(file: string): Promise<void> {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) await this.write(chunk as Buffer);
  }

  async end(): Promise<{ sha256: string; bytes: number }> {
    if (this.out) {
      this.out.end();
      await once(this.out, 'close');
    }
    return { sha256: this.hash.digest('hex'), bytes: this.bytes };
  }
}

