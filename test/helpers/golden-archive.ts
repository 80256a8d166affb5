// Copies of the frozen collector-made archive (fixtures/archive/golden) for tests that damage one.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const GOLDEN = path.join(import.meta.dirname, '..', '..', 'fixtures', 'archive', 'golden');

const scratch: string[] = [];

/** A fresh copy of the golden archive in a temporary folder (removed by cleanUp). */
export async function goldenCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-schema-archive-test-'));
  scratch.push(dir);
  await cp(GOLDEN, dir, { recursive: true });
  return dir;
}

export async function cleanUp(): Promise<void> {
  for (const d of scratch.splice(0)) await rm(d, { recursive: true, force: true });
}
