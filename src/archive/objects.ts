// Reading raw objects (objects/<aa>/<sha256>): the name is checked before any path is built, so a
// name taken from a row cannot leave objects/, and the bytes must hash to the name — a mismatch is
// corruption, and corrupt bytes are never shown or re-derived from.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { sha256Hex } from '../lib/index.ts';
import { isObjectName, objectPath } from './layout.ts';

/** An object's bytes, or null when the name is not a sha256, the object is absent, or its bytes do not hash to its name. */
export async function readObject(dir: string, sha256: string): Promise<Buffer | null> {
  if (!isObjectName(sha256)) return null;
  try {
    return verified(sha256, await readFile(objectPath(dir, sha256)));
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** readObject, synchronously (restate reads a body per distinct hash inside a row loop). */
export function readObjectSync(dir: string, sha256: string): Buffer | null {
  if (!isObjectName(sha256)) return null;
  try {
    return verified(sha256, readFileSync(objectPath(dir, sha256)));
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** SHA-256 of a file, streamed (objects can be megabytes; verify hashes every one). */
export function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}

function verified(sha256: string, bytes: Buffer): Buffer | null {
  return sha256Hex(bytes) === sha256 ? bytes : null;
}

function isMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'ENOENT';
}
